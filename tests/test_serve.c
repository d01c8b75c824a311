/* Unit tests for the serving model (model/serve/serve.c, docs/serving.md) and the queue descriptors
 * (ridge_queue_type_*): a synthetic step-time function stands in for the performance model, so
 * every expected value is computed by hand. SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ridge/serve.h"

/* t = base + per_item x batch + per_token x batch x (prompt or context); records the last run. */
typedef struct {
    double base_s, per_item_s, per_token_s;
    int fail;
    ridge_run_config last;
    int calls;
} step_model;

static int linear_step(const ridge_run_config *rc, void *ctx, double *t_s, ridge_memory *mem, ridge_err *err)
{
    step_model *m = ctx;
    double tokens = rc->mode == RIDGE_MODE_PREFILL ? rc->prompt : rc->mode == RIDGE_MODE_DECODE ? rc->context : 0;
    m->last = *rc;
    m->calls++;
    if (m->fail)
        return ridge_err_set(err, RIDGE_EUNSUPPORTED, "step: refused");
    *t_s = m->base_s + m->per_item_s * rc->batch + m->per_token_s * rc->batch * tokens;
    if (mem)
        memset(mem, 0, sizeof *mem);
    return RIDGE_OK;
}

static void serve_init(ridge_serve *s, const ridge_gpu *g, const ridge_model *m, step_model *sm)
{
    *s = (ridge_serve){.g = g, .m = m, .step = linear_step, .step_ctx = sm, .gpus_per_replica = 1, .replicas = 1,
                       .max_replicas = 64, .seed = 1, .customers = 20000, .requests = 2000, .output = 37};
    ridge_run_config_init(&s->run);
    s->run.mode = RIDGE_MODE_INFER;
}

/* The descriptors give what the functions they wrap give. */
static void test_descriptors(void)
{
    double svc[4] = {0.0125, 0.0150, 0.0175, 0.0200};
    ridge_queue_system sys;
    ridge_queue_params p;
    ridge_queue_result a, b;
    ridge_err err;
    memset(&sys, 0, sizeof sys);
    sys.rate_per_s = 61.3;
    sys.servers = 1;
    sys.service_s = svc;
    CHECK(ridge_queue_type_mg1->eval(&sys, &a, &err) == RIDGE_OK);
    /* M/D/1: E[W] = lambda s^2 / (2 (1 - rho)) */
    CHECK_NEAR(a.mean_wait_s, 61.3 * 0.0125 * 0.0125 / (2 * (1 - 61.3 * 0.0125)), 1e-12);
    CHECK(ridge_queue_type_mgc->eval(&sys, &b, &err) == RIDGE_OK);
    CHECK_NEAR(b.p99_s, a.p99_s, 1e-12);
    sys.servers = 3;
    sys.rate_per_s = 201.7;
    CHECK(ridge_queue_type_mg1->eval(&sys, &a, &err) == RIDGE_EINVAL);
    CHECK(ridge_queue_type_mgc->eval(&sys, &a, &err) == RIDGE_OK);
    ridge_queue_params_init(&p);
    p.rate_per_s = 201.7, p.mean_service_s = 0.0125, p.service_cs2 = 0, p.servers = 3;
    CHECK(ridge_queue_mgc(&p, &b, &err) == RIDGE_OK);
    CHECK_NEAR(a.mean_latency_s, b.mean_latency_s, 1e-12);
    /* Batching over 3 servers: each saturates at B / s(B), the system at 3 times that. */
    sys.max_batch = 4;
    sys.rate_per_s = 450;
    sys.customers = 5000;
    CHECK(ridge_queue_type_batch->eval(&sys, &a, &err) == RIDGE_OK);
    CHECK_NEAR(a.saturation_rate_per_s, 3 * 4 / 0.0200, 1e-12);
    CHECK(a.stable);
    CHECK(ridge_serve_queue_for(0) == ridge_queue_type_mgc);
    CHECK(ridge_serve_queue_for(8) == ridge_queue_type_batch);
    CHECK_STR_EQ(ridge_queue_type_batch->name, "batch");
}

