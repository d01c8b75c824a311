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

/* The step-time difference of GPU k to the first, by source, and each source's share of the
 * speed-up (share_ok 0: none to share). */
typedef struct {
    double diff_s; /* first GPU's step - GPU k's: > 0 when GPU k is faster */
    double part_s[SRC_COUNT];
    /* --batch max: the speed-up in throughput at each GPU's own batch, s = s_batch * s_same */
    double s, s_same, s_batch;
    double share[SRC_COUNT];
    int share_ok, log_shares; /* log_shares: of ln S (--batch max), else of the step difference */
} po_split;

/* The shares of s->part_s: of the step difference (the same batch everywhere: capacity 0); under
 * --batch max of ln S, S = T_k(b_k) / T_1(b_1) in throughput, = S_batch * S_same with S_batch =
 * T_k(b_k) / T_k(b_1) (capacity) and S_same = T_k(b_1) / T_1(b_1), whose ln the kernel sources
 * share by their parts of the step difference at b_1 (docs/cli.md). */
static void split_shares(const cli_compare_run *c, int k, po_split *s)
{
    double ln_s, same;
    s->log_shares = c->own != NULL;
    if (!c->own) {
        s->share_ok = s->diff_s != 0;
        for (int q = 0; q < SRC_COUNT && s->share_ok; q++)
            s->share[q] = s->part_s[q] / s->diff_s;
        return;
    }
    s->s = c->own[k].throughput / c->own[0].throughput;
    s->s_same = c->p[k].throughput / c->p[0].throughput;
    s->s_batch = c->own[k].throughput / c->p[k].throughput;
    ln_s = log(s->s);
    s->share_ok = ln_s != 0 && isfinite(ln_s);
    if (!s->share_ok)
        return;
    same = log(s->s_same) / ln_s;
    for (int q = 0; q < SRC_COUNT; q++)
        s->share[q] = s->diff_s != 0 ? same * s->part_s[q] / s->diff_s : 0;
    s->share[SRC_CAPACITY] = log(s->s_batch) / ln_s;
}

/* Each kernel's t_1 - t_k goes to the source of its bound on the GPU of the two where it takes
 * longer (on the one that has it, where only one does); the parts add up to the step difference
 * because the kernels' times add up to the step (docs/cli.md). The kernels run the same batch on
 * every GPU, so capacity takes none of the step difference (under --batch max, split_shares gives
 * it its share of the speed-up). */
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
    split_shares(c, k, s);
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
                                    CLI_JNUM("step_time_difference_s", s.diff_s),
                                    CLI_JBOOL("same_batch", !c->own || c->batch[k] == c->batch[0])};
        CLI_JSON_ADD(o, f);
        if (c->own) {
            const cli_json_field b[] = {CLI_JNUM("batch", c->batch[k]), CLI_JNUM("first_batch", c->batch[0]),
                                        CLI_JNUM("speedup", s.s), CLI_JNUM("speedup_same_batch", s.s_same),
                                        CLI_JNUM("speedup_batch", s.s_batch)};
            CLI_JSON_ADD(o, b);
        }
        by = cJSON_AddArrayToObject(o, "sources");
        for (int q = 0; q < SRC_COUNT; q++) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "source", src_key[q]);
            if (c->own && q == SRC_CAPACITY) /* a share of the speed-up, not of the step time */
                cJSON_AddNullToObject(e, "time_s");
            else
                cJSON_AddNumberToObject(e, "time_s", s.part_s[q]);
            if (s.share_ok)
                cJSON_AddNumberToObject(e, "share", s.share[q]);
            else
                cJSON_AddNullToObject(e, "share");
            cJSON_AddItemToArray(by, e);
        }
        cJSON_AddItemToArray(arr, o);
    }
}

/* A share in per cent, "-" when there is no difference to share. */
static void share_cell(const po_split *s, int q, char *b, size_t n)
{
    /* the same batch: 100 * part / difference, as before --batch max existed (same digits) */
    double v = !s->share_ok ? 0 : !s->log_shares ? 100 * s->part_s[q] / s->diff_s : 100 * s->share[q];
    if (!s->share_ok)
        snprintf(b, n, "-");
    else
        snprintf(b, n, "%.1f %%", fabs(v) < 0.05 ? 0.0 : v);
}

