/* ridge predict --cluster: the multi-GPU flags and the step on a cluster (ridge/parallel.h,
 * docs/parallel.md).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_PREDICT_CLUSTER_H
#define RIDGE_CLI_PREDICT_CLUSTER_H

#include <getopt.h>

#include "cli.h"
#include "model_run.h"
#include "ridge/parallel.h"

/* getopt_long entries of the cluster flags; option values CLI_CLUSTER_OPT_BASE + 0..17. */
#define CLI_CLUSTER_OPT_BASE 2000
#define CLI_CLUSTER_OPTIONS                                                                        \
    {"cluster", required_argument, 0, 2000}, {"nodes", required_argument, 0, 2001},               \
        {"tp", required_argument, 0, 2002}, {"pp", required_argument, 0, 2003},                   \
        {"dp", required_argument, 0, 2004}, {"ep", required_argument, 0, 2005},                   \
        {"zero", required_argument, 0, 2006}, {"sp", no_argument, 0, 2007},                       \
        {"microbatch", required_argument, 0, 2008}, {"global-batch", required_argument, 0, 2009}, \
        {"schedule", required_argument, 0, 2010}, {"virtual-stages", required_argument, 0, 2011}, \
        {"fsdp", required_argument, 0, 2012}, {"fsdp-group", required_argument, 0, 2013},        \
        {"prefetch", required_argument, 0, 2014}, {"bucket-mb", required_argument, 0, 2015},     \
        {"grad-reduce", required_argument, 0, 2016}, {"dp-overlap", required_argument, 0, 2017}

typedef struct {
    const char *cluster_id; /* --cluster, NULL when not given */
    long nodes;             /* --nodes, 0: the cluster's own */
    ridge_parallel_config pc;
    int flags;              /* cluster flags given, --cluster aside */
    int have_tp, have_pp, have_dp, have_mb, have_gb;
} cli_cluster_args;

void cli_cluster_args_init(cli_cluster_args *a);
/* Handle one cluster flag: 1 if c was one, 0 if not, -1 after printing a usage error. */
int cli_cluster_option(int c, const char *arg, cli_cluster_args *a);
/* Predict and print the step of model workload wl on the cluster; returns an exit code. */
int cli_predict_cluster(const cli_cluster_args *a, cli_workload *wl, const ridge_run_config *given,
                        int precision_given, ridge_runtime rt, cli_format fmt);

#endif
