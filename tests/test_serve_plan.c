/* Unit tests: serving plans over a plan's candidates (model/plan/serve_plan.c, docs/planning.md,
 * "Serving plans"). The M/D/c replica search itself is tested in test_plan.c (test_serve).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ridge/serve_plan.h"

/* resnet50 inference on a T4 (priced 0.35 USD/h) and an L4 without a price, fp16, batches 1, 2
 * and 16, at 1,000 requests/s: batch 16 fills for 15 ms, so a 12.5 ms SLO rules it out. */
static void test_serve_plan_rows(void)
{
    static const char *const ids[] = {"t4", "l4"};
    static const ridge_dtype precs[] = {RIDGE_DTYPE_FP16};
    static const int one = 1;
    static const double batches[] = {1, 2, 16};
    double prices[2] = {0.35, 0};
    ridge_gpu gpus[2];
    ridge_model *m = NULL;
    ridge_plan *p = NULL;
    ridge_plan_spec sp;
    ridge_serve_plan_row rows[6];
    ridge_err err;
    size_t nf = 99, by_reason[RIDGE_PLAN_REASON_COUNT] = {0};
    const double rate = 1000, slo = 12.5e-3;
    check_context("serve plan rows");
    if (!CHECK(ridge_model_load("resnet50", &m, &err) == RIDGE_OK))
        return;
    for (int i = 0; i < 2; i++)
        CHECK(ridge_catalog_load(ids[i], &gpus[i], &err) == RIDGE_OK);
    gpus[1].price_usd_per_hour = 0; /* whatever the catalogue says: no price */
    ridge_plan_spec_init(&sp);
    sp.model = m;
    sp.run.mode = RIDGE_MODE_INFER;
    sp.gpus = gpus;
    sp.price_usd_per_hour = prices;
    sp.ngpus = 2;
    sp.precisions = precs;
    sp.nprecisions = 1;
    sp.counts = &one;
    sp.ncounts = 1;
    sp.batches = batches;
    sp.nbatches = 3;
    sp.target = rate;
    if (!CHECK(ridge_plan_alloc(&sp, &p, &err) == RIDGE_OK)) {
        ridge_model_free(m);
        return;
    }
    CHECK_INT(ridge_serve_plan_size(p), 6);
    CHECK(ridge_serve_plan_eval(p, rate, slo, rows, &nf, &err) == RIDGE_OK);
    for (size_t k = 0; k < 6; k++) {
        const ridge_serve_plan_row *r = &rows[k];
        ridge_plan_step_info s;
        ridge_plan_serve_result want;
        by_reason[r->reason]++;
        CHECK_INT(r->reason == RIDGE_PLAN_FEASIBLE, k < nf); /* feasible first */
        CHECK(ridge_plan_step(p, r->gpu, r->precision, r->batch, &s, &err) == RIDGE_OK);
        CHECK_NEAR(r->service_s, s.step_s, 1e-15);
        if (s.reason != RIDGE_PLAN_FEASIBLE)
            continue;
        CHECK(ridge_plan_serve(rate, s.step_s, batches[r->batch], slo, RIDGE_PLAN_MAX_REPLICAS, &want, &err) ==
              RIDGE_OK);
        CHECK_INT(r->serve.replicas, want.replicas);
        if (r->reason == RIDGE_PLAN_FEASIBLE) {
            CHECK_INT(r->gpu, 0); /* only the T4 has a price */
            CHECK_NEAR(r->cost_usd_per_hour, want.replicas * 0.35, 1e-12);
            CHECK_NEAR(r->cost_usd_per_1000_requests, r->cost_usd_per_hour / 3.6 / rate, 1e-12);
            if (k > 0)
                CHECK(r->cost_usd_per_hour >= rows[k - 1].cost_usd_per_hour);
        } else if (r->reason == RIDGE_PLAN_NO_PRICE) {
            CHECK_INT(r->gpu, 1);
            CHECK_NEAR(r->cost_usd_per_hour, 0, 1e-12);
        }
    }
    CHECK_INT(nf, 2);                         /* the T4 at batches 1 and 2 */
    CHECK_INT(by_reason[RIDGE_PLAN_SLO], 2);  /* batch 16 on either GPU */
    CHECK_INT(by_reason[RIDGE_PLAN_NO_PRICE], 2);
    CHECK(ridge_serve_plan_cheapest(rows, nf, 0) == &rows[0]);
    CHECK(ridge_serve_plan_cheapest(rows, nf, 1) == NULL);
    /* The spec and the stream are checked, naming the fields. */
    CHECK(ridge_serve_plan_eval(p, 0, slo, rows, &nf, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "rate_per_s");
    CHECK_INT(nf, 0);
    CHECK(ridge_serve_plan_eval(p, rate, NAN, rows, &nf, &err) == RIDGE_EINVAL);
    ridge_plan_free(p);
    sp.run.mode = RIDGE_MODE_TRAIN;
    sp.target = 1e6;
    if (CHECK(ridge_plan_alloc(&sp, &p, &err) == RIDGE_OK)) {
        CHECK(ridge_serve_plan_eval(p, rate, slo, rows, &nf, &err) == RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "run.mode");
    }
    ridge_plan_free(p);
    ridge_model_free(m);
    check_context(NULL);
}

int main(void)
{
    test_serve_plan_rows();
    return check_report();
}
