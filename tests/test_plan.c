/* Unit tests: capacity planning (model/plan/plan.c, docs/planning.md).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ridge/plan.h"
#include "ridge/serve_plan.h"
#include "ridge/queue.h"

/* A feasible configuration; the fields not named are zero. */
static ridge_plan_result point(size_t index, double time_s, double cost_usd, double energy_j, int count)
{
    return (ridge_plan_result){.index = index, .time_s = time_s, .cost_usd = cost_usd, .energy_j = energy_j,
                               .count = count, .reason = RIDGE_PLAN_FEASIBLE};
}

static void test_power(void)
{
    static const struct {
        double tdp_w, util, want_w;
    } rows[] = {
        {700, 0, 175},             /* idle = 0.25 x TDP */
        {700, 1, 700},             /* fully compute-bound: TDP */
        {412.5, 0.385, 222.234375}, /* 103.125 + 0.385 x 309.375 */
        {300, 1.7, 300},           /* clamped */
        {300, -0.2, 75},
    };
    check_context("power model");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        CHECK_NEAR(ridge_plan_power_w(rows[i].tdp_w, rows[i].util), rows[i].want_w, 1e-12);
    check_context(NULL);
}

static void test_pareto_and_rank(void)
{
    /* time, cost, energy: hand-made. Front in (time, cost): 0 (fast, dear), 2, 4 (slow, cheap);
     * 1 is dominated by 2, 3 is infeasible, 5 has no price, 6 duplicates 2 (later index). */
    ridge_plan_result r[7];
    size_t scratch[7], order[7], nfront, nf;
    r[0] = point(0, 1.0, 10.0, 50.0, 8);
    r[1] = point(1, 2.5, 7.0, 20.0, 4);
    r[2] = point(2, 2.0, 6.5, 30.0, 4);
    r[3] = point(3, 0.5, 1.0, 1.0, 1);
    r[3].reason = RIDGE_PLAN_DEADLINE;
    r[4] = point(4, 9.0, 3.25, 10.0, 1);
    r[5] = point(5, 0.75, NAN, 5.0, 2);
    r[6] = point(6, 2.0, 6.5, 30.0, 4);

    check_context("pareto time-cost");
    nfront = ridge_plan_pareto(r, 7, 0, scratch);
    CHECK_INT(nfront, 3);
    CHECK_INT(r[0].pareto, 1);
    CHECK_INT(r[1].pareto, 0);
    CHECK_INT(r[2].pareto, 1);
    CHECK_INT(r[3].pareto, 0);
    CHECK_INT(r[4].pareto, 1);
    CHECK_INT(r[5].pareto, 0);
    CHECK_INT(r[6].pareto, 0);

    check_context("pareto time-energy");
    /* energy: 5 (0.75 s, 5 J) dominates 0, 1, 2, 6 and 4 (all slower, more energy). */
    nfront = ridge_plan_pareto(r, 7, 1, scratch);
    CHECK_INT(nfront, 1);
    CHECK_INT(r[5].pareto, 1);
    CHECK_INT(r[0].pareto, 0);

    check_context("rank cost");
    nf = ridge_plan_rank(r, 7, RIDGE_PLAN_COST, order);
    CHECK_INT(nf, 6);
    CHECK_INT(order[0], 4);
    CHECK_INT(order[1], 2); /* 2 and 6 tie on cost and time: index decides */
    CHECK_INT(order[2], 6);
    CHECK_INT(order[3], 1);
    CHECK_INT(order[4], 0);
    CHECK_INT(order[5], 5); /* NaN cost last */

    check_context("rank time");
    nf = ridge_plan_rank(r, 7, RIDGE_PLAN_TIME, order);
    CHECK_INT(nf, 6);
    CHECK_INT(order[0], 5);
    CHECK_INT(order[1], 0);
    CHECK_INT(order[5], 4);

    check_context("rank energy");
    ridge_plan_rank(r, 7, RIDGE_PLAN_ENERGY, order);
    CHECK_INT(order[0], 5);
    CHECK_INT(order[1], 4); /* 10 J, then 20 J */
    CHECK_INT(order[2], 1);

    check_context("rank gpus");
    ridge_plan_rank(r, 7, RIDGE_PLAN_GPUS, order);
    CHECK_INT(order[0], 4); /* 1 GPU; the infeasible 1-GPU point is left out */
    CHECK_INT(order[1], 5);
    CHECK_INT(order[5], 0);
    check_context(NULL);
}

/* The streaming selection gives what ridge_plan_rank and ridge_plan_pareto give over the same
 * results, whatever the chunks, K and order: many ties, NaN costs, infeasible points. */
static void test_select(void)
{
    enum { N = 600 };
    static ridge_plan_result r[N], fed[N];
    static size_t order[N], scratch[N];
    unsigned seed = 12345;
    ridge_err err = {{0}};
    for (size_t i = 0; i < N; i++) {
        double t, c, e;
        seed = seed * 1103515245u + 12345u;
        t = (double)((seed >> 8) % 23);
        c = 40 - t + (double)((seed >> 16) % 9); /* a trade-off: fronts of several points */
        e = 30 - t + (double)((seed >> 4) % 7);
        r[i] = point(i, t, (seed >> 24) % 11 == 0 ? NAN : c, e, 1 + (int)((seed >> 12) % 5));
        if ((seed >> 20) % 7 == 0)
            r[i].reason = RIDGE_PLAN_OOM;
    }
    for (int energy = 0; energy < 2; energy++)
        for (int o = 0; o < RIDGE_PLAN_OBJECTIVE_COUNT; o++) {
            static const size_t ks[] = {1, 7, 100, 2 * N};
            size_t nfront, nf;
            memcpy(fed, r, sizeof r);
            nfront = ridge_plan_pareto(fed, N, energy, scratch);
            nf = ridge_plan_rank(fed, N, (ridge_plan_objective)o, order);
            for (size_t q = 0; q < sizeof ks / sizeof ks[0]; q++) {
                ridge_plan_select *sel = NULL;
                const ridge_plan_result *rows;
                size_t nrows, bad = 0;
                check_context("select");
                CHECK(ridge_plan_select_alloc(ks[q], (ridge_plan_objective)o, energy, &sel, &err) == RIDGE_OK);
                if (!sel)
                    continue;
                /* backwards, in uneven chunks: the order of feeding does not matter */
                for (size_t end = N; end > 0;) {
                    size_t n = end < 37 ? end : 37;
                    CHECK(ridge_plan_select_add(sel, r + end - n, n, &err) == RIDGE_OK);
                    end -= n;
                }
                rows = ridge_plan_select_rows(sel, &nrows);
                CHECK_INT(nrows, nf < ks[q] ? nf : ks[q]);
                CHECK_INT(ridge_plan_select_feasible(sel), nf);
                CHECK_INT(ridge_plan_select_front(sel), nfront);
                for (size_t k = 0; k < nrows; k++)
                    bad += rows[k].index != fed[order[k]].index || rows[k].pareto != fed[order[k]].pareto;
                CHECK_INT(bad, 0);
                ridge_plan_select_free(sel);
            }
        }
    CHECK(ridge_plan_select_alloc(0, RIDGE_PLAN_COST, 0, &(ridge_plan_select *){NULL}, &err) == RIDGE_EINVAL);
    check_context(NULL);
}

