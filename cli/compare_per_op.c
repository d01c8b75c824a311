/* ridge compare --workload ... --per-op: why one GPU is faster, kernel by kernel. Each kernel of
 * the step on every GPU (time, speed-up over the first GPU, bound, the roof that limits it), and
 * the step-time difference to the first GPU split by what bounds each kernel on the slower GPU
 * (docs/cli.md, "compare --per-op").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "compare_per_op.h"
#include "emit.h"
#include "json_emit.h"

/* The roof of a compute-bound kernel by the peak it ran at. */
static const char *const peak_roof[RIDGE_PEAK_COUNT] = {
    "fp64 vector", "tensor fp64", "fp32 vector", "fp16 vector", "tensor tf32", "tensor fp16",
    "tensor fp16", "tensor bf16", "tensor fp8",  "tensor int8", "tensor int4"};

void po_op_name(const ridge_oplist *ops, size_t i, char *buf, size_t cap)
{
    if (ops->ops[i].name[0])
        snprintf(buf, cap, "%s", ops->ops[i].name);
    else
        snprintf(buf, cap, "%s#%zu", ridge_op_kind_name(ops->ops[i].kind), i);
}

static int same_op(const ridge_oplist *a, size_t i, const ridge_oplist *b, size_t k)
{
    return a->ops[i].kind == b->ops[k].kind && strcmp(a->ops[i].name, b->ops[k].name) == 0;
}

static int same_graph(const cli_compare_run *c)
{
    for (int j = 1; j < c->n; j++) {
        if (c->p[j].ops.n != c->p[0].ops.n)
            return 0;
        for (size_t i = 0; i < c->p[0].ops.n; i++)
            if (!same_op(&c->p[0].ops, i, &c->p[j].ops, i))
                return 0;
    }
    return 1;
}

/* The op of row r on GPU j, or NULL. */
const ridge_op_result *po_row_res(const po_match *m, size_t r, int j)
{
    int k = m->at[r * (size_t)m->c->n + (size_t)j];
    return k < 0 ? NULL : &m->c->p[j].results[k];
}

/* Row r's first GPU with the op, and its index there. */
int po_row_op(const po_match *m, size_t r, const ridge_oplist **ops)
{
    *ops = &m->c->p[0].ops;
    for (int j = 0; j < m->c->n; j++) {
        int k = m->at[r * (size_t)m->c->n + (size_t)j];
        if (k >= 0) {
            *ops = &m->c->p[j].ops;
            return k;
        }
    }
    return -1;
}

/* By index where every GPU has the same graph; else each op of GPU j goes to the first earlier
 * row of the same kind and name without one, and the rest become rows of their own. */
static int match_ops(const cli_compare_run *c, po_match *m)
{
    size_t cap = 0;
    const size_t n = (size_t)c->n;
    memset(m, 0, sizeof *m);
    m->c = c;
    for (int j = 0; j < c->n; j++)
        cap += c->p[j].ops.n;
    m->at = malloc((cap ? cap : 1) * n * sizeof *m->at);
    if (!m->at)
        return -1;
    m->by_name = !same_graph(c);
    if (!m->by_name) {
        m->nrows = c->p[0].ops.n;
        for (size_t r = 0; r < m->nrows; r++)
            for (size_t j = 0; j < n; j++)
                m->at[r * n + j] = (int)r;
        return 0;
    }
    for (int j = 0; j < c->n; j++) {
        const ridge_oplist *ops = &c->p[j].ops;
        unsigned char *used = calloc(ops->n ? ops->n : 1, 1);
        size_t nrows = m->nrows;
        if (!used)
            return -1;
        for (size_t r = 0; r < nrows; r++) {
            const ridge_oplist *ro;
            int ri = po_row_op(m, r, &ro);
            m->at[r * n + (size_t)j] = -1;
            for (size_t k = 0; k < ops->n; k++)
                if (!used[k] && same_op(ro, (size_t)ri, ops, k)) {
                    used[k] = 1;
                    m->at[r * n + (size_t)j] = (int)k;
                    break;
                }
        }
        for (size_t k = 0; k < ops->n; k++) {
            if (used[k])
                continue;
            for (size_t i = 0; i < n; i++)
                m->at[m->nrows * n + i] = i == (size_t)j ? (int)k : -1;
            m->nrows++;
        }
        free(used);
    }
    return 0;
}

const char *po_roof_name(const ridge_op_result *r)
{
    switch (r->bound) {
    case RIDGE_BOUND_COMPUTE:
        return (unsigned)r->kernel.peak < RIDGE_PEAK_COUNT ? peak_roof[r->kernel.peak] : "compute";
    case RIDGE_BOUND_MEMORY: return "DRAM";
    case RIDGE_BOUND_L2: return "L2";
    case RIDGE_BOUND_LATENCY: return "latency";
    case RIDGE_BOUND_HOST: return "host launch";
    default: return "-";
    }
}

