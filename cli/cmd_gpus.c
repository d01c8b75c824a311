/* ridge gpus: the built-in catalogue, one row per GPU.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "cli.h"
#include "json_emit.h"
#include "listing.h"

static const char help[] =
    "usage: ridge gpus [--format text|json|csv]\n"
    "\n"
    "Lists the built-in GPUs: id, name, architecture, memory, bandwidth, dense 16-bit tensor and\n"
    "FP32 peaks, board power, and whether MIG is supported. 'ridge gpu show ID' prints all fields.\n";

int cmd_gpus(int argc, char **argv)
{
    cli_listing l;
    int rc = cli_listing_open(&l, argc, argv, "gpus", help, 9, "gpus");
    if (rc >= 0)
        return rc;
    const cli_format fmt = l.fmt;
    {
        const char *hdr_text[9] = {"id", "name", "arch", "memory [GiB]", "bandwidth [GB/s]", "16-bit tensor [TFLOP/s]",
                                   "FP32 [TFLOP/s]", "TDP [W]", "MIG"};
        const char *hdr_csv[9] = {"id", "name", "architecture", "memory_gib", "bandwidth_gb_per_s",
                                  "tensor_16bit_tflop_per_s", "fp32_tflop_per_s", "tdp_w", "mig"};
        cli_table_add(&l.t, fmt == CLI_FMT_CSV ? hdr_csv : hdr_text);
        for (int k = 3; k <= 7; k++)
            l.t.right[k] = 1;
    }
    rc = CLI_EXIT_OK;
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
            const cli_json_field f[] = {
                CLI_JSTR("id", g.id), CLI_JSTR("name", g.name), CLI_JSTR("architecture", g.architecture),
                CLI_JNUM("memory_bytes", g.memory_bytes),
                CLI_JNUM("memory_bandwidth_bytes_per_s", g.memory_bw_bytes_per_s),
                CLI_JNUM_OR_NULL("tensor_16bit_flops_per_s", t16 > 0, t16),
                CLI_JNUM("fp32_flops_per_s", g.peak_flops_per_s[RIDGE_PEAK_FP32]), CLI_JNUM("tdp_w", g.tdp_w),
                CLI_JBOOL("mig", g.mig_count > 0)};
            cJSON_AddItemToArray(l.arr, CLI_JSON_ADD(cJSON_CreateObject(), f));
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
            cli_table_add(&l.t, row);
        }
    }
    return cli_listing_end(&l, rc);
}