static void test_names(void)
{
    ridge_plan_objective o;
    check_context("names");
    CHECK(ridge_plan_objective_parse("energy", &o) == 0 && o == RIDGE_PLAN_ENERGY);
    CHECK(ridge_plan_objective_parse("money", &o) == -1);
    CHECK_STR_EQ(ridge_plan_objective_name(RIDGE_PLAN_GPUS), "gpus");
    CHECK_STR_EQ(ridge_plan_reason_name(RIDGE_PLAN_OOM), "out of memory");
    CHECK_STR_EQ(ridge_plan_reason_key(RIDGE_PLAN_POWER), "over_power_cap");
    CHECK_STR_EQ(ridge_plan_reason_name(RIDGE_PLAN_NO_PRICE), "no price");
    check_context(NULL);
}

/* A real space: bert-base training on an A100 (priced), a T4 (no BF16) and an L4 (no price). */
typedef struct {
    ridge_model *m;
    ridge_gpu gpus[3];
    double prices[3];
    ridge_dtype precs[2];
    int counts[4];
    double batches[3];
} fixture;

static int fixture_init(fixture *f, ridge_plan_spec *sp)
{
    ridge_err err;
    static const char *const ids[] = {"a100-sxm4-80gb", "t4", "l4"};
    memset(f, 0, sizeof *f);
    if (ridge_model_load("bert-base", &f->m, &err) != RIDGE_OK)
        return -1;
    for (int i = 0; i < 3; i++)
        if (ridge_catalog_load(ids[i], &f->gpus[i], &err) != RIDGE_OK)
            return -1;
    f->prices[0] = 1.875;
    f->prices[1] = 0;
    f->prices[2] = 0;
    f->gpus[2].price_usd_per_hour = 0; /* whatever the catalogue says: no price */
    f->gpus[1].price_usd_per_hour = 0.35;
    f->precs[0] = RIDGE_DTYPE_BF16;
    f->precs[1] = RIDGE_DTYPE_FP16;
    f->counts[0] = 1;
    f->counts[1] = 3;
    f->counts[2] = 8;
    f->counts[3] = 24;
    f->batches[0] = 8;
    f->batches[1] = 48;
    f->batches[2] = 4096; /* does not fit anywhere */
    ridge_plan_spec_init(sp);
    sp->model = f->m;
    sp->gpus = f->gpus;
    sp->price_usd_per_hour = f->prices;
    sp->ngpus = 3;
    sp->precisions = f->precs;
    sp->nprecisions = 2;
    sp->counts = f->counts;
    sp->ncounts = 4;
    sp->batches = f->batches;
    sp->nbatches = 3;
    sp->target_kind = RIDGE_PLAN_TARGET_SAMPLES;
    sp->target = 2.5e6;
    sp->objective = RIDGE_PLAN_COST;
    return 0;
}

static void count_reasons(const ridge_plan *p, size_t counts[RIDGE_PLAN_REASON_COUNT])
{
    ridge_plan_result r;
    memset(counts, 0, RIDGE_PLAN_REASON_COUNT * sizeof counts[0]);
    for (size_t i = 0; i < ridge_plan_size(p); i++) {
        ridge_plan_eval(p, i, &r);
        counts[r.reason]++;
    }
}

static void test_space(void)
{
    fixture f;
    ridge_plan_spec sp;
    ridge_plan *p = NULL;
    ridge_err err;
    ridge_plan_result r, a[72], b[72];
    size_t reasons[RIDGE_PLAN_REASON_COUNT];

    check_context("space setup");
    if (!CHECK(fixture_init(&f, &sp) == 0))
        return;
    if (!CHECK(ridge_plan_alloc(&sp, &p, &err) == RIDGE_OK))
        goto done;
    CHECK_INT(ridge_plan_size(p), 3 * 2 * 4 * 3);

    check_context("index layout and arithmetic");
    /* index = ((gpu x 2 + prec) x 4 + count) x 3 + batch: a100, bf16, 3 GPUs, batch 48. */
    ridge_plan_eval(p, ((0 * 2 + 0) * 4 + 1) * 3 + 1, &r);
    CHECK_INT(r.gpu, 0);
    CHECK_INT(r.precision, RIDGE_DTYPE_BF16);
    CHECK_INT(r.count, 3);
    CHECK_NEAR(r.batch, 48, 0);
    CHECK_INT(r.reason, RIDGE_PLAN_FEASIBLE);
    CHECK_NEAR(r.steps, ceil(2.5e6 / (48 * 3)), 0);
    CHECK_NEAR(r.time_s, r.steps * r.step_time_s, 1e-12);
    CHECK(r.comm_s > 0);
    CHECK_NEAR(r.cost_usd, 3 * r.time_s / 3600 * 1.875, 1e-12);
    CHECK_NEAR(r.power_w, ridge_plan_power_w(f.gpus[0].tdp_w, r.utilisation), 1e-12);
    CHECK_NEAR(r.energy_j, r.power_w * 3 * r.time_s, 1e-12);
    CHECK(r.utilisation > 0 && r.utilisation <= 1);
    ridge_plan_eval(p, ((0 * 2 + 0) * 4 + 0) * 3 + 1, &r); /* one GPU: no all-reduce */
    CHECK_NEAR(r.comm_s, 0, 0);

    check_context("reasons, cost objective");
    count_reasons(p, reasons);
    /* batch 4096: out of memory on every (gpu, prec, count): 3 x 2 x 4 = 24. T4 lacks BF16,
     * which scheduling finds for the runs that fit: 4 counts x 2 batches = 8. The L4 has no
     * price: the 16 that fit. */
    CHECK_INT(reasons[RIDGE_PLAN_UNSUPPORTED], 8);
    CHECK_INT(reasons[RIDGE_PLAN_OOM], 24);
    CHECK_INT(reasons[RIDGE_PLAN_NO_PRICE], 16);
    CHECK_INT(reasons[RIDGE_PLAN_FEASIBLE], 24);

    check_context("determinism across threads");
    CHECK(ridge_plan_eval_range(p, 0, 72, 1, a, &err) == RIDGE_OK);
    CHECK(ridge_plan_eval_range(p, 0, 72, 5, b, &err) == RIDGE_OK);
    CHECK(memcmp(a, b, sizeof a) == 0);
    CHECK(ridge_plan_eval_range(p, 70, 3, 2, b, &err) == RIDGE_EINVAL);
    ridge_plan_free(p);
    p = NULL;
    sp.threads = 3; /* the memo on three threads gives the same plan */
    if (CHECK(ridge_plan_alloc(&sp, &p, &err) == RIDGE_OK)) {
        CHECK(ridge_plan_eval_range(p, 0, 72, 4, b, &err) == RIDGE_OK);
        CHECK(memcmp(a, b, sizeof a) == 0);
    }
    ridge_plan_free(p);
    p = NULL;

    check_context("deadline, budget and power cap");
    {
        /* The deadline: longest feasible time among A100 one-GPU runs, minus a little. */
        double one_gpu_s = a[((0 * 2 + 0) * 4 + 0) * 3 + 0].time_s;
        sp.objective = RIDGE_PLAN_TIME; /* no price needed any more */
        sp.deadline_s = one_gpu_s * 0.999;
        sp.power_cap_w = 8 * f.gpus[0].tdp_w; /* 24 A100s exceed it */
        sp.threads = 2;
        if (CHECK(ridge_plan_alloc(&sp, &p, &err) == RIDGE_OK)) {
            ridge_plan_eval(p, ((0 * 2 + 0) * 4 + 0) * 3 + 0, &r);
            CHECK_INT(r.reason, RIDGE_PLAN_DEADLINE);
            ridge_plan_eval(p, ((0 * 2 + 0) * 4 + 3) * 3 + 1, &r);
            CHECK_INT(r.reason, RIDGE_PLAN_POWER);
            ridge_plan_eval(p, ((2 * 2 + 1) * 4 + 1) * 3 + 1, &r); /* L4 without a price: fine for time */
            CHECK(r.reason != RIDGE_PLAN_NO_PRICE);
            CHECK(isnan(r.cost_usd));
            count_reasons(p, reasons);
            CHECK_INT(reasons[RIDGE_PLAN_NO_PRICE], 0);
            CHECK(reasons[RIDGE_PLAN_DEADLINE] > 0);
            CHECK(reasons[RIDGE_PLAN_POWER] > 0);
        }
        ridge_plan_free(p);
        p = NULL;
        sp.deadline_s = 0;
        sp.power_cap_w = 0;
        sp.budget_usd = a[((0 * 2 + 0) * 4 + 1) * 3 + 1].cost_usd * 0.5;
        if (CHECK(ridge_plan_alloc(&sp, &p, &err) == RIDGE_OK)) {
            ridge_plan_eval(p, ((0 * 2 + 0) * 4 + 1) * 3 + 1, &r);
            CHECK_INT(r.reason, RIDGE_PLAN_BUDGET);
            ridge_plan_eval(p, ((2 * 2 + 0) * 4 + 1) * 3 + 1, &r); /* a budget needs a price */
            CHECK_INT(r.reason, RIDGE_PLAN_NO_PRICE);
        }
        ridge_plan_free(p);
        p = NULL;
        sp.budget_usd = 0;
    }

    check_context("no-comm and inference");
    sp.no_comm = 1;
    if (CHECK(ridge_plan_alloc(&sp, &p, &err) == RIDGE_OK)) {
        ridge_plan_eval(p, ((0 * 2 + 0) * 4 + 2) * 3 + 1, &r);
        CHECK_NEAR(r.comm_s, 0, 0);
        CHECK_NEAR(r.step_time_s, a[((0 * 2 + 0) * 4 + 0) * 3 + 1].step_time_s, 1e-12);
    }
    ridge_plan_free(p);
    p = NULL;

    check_context("spec errors");
    {
        ridge_plan_spec bad = sp;
        bad.ncounts = 0;
        CHECK(ridge_plan_alloc(&bad, &p, &err) == RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "count list");
        bad = sp;
        bad.target = 0;
        CHECK(ridge_plan_alloc(&bad, &p, &err) == RIDGE_EINVAL);
        bad = sp;
        f.counts[3] = 0;
        CHECK(ridge_plan_alloc(&bad, &p, &err) == RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "counts");
        f.counts[3] = 24;
        CHECK(p == NULL);
    }
done:
    ridge_plan_free(p);
    ridge_model_free(f.m);
    check_context(NULL);
}

