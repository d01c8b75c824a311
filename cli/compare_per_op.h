/* ridge compare --workload ... --per-op (docs/cli.md, "compare --per-op"): what its files share.
 * compare_per_op.c matches the kernels of the GPUs into rows and writes JSON and CSV,
 * compare_per_op_split.c splits the step-time difference to the first GPU by source, and
 * compare_per_op_text.c writes the text tables.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_COMPARE_PER_OP_H
#define RIDGE_CLI_COMPARE_PER_OP_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "compare_workload.h"

/* The kernels of the GPUs matched into rows: at[r * n + j] is row r's op on GPU j (-1: none). */
typedef struct {
    const cli_compare_run *c;
    int *at;
    size_t nrows;
    int by_name; /* the graphs differ: matched by name */
} po_match;

/* compare_per_op.c: the name of op i ("kind#i" when it has none), into buf; the op of row r on
 * GPU j, or NULL; row r's first GPU with the op (its op list into *ops) and its index there; the
 * roof that limits a kernel ("tensor bf16", "DRAM", ...); the note that the GPUs' graphs differ,
 * into buf. */
void po_op_name(const ridge_oplist *ops, size_t i, char *buf, size_t cap);
const ridge_op_result *po_row_res(const po_match *m, size_t r, int j);
int po_row_op(const po_match *m, size_t r, const ridge_oplist **ops);
const char *po_roof_name(const ridge_op_result *r);
const char *po_graph_note(const po_match *m, char *buf, size_t cap);

/* compare_per_op_text.c: a time in human units ("821.8 µs") and a speed-up ("2.48x"), into b
 * (cli_emit_col formatters); the text tables of the kernels, the `top` longest on the first GPU
 * (0: all). Returns an exit code. */
const char *po_human_time(double v, char *b, size_t n);
const char *po_speedup_x(double v, char *b, size_t n);
int po_text(const po_match *m, int top);

/* compare_per_op_split.c: the step-time difference of each GPU after the first, split by source:
 * JSON ("speedup_sources", added to root), or the text table below the kernels (returns an exit
 * code). */
void po_summary_json(const po_match *m, cJSON *root);
int po_summary_text(const po_match *m);

#endif
