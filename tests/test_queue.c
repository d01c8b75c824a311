/* Unit tests for the serving queues (model/serve/queue_*.c, model/serve/des.c; docs/serving.md): textbook
 * closed forms, unstable queues, errors, and the simulator against the closed forms.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <string.h>

#include "check.h"
#include "ridge/queue.h"

/* The two-point service table of the M/G/1 rows: E[S] 1.25, cs2 0.36, E[S^3] 4.0625. */
static const double two_point[2] = {0.5, 2.0};

/* A simulator configuration: Poisson arrivals at rate, one server, the service law with mean s
 * (the empirical law draws from two_point). */
static ridge_des_config dc(double rate, ridge_service_kind law, double s, unsigned long seed)
{
    ridge_des_config c;
    ridge_des_config_init(&c);
    c.rate_per_s = rate;
    c.service = law;
    c.mean_service_s = s;
    c.table_s = two_point;
    c.table_n = 2;
    c.seed = seed;
    return c;
}

static ridge_queue_params qp(double rate, double s, double cs2, int c)
{
    ridge_queue_params p;
    ridge_queue_params_init(&p);
    p.rate_per_s = rate;
    p.mean_service_s = s;
    p.service_cs2 = cs2;
    p.servers = c;
    return p;
}

static void test_textbook(void)
{
    /* Closed forms: name, lambda, E[S], cs2, c, expected E[W], E[T], P(wait). */
    static const struct {
        const char *name;
        double rate, s, cs2;
        int c;
        double wq, w, pw;
    } rows[] = {
        {"M/M/1 lambda 0.8 mu 1", 0.8, 1, 1, 1, 4, 5, 0.8},
        {"M/D/1 rho 0.8 E[S] 1", 0.8, 1, 0, 1, 2, 3, 0.8},
        {"M/D/1 rho 0.8 E[S] 2.385", 0.8 / 2.385, 2.385, 0, 1, 2 * 2.385, 3 * 2.385, 0.8},
        {"M/G/1 cs2 0.36 (P-K)", 0.6 / 1.25, 1.25, 0.36, 1, 0.6 * 1.25 * 1.36 / (2 * 0.4), 0.6 * 1.25 * 1.36 / 0.8 + 1.25,
         0.6},
        {"M/M/2 a 1.5", 1.5, 1, 1, 2, 0.6428571428571428 / 0.5, 0.6428571428571428 / 0.5 + 1, 0.6428571428571428},
        {"M/M/10 a 8", 8 / 0.0371, 0.0371, 1, 10, 0.40918015079644354 / (10 / 0.0371 - 8 / 0.0371),
         0.40918015079644354 / (2 / 0.0371) + 0.0371, 0.40918015079644354},
        {"M/D/4 Allen-Cunneen", 3 / 2.385, 2.385, 0, 4, 0, 0, 0}, /* checked against Erlang C below */
    };
    ridge_err err;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_queue_params p = qp(rows[i].rate, rows[i].s, rows[i].cs2, rows[i].c);
        ridge_queue_result r;
        check_context(rows[i].name);
        CHECK_INT(ridge_queue_mgc(&p, &r, &err), RIDGE_OK);
        CHECK_INT(r.stable, 1);
        CHECK_NEAR(r.throughput_per_s, rows[i].rate, 1e-12);
        CHECK_NEAR(r.saturation_rate_per_s, rows[i].c / rows[i].s, 1e-12);
        if (rows[i].wq > 0) {
            CHECK_NEAR(r.mean_wait_s, rows[i].wq, 1e-9);
            CHECK_NEAR(r.mean_latency_s, rows[i].w, 1e-9);
            CHECK_NEAR(r.p_wait, rows[i].pw, 1e-9);
        } else {
            double cw;
            CHECK_INT(ridge_queue_erlang_c(4, 3, &cw, &err), RIDGE_OK);
            CHECK_NEAR(r.mean_wait_s, cw / (4 / 2.385 - 3 / 2.385) / 2, 1e-9);
        }
        CHECK(r.p50_s <= r.p90_s && r.p90_s <= r.p99_s && r.p50_s >= rows[i].s * (rows[i].cs2 == 0));
    }
    check_context(NULL);
}