static void test_tokens_on_cnn(void)
{
    ridge_model *m = NULL;
    ridge_gpu g;
    ridge_err err;
    ridge_plan_spec sp;
    ridge_plan *p = NULL;
    ridge_dtype d = RIDGE_DTYPE_FP16;
    int n = 1;
    double b = 32;
    check_context("tokens need a token model");
    if (!CHECK(ridge_model_load("resnet50", &m, &err) == RIDGE_OK) ||
        !CHECK(ridge_catalog_load("a100-sxm4-80gb:3g.40gb", &g, &err) == RIDGE_OK)) {
        ridge_model_free(m);
        return;
    }
    ridge_plan_spec_init(&sp);
    sp.model = m;
    sp.gpus = &g;
    sp.ngpus = 1;
    sp.precisions = &d;
    sp.nprecisions = 1;
    sp.counts = &n;
    sp.ncounts = 1;
    sp.batches = &b;
    sp.nbatches = 1;
    sp.target_kind = RIDGE_PLAN_TARGET_TOKENS;
    sp.target = 1e6;
    CHECK(ridge_plan_alloc(&sp, &p, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "tokens");
    sp.target_kind = RIDGE_PLAN_TARGET_SAMPLES;
    sp.objective = RIDGE_PLAN_TIME;
    if (CHECK(ridge_plan_alloc(&sp, &p, &err) == RIDGE_OK)) {
        ridge_plan_result r;
        ridge_plan_eval(p, 0, &r);
        CHECK_INT(r.reason, RIDGE_PLAN_FEASIBLE); /* a MIG slice as a GPU of its own */
        CHECK(r.time_s > 0);
    }
    ridge_plan_free(p);
    ridge_plan_free(NULL);
    ridge_model_free(m);
    check_context(NULL);
}


/* Serving plans: replica counts against the M/D/c closed form (ridge_queue_mgc, cs2 = 0). */
static void test_serve(void)
{
    static const struct {
        double rate_per_s, service_s, batch, slo_s;
        int want_replicas; /* -1: check against the closed form only */
    } rows[] = {
        {1000, 1.461e-3, 1, 20e-3, -1},
        {2385, 2.162e-3, 2, 9.5e-3, -1},
        {6000, 1.404e-3, 8, 20e-3, -1},
        {187.5, 3.25e-3, 1, 1e-3, 0},   /* service alone above the SLO */
        {1000, 2e-3, 16, 16e-3, 0},     /* fill 15 ms + service 2 ms > 16 ms */
    };
    ridge_err err;
    ridge_plan_serve_result r;
    check_context("serving plan");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double fill = (rows[i].batch - 1) / rows[i].rate_per_s;
        CHECK(ridge_plan_serve(rows[i].rate_per_s, rows[i].service_s, rows[i].batch, rows[i].slo_s,
                               RIDGE_PLAN_MAX_REPLICAS, &r, &err) == RIDGE_OK);
        CHECK_NEAR(r.fill_s, fill, 1e-12);
        if (rows[i].want_replicas == 0) {
            CHECK_INT(r.replicas, 0);
            continue;
        }
        if (!CHECK(r.replicas >= 1))
            continue;
        /* c meets the SLO by the closed form, c - 1 does not (or is unstable). */
        {
            ridge_queue_params q;
            ridge_queue_result qr;
            ridge_queue_params_init(&q);
            q.rate_per_s = rows[i].rate_per_s / rows[i].batch;
            q.mean_service_s = rows[i].service_s;
            q.service_cs2 = 0;
            q.servers = r.replicas;
            CHECK(ridge_queue_mgc(&q, &qr, &err) == RIDGE_OK);
            CHECK(qr.stable);
            CHECK_NEAR(r.p99_s, fill + qr.p99_s, 1e-12);
            CHECK(r.p99_s <= rows[i].slo_s);
            CHECK_NEAR(r.utilisation, qr.utilisation, 1e-12);
            if (r.replicas > 1) {
                q.servers = r.replicas - 1;
                CHECK(ridge_queue_mgc(&q, &qr, &err) == RIDGE_OK);
                CHECK(!qr.stable || fill + qr.p99_s > rows[i].slo_s);
            }
        }
    }
    /* Hand-checked row: 1000 req/s of 1.461 ms, batch 1, 20 ms: 2 replicas (1 is at rho 1.461). */
    CHECK(ridge_plan_serve(1000, 1.461e-3, 1, 20e-3, 4096, &r, &err) == RIDGE_OK);
    CHECK_INT(r.replicas, 2);
    CHECK_NEAR(r.utilisation, 0.7305, 1e-12);
    /* The replica cap: a load of 50 Erlangs cannot be served by 8. */
    CHECK(ridge_plan_serve(10000, 5e-3, 1, 20e-3, 8, &r, &err) == RIDGE_OK);
    CHECK_INT(r.replicas, 0);
    CHECK(ridge_plan_serve(0, 1e-3, 1, 20e-3, 8, &r, &err) == RIDGE_EINVAL);
    CHECK(ridge_plan_serve(1000, 1e-3, 0.5, 20e-3, 8, &r, &err) == RIDGE_EINVAL);
    CHECK(ridge_plan_serve(1000, 1e-3, 1, NAN, 8, &r, &err) == RIDGE_EINVAL);
    CHECK_STR_EQ(ridge_plan_reason_name(RIDGE_PLAN_SLO), "SLO unreachable");
    CHECK_STR_EQ(ridge_plan_reason_key(RIDGE_PLAN_SLO), "slo_unreachable");
    check_context(NULL);
}

