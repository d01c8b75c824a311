/* ridge — serving plans: for each (GPU, precision, batch) server of a plan the fewest replicas
 * whose p99 latency meets an SLO under a Poisson stream, and what they cost (docs/planning.md,
 * "Serving plans"). SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The servers come from a ridge_plan built as for an inference sweep (one count): its memoised
 * single-GPU steps are the service times. Everything here is arithmetic on that memo and the
 * M/D/c closed form; nothing allocates but qsort, and the plan is only read, so threads may share it. */
#ifndef RIDGE_SERVE_PLAN_H
#define RIDGE_SERVE_PLAN_H

#include <stddef.h>

#include "ridge/error.h"
#include "ridge/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* c replicas each serve fixed batches of `batch` requests taking service_s; requests arrive as
 * a Poisson stream at rate_per_s. A batch is formed from the stream, so its first request waits
 * (batch - 1) / rate_per_s for the rest (the fill time, 0 for batch 1); batches then queue at
 * rate_per_s / batch for c deterministic servers, M/D/c by the Allen-Cunneen closed form
 * (ridge_queue_mgc with cs2 = 0). p99 = fill + p99 of the batch queue's latency. */
typedef struct {
    int replicas;          /* fewest meeting the SLO; 0 when none up to max_replicas */
    double p99_s;          /* at that count (or at max_replicas when unreachable) */
    double mean_latency_s; /* fill + mean latency of the batch queue */
    double fill_s;         /* (batch - 1) / rate_per_s */
    double utilisation;    /* per replica */
} ridge_plan_serve_result;

#define RIDGE_PLAN_MAX_REPLICAS 4096

/* Fewest replicas (<= max_replicas) with p99 <= slo_p99_s. Returns RIDGE_OK with replicas = 0
 * when the SLO is unreachable (service + fill above it, or still missed at max_replicas);
 * EINVAL for a rate, service time, batch or SLO that is not positive and finite. */
int ridge_plan_serve(double rate_per_s, double service_s, double batch, double slo_p99_s, int max_replicas,
                     ridge_plan_serve_result *r, ridge_err *err);

/* One candidate server of a serving plan: a (GPU, precision, batch) of the plan's spec. */
typedef struct {
    size_t gpu, precision, batch; /* indices into the spec's gpus, precisions and batches */
    ridge_plan_reason reason;     /* the step's (UNSUPPORTED, INVALID, OOM), then SLO, NO_PRICE */
    double service_s;             /* the memoised single-GPU step at the batch */
    ridge_plan_serve_result serve; /* replicas, p99, utilisation (feasible steps only) */
    double cost_usd_per_hour;     /* replicas x price per GPU-hour (feasible only, else 0) */
    double cost_usd_per_1000_requests; /* cost_usd_per_hour / 3600 / rate_per_s x 1000 */
} ridge_serve_plan_row;

/* Candidates of plan p: ngpus x nprecisions x nbatches of its spec (its counts are not used). */
size_t ridge_serve_plan_size(const ridge_plan *p);

/* Every candidate of p for a stream of rate_per_s requests/s and a p99 SLO of slo_p99_s, with up
 * to RIDGE_PLAN_MAX_REPLICAS replicas each, into rows[0..ridge_serve_plan_size(p)). The rows come
 * back ranked: the feasible ones first, by cost per hour, then p99, then GPU (candidate order
 * otherwise), *nfeasible of them; the infeasible ones after. EINVAL (the message names the
 * field) when the spec's run.mode is not infer or rate_per_s / slo_p99_s are not positive. */
int ridge_serve_plan_eval(const ridge_plan *p, double rate_per_s, double slo_p99_s, ridge_serve_plan_row *rows,
                          size_t *nfeasible, ridge_err *err);

/* The cheapest feasible row of GPU gpu among ranked rows[0..nfeasible), or NULL when it has none. */
const ridge_serve_plan_row *ridge_serve_plan_cheapest(const ridge_serve_plan_row *rows, size_t nfeasible,
                                                      size_t gpu);

#ifdef __cplusplus
}
#endif
#endif