static void test_queue_serving(const ridge_gpu *g, const ridge_model *cnn)
{
    step_model sm = {0.0042, 0.0011, 0, 0, {0}, 0};
    ridge_serve s;
    ridge_queue_result r;
    ridge_err err;
    double rate;
    int n;
    serve_init(&s, g, cnn, &sm);
    s.max_batch = 6;
    CHECK(ridge_serve_prepare(&s, &err) == RIDGE_OK);
    CHECK(s.queue == ridge_queue_type_batch);
    CHECK_NEAR(s.service_s[5], 0.0042 + 6 * 0.0011, 1e-12);
    CHECK_INT(sm.calls, 6);
    s.max_batch = 0;
    CHECK(ridge_serve_prepare(&s, &err) == RIDGE_OK);
    CHECK(s.queue == ridge_queue_type_mgc);
    CHECK(ridge_serve_eval(&s, 100, 1, &r, &err) == RIDGE_OK);
    CHECK_NEAR(r.saturation_rate_per_s, 1 / 0.0053, 1e-12);
    /* The highest rate with p99 <= 23.85 ms: its p99 is the target. */
    CHECK(ridge_serve_find_rate(&s, 0.02385, &rate, &err) == RIDGE_OK);
    CHECK(ridge_serve_eval(&s, rate, 1, &r, &err) == RIDGE_OK);
    CHECK_NEAR(r.p99_s, 0.02385, 1e-4);
    /* The fewest replicas for 1000 requests/s within 10 ms: n holds, n - 1 does not. */
    CHECK(ridge_serve_find_replicas(&s, 1000, 0.010, &n, &err) == RIDGE_OK);
    CHECK(n > 1);
    CHECK(ridge_serve_eval(&s, 1000, n, &r, &err) == RIDGE_OK && r.stable && r.p99_s <= 0.010);
    CHECK(ridge_serve_eval(&s, 1000, n - 1, &r, &err) == RIDGE_OK && !(r.stable && r.p99_s <= 0.010));
    /* A failing step stops the preparation with its status and message. */
    sm.fail = 1;
    CHECK(ridge_serve_prepare(&s, &err) == RIDGE_EUNSUPPORTED);
    CHECK_STR_EQ(err.msg, "step: refused");
}

static void test_llm_serving(const ridge_gpu *g, const ridge_model *llm)
{
    step_model sm = {0.0071, 0.0002, 1e-7, 0, {0}, 0};
    ridge_serve s;
    ridge_serve_slo slo = {0, 0, 0};
    ridge_serve_floor f;
    ridge_llm_result r;
    ridge_err err;
    double t, prompt, output;
    serve_init(&s, g, llm, &sm);
    /* The static model: prefill + output x decode at context prompt + floor(output / 2). */
    s.llm = 1;
    s.run.prompt = 300;
    CHECK(ridge_serve_prepare(&s, &err) == RIDGE_OK);
    CHECK_INT(sm.last.context, 300 + 18);
    CHECK_NEAR(s.service_s[0], (0.0071 + 0.0002 + 1e-7 * 300) + 37 * (0.0071 + 0.0002 + 1e-7 * 318), 1e-12);
    /* Continuous batching: the iteration cost is the step's at a grid point. */
    s.continuous = 1;
    s.max_batch = 16;
    CHECK(ridge_serve_prepare(&s, &err) == RIDGE_OK);
    CHECK_INT(s.nb, 5);
    CHECK(ridge_serve_iter_cost(4, s.grid_c[2], 0, 0, &s, &t) == 0);
    CHECK_NEAR(t, 0.0071 + 0.0002 * 4 + 1e-7 * 4 * s.grid_c[2], 1e-9);
    CHECK(s.kv_bytes_per_token > 0 && s.kv_capacity_bytes > 0);
    CHECK(ridge_serve_llm_eval(&s, 3.7, 1, &r, &err) == RIDGE_OK && r.stable);
    CHECK(ridge_serve_slo_holds(&slo, &r));
    /* An objective below a request alone is named. */
    slo.tpot_p99_ms = 1;
    CHECK(ridge_serve_llm_floor(&s, &slo, &f) == RIDGE_SERVE_SLO_TPOT);
    CHECK(f.known);
    CHECK_NEAR(f.tpot_s, 0.0071 + 0.0002 + 1e-7 * 300, 1e-9);
    CHECK(!ridge_serve_slo_holds(&slo, &r));
    slo.tpot_p99_ms = 0;
    slo.ttft_p99_ms = 5;
    CHECK(ridge_serve_llm_floor(&s, &slo, &f) == RIDGE_SERVE_SLO_TTFT);
    CHECK(ridge_serve_check_request(&s, &prompt, &output, &err) == RIDGE_OK);
}

