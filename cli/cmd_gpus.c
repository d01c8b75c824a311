/* ridge gpus: the built-in catalogue, one row per GPU.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "cli.h"
#include "listing.h"

static const char help[] =
    "usage: ridge gpus [--format text|json|csv]\n"
    "\n"
    "Lists the built-in GPUs: id, name, architecture, memory, bandwidth, dense 16-bit tensor and\n"
    "FP32 peaks, board power, and whether MIG is supported (the name in JSON and CSV). 'ridge gpu show ID'\n"
    "prints all fields.\n";

/* JSON and CSV: the same keys and values, bytes and FLOP/s (docs/cli.md, "Keys and units"); text
 * in GiB, GB/s and TFLOP/s, headings short enough for 120 columns; width 1: right-aligned. */
static const cli_emit_col cols[] = {
    CLI_EMIT_STR_COL("id", "id", "id"),
    CLI_EMIT_STR_COL("name", "name", NULL), /* text: 120 columns; the id says it, gpu show has it */
    CLI_EMIT_STR_COL("architecture", "architecture", "arch"),
    {"memory_bytes", NULL, "memory_bytes", "memory [GiB]", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_gib, NULL},
    {"memory_bandwidth_bytes_per_s", NULL, "memory_bandwidth_bytes_per_s", "DRAM [GB/s]", 1, 1, CLI_EMIT_NUM, 0,
     cli_emit_fmt_giga, NULL},
    {"tensor_16bit_flops_per_s", NULL, "tensor_16bit_flops_per_s", "tensor16 [TFLOP/s]", 1, 1, CLI_EMIT_NUM, 0,
     cli_emit_fmt_tera, NULL},
    {"fp32_flops_per_s", NULL, "fp32_flops_per_s", "FP32 [TFLOP/s]", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_tera, NULL},
    {"tdp_w", NULL, "tdp_w", "TDP [W]", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_num, NULL},
    {"mig", NULL, "mig", "MIG", 0, 1, CLI_EMIT_BOOL, 0, cli_emit_fmt_yes_no, NULL},
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