/* A GPU's best step: the highest one-GPU throughput over the precisions and batches that fit,
 * and its power and throughput per watt and per USD. */
static void check_best_step(const ridge_plan *p, const fixture *f)
{
    ridge_err err;
    ridge_plan_best b;
    for (size_t g = 0; g < 3; g++) {
        double best = -1;
        if (!CHECK_INT(ridge_plan_best_step(p, g, &b), 1))
            continue;
        for (size_t pr = 0; pr < 2; pr++)
            for (size_t bi = 0; bi < 3; bi++) {
                ridge_plan_step_info s;
                CHECK(ridge_plan_step(p, g, pr, bi, &s, &err) == RIDGE_OK);
                if (s.reason == RIDGE_PLAN_FEASIBLE && s.items / s.step_s > best)
                    best = s.items / s.step_s;
            }
        CHECK_NEAR(b.throughput_per_s, best, 1e-15);
        CHECK_NEAR(b.throughput_per_s, b.step.items / b.step.step_s, 1e-15);
        CHECK(b.batch != 2); /* batch 4096 fits nowhere */
        CHECK_NEAR(b.power_w, ridge_plan_power_w(f->gpus[g].tdp_w, b.step.time_by_bound_s[RIDGE_BOUND_COMPUTE] /
                                                                       b.step.step_s),
                   1e-15);
        CHECK_NEAR(b.throughput_per_w, b.throughput_per_s / b.power_w, 1e-15);
    }
    ridge_plan_best_step(p, 0, &b); /* priced 1.875 USD/h */
    CHECK_NEAR(b.units_per_usd, b.throughput_per_s * 3600 / 1.875, 1e-12);
    ridge_plan_best_step(p, 2, &b); /* no price */
    CHECK(isnan(b.units_per_usd));
    CHECK_INT(ridge_plan_best_step(p, 3, &b), 0);
}

/* The memo seen through ridge_plan_step: the items, the reason and the split by bound; and the
 * best step of each GPU. */
static void test_step_info(void)
{
    fixture f;
    ridge_plan_spec sp;
    ridge_plan *p = NULL;
    ridge_err err;
    ridge_plan_step_info s;
    check_context("plan step info");
    if (!CHECK(fixture_init(&f, &sp) == 0) || !CHECK(ridge_plan_alloc(&sp, &p, &err) == RIDGE_OK)) {
        ridge_model_free(f.m);
        return;
    }
    CHECK(ridge_plan_step(p, 0, 0, 1, &s, &err) == RIDGE_OK); /* a100, bf16, batch 48 */
    CHECK_INT(s.reason, RIDGE_PLAN_FEASIBLE);
    CHECK_NEAR(s.items, 48, 1e-12);
    {
        double sum = 0;
        for (int b = 0; b < RIDGE_BOUND_COUNT; b++)
            sum += s.time_by_bound_s[b];
        CHECK(sum > 0 && sum <= s.step_s * (1 + 1e-9));
    }
    CHECK(ridge_plan_step(p, 0, 0, 2, &s, &err) == RIDGE_OK); /* batch 4096 */
    CHECK_INT(s.reason, RIDGE_PLAN_OOM);
    CHECK(ridge_plan_step(p, 3, 0, 0, &s, &err) == RIDGE_EINVAL);
    check_best_step(p, &f);
    ridge_plan_free(p);
    ridge_model_free(f.m);
    check_context(NULL);
}

/* Parallelism ranges: llama2-70b on 48 H100s with ZeRO-2. T = P = 1 (dp 48) holds all 70B
 * weights on every GPU: out of memory (about 250 GB); T = 8 (dp 6) fits (about 73 GB). T = 3 (64 heads) and P = 3 (80 layers) are rejected by ridge_parallel_predict,
 * T = 3 x P = 3 does not divide 48: all "invalid parallel layout". */
/* A space of one GPU, precision, count and batch, 1e9 tokens, ranked by time. */
static void one_point_spec(ridge_plan_spec *sp, const ridge_model *m, const ridge_gpu *gpu, const ridge_dtype *precs,
                           const int *counts, const double *batches)
{
    ridge_plan_spec_init(sp);
    sp->model = m;
    sp->gpus = gpu;
    sp->ngpus = 1;
    sp->precisions = precs;
    sp->nprecisions = 1;
    sp->counts = counts;
    sp->ncounts = 1;
    sp->batches = batches;
    sp->nbatches = 1;
    sp->target_kind = RIDGE_PLAN_TARGET_TOKENS;
    sp->target = 1e9;
    sp->objective = RIDGE_PLAN_TIME;
}

static void set_ranges(ridge_plan_spec *sp, const int *tps, size_t ntps, const int *pps, size_t npps,
                       const int *zeros, size_t nzeros)
{
    ridge_plan_spec with = *sp;
    with.tps = tps;
    with.pps = pps;
    with.zeros = zeros;
    with.ntps = ntps;
    *sp = with;
    sp->npps = npps;
    sp->nzeros = nzeros;
}

