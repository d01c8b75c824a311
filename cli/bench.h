/* ridge bench: the shared measuring loops of `bench` and `bench --suite` (cli/cmd_bench.c,
 * cli/bench_suite.c).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_BENCH_H
#define RIDGE_CLI_BENCH_H

#include "cli.h"
#include "ridge/kernel.h"
#include "ridge/schedule.h"

#define BENCH_MAX_REPS 64

/* Per repetition: successful predictions per CPU second (kernel model, schedule) and per wall second. */
typedef struct {
    double kernel[BENCH_MAX_REPS], kernel_wall[BENCH_MAX_REPS], sched[BENCH_MAX_REPS];
} bench_rates;

double bench_cpu_s(void); /* the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID) */
void bench_sort(double *v, long n);
void bench_build_ops(ridge_op *ops, size_t n);
int bench_build_model_ops(ridge_op *ops, size_t n);
/* Reorders ops (the predictable ones first); returns the failed predictions of one pass. */
long bench_measure(const ridge_gpu *g, ridge_op *ops, long nops, ridge_op_result *res, long reps, double min_s,
                   bench_rates *br, double *sink);

typedef struct {
    const ridge_gpu *gpu;
    long ops, reps;
    double min_s;
    cli_format fmt;
    double kernel_rate, model_rate; /* medians already measured by cmd_bench */
    long kernel_failed, model_failed;
    long plan_n; /* the plan figures' reduced size: --batches or --counts 1..plan_n */
} bench_suite_args;

int bench_suite(const bench_suite_args *a, double *sink);

#endif
