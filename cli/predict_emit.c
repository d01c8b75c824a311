/* Formatting predictions, shared by predict and compare: per-op rows (text, JSON, CSV), memory,
 * and the run a prediction is for.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "predict_emit.h"

#include <stdio.h>

#include "emit.h"
#include "json_emit.h"

static void op_label(const ridge_op *op, size_t i, char *buf, size_t cap)
{
    if (op->name[0])
        snprintf(buf, cap, "%s", op->name);
    else
        snprintf(buf, cap, "%s#%zu", ridge_op_kind_name(op->kind), i);
}

cJSON *cli_op_json(const ridge_op *op, const ridge_op_result *r, size_t i)
{
    const ridge_kernel_result *k = &r->kernel;
    char name[RIDGE_OP_NAME_MAX + 16];
    int cold = op->cold_bytes > 0, tiled = k->tiles > 0;
    op_label(op, i, name, sizeof name);
    const cli_json_field f[] = {
        CLI_JNUM("index", (double)i), CLI_JSTR("name", name), CLI_JSTR("op", ridge_op_kind_name(op->kind)),
        CLI_JSTR("dtype", ridge_dtype_name(op->dtype)), CLI_JNUM("count", op->count), CLI_JNUM("time_s", r->time_s),
        CLI_JNUM("time_per_instance_s", k->time_s), CLI_JNUM("gpu_s", r->gpu_s),
        CLI_JNUM("host_wait_s", r->host_wait_s), CLI_JSTR("bound", ridge_bound_name(r->bound)),
        CLI_JSTR("kernel_bound", ridge_bound_name(k->bound)), CLI_JSTR("unit", k->tensor ? "tensor" : "vector"),
        CLI_JSTR("peak", ridge_peak_key(k->peak)), CLI_JNUM("flops", k->flops), CLI_JNUM("dram_bytes", k->dram_bytes),
        CLI_JNUM("l2_bytes", k->l2_bytes), CLI_JNUM_IF("cold_bytes", cold, op->cold_bytes),
        CLI_JNUM_IF("reuse_bytes", cold, op->reuse_bytes),
        CLI_JNUM("intensity_flops_per_byte", k->intensity_flops_per_byte),
        CLI_JNUM("achieved_flops_per_s", k->achieved_flops_per_s),
        CLI_JNUM("achieved_bytes_per_s", k->achieved_bytes_per_s), CLI_JNUM("roof_efficiency", k->roof_efficiency),
        CLI_JNUM("kernels", k->kernels), CLI_JNUM("compute_s", k->compute_s), CLI_JNUM("memory_s", k->memory_s),
        CLI_JNUM("l2_s", k->l2_s), CLI_JNUM("floor_s", k->floor_s), CLI_JNUM_IF("tile_m", tiled, k->tile_m),
        CLI_JNUM_IF("tile_n", tiled, k->tile_n), CLI_JNUM_IF("tiles", tiled, k->tiles),
        CLI_JNUM_IF("waves", tiled, k->waves), CLI_JNUM_IF("wave_efficiency", tiled, k->wave_efficiency),
        CLI_JNUM_IF("split_k", tiled, k->split_k), CLI_JNUM_IF("align_efficiency", tiled, k->align_efficiency)};
    return CLI_JSON_ADD(cJSON_CreateObject(), f);
}

int cli_oplist_json(const ridge_gpu *g, const ridge_oplist *w, ridge_runtime rt, const ridge_op_result *res,
                      const ridge_schedule_totals *tot)
{
    cJSON *root = cJSON_CreateObject(), *ops, *by;
    const cli_json_field f[] = {
        CLI_JNUM("schema_version", CLI_SCHEMA_VERSION), CLI_JSTR("gpu", g->id), CLI_JSTR("workload", w->name),
        CLI_JSTR("runtime", ridge_runtime_name(rt)), CLI_JNUM("total_time_s", tot->total_time_s),
        CLI_JNUM("gpu_busy_s", tot->gpu_busy_s), CLI_JNUM("host_issue_s", tot->host_issue_s),
        CLI_JNUM("host_wait_s", tot->host_wait_s), CLI_JNUM("kernels", tot->kernels), CLI_JNUM("flops", tot->flops),
        CLI_JNUM("dram_bytes", tot->dram_bytes),
        CLI_JNUM("achieved_flops_per_s", tot->total_time_s > 0 ? tot->flops / tot->total_time_s : 0)};
    CLI_JSON_ADD(root, f);
    by = cJSON_AddObjectToObject(root, "time_by_bound_s");
    for (int b = 0; b < RIDGE_BOUND_COUNT; b++)
        cJSON_AddNumberToObject(by, ridge_bound_name((ridge_bound)b), tot->time_by_bound_s[b]);
    ops = cJSON_AddArrayToObject(root, "ops");
    for (size_t i = 0; i < w->n; i++)
        cJSON_AddItemToArray(ops, cli_op_json(&w->ops[i], &res[i], i));
    return cli_print_json(root);
}

/* The op rows of text and CSV (JSON has its own, fuller objects: cli_op_json): text in human
 * time units, %, GFLOP, MB and TFLOP/s, without the index (120 columns: the name says the row),
 * CSV in seconds, fractions, FLOP and bytes; width 1: right-aligned. */