static void test_parallel_ranges(void)
{
    static const int tps[] = {1, 8, 3}, pps[] = {1, 3}, zeros[] = {2}, counts[] = {48}, one[] = {1}, zero0[] = {0};
    static const double batches[] = {1};
    static const ridge_dtype precs[] = {RIDGE_DTYPE_BF16};
    ridge_model *m = NULL;
    ridge_gpu gpu;
    ridge_plan_spec sp;
    ridge_plan *p = NULL;
    ridge_err err;
    ridge_plan_result r, a[6], b[6];
    size_t reasons[RIDGE_PLAN_REASON_COUNT];

    check_context("parallel ranges setup");
    if (!CHECK(ridge_model_load("llama2-70b", &m, &err) == RIDGE_OK) ||
        !CHECK(ridge_catalog_load("h100-sxm5-80gb", &gpu, &err) == RIDGE_OK)) {
        ridge_model_free(m);
        return;
    }
    one_point_spec(&sp, m, &gpu, precs, counts, batches);

    check_context("parallel ranges: defaults written out are not parallel");
    set_ranges(&sp, one, 1, one, 1, zero0, 1);
    if (CHECK(ridge_plan_alloc(&sp, &p, &err) == RIDGE_OK)) {
        CHECK_INT(ridge_plan_is_parallel(p), 0);
        CHECK_INT(ridge_plan_size(p), 1);
        ridge_plan_eval(p, 0, &r);
        CHECK_INT(r.tp, 1);
        CHECK_INT(r.pp, 1);
        CHECK_INT(r.zero, 0);
        CHECK_INT(r.reason, RIDGE_PLAN_OOM); /* 70B on one GPU's memory */
    }
    ridge_plan_free(p);
    p = NULL;

    check_context("parallel ranges: TP/PP sweep");
    sp.tps = tps;
    sp.ntps = 3;
    sp.pps = pps;
    sp.npps = 2;
    sp.zeros = zeros;
    sp.nzeros = 1;
    if (!CHECK(ridge_plan_alloc(&sp, &p, &err) == RIDGE_OK))
        goto done;
    CHECK_INT(ridge_plan_is_parallel(p), 1);
    CHECK_INT(ridge_plan_size(p), 6);
    /* index = (tp x 2 + pp) x 1 + zero */
    ridge_plan_eval(p, 0, &r); /* T = 1, P = 1 */
    CHECK_INT(r.tp, 1);
    CHECK_INT(r.pp, 1);
    CHECK_INT(r.zero, 2);
    CHECK_INT(r.reason, RIDGE_PLAN_OOM);
    CHECK(r.memory_bytes > gpu.memory_bytes);
    ridge_plan_eval(p, 2, &r); /* T = 8, P = 1 */
    CHECK_INT(r.tp, 8);
    CHECK_INT(r.pp, 1);
    CHECK_INT(r.reason, RIDGE_PLAN_FEASIBLE);
    CHECK(r.memory_bytes > 0 && r.memory_bytes <= gpu.memory_bytes);
    CHECK(r.step_time_s > 0 && r.comm_s > 0 && r.comm_s < r.step_time_s);
    /* global batch = microbatch 1 x dp 6 x 1 microbatch, 4096 tokens each */
    CHECK_NEAR(r.steps, ceil(1e9 / (6.0 * 4096)), 0);
    CHECK_NEAR(r.throughput, 6.0 * 4096 / r.step_time_s, 1e-9 * r.throughput);
    CHECK(r.utilisation > 0 && r.utilisation <= 1);
    count_reasons(p, reasons);
    CHECK_INT(reasons[RIDGE_PLAN_FEASIBLE], 1);
    CHECK_INT(reasons[RIDGE_PLAN_OOM], 1);
    CHECK_INT(reasons[RIDGE_PLAN_LAYOUT], 4);
    CHECK_STR_EQ(ridge_plan_reason_name(RIDGE_PLAN_LAYOUT), "invalid parallel layout");
    CHECK_STR_EQ(ridge_plan_reason_key(RIDGE_PLAN_LAYOUT), "invalid_parallel_layout");

    check_context("parallel ranges: determinism across threads");
    CHECK(ridge_plan_eval_range(p, 0, 6, 1, a, &err) == RIDGE_OK);
    CHECK(ridge_plan_eval_range(p, 0, 6, 3, b, &err) == RIDGE_OK);
    CHECK(memcmp(a, b, sizeof a) == 0);
    ridge_plan_free(p);
    p = NULL;

    check_context("parallel ranges: checks");
    {
        static const int bad_zero[] = {4};
        sp.zeros = bad_zero;
        CHECK(ridge_plan_alloc(&sp, &p, &err) == RIDGE_EINVAL);
        sp.zeros = zeros;
        sp.run.mode = RIDGE_MODE_INFER;
        CHECK(ridge_plan_alloc(&sp, &p, &err) == RIDGE_EINVAL);
        CHECK(p == NULL);
    }
done:
    ridge_plan_free(p);
    ridge_model_free(m);
    check_context(NULL);
}

/* One answer per configuration: the (tp, pp, zero) configurations a search shares are evaluated
 * the same whatever else it searched (issue: adding --tp 1,2 dropped the tp = 1 rows' DP
 * all-reduce). mi300x fp8 llama2-7b, 8 GPUs, batch 4 per GPU, three searches. */
static int same_result(const ridge_plan_result *x, const ridge_plan_result *y)
{
    return x->reason == y->reason && x->step_time_s == y->step_time_s && x->comm_s == y->comm_s &&
           x->steps == y->steps && x->time_s == y->time_s && x->memory_bytes == y->memory_bytes &&
           x->utilisation == y->utilisation && x->energy_j == y->energy_j && x->throughput == y->throughput;
}

