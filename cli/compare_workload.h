/* ridge compare --workload: the predictions of one model run on several GPUs, side by side, and
 * with --per-op kernel by kernel (cli/compare_per_op.c, compare_per_op.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_COMPARE_WORKLOAD_H
#define RIDGE_CLI_COMPARE_WORKLOAD_H

#include <cjson/cJSON.h>

#include "cli.h"
#include "model_run.h"
#include "ridge/workload.h"

/* What compare --workload shows: per_op: kernel by kernel (cli_compare_per_op), the text showing
 * the `top` longest kernels on the first GPU (0: all); batch_max (--batch max): each GPU at its
 * largest batch that fits its memory (ridge_predict_max_batch, as predict's max_batch). */
typedef struct {
    int per_op, top, batch_max;
} cli_compare_opts;

/* Predict the model `workload` (an id or a file) for the run `given` on g[0..n) and print them in
 * fmt; without --precision (precision_given 0) in the best precision all the GPUs have, so that
 * the rows compare like with like. Prints errors (--batch max where not even batch 1 fits: exit
 * 2); returns an exit code. */
int cli_compare_workload(const ridge_gpu *g, int n, cli_workload *workload, const ridge_run_config *given,
                         int precision_given, ridge_runtime rt, cli_compare_opts o, cli_format fmt);

/* One model run predicted on n GPUs: what the emitters read. */
typedef struct {
    const ridge_gpu *g;
    int n;
    const ridge_model *m;
    const ridge_run_config *run;
    ridge_runtime rt;
    const char *note; /* the precision note of the header ("" for none) */
    const cli_model_prediction *p;
    /* --batch max: each GPU at its own largest batch, batch[i] (own), and p every GPU at the
     * first GPU's (run->batch), what --per-op's kernels compare; both NULL without. */
    const cli_model_prediction *own;
    const double *batch;
} cli_compare_run;

/* The run as the text headers say it (cli_run_summary), "batch max" under --batch max; into buf. */
const char *cli_compare_run_summary(const cli_compare_run *c, char *buf, size_t cap);

/* The JSON of compare --workload (schema_version, the run, one "gpus" row per GPU), not printed;
 * NULL out of memory. */
cJSON *cli_compare_workload_json(const cli_compare_run *c);

/* compare --per-op: each kernel on each GPU and where the step-time difference to the first GPU
 * comes from (docs/cli.md), in fmt; text: the `top` longest kernels on the first GPU (0: all).
 * Returns an exit code. */
int cli_compare_per_op(const cli_compare_run *c, int top, cli_format fmt);

/* compare_sku.c: where the answer depends on the part: for each product of g[0..n) that the catalogue holds as
 * several parts (SKUs) on one chip (the four A100s: same id stem before the first '-', same chip),
 * the figures that differ between them (board power, memory bandwidth, type and capacity). Text:
 * a few lines to stdout, nothing when no such product is compared; JSON: an array (empty when
 * none). */
void cli_compare_sku_text(const ridge_gpu *g, int n);
cJSON *cli_compare_sku_json(const ridge_gpu *g, int n);

#endif