static const cli_emit_col op_cols[] = {
    {NULL, NULL, "index", NULL, 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_whole, cli_emit_fmt_whole},
    CLI_EMIT_STR_COL(NULL, "name", "name"),
    CLI_EMIT_STR_COL(NULL, "op", "op"),
    CLI_EMIT_STR_COL(NULL, "dtype", "dtype"),
    {NULL, NULL, "count", "count", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_whole, cli_emit_fmt_whole},
    {NULL, NULL, "time_s", "time", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_time, NULL},
    {NULL, NULL, "share", "% step", 1, 100, CLI_EMIT_NUM, 0, NULL, cli_emit_fmt_g6},
    CLI_EMIT_STR_COL(NULL, "bound", "bound"),
    {NULL, NULL, "flops", "GFLOP", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_giga, NULL},
    {NULL, NULL, "dram_bytes", "DRAM [MB]", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_mega, NULL},
    {NULL, NULL, "achieved_flops_per_s", "TFLOP/s", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_tera, cli_emit_fmt_g6},
    {NULL, NULL, "roof_efficiency", "roof [%]", 1, 100, CLI_EMIT_NUM, 0, NULL, cli_emit_fmt_g6},
};

int cli_ops_table(const ridge_gpu *g, const ridge_oplist *w, ridge_runtime rt, const ridge_op_result *res,
                       const ridge_schedule_totals *tot, cli_format fmt)
{
    cli_table t;
    cli_emit_table e;
    char b[3][48];
    if (cli_emit_open(&e, op_cols, sizeof op_cols / sizeof op_cols[0], fmt, &t))
        return CLI_EXIT_FAILURE;
    for (size_t i = 0; i < w->n; i++) {
        const ridge_op *op = &w->ops[i];
        const ridge_op_result *r = &res[i];
        char name[RIDGE_OP_NAME_MAX + 16];
        double share = tot->total_time_s > 0 ? r->time_s / tot->total_time_s : 0;
        op_label(op, i, name, sizeof name);
        const cli_emit_val v[] = {{NULL, (double)i, 0},
                                  {name, 0, 0},
                                  {ridge_op_kind_name(op->kind), 0, 0},
                                  {ridge_dtype_name(op->dtype), 0, 0},
                                  {NULL, op->count, 0},
                                  {NULL, r->time_s, 0},
                                  {NULL, share, 0},
                                  {ridge_bound_name(r->bound), 0, 0},
                                  {NULL, r->kernel.flops * op->count, 0},
                                  {NULL, r->kernel.dram_bytes * op->count, 0},
                                  {NULL, r->kernel.achieved_flops_per_s, 0},
                                  {NULL, r->kernel.roof_efficiency, 0}};
        if (cli_emit_row(&e, v, 1)) {
            cli_table_free(&t);
            return CLI_EXIT_FAILURE;
        }
    }
    if (fmt == CLI_FMT_CSV) {
        cli_emit_end(&e);
        return CLI_EXIT_OK;
    }
    char gname[CLI_NAME_TEXT_CAP], wname[CLI_NAME_TEXT_CAP];
    printf("GPU %s (%s), workload %s, runtime %s\n\n", g->id, cli_text(g->name, gname, sizeof gname),
           cli_text(w->name, wname, sizeof wname), ridge_runtime_name(rt));
    cli_emit_end(&e);
    printf("\ntotal time        %s\n", cli_num_time(tot->total_time_s, b[0], 48));
    printf("GPU busy          %s\n", cli_num_time(tot->gpu_busy_s, b[0], 48));
    printf("GPU waiting host  %s (%s kernels, host issue %s)\n", cli_num_time(tot->host_wait_s, b[0], 48),
           cli_num(tot->kernels, b[1], 48), cli_num_time(tot->host_issue_s, b[2], 48));
    printf("work              %s GFLOP, %s MB DRAM, %s TFLOP/s achieved\n", cli_num(tot->flops / 1e9, b[0], 48),
           cli_num(tot->dram_bytes / 1e6, b[1], 48),
           cli_num(tot->total_time_s > 0 ? tot->flops / tot->total_time_s / 1e12 : 0, b[2], 48));
    printf("time by bound    ");
    for (int k = 0; k < RIDGE_BOUND_COUNT; k++)
        printf(" %s %s %%", ridge_bound_name((ridge_bound)k),
               cli_num(tot->total_time_s > 0 ? 100 * tot->time_by_bound_s[k] / tot->total_time_s : 0, b[0], 48));
    printf("\n");
    return CLI_EXIT_OK;
}

