/* ridge compare --workload ... --per-op: why one GPU is faster, kernel by kernel. Each kernel of
 * the step on every GPU (time, speed-up over the first GPU, bound, the roof that limits it), and
 * the step-time difference to the first GPU split by what bounds each kernel on the slower GPU
 * (docs/cli.md, "compare --per-op").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_workload.h"
#include "emit.h"
#include "json_emit.h"
#include "predict_emit.h"

/* The widest text line a table is made to fit (docs/cli.md). */
#define TEXT_COLS 120

/* Where a share of the step-time difference comes from: the bound of the kernel on the slower
 * GPU (compute on tensor or vector units, DRAM or L2 bandwidth, latency floors, host), and the
 * batch when the GPUs run different ones. */
typedef enum { SRC_TENSOR, SRC_VECTOR, SRC_BANDWIDTH, SRC_LATENCY, SRC_HOST, SRC_CAPACITY, SRC_COUNT } po_source;
static const char *const src_key[SRC_COUNT] = {"tensor_throughput", "vector_throughput", "bandwidth",
                                               "latency",           "host",              "capacity_batch"};

/* The roof of a compute-bound kernel by the peak it ran at. */
static const char *const peak_roof[RIDGE_PEAK_COUNT] = {
    "fp64 vector", "tensor fp64", "fp32 vector", "fp16 vector", "tensor tf32", "tensor fp16",
    "tensor fp16", "tensor bf16", "tensor fp8",  "tensor int8", "tensor int4"};

/* The kernels of the GPUs matched into rows: at[r * n + j] is row r's op on GPU j (-1: none). */
typedef struct {
    const cli_compare_run *c;
    int *at;
    size_t nrows;
    int by_name; /* the graphs differ: matched by name */
} po_match;

static void op_name(const ridge_oplist *ops, size_t i, char *buf, size_t cap)
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
static const ridge_op_result *row_res(const po_match *m, size_t r, int j)
{
    int k = m->at[r * (size_t)m->c->n + (size_t)j];
    return k < 0 ? NULL : &m->c->p[j].results[k];
}

/* Row r's first GPU with the op, and its index there. */
static int row_op(const po_match *m, size_t r, const ridge_oplist **ops)
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
            int ri = row_op(m, r, &ro);
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

static const char *roof_name(const ridge_op_result *r)
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
        const ridge_op_result *a = row_res(m, r, 0), *b = row_res(m, r, k);
        double ta = a ? a->time_s : 0, tb = b ? b->time_s : 0;
        const ridge_op_result *slow = !a ? b : !b ? a : tb > ta ? b : a;
        if (slow)
            s->part_s[source_of(slow)] += ta - tb;
    }
}

/* A time in human units, 4 significant digits: "821.8 µs", "61.30 ms", "1.204 s". */
static const char *human_time(double v, char *b, size_t n)
{
    double a = fabs(v), scale = 1;
    const char *unit = "s";
    size_t len;
    if (!isfinite(v) || a == 0) {
        snprintf(b, n, isfinite(v) ? "0 s" : "-");
        return b;
    }
    if (a < 1e-3) {
        scale = 1e6;
        unit = "\xc2\xb5s";
    } else if (a < 1) {
        scale = 1e3;
        unit = "ms";
    }
    snprintf(b, n, "%#.4g", v * scale);
    len = strlen(b);
    if (len > 0 && b[len - 1] == '.') /* "%#g" keeps the point of 1000 */
        b[--len] = '\0';
    snprintf(b + len, n - len, " %s", unit);
    return b;
}

