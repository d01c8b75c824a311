/* Private: pieces shared by the closed-form queues (queue_mg1.c, queue_mgc.c).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_QUEUE_INTERNAL_H
#define RIDGE_QUEUE_INTERNAL_H

#include "ridge/queue.h"

/* Check arrival rate, service moments and servers; one-line errors naming the field. */
int ridge_queue_check_params_(const ridge_queue_params *p, ridge_err *err);
/* Percentiles of a stable result from its wait probability, the tail rate and the service time
 * (mean s, squared coefficient of variation cs2). docs/serving.md. */
int ridge_queue_fill_percentiles_(ridge_queue_result *r, double s, double cs2, ridge_err *err);

/* A closed form (ridge_queue_mg1, ridge_queue_mgc) of a system: s(1), its cs2, the servers and
 * the rate. The descriptors' eval. */
typedef int (*ridge_queue_closed_form_fn_)(const ridge_queue_params *p, ridge_queue_result *r, ridge_err *err);
int ridge_queue_closed_form_eval_(const ridge_queue_system *sys, ridge_queue_closed_form_fn_ f, ridge_queue_result *r,
                                  ridge_err *err);

#endif
