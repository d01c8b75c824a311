/* ridge gpus: the built-in catalogue, one row per GPU.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <getopt.h>
#include <string.h>

#include "cli.h"

static const char help[] =
    "usage: ridge gpus [--format text|json|csv]\n"
    "\n"
    "Lists the built-in GPUs: id, name, architecture, memory, bandwidth, dense 16-bit tensor and\n"
    "FP32 peaks, board power, and whether MIG is supported. 'ridge gpu show ID' prints all fields.\n";

int cmd_gpus(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, 0, 'f'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    cli_format fmt = CLI_FMT_TEXT;
    cli_table t;
    cJSON *root = NULL, *arr = NULL;
    int c, rc = CLI_EXIT_OK;
    optind = 1;
    opterr = 0; /* one line of our own instead of getopt's */
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (cli_parse_format(optarg, &fmt))
                return CLI_EXIT_USAGE;
            break;
        case 'h': fputs(help, stdout); return CLI_EXIT_OK;
        case ':':
        default: return cli_getopt_error("gpus", c, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("gpus", "unexpected argument '%s'", argv[optind]);
    if (cli_table_init(&t, 9))
        return CLI_EXIT_FAILURE;
    {
        const char *hdr_text[9] = {"id", "name", "arch", "memory [GiB]", "bandwidth [GB/s]", "16-bit tensor [TFLOP/s]",
                                   "FP32 [TFLOP/s]", "TDP [W]", "MIG"};
        const char *hdr_csv[9] = {"id", "name", "architecture", "memory_gib", "bandwidth_gb_per_s",
                                  "tensor_16bit_tflop_per_s", "fp32_tflop_per_s", "tdp_w", "mig"};
        cli_table_add(&t, fmt == CLI_FMT_CSV ? hdr_csv : hdr_text);
        for (int k = 3; k <= 7; k++)
            t.right[k] = 1;
    }
    if (fmt == CLI_FMT_JSON) {
        root = cJSON_CreateObject();
        cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
        arr = cJSON_AddArrayToObject(root, "gpus");
    }
    for (size_t i = 0; i < ridge_catalog_count(); i++) {
        ridge_gpu g;
        ridge_err err;
        char b[5][32];
        double t16;
        if (ridge_catalog_load(ridge_catalog_id(i), &g, &err) != RIDGE_OK) {
            cli_error("%s", err.msg);
            rc = CLI_EXIT_USAGE;
            break;
        }
        t16 = g.peak_flops_per_s[RIDGE_PEAK_BF16] > 0 ? g.peak_flops_per_s[RIDGE_PEAK_BF16]
                                                       : g.peak_flops_per_s[RIDGE_PEAK_FP16_FP32ACC];
        if (fmt == CLI_FMT_JSON) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "id", g.id);
            cJSON_AddStringToObject(o, "name", g.name);
            cJSON_AddStringToObject(o, "architecture", g.architecture);
            cJSON_AddNumberToObject(o, "memory_bytes", g.memory_bytes);
            cJSON_AddNumberToObject(o, "memory_bandwidth_bytes_per_s", g.memory_bw_bytes_per_s);
            if (t16 > 0)
                cJSON_AddNumberToObject(o, "tensor_16bit_flops_per_s", t16);
            else
                cJSON_AddNullToObject(o, "tensor_16bit_flops_per_s");
            cJSON_AddNumberToObject(o, "fp32_flops_per_s", g.peak_flops_per_s[RIDGE_PEAK_FP32]);
            cJSON_AddNumberToObject(o, "tdp_w", g.tdp_w);
            cJSON_AddBoolToObject(o, "mig", g.mig_count > 0);
            cJSON_AddItemToArray(arr, o);
        } else {
            const char *row[9] = {g.id,
                                  g.name,
                                  g.architecture,
                                  cli_num(g.memory_bytes / 1073741824.0, b[0], 32),
                                  cli_num(g.memory_bw_bytes_per_s / 1e9, b[1], 32),
                                  t16 > 0 ? cli_num(t16 / 1e12, b[2], 32) : "-",
                                  cli_num(g.peak_flops_per_s[RIDGE_PEAK_FP32] / 1e12, b[3], 32),
                                  cli_num(g.tdp_w, b[4], 32),
                                  g.mig_count > 0 ? "yes" : "no"};
            cli_table_add(&t, row);
        }
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