static const char *speedup_x(double v, char *b, size_t n)
{
    snprintf(b, n, "%.3gx", v);
    return b;
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
        int oi = row_op(m, r, &ops);
        const ridge_op *op = &ops->ops[oi];
        const ridge_op_result *first = row_res(m, r, 0);
        char name[RIDGE_OP_NAME_MAX + 16];
        op_name(ops, (size_t)oi, name, sizeof name);
        for (int j = 0; j < c->n; j++) {
            const ridge_op_result *x = row_res(m, r, j);
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
                                           {roof_name(x), 0, 0},
                                           {NULL, x->kernel.roof_efficiency, 0},
                                           {NULL, x->kernel.flops * x->count, 0},
                                           {NULL, x->kernel.dram_bytes * x->count, 0}};
            if (cli_emit_row(e, v, 1))
                return CLI_EXIT_FAILURE;
        }
    }
    return CLI_EXIT_OK;
}

static const char *graph_note(const po_match *m, char *buf, size_t cap)
{
    const cli_compare_run *c = m->c;
    int j = 1;
    while (j < c->n - 1 && c->p[j].ops.n == c->p[0].ops.n)
        j++;
    snprintf(buf, cap, "the step's graph differs between %s (%zu kernels) and %s (%zu kernels): kernels matched by name",
             c->g[0].id, c->p[0].ops.n, c->g[j].id, c->p[j].ops.n);
    return buf;
}

static void summary_json(const po_match *m, cJSON *root)
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

static int per_op_json(const po_match *m)
{
    cJSON *root = cli_compare_workload_json(m->c);
    cli_emit_table e = {long_cols, NLONG, CLI_FMT_JSON, NULL, NULL};
    char note[256];
    if (!root)
        return CLI_EXIT_FAILURE;
    cJSON_AddBoolToObject(root, "matched_by_name", m->by_name);
    if (m->by_name)
        cJSON_AddStringToObject(root, "graph_note", graph_note(m, note, sizeof note));
    e.rows = cJSON_AddArrayToObject(root, "kernels");
    if (long_rows(m, &e)) {
        cJSON_Delete(root);
        return CLI_EXIT_FAILURE;
    }
    summary_json(m, root);
    return cli_print_json(root);
}

/* A row and its time on the first GPU (-1 where it has none), for the text's order: longest
 * first, then in graph order. */
typedef struct {
    double t_s;
    size_t r;
} po_order;

static int by_first_time(const void *pa, const void *pb)
{
    const po_order *a = pa, *b = pb;
    if (a->t_s != b->t_s)
        return a->t_s > b->t_s ? -1 : 1;
    return a->r < b->r ? -1 : a->r > b->r;
}

/* One text table: the kernel, then per GPU shown (the first, then lo..hi-1) its time (headed by
 * its id), speedup over the first (not for the first) and bound, then the roof on the GPU where
 * the kernel is slowest. Tables too wide for TEXT_COLS are split by GPUs, the first in each. */
typedef struct {
    cli_emit_col cols[CLI_EMIT_MAX_COLS];
    size_t ncols;
    int gpus[16], ng; /* the GPUs shown, the first GPU first */
} po_text_cols;

/* The widest a GPU's columns take in text: time (at least "999.9 ms"), speedup, bound. */
static int gpu_cols_w(const ridge_gpu *g, int first)
{
    int idw = (int)strlen(g->id);
    return (idw > 8 ? idw : 8) + 2 + (first ? 0 : 7 + 2) + 7 + 2;
}

/* The kernel names' width: the longest (at most 40), cut so that the first GPU and any one more
 * fit in TEXT_COLS (at least 12). */
static int name_width(const po_match *m)
{
    const cli_compare_run *c = m->c;
    int w = 24, widest = 0; /* "(the other NNN kernels)" */
    for (size_t r = 0; r < m->nrows; r++) {
        const ridge_oplist *ops;
        int oi = row_op(m, r, &ops);
        char name[RIDGE_OP_NAME_MAX + 16];
        op_name(ops, (size_t)oi, name, sizeof name);
        if ((int)strlen(name) > w)
            w = (int)strlen(name);
    }
    for (int k = 1; k < c->n; k++)
        if (gpu_cols_w(&c->g[k], 0) > widest)
            widest = gpu_cols_w(&c->g[k], 0);
    if (w > 40)
        w = 40;
    if (w > TEXT_COLS - (2 + gpu_cols_w(&c->g[0], 1) + widest + 11))
        w = TEXT_COLS - (2 + gpu_cols_w(&c->g[0], 1) + widest + 11);
    return w < 12 ? 12 : w;
}

