/* ridge validate's report: the cases, summaries and worst cases as text, JSON or CSV, and the
 * baseline file --write-baseline writes (docs/cli.md, docs/validation.md).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_VALIDATE_EMIT_H
#define RIDGE_CLI_VALIDATE_EMIT_H

#include "cli.h"
#include "ridge/validate.h"

/* Every case (unless summary_only), the summaries, the 10 worst and the skip counts; returns an
 * exit code. */
int cli_val_print_text(const ridge_val_cases *s, const ridge_meas_set *ms, const ridge_val_summary *v, int nv,
                       int summary_only);
/* The same as one JSON document; returns an exit code. */
int cli_val_print_json(const ridge_val_cases *s, const ridge_meas_set *ms, const ridge_val_summary *v, int nv);
/* The cases alone, one CSV row each, cells quoted where they need it; returns an exit code. */
int cli_val_print_csv(const ridge_val_cases *s);
/* The per-group/GPU/workload/family MAPE of v as a baseline file (RIDGE_VAL_BASELINE_KIND) naming
 * the measurement files; returns an exit code. */
int cli_val_write_baseline(const char *path, char *const *files, int nfiles, const ridge_val_summary *v, int nv);

#endif
