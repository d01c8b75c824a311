/* ridge gpus: the built-in catalogue, one row per GPU.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "cli.h"
#include "listing.h"

static const char help[] =
    "usage: ridge gpus [--format text|json|csv]\n"
    "\n"
    "Lists the built-in GPUs: id, name, architecture, memory, bandwidth, dense 16-bit tensor and\n"
    "FP32 peaks, board power, and whether MIG is supported. 'ridge gpu show ID' prints all fields.\n";

/* JSON in bytes and FLOP/s, text and CSV (the same cells) in GiB, GB/s and TFLOP/s; width 1:
 * right-aligned. */
static const cli_emit_col cols[] = {
    CLI_EMIT_STR_COL("id", "id", "id"),
    CLI_EMIT_STR_COL("name", "name", "name"),
    CLI_EMIT_STR_COL("architecture", "architecture", "arch"),
    {"memory_bytes", NULL, "memory_gib", "memory [GiB]", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_gib, cli_emit_fmt_gib},
    {"memory_bandwidth_bytes_per_s", NULL, "bandwidth_gb_per_s", "bandwidth [GB/s]", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_giga,
     cli_emit_fmt_giga},
    {"tensor_16bit_flops_per_s", NULL, "tensor_16bit_tflop_per_s", "16-bit tensor [TFLOP/s]", 1, 1, CLI_EMIT_NUM, 0,
     cli_emit_fmt_tera, cli_emit_fmt_tera},
    {"fp32_flops_per_s", NULL, "fp32_tflop_per_s", "FP32 [TFLOP/s]", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_tera, cli_emit_fmt_tera},
    {"tdp_w", NULL, "tdp_w", "TDP [W]", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_num, cli_emit_fmt_num},
    {"mig", NULL, "mig", "MIG", 0, 1, CLI_EMIT_BOOL, 0, cli_emit_fmt_yes_no, cli_emit_fmt_yes_no},
};

int cmd_gpus(int argc, char **argv)
{
    cli_listing l;
    int rc = cli_listing_open(&l, argc, argv, "gpus", help, cols, sizeof cols / sizeof cols[0], "gpus");
    if (rc >= 0)
        return rc;
    rc = CLI_EXIT_OK;
    for (size_t i = 0; i < ridge_catalog_count(); i++) {
        ridge_gpu g;
        ridge_err err;
        double t16;
        if (ridge_catalog_load(ridge_catalog_id(i), &g, &err) != RIDGE_OK) {
            cli_error("%s", err.msg);
            rc = CLI_EXIT_USAGE;
            break;
        }
        t16 = g.peak_flops_per_s[RIDGE_PEAK_BF16] > 0 ? g.peak_flops_per_s[RIDGE_PEAK_BF16]
                                                       : g.peak_flops_per_s[RIDGE_PEAK_FP16_FP32ACC];
        const cli_emit_val v[] = {{g.id, 0, 0},
                                  {g.name, 0, 0},
                                  {g.architecture, 0, 0},
                                  {NULL, g.memory_bytes, 0},
                                  {NULL, g.memory_bw_bytes_per_s, 0},
                                  {NULL, t16, !(t16 > 0)},
                                  {NULL, g.peak_flops_per_s[RIDGE_PEAK_FP32], 0},
                                  {NULL, g.tdp_w, 0},
                                  {NULL, g.mig_count > 0, 0}};
        if (cli_emit_row(&l.e, v, 1))
            rc = CLI_EXIT_FAILURE;
    }
    return cli_listing_end(&l, rc);
}