/* JSON and CSV: one row per kernel per GPU, SI values. */
static const cli_emit_col long_cols[] = {
    {"index", NULL, "index", NULL, 1, 1, CLI_EMIT_NUM, 0, NULL, cli_emit_fmt_whole},
    CLI_EMIT_STR_COL("name", "name", NULL),
    CLI_EMIT_STR_COL("op", "op", NULL),
    CLI_EMIT_STR_COL("dtype", "dtype", NULL),
    {"count", NULL, "count", NULL, 1, 1, CLI_EMIT_NUM, 0, NULL, cli_emit_fmt_whole},
    CLI_EMIT_STR_COL("gpu", "gpu", NULL),
    {"time_s", NULL, "time_s", NULL, 1, 1, CLI_EMIT_NUM, 0, NULL, NULL},
    {"share_of_step", NULL, "share_of_step", NULL, 1, 1, CLI_EMIT_NUM, 0, NULL, cli_emit_fmt_g6},
    {"speedup_over_first", NULL, "speedup_over_first", NULL, 1, 1, CLI_EMIT_NUM, 0, NULL, cli_emit_fmt_g6},
    CLI_EMIT_STR_COL("bound", "bound", NULL),
    CLI_EMIT_STR_COL("unit", "unit", NULL),
    CLI_EMIT_STR_COL("roof", "roof", NULL),
    {"roof_efficiency", NULL, "roof_efficiency", NULL, 1, 1, CLI_EMIT_NUM, 0, NULL, cli_emit_fmt_g6},
    {"flops", NULL, "flops", NULL, 1, 1, CLI_EMIT_NUM, 0, NULL, NULL},
    {"dram_bytes", NULL, "dram_bytes", NULL, 1, 1, CLI_EMIT_NUM, 0, NULL, NULL},
};
#define NLONG (sizeof long_cols / sizeof long_cols[0])

static int long_rows(const po_match *m, const cli_emit_table *e)
{
    const cli_compare_run *c = m->c;
    for (size_t r = 0; r < m->nrows; r++) {
        const ridge_oplist *ops;
        int oi = po_row_op(m, r, &ops);
        const ridge_op *op = &ops->ops[oi];
        const ridge_op_result *first = po_row_res(m, r, 0);
        char name[RIDGE_OP_NAME_MAX + 16];
        po_op_name(ops, (size_t)oi, name, sizeof name);
        for (int j = 0; j < c->n; j++) {
            const ridge_op_result *x = po_row_res(m, r, j);
            if (!x)
                continue;
            const cli_emit_val v[NLONG] = {{NULL, (double)r, 0},
                                           {name, 0, 0},
                                           {ridge_op_kind_name(op->kind), 0, 0},
                                           {ridge_dtype_name(op->dtype), 0, 0},
                                           {NULL, op->count, 0},
                                           {c->g[j].id, 0, 0},
                                           {NULL, x->time_s, 0},
                                           {NULL, c->p[j].time_s > 0 ? x->time_s / c->p[j].time_s : 0, 0},
                                           {NULL, first && x->time_s > 0 ? first->time_s / x->time_s : 0,
                                            !first || x->time_s <= 0},
                                           {ridge_bound_name(x->bound), 0, 0},
                                           {x->kernel.tensor ? "tensor" : "vector", 0, 0},
                                           {po_roof_name(x), 0, 0},
                                           {NULL, x->kernel.roof_efficiency, 0},
                                           {NULL, x->kernel.flops * x->count, 0},
                                           {NULL, x->kernel.dram_bytes * x->count, 0}};
            if (cli_emit_row(e, v, 1))
                return CLI_EXIT_FAILURE;
        }
    }
    return CLI_EXIT_OK;
}

const char *po_graph_note(const po_match *m, char *buf, size_t cap)
{
    const cli_compare_run *c = m->c;
    int j = 1;
    while (j < c->n - 1 && c->p[j].ops.n == c->p[0].ops.n)
        j++;
    snprintf(buf, cap, "the step's graph differs between %s (%zu kernels) and %s (%zu kernels): kernels matched by name",
             c->g[0].id, c->p[0].ops.n, c->g[j].id, c->p[j].ops.n);
    return buf;
}

static int per_op_json(const po_match *m)
{
    cJSON *root = cli_compare_workload_json(m->c);
    cli_emit_table e = {long_cols, NLONG, CLI_FMT_JSON, NULL, NULL};
    char note[256];
    if (!root)
        return CLI_EXIT_FAILURE;
    cJSON_AddBoolToObject(root, "matched_by_name", m->by_name);
    if (m->by_name)
        cJSON_AddStringToObject(root, "graph_note", po_graph_note(m, note, sizeof note));
    e.rows = cJSON_AddArrayToObject(root, "kernels");
    if (long_rows(m, &e)) {
        cJSON_Delete(root);
        return CLI_EXIT_FAILURE;
    }
    po_summary_json(m, root);
    return cli_print_json(root);
}

int cli_compare_per_op(const cli_compare_run *c, int top, cli_format fmt)
{
    po_match m;
    int rc;
    if (match_ops(c, &m)) {
        free(m.at);
        return CLI_EXIT_FAILURE;
    }
    if (fmt == CLI_FMT_JSON) {
        rc = per_op_json(&m);
    } else if (fmt == CLI_FMT_CSV) {
        cli_emit_table e;
        cli_table t;
        rc = cli_emit_open(&e, long_cols, NLONG, CLI_FMT_CSV, &t) ? CLI_EXIT_FAILURE : long_rows(&m, &e);
        if (rc == CLI_EXIT_OK)
            cli_emit_end(&e);
        else
            cli_table_free(&t);
    } else {
        rc = po_text(&m, top);
        if (rc == CLI_EXIT_OK)
            rc = po_summary_text(&m);
    }
    free(m.at);
    return rc;
}
