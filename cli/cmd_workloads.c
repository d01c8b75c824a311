/* ridge workloads: the built-in model presets.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "ridge/workload.h"

static const char help[] =
    "usage: ridge workloads [--format text|json|csv]\n"
    "\n"
    "Lists the built-in model presets (workloads/*.json): id, family, parameters, and where the\n"
    "hyper-parameters come from. Use an id with --workload in predict and compare, or pass your own\n"
    "model file (docs/workloads.md).\n";

int cmd_workloads(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, 0, 'f'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    cli_format fmt = CLI_FMT_TEXT;
    cli_table t;
    cJSON *root = NULL, *arr = NULL;
    int c, rc = CLI_EXIT_OK;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (cli_parse_format(optarg, &fmt))
                return CLI_EXIT_USAGE;
            break;
        case 'h': fputs(help, stdout); return CLI_EXIT_OK;
        case ':':
        default: return cli_getopt_error("workloads", c, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("workloads", "unexpected argument '%s'", argv[optind]);
    if (cli_table_init(&t, 3))
        return CLI_EXIT_FAILURE;
    {
        const char *h[3] = {"id", "family", fmt == CLI_FMT_CSV ? "params" : "params [M]"};
        cli_table_add(&t, h);
        t.right[2] = 1;
    }
    if (fmt == CLI_FMT_JSON) {
        root = cJSON_CreateObject();
        cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
        arr = cJSON_AddArrayToObject(root, "workloads");
    }
    for (size_t i = 0; i < ridge_model_builtin_count(); i++) {
        ridge_model *m = NULL;
        ridge_err err;
        char b[32];
        if (ridge_model_load_builtin(ridge_model_builtin_id(i), &m, &err) != RIDGE_OK) {
            cli_error("%s", err.msg);
            rc = CLI_EXIT_USAGE;
            break;
        }
        if (fmt == CLI_FMT_JSON) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "id", ridge_model_builtin_id(i));
            cJSON_AddStringToObject(o, "family", ridge_model_family(m));
            cJSON_AddNumberToObject(o, "params", ridge_model_params(m));
            cJSON_AddItemToArray(arr, o);
        } else {
            if (fmt == CLI_FMT_CSV)
                snprintf(b, sizeof b, "%.0f", ridge_model_params(m));
            else
                cli_num(ridge_model_params(m) / 1e6, b, sizeof b);
            const char *row[3] = {ridge_model_builtin_id(i), ridge_model_family(m), b};
            cli_table_add(&t, row);
        }
        ridge_model_free(m);
    }
    if (rc == CLI_EXIT_OK) {
        if (fmt == CLI_FMT_JSON) {
            rc = cli_print_json(root);
            root = NULL;
        } else if (fmt == CLI_FMT_CSV) {
            cli_table_print_csv(&t, stdout);
        } else {
            cli_table_print_text(&t, stdout);
        }
    }
    cJSON_Delete(root);
    cli_table_free(&t);
    return rc;
}