static void test_mm1_distribution(void)
{
    ridge_queue_params p = qp(0.8, 1, 1, 1);
    ridge_queue_result r;
    ridge_err err;
    double t;
    check_context("M/M/1 sojourn is exponential with rate mu - lambda");
    CHECK_INT(ridge_queue_mg1(&p, &r, &err), RIDGE_OK);
    CHECK_NEAR(r.wait_tail_rate_per_s, 0.2, 1e-12);
    CHECK_NEAR(r.p50_s, log(2) / 0.2, 1e-7);
    CHECK_NEAR(r.p90_s, log(10) / 0.2, 1e-7);
    CHECK_NEAR(r.p99_s, log(100) / 0.2, 1e-7);
    CHECK_NEAR(r.wait_m2_s2, 2 * 0.8 / (0.2 * 0.2), 1e-12); /* E[W^2] = 2 rho / (mu - lambda)^2 */
    /* P(T > t) = exp(-(mu - lambda) t) at t = 7.31: the quantile 1 - exp(-0.2 * 7.31). */
    CHECK_INT(ridge_queue_latency_quantile(0.8, 0.2, 1, 1, 1 - exp(-0.2 * 7.31), &t, &err), RIDGE_OK);
    CHECK_NEAR(t, 7.31, 1e-7);
    check_context("M/D/1 percentiles: s + log(rho / (1 - q)) / theta");
    p = qp(0.8, 1, 0, 1);
    CHECK_INT(ridge_queue_mg1(&p, &r, &err), RIDGE_OK);
    CHECK_NEAR(r.wait_tail_rate_per_s, 0.4, 1e-12);
    CHECK_NEAR(r.p99_s, 1 + log(80) / 0.4, 1e-12);
    CHECK_NEAR(r.p50_s, 1 + log(1.6) / 0.4, 1e-12);
    /* Takacs for M/D/1: E[W^2] = 2 Wq^2 + lambda s^3 / (3 (1 - rho)). */
    CHECK_NEAR(r.wait_m2_s2, 2 * 4 + 0.8 / (3 * 0.2), 1e-12);
    check_context("Erlang C: c 1 is rho, a 0 is 0");
    CHECK_INT(ridge_queue_erlang_c(1, 0.8, &t, &err), RIDGE_OK);
    CHECK_NEAR(t, 0.8, 1e-12);
    CHECK_INT(ridge_queue_erlang_c(7, 0, &t, &err), RIDGE_OK);
    CHECK_NEAR(t, 0, 0);
    CHECK_INT(ridge_queue_erlang_c(200, 190.5, &t, &err), RIDGE_OK); /* no overflow for many servers */
    CHECK(t > 0 && t < 1);
    check_context(NULL);
}