static void test_plan_consistency(void)
{
    static const int counts[] = {8}, tp1[] = {1}, tp12[] = {1, 2}, pp12[] = {1, 2}, z0[] = {0}, z01[] = {0, 1};
    static const double batches[] = {4};
    static const ridge_dtype precs[] = {RIDGE_DTYPE_FP8};
    static const struct {
        const int *tps, *pps, *zeros;
        size_t ntps, npps, nzeros;
    } searches[] = {
        {tp1, tp1, z0, 1, 1, 1},
        {tp12, tp1, z0, 2, 1, 1},
        {tp12, pp12, z01, 2, 2, 2},
    };
    ridge_plan_result got[3][2]; /* [search][tp - 1] at pp 1, zero 0 */
    ridge_model *m = NULL;
    ridge_gpu gpu;
    ridge_plan_spec sp;
    ridge_err err;
    check_context("plan consistency setup");
    memset(got, 0, sizeof got);
    if (!CHECK(ridge_model_load("llama2-7b", &m, &err) == RIDGE_OK) ||
        !CHECK(ridge_catalog_load("mi300x", &gpu, &err) == RIDGE_OK)) {
        ridge_model_free(m);
        return;
    }
    one_point_spec(&sp, m, &gpu, precs, counts, batches);
    for (size_t k = 0; k < 3; k++) {
        ridge_plan *p = NULL;
        sp.tps = searches[k].tps;
        sp.ntps = searches[k].ntps;
        sp.pps = searches[k].pps;
        sp.npps = searches[k].npps;
        sp.zeros = searches[k].zeros;
        sp.nzeros = searches[k].nzeros;
        check_context(k == 0 ? "plan consistency: no ranges" : k == 1 ? "plan consistency: --tp 1,2"
                                                                      : "plan consistency: --tp 1,2 --pp 1,2 --zero 0,1");
        if (!CHECK(ridge_plan_alloc(&sp, &p, &err) == RIDGE_OK))
            continue;
        for (size_t i = 0; i < ridge_plan_size(p); i++) {
            ridge_plan_result r;
            ridge_plan_eval(p, i, &r);
            if (r.pp == 1 && r.zero == 0 && (r.tp == 1 || r.tp == 2))
                got[k][r.tp - 1] = r;
        }
        ridge_plan_free(p);
    }
    check_context("plan consistency: tp 1 from every search");
    CHECK_INT(got[0][0].reason, RIDGE_PLAN_FEASIBLE);
    CHECK(got[0][0].comm_s > 0); /* the DP all-reduce's exposed last bucket */
    CHECK(same_result(&got[0][0], &got[1][0]));
    CHECK(same_result(&got[0][0], &got[2][0]));
    CHECK_NEAR(got[1][0].comm_s, got[0][0].comm_s, 0);
    check_context("plan consistency: tp 2 from two searches");
    CHECK_INT(got[1][1].reason, RIDGE_PLAN_FEASIBLE);
    CHECK(same_result(&got[1][1], &got[2][1]));
    /* On one GPU ZeRO-1 shards nothing: its row (the multi-GPU model) is the ZeRO-0 row (the
     * single-GPU one) in step, utilisation and energy. */
    {
        static const int one[] = {1};
        ridge_plan *p = NULL;
        ridge_plan_result rz[2];
        int seen = 0;
        check_context("plan consistency: zero 0 and 1 on one GPU");
        one_point_spec(&sp, m, &gpu, precs, one, batches);
        sp.zeros = z01;
        sp.nzeros = 2;
        if (CHECK(ridge_plan_alloc(&sp, &p, &err) == RIDGE_OK)) {
            for (size_t i = 0; i < ridge_plan_size(p); i++) {
                ridge_plan_result r;
                ridge_plan_eval(p, i, &r);
                if (r.zero == 0 || r.zero == 1) {
                    rz[r.zero] = r;
                    seen |= 1 << r.zero;
                }
            }
            ridge_plan_free(p);
        }
        if (CHECK_INT(seen, 3) && CHECK_INT(rz[0].reason, RIDGE_PLAN_FEASIBLE) &&
            CHECK_INT(rz[1].reason, RIDGE_PLAN_FEASIBLE)) {
            CHECK_NEAR(rz[1].step_time_s, rz[0].step_time_s, 1e-9);
            CHECK_NEAR(rz[1].utilisation, rz[0].utilisation, 1e-9);
            CHECK_NEAR(rz[1].energy_j, rz[0].energy_j, 1e-9);
        }
    }
    check_context(NULL);
    ridge_model_free(m);
}

/* The searched dimensions (recompute, sequence parallelism, virtual stages, global batch) and a
 * cluster: one configuration - llama2-7b on 16 GPUs of a dgx-a100, microbatch 1, TP 2 PP 2 DP 4,
 * ZeRO-1, selective recompute, SP, 2 virtual stages, global batch 32 (8 microbatches) - gives
 * the same row from a search of it alone and from two wider searches in other orders; each
 * dimension changes the row; the layouts they rule out are invalid whatever was searched. */
typedef struct {
    const int *counts, *tps, *pps, *zeros, *sps, *vs;
    const double *batches, *globals;
    const ridge_recompute *rcs;
    size_t ncounts, ntps, npps, nzeros, nsps, nvs, nbatches, nglobals, nrcs;
} dim_search;

/* The row of (count, batch, tp, pp, zero, recompute, sp, v, global) in search d; 0 when absent. */
static int find_row(ridge_plan_spec *sp, const dim_search *d, int count, double batch, int tp, int pp, int zero,
                    ridge_recompute rcm, int spv, int v, double global, ridge_plan_result *out)
{
    ridge_plan *p = NULL;
    ridge_err err;
    int found = 0;
    sp->counts = d->counts, sp->ncounts = d->ncounts, sp->batches = d->batches, sp->nbatches = d->nbatches;
    set_ranges(sp, d->tps, d->ntps, d->pps, d->npps, d->zeros, d->nzeros);
    sp->sps = d->sps, sp->nsps = d->nsps, sp->vstages = d->vs, sp->nvstages = d->nvs;
    sp->global_batches = d->globals, sp->nglobal_batches = d->nglobals;
    sp->recomputes = d->rcs, sp->nrecomputes = d->nrcs;
    if (!CHECK(ridge_plan_alloc(sp, &p, &err) == RIDGE_OK))
        return 0;
    for (size_t i = 0; i < ridge_plan_size(p) && !found; i++) {
        ridge_plan_result r;
        ridge_plan_eval(p, i, &r);
        CHECK_INT(r.index, i);
        if (r.count == count && r.batch == batch && r.tp == tp && r.pp == pp && r.zero == zero && r.recompute == rcm &&
            r.sp == spv && r.vstages == v && (global == 0 || r.global_batch == global)) {
            *out = r;
            found = 1;
        }
    }
    ridge_plan_free(p);
    return found;
}

static int same_dims(const ridge_plan_result *x, const ridge_plan_result *y)
{
    return same_result(x, y) && x->recompute == y->recompute && x->sp == y->sp && x->vstages == y->vstages &&
           x->global_batch == y->global_batch && x->microbatches == y->microbatches;
}

