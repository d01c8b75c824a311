/* ridge compare --workload: the predictions of one model run on several GPUs, side by side.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_COMPARE_WORKLOAD_H
#define RIDGE_CLI_COMPARE_WORKLOAD_H

#include "cli.h"
#include "ridge/workload.h"

/* Predict the model `workload` (an id or a file) for the run `given` on g[0..n) and print them in
 * fmt; without --precision (precision_given 0) in the best precision all the GPUs have, so that
 * the rows compare like with like. Prints errors; returns an exit code. */
int cli_compare_workload(const ridge_gpu *g, int n, const char *workload, const ridge_run_config *given,
                         int precision_given, ridge_runtime rt, cli_format fmt);

#endif
