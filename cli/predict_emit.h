/* Formatting predictions, shared by predict and compare: per-op rows (text, JSON, CSV), memory,
 * and the run a prediction is for (docs/cli.md).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_PREDICT_EMIT_H
#define RIDGE_CLI_PREDICT_EMIT_H

#include "cli.h"
#include "model_run.h"
#include "ridge/schedule.h"
#include "ridge/workload.h"

/* One operator's row as a JSON object (op i of a graph, its result). */
cJSON *cli_op_json(const ridge_op *op, const ridge_op_result *r, size_t i);
/* An operator list's prediction as JSON (totals and rows); returns an exit code. */
int cli_oplist_json(const ridge_gpu *g, const ridge_oplist *w, ridge_runtime rt, const ridge_op_result *res,
                    const ridge_schedule_totals *tot);
/* The operator rows as a table: CSV, or text with a header line and the totals under it. */
int cli_ops_table(const ridge_gpu *g, const ridge_oplist *w, ridge_runtime rt, const ridge_op_result *res,
                  const ridge_schedule_totals *tot, cli_format fmt);

/* parent[key] = {weights_bytes, ..., total_bytes, capacity_bytes, fits}; returns the object. */
cJSON *cli_memory_json(cJSON *parent, const char *key, const ridge_memory *mem, double capacity_bytes, int fits);
/* "  weights X, gradients X, ..., workspace X\n" in GiB. */
void cli_memory_text(const ridge_memory *mem);

/* "train, batch 8 x 4 micro-batches, bf16<note> autocast, engine fusion" into buf. */
const char *cli_run_summary(const ridge_run_config *run, const char *note, char *buf, size_t cap);
/* The run's amp, fusion, optimizer_impl and grad_accum keys. */
void cli_run_json(cJSON *root, const ridge_run_config *run);

#endif
