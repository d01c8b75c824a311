/* ridge compare --per-op: where the step-time difference to the first GPU comes from, split by
 * what bounds each kernel on the slower GPU, in JSON and as the text table below the kernels
 * (docs/cli.md, "compare --per-op").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare_per_op.h"
#include "json_emit.h"

/* Where a share of the step-time difference comes from: the bound of the kernel on the slower
 * GPU (compute on tensor or vector units, DRAM or L2 bandwidth, latency floors, host), and the
 * batch when the GPUs run different ones. */
typedef enum { SRC_TENSOR, SRC_VECTOR, SRC_BANDWIDTH, SRC_LATENCY, SRC_HOST, SRC_CAPACITY, SRC_COUNT } po_source;
static const char *const src_key[SRC_COUNT] = {"tensor_throughput", "vector_throughput", "bandwidth",
                                               "latency",           "host",              "capacity_batch"};

static po_source source_of(const ridge_op_result *r)
{
    switch (r->bound) {
    case RIDGE_BOUND_COMPUTE: return r->kernel.tensor ? SRC_TENSOR : SRC_VECTOR;
    case RIDGE_BOUND_MEMORY:
    case RIDGE_BOUND_L2: return SRC_BANDWIDTH;
    case RIDGE_BOUND_LATENCY: return SRC_LATENCY;
    default: return SRC_HOST;
    }
}

/* The step-time difference of GPU k to the first, by source. */
typedef struct {
    double diff_s; /* first GPU's step - GPU k's: > 0 when GPU k is faster */
    double part_s[SRC_COUNT];
} po_split;

/* Each kernel's t_1 - t_k goes to the source of its bound on the GPU of the two where it takes
 * longer (on the one that has it, where only one does); the parts add up to the step difference
 * because the kernels' times add up to the step (docs/cli.md). The batch is the same on every GPU
 * here, so capacity takes none of it. */
static void split_diff(const po_match *m, int k, po_split *s)
{
    const cli_compare_run *c = m->c;
    memset(s, 0, sizeof *s);
    s->diff_s = c->p[0].time_s - c->p[k].time_s;
    for (size_t r = 0; r < m->nrows; r++) {
        const ridge_op_result *a = po_row_res(m, r, 0), *b = po_row_res(m, r, k);
        double ta = a ? a->time_s : 0, tb = b ? b->time_s : 0;
        const ridge_op_result *slow = !a ? b : !b ? a : tb > ta ? b : a;
        if (slow)
            s->part_s[source_of(slow)] += ta - tb;
    }
}

void po_summary_json(const po_match *m, cJSON *root)
{
    const cli_compare_run *c = m->c;
    cJSON *arr = cJSON_AddArrayToObject(root, "speedup_sources");
    for (int k = 1; k < c->n; k++) {
        po_split s;
        cJSON *o = cJSON_CreateObject(), *by;
        split_diff(m, k, &s);
        const cli_json_field f[] = {CLI_JSTR("gpu", c->g[k].id), CLI_JSTR("first_gpu", c->g[0].id),
                                    CLI_JNUM("step_time_difference_s", s.diff_s), CLI_JBOOL("same_batch", 1)};
        CLI_JSON_ADD(o, f);
        by = cJSON_AddArrayToObject(o, "sources");
        for (int q = 0; q < SRC_COUNT; q++) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "source", src_key[q]);
            cJSON_AddNumberToObject(e, "time_s", s.part_s[q]);
            if (s.diff_s != 0)
                cJSON_AddNumberToObject(e, "share", s.part_s[q] / s.diff_s);
            else
                cJSON_AddNullToObject(e, "share");
            cJSON_AddItemToArray(by, e);
        }
        cJSON_AddItemToArray(arr, o);
    }
}

/* A share in per cent, "-" when there is no difference to share. */
static void share_cell(double part_s, double diff_s, char *b, size_t n)
{
    double v = diff_s != 0 ? 100 * part_s / diff_s : 0;
    if (diff_s == 0)
        snprintf(b, n, "-");
    else
        snprintf(b, n, "%.1f %%", fabs(v) < 0.05 ? 0.0 : v);
}

/* Below the tables: one row per GPU after the first, its step-time difference to the first and
 * the shares of it by source. */
int po_summary_text(const po_match *m)
{
    const cli_compare_run *c = m->c;
    static const char *const head[3 + SRC_COUNT] = {"gpu",     "speedup", "time saved", "tensor", "vector",
                                                    "bandwidth", "latency", "host",     "capacity (batch)"};
    char cells[3 + SRC_COUNT][48];
    const char *row[3 + SRC_COUNT];
    cli_table t;
    int bad;
    if (cli_table_init(&t, 3 + SRC_COUNT))
        return CLI_EXIT_FAILURE;
    for (int q = 0; q < 3 + SRC_COUNT; q++) {
        row[q] = cells[q];
        t.right[q] = q > 0;
    }
    bad = cli_table_add(&t, head);
    for (int k = 1; k < c->n && !bad; k++) {
        po_split s;
        split_diff(m, k, &s);
        snprintf(cells[0], sizeof cells[0], "%.40s", c->g[k].id);
        po_speedup_x(c->p[0].time_s / c->p[k].time_s, cells[1], sizeof cells[1]);
        po_human_time(s.diff_s, cells[2], sizeof cells[2]);
        for (int q = 0; q < SRC_COUNT; q++)
            share_cell(s.part_s[q], s.diff_s, cells[3 + q], sizeof cells[3 + q]);
        bad = cli_table_add(&t, row);
    }
    if (!bad) {
        printf("\nWhere the step-time difference to %s comes from: each kernel's time saved goes to what bounds\n"
               "it on the GPU where it is slower (tensor or vector throughput, DRAM or L2 bandwidth, latency\n"
               "floors, host); the shares add up to 100 %%.\n\n",
               c->g[0].id);
        cli_table_print_text(&t, stdout);
        printf("\nA negative share: kernels of that kind are slower on the faster GPU and take back part of the\n"
               "difference. capacity (batch) is 0: every GPU runs the same batch (%.0f).\n",
               c->run->batch);
    }
    cli_table_free(&t);
    return bad ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}
