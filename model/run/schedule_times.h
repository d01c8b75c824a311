/* Private: the schedule's entry point for the parallel model's evaluation (schedule.c).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_SCHEDULE_TIMES_H
#define RIDGE_SCHEDULE_TIMES_H

#include "ridge/schedule.h"

#include "attrs.h" /* RIDGE_PRIVATE: not exported from libridge */

/* ridge_schedule_ops_known without per-op results, for a caller that reads only each op's time
 * (time_s, may be NULL) and the step's end: of tot, total_time_s, host_issue_s and
 * time_by_bound_s[RIDGE_BOUND_COMPUTE] are ridge_schedule_ops_known's; in an eager step the other
 * totals are 0 (not summed), in a graph step they are ridge_schedule_ops_known's too. Status and
 * messages are its own. */
RIDGE_PRIVATE int rs_schedule_times(const ridge_gpu *gpu, const ridge_op *ops, size_t n, ridge_runtime rt,
                                    ridge_schedule_known_fn kernels, void *kernel_ctx, const ridge_kernel_result **kr,
                                    double *time_s, ridge_schedule_totals *tot, ridge_err *err);

#endif