/* Offline, 100 requests over 50 or 64 replicas: the busiest replica holds 2 either way and ends
 * at the same time, so the whole system's throughput (the per-replica figure times the replicas)
 * is the same 100 requests over that span, not 2 x 64 of them. */
static void test_offline_replicas(const ridge_gpu *g, const ridge_model *llm)
{
    step_model sm = {0.0071, 0.0002, 1e-7, 0, {0}, 0};
    ridge_serve s;
    ridge_llm_result r50, r64;
    ridge_err err;
    serve_init(&s, g, llm, &sm);
    s.llm = 1;
    s.continuous = 1;
    s.offline = 1;
    s.requests = 100;
    s.max_batch = 8;
    s.run.prompt = 64;
    s.output = 16;
    check_context("offline over replicas");
    if (CHECK(ridge_serve_prepare(&s, &err) == RIDGE_OK) &&
        CHECK(ridge_serve_llm_eval(&s, 0, 50, &r50, &err) == RIDGE_OK) &&
        CHECK(ridge_serve_llm_eval(&s, 0, 64, &r64, &err) == RIDGE_OK)) {
        CHECK_NEAR(r64.e2e.p99_s, r50.e2e.p99_s, 1e-12);
        CHECK_NEAR(64 * r64.throughput_per_s, 50 * r50.throughput_per_s, 1e-12);
        CHECK_NEAR(64 * r64.output_tokens_per_s, 100 * 16 / r50.e2e.p99_s, 1e-9);
    }
    /* Outputs of 2 to 5 tokens give a context grid of one point a token: the TPOT floor is known
     * (it was the interpolation's 0 / 0 on a grid of repeated points). */
    for (int o = 2; o <= 6; o++) {
        ridge_serve_slo slo = {0, 0, 0.5};
        ridge_serve_floor f;
        s.output = o;
        if (CHECK(ridge_serve_prepare(&s, &err) == RIDGE_OK)) {
            CHECK(ridge_serve_llm_floor(&s, &slo, &f) == RIDGE_SERVE_SLO_TPOT);
            CHECK(f.known);
            CHECK_NEAR(f.tpot_s, 0.0071 + 0.0002 + 1e-7 * 64, 1e-9);
        }
    }
    check_context(NULL);
}

/* A request longer than the model's learned positions (gpt2: 1024) is refused at its last
 * decode step (context prompt + output - 1, then one token more); the answer names that request. */
static void test_request_fits(const ridge_gpu *g, const ridge_model *gpt2)
{
    step_model sm = {0.001, 0, 0, 0, {0}, 0};
    ridge_serve s;
    ridge_err err;
    double prompt, output;
    serve_init(&s, g, gpt2, &sm);
    s.llm = 1;
    s.run.prompt = 1000;
    s.output = 24;
    CHECK(ridge_serve_check_request(&s, &prompt, &output, &err) == RIDGE_OK);
    s.output = 25;
    CHECK(ridge_serve_check_request(&s, &prompt, &output, &err) != RIDGE_OK);
    CHECK_NEAR(prompt + output, 1025, 1e-12);
}