/* The columns of the table of GPUs lo.. (as many as fit beside names name_w wide); returns the
 * first GPU left for the next table. */
static int text_cols(const cli_compare_run *c, int lo, int name_w, po_text_cols *t)
{
    const cli_emit_col name = CLI_EMIT_STR_COL(NULL, NULL, "kernel");
    const cli_emit_col bound = CLI_EMIT_STR_COL(NULL, NULL, "bound");
    const cli_emit_col roof = CLI_EMIT_STR_COL(NULL, NULL, "roof");
    const cli_emit_col sp = {NULL, NULL, NULL, "speedup", 1, 1, CLI_EMIT_NUM, 0, speedup_x, NULL};
    int used = name_w + 2 + gpu_cols_w(&c->g[0], 1) + 11, hi = lo;
    while (hi < c->n && (hi == lo || used + gpu_cols_w(&c->g[hi], 0) <= TEXT_COLS))
        used += gpu_cols_w(&c->g[hi++], 0);
    t->ncols = 0;
    t->ng = 0;
    t->cols[t->ncols++] = name;
    t->gpus[t->ng++] = 0;
    for (int j = lo; j < hi; j++)
        t->gpus[t->ng++] = j;
    for (int i = 0; i < t->ng; i++) {
        const cli_emit_col tm = {NULL, NULL, NULL, c->g[t->gpus[i]].id, 1, 1, CLI_EMIT_NUM, 0, human_time, NULL};
        t->cols[t->ncols++] = tm;
        if (i > 0)
            t->cols[t->ncols++] = sp;
        t->cols[t->ncols++] = bound;
    }
    t->cols[t->ncols++] = roof;
    return hi;
}

/* A name cut to w columns ("...": cut). */
static const char *cut_name(const char *s, int w, char *buf, size_t cap)
{
    char esc[CLI_TEXT_CAP(RIDGE_OP_NAME_MAX + 16)];
    cli_text(s, esc, sizeof esc);
    if ((int)strlen(esc) <= w)
        snprintf(buf, cap, "%s", esc);
    else
        snprintf(buf, cap, "%.*s...", w - 3, esc);
    return buf;
}

/* One text row of the GPUs tc shows: a kernel's time on each (res[j]: its result on GPU j, NULL
 * where it has none), or a sum's (res NULL). */
static int text_row(const po_text_cols *tc, const cli_emit_table *e, const char *name, const double *t_s,
                    const ridge_op_result *const *res)
{
    cli_emit_val v[CLI_EMIT_MAX_COLS];
    size_t k = 0;
    int slow = -1;
    memset(v, 0, sizeof v);
    v[k++].s = name;
    for (int i = 0; i < tc->ng; i++) {
        int j = tc->gpus[i], have = res ? res[j] != NULL : 1;
        v[k].v = t_s[j];
        v[k++].null = !have;
        if (i > 0) {
            v[k].v = have && t_s[j] > 0 && t_s[0] > 0 ? t_s[0] / t_s[j] : 0;
            v[k++].null = !have || t_s[j] <= 0 || t_s[0] <= 0 || (res && !res[0]);
        }
        v[k++].s = res && res[j] ? ridge_bound_name(res[j]->bound) : "";
        if (res && res[j] && (slow < 0 || t_s[j] > t_s[slow]))
            slow = j;
    }
    v[k++].s = slow >= 0 ? roof_name(res[slow]) : "";
    return cli_emit_row(e, v, 1);
}

/* One table of the kernels (rows in `order`, the first `shown` of them, the rest summed) on the
 * GPUs of tc. */