static void test_unstable_and_errors(void)
{
    static const struct {
        const char *name;
        double rate, s, cs2;
        int c;
        double sat;
    } rows[] = {
        {"M/M/1 rho 1.2", 1.2, 1, 1, 1, 1},
        {"M/D/1 rho exactly 1", 0.5, 2, 0, 1, 0.5},
        {"M/M/3 rho 1.01", 3.03 / 2.385, 2.385, 1, 3, 3 / 2.385},
    };
    ridge_err err;
    ridge_queue_result r;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_queue_params p = qp(rows[i].rate, rows[i].s, rows[i].cs2, rows[i].c);
        check_context(rows[i].name);
        CHECK_INT(ridge_queue_mgc(&p, &r, &err), RIDGE_OK);
        CHECK_INT(r.stable, 0);
        CHECK_NEAR(r.saturation_rate_per_s, rows[i].sat, 1e-12);
        CHECK_NEAR(r.throughput_per_s, rows[i].sat, 1e-12);
        CHECK(isfinite(r.mean_wait_s) && isfinite(r.mean_latency_s) && isfinite(r.p99_s) && isfinite(r.utilisation));
        CHECK(r.utilisation >= 1);
    }
    {
        ridge_batch_params b = {0};
        ridge_des_result sim;
        static const double sb[2] = {0.01, 0.015};
        b.rate_per_s = 200;
        b.max_batch = 2;
        b.batch_service_s = sb;
        check_context("batching server above B / s(B)");
        CHECK_INT(ridge_queue_batch(&b, &r, &sim, &err), RIDGE_OK);
        CHECK_INT(r.stable, 0);
        CHECK_NEAR(r.saturation_rate_per_s, 2 / 0.015, 1e-12);
    }
    {
        ridge_queue_params p;
        ridge_des_config c;
        ridge_des_result d;
        double t;
        check_context("errors");
        p = qp(-1, 1, 1, 1);
        CHECK_INT(ridge_queue_mg1(&p, &r, &err), RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "arrival rate");
        p = qp(0.5, 0, 1, 1);
        CHECK_INT(ridge_queue_mgc(&p, &r, &err), RIDGE_EINVAL);
        p = qp(0.5, 1, -0.1, 1);
        CHECK_INT(ridge_queue_mgc(&p, &r, &err), RIDGE_EINVAL);
        p = qp(0.5, 1, 1, 0);
        CHECK_INT(ridge_queue_mgc(&p, &r, &err), RIDGE_EINVAL);
        p = qp(0.5, 1, 1, 2);
        CHECK_INT(ridge_queue_mg1(&p, &r, &err), RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "one server");
        CHECK_INT(ridge_queue_erlang_c(0, 1, &t, &err), RIDGE_EINVAL);
        CHECK_INT(ridge_queue_latency_quantile(0.5, 1, 1, 0, 1.0, &t, &err), RIDGE_EINVAL);
        ridge_des_config_init(&c);
        c.mean_service_s = 1;
        CHECK_INT(ridge_des_run(&c, &d, &err), RIDGE_EINVAL); /* no rate */
        c.rate_per_s = 0.5;
        c.servers = 2;
        c.max_batch = 2;
        CHECK_INT(ridge_des_run(&c, &d, &err), RIDGE_EINVAL); /* batching with 2 servers */
        CHECK_STR_HAS(err.msg, "one server");
        c.servers = 1;
        c.max_batch = 0;
        c.arrival = RIDGE_ARRIVAL_TRACE;
        CHECK_INT(ridge_des_run(&c, &d, &err), RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "trace");
    }
    check_context(NULL);
}

static void test_des_vs_closed(void)
{
    /* name, lambda, service law, E[S], cs2, c, tolerance on the mean beyond 2 CI half-widths,
     * p99 relative tolerance (closed form exact for M/M/1, approximate otherwise). */
    static const struct {
        const char *name;
        double rate;
        ridge_service_kind law;
        double s, cs2;
        int c;
        double mean_extra_rel, p99_rel;
    } rows[] = {
        {"M/M/1 rho 0.8", 0.8, RIDGE_SERVICE_EXPONENTIAL, 1, 1, 1, 0, 0.05},
        {"M/D/1 rho 0.7", 0.7 / 2.385, RIDGE_SERVICE_DETERMINISTIC, 2.385, 0, 1, 0, 0.10},
        {"M/G/1 two-point rho 0.6", 0.6 / 1.25, RIDGE_SERVICE_EMPIRICAL, 1.25, 0.36, 1, 0, 0.10},
        {"M/M/3 rho 0.75", 2.25, RIDGE_SERVICE_EXPONENTIAL, 1, 1, 3, 0, 0.05},
        {"M/D/4 rho 0.8 (Allen-Cunneen, 5 %)", 3.2 / 2.385, RIDGE_SERVICE_DETERMINISTIC, 2.385, 0, 4, 0.05, 0.10},
    };
    ridge_err err;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_queue_params p = qp(rows[i].rate, rows[i].s, rows[i].cs2, rows[i].c);
        ridge_queue_result r;
        ridge_des_config c;
        ridge_des_result d;
        double tol;
        check_context(rows[i].name);
        if (rows[i].law == RIDGE_SERVICE_EMPIRICAL)
            p.service_m3_s3 = 4.0625;
        CHECK_INT(ridge_queue_mgc(&p, &r, &err), RIDGE_OK);
        c = dc(rows[i].rate, rows[i].law, rows[i].s, 20240611 + i);
        c.servers = rows[i].c;
        CHECK_INT(ridge_des_run(&c, &d, &err), RIDGE_OK);
        CHECK_INT(d.customers, 200000);
        tol = 2 * d.ci95_half_width_s + rows[i].mean_extra_rel * r.mean_latency_s;
        if (!CHECK(fabs(d.mean_latency_s - r.mean_latency_s) <= tol))
            fprintf(stderr, "  DES mean %.6g +- %.3g, closed form %.6g\n", d.mean_latency_s, d.ci95_half_width_s,
                    r.mean_latency_s);
        printf("%-36s mean: DES %.5g +- %.3g, closed %.5g; p99: DES %.5g, closed %.5g\n", rows[i].name,
               d.mean_latency_s, d.ci95_half_width_s, r.mean_latency_s, d.p99_s, r.p99_s);
        CHECK(d.ci95_half_width_s > 0 && d.ci95_half_width_s < 0.05 * d.mean_latency_s);
        CHECK_NEAR(d.p99_s, r.p99_s, rows[i].p99_rel);
        CHECK_NEAR(d.utilisation, rows[i].rate * rows[i].s / rows[i].c, 0.02);
        CHECK_NEAR(d.throughput_per_s, rows[i].rate, 0.02);
        CHECK_INT(d.short_run, 0);
    }
    check_context(NULL);
}

