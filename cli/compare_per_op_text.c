/* ridge compare --per-op, text: each kernel on every GPU (time, speed-up over the first GPU,
 * bound) and the roof that limits it, the longest kernels on the first GPU first, in tables that
 * fit TEXT_COLS (docs/cli.md, "compare --per-op").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_per_op.h"
#include "emit.h"
#include "predict_emit.h"

/* The widest text line a table is made to fit (docs/cli.md). */
#define TEXT_COLS 120

/* A time in human units, 4 significant digits: "821.8 µs", "61.30 ms", "1.204 s". */
const char *po_human_time(double v, char *b, size_t n)
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

const char *po_speedup_x(double v, char *b, size_t n)
{
    snprintf(b, n, "%.3gx", v);
    return b;
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
        int oi = po_row_op(m, r, &ops);
        char name[RIDGE_OP_NAME_MAX + 16];
        po_op_name(ops, (size_t)oi, name, sizeof name);
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
    const cli_emit_col sp = {NULL, NULL, NULL, "speedup", 1, 1, CLI_EMIT_NUM, 0, po_speedup_x, NULL};
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
        const cli_emit_col tm = {NULL, NULL, NULL, c->g[t->gpus[i]].id, 1, 1, CLI_EMIT_NUM, 0, po_human_time, NULL};
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
    v[k++].s = slow >= 0 ? po_roof_name(res[slow]) : "";
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
        int oi = po_row_op(m, order[i].r, &ops);
        char name[RIDGE_OP_NAME_MAX + 16], cut[CLI_TEXT_CAP(RIDGE_OP_NAME_MAX + 16)];
        for (int j = 0; j < c->n; j++) {
            res[j] = po_row_res(m, order[i].r, j);
            t_s[j] = res[j] ? res[j]->time_s : 0;
            if (i >= shown)
                rest_s[j] += t_s[j];
        }
        if (i >= shown)
            continue;
        po_op_name(ops, (size_t)oi, name, sizeof name);
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

int po_text(const po_match *m, int top)
{
    const cli_compare_run *c = m->c;
    po_order *order = malloc((m->nrows ? m->nrows : 1) * sizeof *order);
    size_t shown = top > 0 && (size_t)top < m->nrows ? (size_t)top : m->nrows;
    char mname[CLI_NAME_TEXT_CAP], sum[256], note[256];
    int name_w = name_width(m), rc = CLI_EXIT_OK;
    if (!order)
        return CLI_EXIT_FAILURE;
    for (size_t r = 0; r < m->nrows; r++) {
        const ridge_op_result *first = po_row_res(m, r, 0);
        order[r].t_s = first ? first->time_s : -1;
        order[r].r = r;
    }
    qsort(order, m->nrows, sizeof *order, by_first_time);
    printf("%s, %s, %s runtime: %zu kernels per step", cli_text(ridge_model_name(c->m), mname, sizeof mname),
           cli_run_summary(c->run, c->note, sum, sizeof sum), ridge_runtime_name(c->rt), m->nrows);
    if (shown < m->nrows)
        printf(", the %zu longest on %s", shown, c->g[0].id);
    printf("\n");
    if (c->own) {
        char line[16 * 80 + 160], *at = line;
        int less = 0;
        at += snprintf(at, 64, "Batch: each GPU's largest that fits its memory (--batch max):");
        for (int j = 0; j < c->n; j++) {
            at += snprintf(at, 80, " %.40s %.0f%s", c->g[j].id, c->batch[j], j + 1 < c->n ? "," : ".");
            less |= c->batch[j] < c->batch[0];
        }
        snprintf(at, (size_t)(line + sizeof line - at), " The kernels below run at %s's, %.0f, on every GPU%s.",
                 c->g[0].id, c->batch[0], less ? " (on one that holds less, as if it fitted)" : "");
        cli_print_wrapped(stdout, line, 0, 0);
    }
    if (m->by_name)
        printf("Note: %s.\n", po_graph_note(m, note, sizeof note));
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