static int kernel_table(const po_match *m, const po_order *order, size_t shown, int name_w, const po_text_cols *tc)
{
    const cli_compare_run *c = m->c;
    cli_emit_table e;
    cli_table t;
    double *t_s = calloc((size_t)c->n * 3, sizeof *t_s);
    const ridge_op_result **res = calloc((size_t)c->n, sizeof *res);
    char lbl[64];
    int rc = CLI_EXIT_FAILURE;
    if (!t_s || !res || cli_emit_open(&e, tc->cols, tc->ncols, CLI_FMT_TEXT, &t))
        goto done;
    double *rest_s = t_s + c->n, *step_s = t_s + 2 * c->n;
    for (size_t i = 0; i < m->nrows; i++) {
        const ridge_oplist *ops;
        int oi = row_op(m, order[i].r, &ops);
        char name[RIDGE_OP_NAME_MAX + 16], cut[CLI_TEXT_CAP(RIDGE_OP_NAME_MAX + 16)];
        for (int j = 0; j < c->n; j++) {
            res[j] = row_res(m, order[i].r, j);
            t_s[j] = res[j] ? res[j]->time_s : 0;
            if (i >= shown)
                rest_s[j] += t_s[j];
        }
        if (i >= shown)
            continue;
        op_name(ops, (size_t)oi, name, sizeof name);
        if (text_row(tc, &e, cut_name(name, name_w, cut, sizeof cut), t_s, res))
            goto fail;
    }
    for (int j = 0; j < c->n; j++)
        step_s[j] = c->p[j].time_s;
    snprintf(lbl, sizeof lbl, "(the other %zu kernels)", m->nrows - shown);
    if ((shown < m->nrows && text_row(tc, &e, lbl, rest_s, NULL)) || text_row(tc, &e, "step", step_s, NULL))
        goto fail;
    cli_emit_end(&e);
    rc = CLI_EXIT_OK;
    goto done;
fail:
    cli_table_free(&t);
done:
    free(t_s);
    free(res);
    return rc;
}

static int per_op_text(const po_match *m, int top)
{
    const cli_compare_run *c = m->c;
    po_order *order = malloc((m->nrows ? m->nrows : 1) * sizeof *order);
    size_t shown = top > 0 && (size_t)top < m->nrows ? (size_t)top : m->nrows;
    char mname[CLI_NAME_TEXT_CAP], sum[256], note[256];
    int name_w = name_width(m), rc = CLI_EXIT_OK;
    if (!order)
        return CLI_EXIT_FAILURE;
    for (size_t r = 0; r < m->nrows; r++) {
        const ridge_op_result *first = row_res(m, r, 0);
        order[r].t_s = first ? first->time_s : -1;
        order[r].r = r;
    }
    qsort(order, m->nrows, sizeof *order, by_first_time);
    printf("%s, %s, %s runtime: %zu kernels per step", cli_text(ridge_model_name(c->m), mname, sizeof mname),
           cli_run_summary(c->run, c->note, sum, sizeof sum), ridge_runtime_name(c->rt), m->nrows);
    if (shown < m->nrows)
        printf(", the %zu longest on %s", shown, c->g[0].id);
    printf("\n");
    if (m->by_name)
        printf("Note: %s.\n", graph_note(m, note, sizeof note));
    for (int lo = 1; lo < c->n && rc == CLI_EXIT_OK;) {
        po_text_cols tc;
        lo = text_cols(c, lo, name_w, &tc);
        printf("\n");
        rc = kernel_table(m, order, shown, name_w, &tc);
    }
    free(order);
    if (rc == CLI_EXIT_OK)
        printf("\nspeedup: %s's time over this GPU's. roof: what limits the kernel where it is slowest (tensor or\n"
               "vector peak, DRAM or L2 bandwidth, latency floors, host launch).\n",
               c->g[0].id);
    return rc;
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
static int summary_text(const po_match *m)
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
        speedup_x(c->p[0].time_s / c->p[k].time_s, cells[1], sizeof cells[1]);
        human_time(s.diff_s, cells[2], sizeof cells[2]);
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
        rc = per_op_text(&m, top);
        if (rc == CLI_EXIT_OK)
            rc = summary_text(&m);
    }
    free(m.at);
    return rc;
}