/* Is the run long enough for the load? The relaxation time rho (ca2 + cs2) / (2 (1 - sqrt rho)^2)
 * in arrivals against the 20 batches of 10,000 of the interval (5 relaxation times each). */
static void test_des_run_length(void)
{
    static const struct {
        const char *name;
        ridge_arrival_kind arrival;
        ridge_service_kind law;
        double rho, s, cs2_sum; /* cs2_sum = ca2 + cs2 */
        int short_run;
    } rows[] = {
        {"M/M/1 rho 0.9: 342 arrivals", RIDGE_ARRIVAL_POISSON, RIDGE_SERVICE_EXPONENTIAL, 0.9, 1, 2, 0},
        {"M/G/1 two-point rho 0.95: 1008 arrivals", RIDGE_ARRIVAL_POISSON, RIDGE_SERVICE_EMPIRICAL, 0.95, 1.25, 1.36, 0},
        {"M/D/1 rho 0.99: 19,800 arrivals, two per batch", RIDGE_ARRIVAL_POISSON, RIDGE_SERVICE_DETERMINISTIC, 0.99, 2.385, 1, 1},
        {"M/D/1 rho 0.999: 2 million arrivals, the run a tenth of one", RIDGE_ARRIVAL_POISSON, RIDGE_SERVICE_DETERMINISTIC, 0.999, 2.385, 1, 1},
        {"D/D/1 rho 0.999: no queue to relax", RIDGE_ARRIVAL_CONSTANT, RIDGE_SERVICE_DETERMINISTIC, 0.999, 2.385, 0, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_des_config c;
        ridge_des_result d;
        ridge_err err;
        double gap = 1 - sqrt(rows[i].rho);
        check_context(rows[i].name);
        c = dc(rows[i].rho / rows[i].s, rows[i].law, rows[i].s, 7 + i);
        c.arrival = rows[i].arrival;
        CHECK_INT(ridge_des_run(&c, &d, &err), RIDGE_OK);
        CHECK_NEAR(d.relaxation_customers, rows[i].rho * rows[i].cs2_sum / (2 * gap * gap), 1e-9);
        CHECK_INT(d.short_run, rows[i].short_run);
    }
    check_context(NULL);
}

static void test_des_special(void)
{
    ridge_des_config c;
    ridge_des_result a, b;
    ridge_err err;
    double trace[300];
    static const double s1[1] = {1.0};
    ridge_queue_params p = qp(0.8, 1, 0, 1);
    ridge_queue_result r;

    check_context("determinism: same seed, same result; another seed differs");
    ridge_des_config_init(&c);
    c.rate_per_s = 0.9;
    c.mean_service_s = 1;
    c.customers = 50000;
    c.seed = 7;
    CHECK_INT(ridge_des_run(&c, &a, &err), RIDGE_OK);
    CHECK_INT(ridge_des_run(&c, &b, &err), RIDGE_OK);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    c.seed = 8;
    CHECK_INT(ridge_des_run(&c, &b, &err), RIDGE_OK);
    CHECK(a.mean_latency_s != b.mean_latency_s);

    check_context("D/D/1 by constant arrivals: no waiting");
    ridge_des_config_init(&c);
    c.arrival = RIDGE_ARRIVAL_CONSTANT;
    c.rate_per_s = 0.5;
    c.service = RIDGE_SERVICE_DETERMINISTIC;
    c.mean_service_s = 1.7;
    c.customers = 1000;
    c.warmup = 0;
    CHECK_INT(ridge_des_run(&c, &a, &err), RIDGE_OK);
    CHECK_NEAR(a.mean_latency_s, 1.7, 1e-12);
    CHECK_NEAR(a.p99_s, 1.7, 1e-12);
    CHECK(a.ci95_half_width_s < 1e-9);

    check_context("trace arrivals: pairs 0.1 s apart, service 0.3 s: the second waits 0.2 s");
    for (int i = 0; i < 300; i++)
        trace[i] = (i / 2) * 10.0 + (i % 2) * 0.1;
    ridge_des_config_init(&c);
    c.arrival = RIDGE_ARRIVAL_TRACE;
    c.trace_s = trace;
    c.trace_n = 300;
    c.service = RIDGE_SERVICE_DETERMINISTIC;
    c.mean_service_s = 0.3;
    c.warmup = 0;
    CHECK_INT(ridge_des_run(&c, &a, &err), RIDGE_OK);
    CHECK_INT(a.customers, 300);
    CHECK_NEAR(a.mean_latency_s, 0.4, 1e-12);
    CHECK_NEAR(a.mean_wait_s, 0.1, 1e-12);

    check_context("batching with B 1 and no timeout is M/D/1");
    CHECK_INT(ridge_queue_mg1(&p, &r, &err), RIDGE_OK);
    ridge_des_config_init(&c);
    c.rate_per_s = 0.8;
    c.max_batch = 1;
    c.batch_service_s = s1;
    c.seed = 99;
    CHECK_INT(ridge_des_run(&c, &a, &err), RIDGE_OK);
    CHECK(fabs(a.mean_latency_s - r.mean_latency_s) <= 2 * a.ci95_half_width_s);
    CHECK_NEAR(a.mean_batch, 1, 0);

    check_context("batching: bigger batches under load, latency at least s(1)");
    {
        static const double sb[8] = {0.010, 0.011, 0.012, 0.013, 0.014, 0.015, 0.016, 0.017};
        ridge_batch_params bp = {0};
        bp.rate_per_s = 300; /* saturation 8 / 0.017 = 470.6/s */
        bp.max_batch = 8;
        bp.batch_timeout_s = 0.005;
        bp.batch_service_s = sb;
        bp.customers = 100000;
        bp.seed = 3;
        CHECK_INT(ridge_queue_batch(&bp, &r, &b, &err), RIDGE_OK);
        CHECK_INT(r.stable, 1);
        CHECK(b.mean_batch > 2 && b.mean_batch <= 8);
        CHECK(r.p50_s >= 0.010 && r.p99_s >= r.p90_s && r.p90_s >= r.p50_s);
        CHECK(r.utilisation > 0 && r.utilisation < 1);
        CHECK_NEAR(r.saturation_rate_per_s, 8 / 0.017, 1e-12);
    }
    check_context(NULL);
}

static int mm1_p99(double rate, void *ctx, double *v)
{
    ridge_queue_params p = qp(rate, 1, 1, 1);
    ridge_queue_result r;
    ridge_err err;
    (void)ctx;
    if (ridge_queue_mg1(&p, &r, &err) != RIDGE_OK || !r.stable)
        return -1;
    *v = r.p99_s;
    return 0;
}

static void test_max_rate(void)
{
    ridge_err err;
    double rate;
    check_context("max rate: M/M/1 p99 <= 10 s at lambda = mu - ln(100) / 10");
    CHECK_INT(ridge_queue_max_rate(mm1_p99, NULL, 1, 10, &rate, &err), RIDGE_OK);
    CHECK_NEAR(rate, 1 - log(100) / 10, 1e-5);
    check_context("max rate: an SLO below the bare service p99 gives 0");
    CHECK_INT(ridge_queue_max_rate(mm1_p99, NULL, 1, 1, &rate, &err), RIDGE_OK);
    CHECK_NEAR(rate, 0, 0);
    check_context(NULL);
}

int main(void)
{
    test_textbook();
    test_mm1_distribution();
    test_unstable_and_errors();
    test_des_vs_closed();
    test_des_run_length();
    test_des_special();
    test_max_rate();
    return check_report();
}