/* What the text says above and below the summary table. */
static void summary_notes(const cli_compare_run *c, int below)
{
    if (!c->own && !below)
        printf("\nWhere the step-time difference to %s comes from: each kernel's time saved goes to what bounds\n"
               "it on the GPU where it is slower (tensor or vector throughput, DRAM or L2 bandwidth, latency\n"
               "floors, host); the shares add up to 100 %%.\n\n",
               c->g[0].id);
    else if (!c->own)
        printf("\nA negative share: kernels of that kind are slower on the faster GPU and take back part of the\n"
               "difference. capacity (batch) is 0: every GPU runs the same batch (%.0f).\n",
               c->run->batch);
    else if (!below)
        printf("\nWhere the speed-up over %s comes from, each GPU at its own batch (--batch max): speedup S (in\n"
               "throughput) = S_batch x S_same, where S_same is at %s's batch %.0f on both (\"same batch\") and\n"
               "S_batch = GPU k at its own batch over GPU k at %.0f. Shares of ln S: capacity (batch) = ln S_batch /\n"
               "ln S; the rest, ln S_same / ln S, goes to the kernels' sources by their parts of the step-time\n"
               "difference at batch %.0f (time saved; the tables above): each kernel's to what bounds it on the GPU\n"
               "where it is slower. The shares add up to 100 %%.\n\n",
               c->g[0].id, c->g[0].id, c->batch[0], c->batch[0], c->batch[0]);
    else
        printf("\nA negative share pulls the other way: kernels of that kind slower on the faster GPU, or, for\n"
               "capacity (batch), a GPU that holds a smaller batch than %s's (or, if slower, a larger one).\n",
               c->g[0].id);
}

/* Below the tables: one row per GPU after the first, its step-time difference to the first and
 * the shares of it by source (--batch max: its batch, speed-up and same-batch speed-up too). */
int po_summary_text(const po_match *m)
{
    const cli_compare_run *c = m->c;
    enum { NMAX = 5 + SRC_COUNT };
    static const char *const head[NMAX] = {"gpu",    "batch",  "speedup",   "same batch", "time saved", "tensor",
                                           "vector", "bandwidth", "latency", "host",       "capacity (batch)"};
    const char *hrow[NMAX];
    char cells[NMAX][48];
    const char *row[NMAX];
    const int extra = c->own ? 2 : 0; /* batch, same batch */
    const int ncols = 3 + extra + SRC_COUNT;
    cli_table t;
    int bad;
    if (cli_table_init(&t, ncols))
        return CLI_EXIT_FAILURE;
    for (int q = 0, h = 0; h < NMAX; h++) {
        if (!c->own && (h == 1 || h == 3))
            continue;
        hrow[q] = head[h];
        row[q] = cells[q];
        t.right[q] = q > 0;
        q++;
    }
    bad = cli_table_add(&t, hrow);
    for (int k = 1; k < c->n && !bad; k++) {
        po_split s;
        int q = 0;
        split_diff(m, k, &s);
        snprintf(cells[q++], sizeof cells[0], "%.40s", c->g[k].id);
        if (c->own)
            snprintf(cells[q++], sizeof cells[0], "%.0f", c->batch[k]);
        po_speedup_x(c->own ? s.s : c->p[0].time_s / c->p[k].time_s, cells[q++], sizeof cells[0]);
        if (c->own)
            po_speedup_x(s.s_same, cells[q++], sizeof cells[0]);
        po_human_time(s.diff_s, cells[q++], sizeof cells[0]);
        for (int src = 0; src < SRC_COUNT; src++)
            share_cell(&s, src, cells[q++], sizeof cells[0]);
        bad = cli_table_add(&t, row);
    }
    if (!bad) {
        summary_notes(c, 0);
        cli_table_print_text(&t, stdout);
        summary_notes(c, 1);
    }
    cli_table_free(&t);
    return bad ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
}