static void test_plan_dimensions(void)
{
    static const int c16[] = {16}, c8_16[] = {16, 8}, t2[] = {2}, t124[] = {4, 1, 2}, p2[] = {2}, p12[] = {1, 2},
                     z1[] = {1}, z01[] = {0, 1}, s1[] = {1}, s01[] = {0, 1}, s10[] = {1, 0}, v2[] = {2},
                     v124[] = {1, 2, 4}, v21[] = {2, 1}, one[] = {1}, zero[] = {0};
    static const double b1[] = {1}, b21[] = {2, 1}, g32[] = {32}, g16_32[] = {16, 32}, g32_64[] = {64, 32}, g0[] = {0};
    static const ridge_recompute sel[] = {RIDGE_RECOMPUTE_SELECTIVE},
                                 all[] = {RIDGE_RECOMPUTE_NONE, RIDGE_RECOMPUTE_SELECTIVE, RIDGE_RECOMPUTE_FULL},
                                 fs[] = {RIDGE_RECOMPUTE_FULL, RIDGE_RECOMPUTE_SELECTIVE},
                                 none[] = {RIDGE_RECOMPUTE_NONE};
    static const ridge_dtype precs[] = {RIDGE_DTYPE_BF16};
    const dim_search alone = {c16, t2, p2, z1, s1, v2, b1, g32, sel, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                     wide = {c8_16, t124, p12, z01, s01, v124, b21, g16_32, all, 2, 3, 2, 2, 2, 3, 2, 2, 3},
                     other = {c16, t124, p2, z01, s10, v21, b1, g32_64, fs, 1, 3, 1, 2, 2, 2, 1, 2, 2};
    ridge_model *m = NULL;
    ridge_cluster cl, slow;
    ridge_plan_spec sp;
    ridge_plan_result a, b, c, x;
    ridge_err err;
    check_context("plan dimensions setup");
    if (!CHECK(ridge_model_load("llama2-7b", &m, &err) == RIDGE_OK) ||
        !CHECK(ridge_cluster_load("dgx-a100", 0, &cl, &err) == RIDGE_OK)) {
        ridge_model_free(m);
        return;
    }
    one_point_spec(&sp, m, &cl.gpu, precs, c16, b1);
    sp.cluster = &cl;
    check_context("plan dimensions: one configuration from three searches");
    if (CHECK(find_row(&sp, &alone, 16, 1, 2, 2, 1, RIDGE_RECOMPUTE_SELECTIVE, 1, 2, 32, &a)) &&
        CHECK(find_row(&sp, &wide, 16, 1, 2, 2, 1, RIDGE_RECOMPUTE_SELECTIVE, 1, 2, 32, &b)) &&
        CHECK(find_row(&sp, &other, 16, 1, 2, 2, 1, RIDGE_RECOMPUTE_SELECTIVE, 1, 2, 32, &c))) {
        CHECK_INT(a.reason, RIDGE_PLAN_FEASIBLE);
        CHECK_NEAR(a.microbatches, 8, 0);
        CHECK_NEAR(a.steps, ceil(1e9 / (32.0 * 4096)), 0);
        CHECK(same_dims(&a, &b));
        CHECK(same_dims(&a, &c));
        check_context("plan dimensions: each dimension matters");
        if (CHECK(find_row(&sp, &wide, 16, 1, 2, 2, 1, RIDGE_RECOMPUTE_FULL, 1, 2, 32, &x)))
            CHECK(x.reason == RIDGE_PLAN_FEASIBLE && x.step_time_s > a.step_time_s); /* more recomputed */
        if (CHECK(find_row(&sp, &wide, 16, 1, 2, 2, 1, RIDGE_RECOMPUTE_SELECTIVE, 0, 2, 32, &x)))
            CHECK(x.reason == RIDGE_PLAN_FEASIBLE && x.memory_bytes > a.memory_bytes); /* activations not split */
        if (CHECK(find_row(&sp, &wide, 16, 1, 2, 2, 1, RIDGE_RECOMPUTE_SELECTIVE, 1, 1, 32, &x)))
            CHECK(x.reason == RIDGE_PLAN_FEASIBLE && x.step_time_s != a.step_time_s); /* 1F1B's bubble */
        if (CHECK(find_row(&sp, &wide, 16, 1, 2, 2, 1, RIDGE_RECOMPUTE_SELECTIVE, 1, 2, 16, &x)))
            CHECK(x.reason == RIDGE_PLAN_FEASIBLE && x.microbatches == 4 && x.step_time_s < a.step_time_s);
        check_context("plan dimensions: the cluster's network is used");
        slow = cl;
        slow.inter_bw_bytes_per_s_per_node /= 4;
        sp.cluster = &slow;
        if (CHECK(find_row(&sp, &alone, 16, 1, 2, 2, 1, RIDGE_RECOMPUTE_SELECTIVE, 1, 2, 32, &x)))
            CHECK(x.reason == RIDGE_PLAN_FEASIBLE && x.comm_s > a.comm_s);
        sp.cluster = &cl;
    }
    check_context("plan dimensions: layouts ruled out, whatever was searched");
    {
        const dim_search bad = {c16, t124, p12, z01, s01, v21, b1, g16_32, none, 1, 3, 2, 2, 2, 2, 1, 2, 1};
        static const int c12[] = {12};
        const dim_search twelve = {c12, one, one, zero, zero, one, b1, g0, none, 1, 1, 1, 1, 0, 0, 1, 0, 1};
        if (CHECK(find_row(&sp, &bad, 16, 1, 1, 2, 0, RIDGE_RECOMPUTE_NONE, 1, 1, 32, &x)))
            CHECK_INT(x.reason, RIDGE_PLAN_LAYOUT); /* sp without tp */
        if (CHECK(find_row(&sp, &bad, 16, 1, 2, 1, 0, RIDGE_RECOMPUTE_NONE, 0, 2, 32, &x)))
            CHECK_INT(x.reason, RIDGE_PLAN_LAYOUT); /* virtual stages without a pipeline */
        if (CHECK(find_row(&sp, &bad, 16, 1, 4, 2, 0, RIDGE_RECOMPUTE_NONE, 0, 1, 16, &x)))
            CHECK_INT(x.reason, RIDGE_PLAN_FEASIBLE); /* dp 2: 8 microbatches */
        {
            static const double g18[] = {18};
            const dim_search odd = {c16, t2, p2, zero, zero, one, b1, g18, none, 1, 1, 1, 1, 1, 1, 1, 1, 1};
            if (CHECK(find_row(&sp, &odd, 16, 1, 2, 2, 0, RIDGE_RECOMPUTE_NONE, 0, 1, 18, &x)))
                CHECK_INT(x.reason, RIDGE_PLAN_LAYOUT); /* 18 / (dp 4 x 1) is not whole */
        }
        if (CHECK(find_row(&sp, &twelve, 12, 1, 1, 1, 0, RIDGE_RECOMPUTE_NONE, 0, 1, 0, &x)))
            CHECK_INT(x.reason, RIDGE_PLAN_LAYOUT); /* 12 GPUs are not whole nodes of 8 */
    }
    check_context("plan dimensions: data parallel in one microbatch is the memo's row (gpt2)");
    ridge_model_free(m);
    m = NULL;
    if (CHECK(ridge_model_load("gpt2", &m, &err) == RIDGE_OK)) {
        sp.model = m;
        const dim_search dp = {c16, one, one, zero, zero, one, b1, g0, none, 1, 1, 1, 1, 0, 0, 1, 0, 1},
                         dpg = {c16, t124, p12, zero, s01, one, b1, g16_32, all, 1, 3, 2, 1, 2, 1, 1, 2, 3};
        if (CHECK(find_row(&sp, &dp, 16, 1, 1, 1, 0, RIDGE_RECOMPUTE_NONE, 0, 1, 0, &a)) &&
            CHECK(find_row(&sp, &dpg, 16, 1, 1, 1, 0, RIDGE_RECOMPUTE_NONE, 0, 1, 16, &b))) {
            CHECK_INT(a.reason, RIDGE_PLAN_FEASIBLE);
            CHECK(a.comm_s > 0);
            CHECK(same_dims(&a, &b));
        }
    }
    check_context("plan dimensions: one context in any order and 2 threads give ridge_plan_eval's rows");
    {
        ridge_plan *p = NULL;
        ridge_plan_ctx *ctx = NULL;
        ridge_plan_result *want = NULL, *got = NULL;
        size_t n = 0, feasible = 0;
        sp.counts = wide.counts, sp.ncounts = wide.ncounts, sp.batches = wide.batches, sp.nbatches = wide.nbatches;
        set_ranges(&sp, wide.tps, wide.ntps, wide.pps, wide.npps, wide.zeros, wide.nzeros);
        sp.sps = wide.sps, sp.nsps = wide.nsps, sp.vstages = wide.vs, sp.nvstages = wide.nvs;
        sp.global_batches = wide.globals, sp.nglobal_batches = wide.nglobals;
        sp.recomputes = wide.rcs, sp.nrecomputes = wide.nrcs;
        if (CHECK(ridge_plan_alloc(&sp, &p, &err) == RIDGE_OK) && CHECK(ridge_plan_ctx_alloc(p, &ctx, &err) == RIDGE_OK)) {
            n = ridge_plan_size(p);
            want = calloc(n, sizeof *want);
            got = calloc(n, sizeof *got);
        }
        if (n && CHECK(want && got)) {
            for (size_t i = 0; i < n; i++) {
                ridge_plan_eval(p, i, &want[i]);
                feasible += want[i].reason == RIDGE_PLAN_FEASIBLE;
            }
            CHECK(feasible > 0 && feasible < n);
            for (size_t i = n; i-- > 0;)
                ridge_plan_eval_ctx(p, ctx, i, &got[i]);
            CHECK(memcmp(got, want, n * sizeof *got) == 0);
            memset(got, 0, n * sizeof *got);
            CHECK_INT(ridge_plan_eval_range(p, 0, n, 2, got, &err), RIDGE_OK);
            CHECK(memcmp(got, want, n * sizeof *got) == 0);
        }
        free(want);
        free(got);
        ridge_plan_ctx_free(ctx);
        ridge_plan_free(p);
        set_ranges(&sp, NULL, 0, NULL, 0, NULL, 0);
        sp.nsps = sp.nvstages = sp.nglobal_batches = sp.nrecomputes = 0;
        sp.counts = c16, sp.ncounts = 1, sp.batches = b1, sp.nbatches = 1;
    }
    check_context("plan dimensions: checks");
    {
        static const int bad_sp[] = {2}, bad_v[] = {0};
        static const double bad_g[] = {1.5};
        ridge_plan *p = NULL;
        static ridge_gpu other_gpu;
        ridge_plan_spec bad = sp;
        bad.sps = bad_sp, bad.nsps = 1;
        CHECK(ridge_plan_alloc(&bad, &p, &err) == RIDGE_EINVAL);
        bad = sp, bad.vstages = bad_v, bad.nvstages = 1;
        CHECK(ridge_plan_alloc(&bad, &p, &err) == RIDGE_EINVAL);
        bad = sp, bad.global_batches = bad_g, bad.nglobal_batches = 1;
        CHECK(ridge_plan_alloc(&bad, &p, &err) == RIDGE_EINVAL);
        if (CHECK(ridge_catalog_load("h100-sxm5-80gb", &other_gpu, &err) == RIDGE_OK)) {
            bad = sp, bad.gpus = &other_gpu;
            CHECK(ridge_plan_alloc(&bad, &p, &err) == RIDGE_EINVAL);
        }
        bad = sp, bad.sps = s1, bad.nsps = 1, bad.run.mode = RIDGE_MODE_INFER, bad.cluster = NULL;
        CHECK(ridge_plan_alloc(&bad, &p, &err) == RIDGE_EINVAL);
        CHECK(p == NULL);
    }
    check_context(NULL);
    ridge_model_free(m);
}

/* With parallelism ranges, one context evaluating the space in any order (its prepared models and
 * memos), and ridge_plan_eval_range on 1 and 2 threads, give what ridge_plan_eval gives index by
 * index: feasible, out of memory, unsupported precision (found by scheduling, after memory) and
 * invalid layouts alike. */
static void test_plan_ctx(void)
{
    static const int counts[] = {8, 16}, tps[] = {1, 2, 4}, pps[] = {1, 2}, zeros[] = {0, 1, 2, 3};
    static const double batches[] = {1, 4, 16};
    static const ridge_dtype precs[] = {RIDGE_DTYPE_BF16, RIDGE_DTYPE_FP32, RIDGE_DTYPE_FP8};
    ridge_model *m = NULL;
    ridge_gpu gpu;
    ridge_plan_spec sp;
    ridge_plan *p = NULL;
    ridge_plan_ctx *c = NULL;
    ridge_plan_result *want = NULL, *got = NULL;
    ridge_err err;
    size_t n = 0, reasons[RIDGE_PLAN_REASON_COUNT] = {0};
    check_context("plan context");
    if (!CHECK(ridge_model_load("llama2-7b", &m, &err) == RIDGE_OK) ||
        !CHECK(ridge_catalog_load("a100-sxm4-80gb", &gpu, &err) == RIDGE_OK))
        goto done;
    one_point_spec(&sp, m, &gpu, precs, counts, batches);
    sp.nprecisions = 3;
    sp.ncounts = 2;
    sp.nbatches = 3;
    set_ranges(&sp, tps, 3, pps, 2, zeros, 4);
    if (!CHECK(ridge_plan_alloc(&sp, &p, &err) == RIDGE_OK) || !CHECK(ridge_plan_ctx_alloc(p, &c, &err) == RIDGE_OK))
        goto done;
    n = ridge_plan_size(p);
    want = calloc(n, sizeof *want);
    got = calloc(n, sizeof *got);
    if (!CHECK(want && got))
        goto done;
    for (size_t i = 0; i < n; i++) {
        ridge_plan_eval(p, i, &want[i]);
        reasons[want[i].reason]++;
    }
    CHECK(reasons[RIDGE_PLAN_FEASIBLE] > 0 && reasons[RIDGE_PLAN_OOM] > 0 && reasons[RIDGE_PLAN_UNSUPPORTED] > 0);
    for (size_t i = 0; i < n; i++) { /* backwards on one context */
        ridge_plan_eval_ctx(p, c, n - 1 - i, &got[n - 1 - i]);
    }
    for (size_t i = 0; i < n; i++)
        if (!CHECK(memcmp(&got[i], &want[i], sizeof got[i]) == 0))
            break;
    for (int threads = 1; threads <= 2; threads++) {
        memset(got, 0, n * sizeof *got);
        CHECK_INT(ridge_plan_eval_range(p, 0, n, threads, got, &err), RIDGE_OK);
        for (size_t i = 0; i < n; i++)
            if (!CHECK(memcmp(&got[i], &want[i], sizeof got[i]) == 0))
                break;
    }
done:
    check_context(NULL);
    free(want);
    free(got);
    ridge_plan_ctx_free(c);
    ridge_plan_free(p);
    ridge_model_free(m);
}

int main(void)
{
    test_plan_ctx();
    test_plan_consistency();
    test_plan_dimensions();
    test_power();
    test_names();
    test_pareto_and_rank();
    test_select();
    test_space();
    test_tokens_on_cnn();
    test_serve();
    test_step_info();
    test_parallel_ranges();
    return check_report();
}