static void test_trace(void)
{
    const char *path = "test_serve_trace.csv";
    FILE *f = fopen(path, "w");
    double *cols = NULL;
    size_t n = 0;
    ridge_err err;
    if (!CHECK(f != NULL))
        return;
    fprintf(f, "arrival_s,prompt,output\n# a comment\n");
    for (int i = 0; i < 23; i++)
        fprintf(f, "%g,%d,%d\n", 0.125 * i, 100 + i, 7 + i);
    fprintf(f, "{\"arrival_s\": 9.5, \"prompt\": 2385, \"output\": 3}\n");
    fclose(f);
    CHECK(ridge_serve_trace_load(path, &cols, &n, &err) == RIDGE_OK);
    CHECK_INT(n, 24);
    if (n == 24) {
        CHECK_NEAR(cols[3], 0.375, 1e-12);
        CHECK_NEAR(cols[24 + 23], 2385, 1e-12);
        CHECK_NEAR(cols[48 + 2], 9, 1e-12);
    }
    free(cols);
    f = fopen(path, "w");
    fprintf(f, "0,1,1\n1,2,2\n");
    fclose(f);
    CHECK(ridge_serve_trace_load(path, &cols, &n, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "2 requests; a trace needs at least 20");
    f = fopen(path, "w");
    fprintf(f, "0,1,1\n2,2,2\n1,3,3\n");
    fclose(f);
    CHECK(ridge_serve_trace_load(path, &cols, &n, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "test_serve_trace.csv:3: arrival 1 s");
    /* Token counts are whole decimal numbers (an exponent is allowed); each error names its field. */
    {
        static const struct {
            const char *line, *msg;
        } bad[] = {
            {"0,1.5,4", ":2: prompt 1.5 is not a whole number of tokens"},
            {"0,16,0x10", ":2: output '0x10' is not a decimal number"},
            {"0, 16,4", ":2: prompt ' 16' is not a decimal number"},
            {"0,+16,4", ":2: prompt '+16' is not a decimal number"},
            {"0x1,16,4", ":2: arrival '0x1' is not a decimal number"},
            {"0,100,0", ":2: output 0 is not in [1, 10000000] tokens"},
            {"0,0.9,4", ":2: prompt 0.9 is not in [1, 10000000] tokens"},
            {"-1,16,4", ":2: arrival -1 s must be >= 0 and finite"},
            {"{\"arrival_s\": 1, \"prompt\": 2.5, \"output\": 3}", ":2: prompt 2.5 is not a whole number"},
            {"0,16", ":2: need arrival_s,prompt,output"},
            {"0,abc,4", ":2: need arrival_s,prompt,output"},
            {"0,16x,4", ":2: prompt '16x' is not a decimal number"},
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            f = fopen(path, "w");
            fprintf(f, "0,1,1\n%s\n", bad[i].line);
            fclose(f);
            CHECK(ridge_serve_trace_load(path, &cols, &n, &err) == RIDGE_EINVAL);
            CHECK_STR_HAS(err.msg, bad[i].msg);
        }
        f = fopen(path, "w");
        for (int i = 0; i < 20; i++)
            fprintf(f, "%d,1e2,16 \n", i);
        fclose(f);
        CHECK(ridge_serve_trace_load(path, &cols, &n, &err) == RIDGE_OK);
        if (CHECK_INT(n, 20))
            CHECK(cols[20] == 100 && cols[40] == 16);
        free(cols);
    }
    /* An absolute clock: times count from the first arrival, exactly (0.5 s steps from 1e15 s,
     * whose spacing is 0.125 s), so a service time's microseconds are not lost in a sum. */
    f = fopen(path, "w");
    for (int i = 0; i < 20; i++)
        fprintf(f, "%.17g,128,64\n", 1e15 + 0.5 * i);
    fclose(f);
    CHECK(ridge_serve_trace_load(path, &cols, &n, &err) == RIDGE_OK);
    if (CHECK_INT(n, 20)) {
        CHECK(cols[0] == 0 && cols[1] == 0.5 && cols[19] == 9.5);
    }
    free(cols);
    /* Arrivals all at one instant have no rate. */
    f = fopen(path, "w");
    for (int i = 0; i < 20; i++)
        fprintf(f, "3,128,64\n");
    fclose(f);
    CHECK(ridge_serve_trace_load(path, &cols, &n, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "all 20 arrivals are at 3 s");
    remove(path);
    CHECK(ridge_serve_trace_load("/nonexistent/t.csv", &cols, &n, &err) == RIDGE_EIO);
}

/* A low rate puts the arrivals near 1e13 s, where a double's step is milliseconds: the batching
 * server's and the FIFO simulation's latencies come from times since the busy period began, so at
 * 1e-9 requests/s they equal those at 1e-6 (they rounded to 0 and 3.9 ms). */
static void test_low_rate(void)
{
    static const double rates[] = {1e-6, 1e-9}, table[2] = {0.0029163, 0.0031};
    ridge_des_config c;
    ridge_des_result r[2][2];
    ridge_err err;
    for (int batching = 0; batching < 2; batching++)
        for (int k = 0; k < 2; k++) {
            ridge_des_config_init(&c);
            c.rate_per_s = rates[k];
            c.customers = 20000;
            c.warmup = 1000;
            c.service = RIDGE_SERVICE_DETERMINISTIC;
            c.mean_service_s = table[0];
            if (batching) {
                c.max_batch = 2;
                c.batch_service_s = table;
            }
            CHECK(ridge_des_run(&c, &r[batching][k], &err) == RIDGE_OK);
        }
    for (int batching = 0; batching < 2; batching++) {
        const ridge_des_result *lo = &r[batching][1], *hi = &r[batching][0];
        CHECK_NEAR(lo->p50_s, table[0], 1e-6 * table[0]);
        CHECK_NEAR(lo->p90_s, hi->p90_s, 1e-6 * hi->p90_s);
        CHECK_NEAR(lo->p99_s, hi->p99_s, 1e-6 * hi->p99_s);
        CHECK_NEAR(lo->mean_latency_s, table[0], 1e-6 * table[0]);
    }
}

/* The library's replica step (ridge_serve_replica_step) under a sustained full load: on the H200
 * (the one catalogue GPU with a power-limited sustained tensor clock, 1.65 of 1.83 GHz) a
 * compute-bound prefill slows, by at most the clock ratio (only its 16/8-bit GEMMs' MMAs run
 * slower; docs/serving.md, "Offline runs"); a decode step at batch 1 (reading weights) hardly
 * moves; on the H100 (no figure) nothing changes. A tensor-parallel replica takes the same rule. */
static void test_replica_sustained(const ridge_model *llm)
{
    ridge_gpu h200, h100;
    ridge_host_profile hp;
    ridge_run_config rc;
    ridge_err err;
    double t0, t1;
    ridge_cluster cl;
    if (!CHECK(ridge_catalog_load("h200-sxm-141gb", &h200, &err) == RIDGE_OK) ||
        !CHECK(ridge_catalog_load("h100-sxm5-80gb", &h100, &err) == RIDGE_OK) ||
        !CHECK(ridge_host_load("engine", &hp, &err) == RIDGE_OK))
        return;
    ridge_run_config_init(&rc);
    rc.mode = RIDGE_MODE_PREFILL;
    rc.batch = 16;
    rc.prompt = 2048;
    rc.precision = RIDGE_DTYPE_FP8;
    {
        ridge_serve_replica a = {&h200, NULL, 1, llm, &hp, 0}, b = a;
        b.sustained = 1;
        CHECK(ridge_serve_replica_step(&rc, &a, &t0, NULL, &err) == RIDGE_OK);
        CHECK(ridge_serve_replica_step(&rc, &b, &t1, NULL, &err) == RIDGE_OK);
        CHECK(t1 > 1.05 * t0);
        CHECK(t1 <= t0 * 1.83 / 1.65 * (1 + 1e-9));
        rc.mode = RIDGE_MODE_DECODE;
        rc.batch = 1;
        rc.context = 1024;
        CHECK(ridge_serve_replica_step(&rc, &a, &t0, NULL, &err) == RIDGE_OK);
        CHECK(ridge_serve_replica_step(&rc, &b, &t1, NULL, &err) == RIDGE_OK);
        CHECK(t1 >= t0 && t1 < 1.02 * t0);
        rc.mode = RIDGE_MODE_PREFILL;
        rc.batch = 16;
    }
    {
        ridge_serve_replica a = {&h100, NULL, 1, llm, &hp, 0}, b = a;
        b.sustained = 1;
        CHECK(ridge_serve_replica_step(&rc, &a, &t0, NULL, &err) == RIDGE_OK);
        CHECK(ridge_serve_replica_step(&rc, &b, &t1, NULL, &err) == RIDGE_OK);
        CHECK(t1 == t0);
    }
    if (CHECK(ridge_cluster_load("dgx-h100", 1, &cl, &err) == RIDGE_OK)) {
        /* two H200s of a node (the cluster's GPU swapped): the same slowdown bounds */
        ridge_serve_replica a = {NULL, &cl, 2, llm, &hp, 0}, b = a;
        cl.gpu = h200;
        cl.gpus_per_node = 2;
        b.sustained = 1;
        CHECK(ridge_serve_replica_step(&rc, &a, &t0, NULL, &err) == RIDGE_OK);
        CHECK(ridge_serve_replica_step(&rc, &b, &t1, NULL, &err) == RIDGE_OK);
        CHECK(t1 > 1.03 * t0 && t1 <= t0 * 1.83 / 1.65 * (1 + 1e-9));
    }
}

/* The iteration cost below the grid's first batch (the saturation estimate's averages): that
 * batch's cost scaled, never the first segment extrapolated (an FP32 prefill of 2 prompts costing
 * 2.5x one went negative at half a prompt). */
static void test_iter_cost_below_one(void)
{
    ridge_serve s;
    double t = -1;
    memset(&s, 0, sizeof s);
    s.nb = 2;
    s.nc = 1;
    s.grid_b[0] = 1;
    s.grid_b[1] = 2;
    s.grid_c[0] = 100;
    s.decode_s[0][0] = 3e-3;
    s.decode_s[1][0] = 4e-3;
    s.prefill_s[0] = 1e-3;
    s.prefill_s[1] = 2.5e-3;
    s.prefill_prompt = 100;
    CHECK(ridge_serve_iter_cost(0, 0, 0.5, 50, &s, &t) == 0);
    CHECK_NEAR(t, 0.5e-3, 1e-12); /* half a prompt of 100 tokens */
    CHECK(ridge_serve_iter_cost(0.25, 100, 0, 0, &s, &t) == 0);
    CHECK_NEAR(t, 0.75e-3, 1e-12); /* a quarter of a batch-1 decode */
    CHECK(ridge_serve_iter_cost(1.5, 100, 1, 100, &s, &t) == 0);
    CHECK_NEAR(t, 3.5e-3 + 1e-3, 1e-12); /* on the grid: interpolated as before */
}

int main(void)
{
    ridge_gpu g;
    ridge_model *cnn = NULL, *llm = NULL, *gpt2 = NULL;
    ridge_err err;
    test_descriptors();
    test_trace();
    test_low_rate();
    test_iter_cost_below_one();
    if (CHECK(ridge_catalog_load("a100-sxm4-80gb", &g, &err) == RIDGE_OK) &&
        CHECK(ridge_model_load_builtin("resnet50", &cnn, &err) == RIDGE_OK) &&
        CHECK(ridge_model_load_builtin("llama2-7b", &llm, &err) == RIDGE_OK) &&
        CHECK(ridge_model_load_builtin("gpt2", &gpt2, &err) == RIDGE_OK)) {
        test_queue_serving(&g, cnn);
        test_llm_serving(&g, llm);
        test_offline_replicas(&g, llm);
        test_request_fits(&g, gpt2);
        test_replica_sustained(llm);
    }
    ridge_model_free(gpt2);
    ridge_model_free(cnn);
    ridge_model_free(llm);
    return check_report();
}
