/* ridge workloads: the built-in model presets.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "cli.h"
#include "json_emit.h"
#include "listing.h"
#include "ridge/workload.h"

static const char help[] =
    "usage: ridge workloads [--format text|json|csv]\n"
    "\n"
    "Lists the built-in model presets (workloads/*.json): id, family, parameters, and where the\n"
    "hyper-parameters come from. Use an id with --workload in predict and compare, or pass your own\n"
    "model file (docs/workloads.md).\n";

int cmd_workloads(int argc, char **argv)
{
    cli_listing l;
    int rc = cli_listing_open(&l, argc, argv, "workloads", help, 3, "workloads");
    if (rc >= 0)
        return rc;
    const cli_format fmt = l.fmt;
    {
        const char *h[3] = {"id", "family", fmt == CLI_FMT_CSV ? "params" : "params [M]"};
        cli_table_add(&l.t, h);
        l.t.right[2] = 1;
    }
    rc = CLI_EXIT_OK;
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
            const cli_json_field f[] = {CLI_JSTR("id", ridge_model_builtin_id(i)),
                                        CLI_JSTR("family", ridge_model_family(m)),
                                        CLI_JNUM("params", ridge_model_params(m))};
            cJSON_AddItemToArray(l.arr, CLI_JSON_ADD(cJSON_CreateObject(), f));
        } else {
            if (fmt == CLI_FMT_CSV)
                snprintf(b, sizeof b, "%.0f", ridge_model_params(m));
            else
                cli_num(ridge_model_params(m) / 1e6, b, sizeof b);
            const char *row[3] = {ridge_model_builtin_id(i), ridge_model_family(m), b};
            cli_table_add(&l.t, row);
        }
        ridge_model_free(m);
    }
    return cli_listing_end(&l, rc);
}