cJSON *cli_memory_json(cJSON *parent, const char *key, const ridge_memory *mem, double capacity_bytes, int fits)
{
    const cli_json_field f[] = {
        CLI_JNUM("weights_bytes", mem->weights_bytes),         CLI_JNUM("gradients_bytes", mem->gradients_bytes),
        CLI_JNUM("optimizer_bytes", mem->optimizer_bytes),     CLI_JNUM("activations_bytes", mem->activations_bytes),
        CLI_JNUM("kv_cache_bytes", mem->kv_cache_bytes),       CLI_JNUM("workspace_bytes", mem->workspace_bytes),
        CLI_JNUM("total_bytes", mem->total_bytes),             CLI_JNUM("capacity_bytes", capacity_bytes),
        CLI_JBOOL("fits", fits)};
    return CLI_JSON_ADD(cJSON_AddObjectToObject(parent, key), f);
}

void cli_memory_text(const ridge_memory *mem)
{
    const double gib = 1073741824.0;
    char b[6][48];
    printf("  weights %s, gradients %s, optimizer %s, activations %s, KV cache %s, workspace %s\n",
           cli_num(mem->weights_bytes / gib, b[0], 48), cli_num(mem->gradients_bytes / gib, b[1], 48),
           cli_num(mem->optimizer_bytes / gib, b[2], 48), cli_num(mem->activations_bytes / gib, b[3], 48),
           cli_num(mem->kv_cache_bytes / gib, b[4], 48), cli_num(mem->workspace_bytes / gib, b[5], 48));
}

const char *cli_run_summary(const ridge_run_config *run, const char *note, char *buf, size_t cap)
{
    char acc[48];
    snprintf(buf, cap, "%s, batch %.0f%s, %s%s%s%s%s", ridge_mode_name(run->mode), run->batch,
             cli_grad_accum_note(run, acc, sizeof acc), ridge_dtype_name(run->precision), note,
             run->amp ? " autocast" : "", run->engine ? ", engine fusion" : "",
             run->bn_fused ? ", fused batch norms" : "");
    return buf;
}

void cli_run_json(cJSON *root, const ridge_run_config *run)
{
    const cli_json_field f[] = {CLI_JBOOL("amp", run->amp), CLI_JSTR("fusion", run->engine ? "engine" : "eager"),
                                CLI_JSTR("bn_fusion", run->bn_fused ? "fused" : "separate"),
                                CLI_JSTR("optimizer_impl", ridge_optimizer_impl_name(run->optimizer_impl)),
                                CLI_JNUM("grad_accum", run->grad_accum > 1 ? run->grad_accum : 1)};
    CLI_JSON_ADD(root, f);
}
