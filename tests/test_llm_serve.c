/* Unit tests for the continuous-batching LLM serving simulator (model/serve/des_llm.c;
 * docs/serving.md): hand-computed TTFT/TPOT, the KV-cache limit, determinism, overload.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <string.h>

#include "check.h"
#include "ridge/queue.h"

/* A linear cost model that records what the simulator asked for. */
typedef struct {
    double base_s, per_decode_s, per_prefill_token_s;
    double max_running;
    int calls;
    double ctx[8];
} cost_model;

static int linear_cost(double dec, double ctx, double preq, double ptok, void *p, double *t)
{
    cost_model *m = p;
    if (dec + preq > m->max_running)
        m->max_running = dec + preq;
    if (m->calls < 8)
        m->ctx[m->calls] = ctx;
    m->calls++;
    *t = m->base_s + m->per_decode_s * dec + m->per_prefill_token_s * ptok;
    return 0;
}

static int failing_cost(double dec, double ctx, double preq, double ptok, void *p, double *t)
{
    (void)dec, (void)ctx, (void)preq, (void)ptok, (void)p;
    *t = 0;
    return -1;
}

static int all_finite(const ridge_llm_result *r)
{
    const ridge_llm_stats *s[3] = {&r->ttft, &r->tpot, &r->e2e};
    for (int i = 0; i < 3; i++)
        if (!isfinite(s[i]->mean_s) || !isfinite(s[i]->p50_s) || !isfinite(s[i]->p90_s) || !isfinite(s[i]->p99_s))
            return 0;
    return isfinite(r->throughput_per_s) && isfinite(r->output_tokens_per_s) && isfinite(r->mean_batch) &&
           isfinite(r->saturation_rate_per_s) && isfinite(r->mean_iteration_s);
}

/* Requests far apart, constant cost c: TTFT = c, TPOT = c, e2e = O c, one request per batch. */
static void test_isolated(void)
{
    static const struct {
        const char *name;
        double c_s, rate, prompt, output;
    } rows[] = {
        {"c 23.7 ms, O 5", 0.0237, 1.0, 100, 5},
        {"c 3.1 ms, O 17, prompt 2385", 0.0031, 0.5, 2385, 17},
        {"O 1: the prefill is the whole request", 0.0419, 2.0, 64, 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        cost_model m = {rows[i].c_s, 0, 0, 0, 0, {0}};
        ridge_llm_config c;
        ridge_llm_result r;
        ridge_err err;
        check_context(rows[i].name);
        ridge_llm_config_init(&c);
        c.arrival = RIDGE_ARRIVAL_CONSTANT;
        c.rate_per_s = rows[i].rate;
        c.prompt_tokens = rows[i].prompt;
        c.output_tokens = rows[i].output;
        c.iter_time = linear_cost;
        c.iter_ctx = &m;
        c.requests = 500;
        c.warmup = 10;
        CHECK_INT(ridge_llm_run(&c, &r, &err), RIDGE_OK);
        CHECK_INT(r.requests, 500);
        CHECK_INT(r.stable, 1);
        CHECK_NEAR(r.ttft.mean_s, rows[i].c_s, 1e-9);
        CHECK_NEAR(r.ttft.p99_s, rows[i].c_s, 1e-9);
        CHECK_NEAR(r.e2e.p50_s, rows[i].output * rows[i].c_s, 1e-9);
        CHECK_NEAR(r.e2e.p99_s, rows[i].output * rows[i].c_s, 1e-9);
        if (rows[i].output > 1)
            CHECK_NEAR(r.tpot.mean_s, rows[i].c_s, 1e-9);
        else
            CHECK(r.tpot.mean_s == 0);
        CHECK_NEAR(r.mean_batch, 1, 1e-12);
        CHECK_NEAR(r.throughput_per_s, 500 / (499 / rows[i].rate + rows[i].output * rows[i].c_s), 1e-9);
        CHECK_NEAR(r.output_tokens_per_s, r.throughput_per_s * rows[i].output, 1e-9);
        /* Saturation estimate at B = 256 and a constant cost: 256 / (O c). */
        CHECK_NEAR(r.saturation_rate_per_s, 256 / (rows[i].output * rows[i].c_s), 1e-9);
        CHECK(all_finite(&r));
    }
    check_context(NULL);
}

/* A trace worked by hand (docs/serving.md): cost 10 ms + 2 ms per decode + 0.1 ms per prefill token.
 *   t=0      admit r0 (P 100), r1 (P 200): prefill 300 tokens -> 40 ms; first tokens at 0.040
 *   t=0.040  decode 2 (contexts 101, 201) -> 14 ms, t = 0.054
 *   t=0.054  admit r2 (arrived 0.05, P 300); decode 2 (102, 202) + prefill 300 -> 44 ms, t = 0.098:
 *            r0, r1 finish (3 tokens), r2's first token
 *   t=0.098  decode 1 (context 301) -> 12 ms, t = 0.110: r2 finishes (2 tokens). */
static void test_trace_by_hand(void)
{
    static const double at[] = {0, 0, 0.05}, prompt[] = {100, 200, 300}, output[] = {3, 3, 2};
    cost_model m = {0.010, 0.002, 1e-4, 0, 0, {0}};
    ridge_llm_config c;
    ridge_llm_result r;
    ridge_err err;
    check_context("trace by hand");
    ridge_llm_config_init(&c);
    c.arrival = RIDGE_ARRIVAL_TRACE;
    c.trace_s = at;
    c.trace_prompt = prompt;
    c.trace_output = output;
    c.trace_n = 3;
    c.warmup = 0;
    c.iter_time = linear_cost;
    c.iter_ctx = &m;
    CHECK_INT(ridge_llm_run(&c, &r, &err), RIDGE_OK);
    CHECK_INT(r.requests, 3);
    CHECK_INT(r.iterations, 4);
    CHECK_NEAR(m.ctx[1], 151, 1e-12);
    CHECK_NEAR(m.ctx[2], 152, 1e-12);
    CHECK_NEAR(m.ctx[3], 301, 1e-12);
    CHECK_NEAR(r.ttft.mean_s, (0.040 + 0.040 + 0.048) / 3, 1e-9);
    CHECK_NEAR(r.ttft.p50_s, 0.040, 1e-9);
    CHECK_NEAR(r.e2e.mean_s, (0.098 + 0.098 + 0.060) / 3, 1e-9);
    CHECK_NEAR(r.tpot.mean_s, (0.029 + 0.029 + 0.012) / 3, 1e-9);
    CHECK_NEAR(r.tpot.p50_s, 0.029, 1e-9);
    CHECK_NEAR(r.mean_batch, (2 + 2 + 3 + 1) / 4.0, 1e-12);
    CHECK_NEAR(r.mean_iteration_s, 0.110 / 4, 1e-9);
    CHECK_NEAR(r.throughput_per_s, 3 / 0.110, 1e-9);
    CHECK_NEAR(r.output_tokens_per_s, 8 / 0.110, 1e-9);
    check_context(NULL);
}

/* The KV cache holds three requests (3 x 150 tokens x 2.5 bytes, plus 100 bytes of slack): under
 * heavy load no more than three ever run, although max_batch is 256. */
static void test_kv_limit(void)
{
    cost_model m = {0.004, 0.0005, 1e-6, 0, 0, {0}};
    ridge_llm_config c;
    ridge_llm_result r;
    ridge_err err;
    check_context("KV limit");
    ridge_llm_config_init(&c);
    c.rate_per_s = 200;
    c.prompt_tokens = 100;
    c.output_tokens = 50;
    c.kv_bytes_per_token = 2.5;
    c.kv_capacity_bytes = 3 * 150 * 2.5 + 100;
    c.iter_time = linear_cost;
    c.iter_ctx = &m;
    c.requests = 5000;
    c.warmup = 500;
    CHECK_INT(ridge_llm_run(&c, &r, &err), RIDGE_OK);
    CHECK_INT(r.kv_max_running, 3);
    CHECK_NEAR(m.max_running, 3, 0);
    CHECK(r.mean_batch <= 3 && r.mean_batch > 2.5);
    CHECK_INT(r.stable, 0); /* 200/s against about 3 / (50 x 5.5 ms) = 11/s */
    CHECK(r.saturation_rate_per_s > 10 && r.saturation_rate_per_s < 12);
    CHECK(all_finite(&r));
    /* The same load with an unlimited cache runs far more at once. */
    m.max_running = 0;
    c.kv_bytes_per_token = 0;
    CHECK_INT(ridge_llm_run(&c, &r, &err), RIDGE_OK);
    CHECK(m.max_running > 3);
    CHECK_INT(r.kv_max_running, 256);
    check_context(NULL);
}

static void test_determinism_and_load(void)
{
    cost_model m = {0.006, 0.00011, 2e-6, 0, 0, {0}};
    ridge_llm_config c;
    ridge_llm_result a, b, lo, hi;
    ridge_err err;
    check_context("determinism");
    ridge_llm_config_init(&c);
    c.prompt_tokens = 385;
    c.output_tokens = 64;
    c.max_batch = 32;
    c.iter_time = linear_cost;
    c.iter_ctx = &m;
    c.requests = 8000;
    c.warmup = 800;
    c.rate_per_s = 1; /* probe for the saturation estimate */
    CHECK_INT(ridge_llm_run(&c, &a, &err), RIDGE_OK);
    c.rate_per_s = 0.6 * a.saturation_rate_per_s;
    CHECK_INT(ridge_llm_run(&c, &a, &err), RIDGE_OK);
    CHECK_INT(ridge_llm_run(&c, &b, &err), RIDGE_OK);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    c.seed = 2;
    CHECK_INT(ridge_llm_run(&c, &b, &err), RIDGE_OK);
    CHECK(a.e2e.mean_s != b.e2e.mean_s);
    CHECK_NEAR(a.e2e.mean_s, b.e2e.mean_s, 0.1);

    check_context("below and above saturation");
    c.seed = 1;
    CHECK_INT(ridge_llm_run(&c, &lo, &err), RIDGE_OK);
    CHECK_INT(lo.stable, 1);
    CHECK_NEAR(lo.throughput_per_s, c.rate_per_s, 0.05);
    CHECK(lo.ttft.p50_s <= lo.ttft.p99_s && lo.e2e.p50_s <= lo.e2e.p90_s && lo.e2e.p90_s <= lo.e2e.p99_s);
    CHECK(lo.tpot.mean_s >= m.base_s);
    c.rate_per_s = 3 * a.saturation_rate_per_s;
    CHECK_INT(ridge_llm_run(&c, &hi, &err), RIDGE_OK);
    CHECK_INT(hi.stable, 0);
    CHECK(all_finite(&hi));
    CHECK(hi.completion_rate_2nd_half_per_s < 0.6 * hi.arrival_rate_2nd_half_per_s);
    /* The throughput under overload is near the estimated saturation rate. */
    CHECK_NEAR(hi.throughput_per_s, a.saturation_rate_per_s, 0.15);
    CHECK(hi.mean_batch > 30);

    /* At and just above the saturation rate the verdict is the rate's: rho >= 1 is not stable,
     * though a finite run there grows too slowly for the growth test alone. */
    check_context("at and just above saturation");
    for (int k = 0; k < 2; k++) {
        c.rate_per_s = (k == 0 ? 1.0 : 1.01) * a.saturation_rate_per_s;
        CHECK_INT(ridge_llm_run(&c, &hi, &err), RIDGE_OK);
        CHECK_INT(hi.stable, 0);
        CHECK_NEAR(hi.saturation_rate_per_s, a.saturation_rate_per_s, 1e-12);
    }
    c.rate_per_s = 0.98 * a.saturation_rate_per_s;
    CHECK_INT(ridge_llm_run(&c, &lo, &err), RIDGE_OK);
    CHECK_INT(lo.stable, 1);
    check_context(NULL);
}

static void test_errors(void)
{
    static const double at[] = {0, 0.5, 0.2}, prompt[] = {10, 10, 10}, output[] = {4, 4, 4};
    cost_model m = {0.01, 0, 0, 0, 0, {0}};
    ridge_llm_config c;
    ridge_llm_result r;
    ridge_err err;
    ridge_llm_config_init(&c);
    c.rate_per_s = 1;
    check_context("no cost model");
    CHECK_INT(ridge_llm_run(&c, &r, &err), RIDGE_EINVAL);
    c.iter_time = linear_cost;
    c.iter_ctx = &m;
    c.requests = 100;
    c.warmup = 0;
    check_context("a request larger than the KV cache");
    c.kv_bytes_per_token = 1;
    c.kv_capacity_bytes = 600;
    CHECK_INT(ridge_llm_run(&c, &r, &err), RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "KV cache");
    c.kv_bytes_per_token = 0;
    check_context("bad rate, tokens, batch");
    c.rate_per_s = 0;
    CHECK_INT(ridge_llm_run(&c, &r, &err), RIDGE_EINVAL);
    c.rate_per_s = 1;
    c.output_tokens = 0;
    CHECK_INT(ridge_llm_run(&c, &r, &err), RIDGE_EINVAL);
    c.output_tokens = 8;
    c.max_batch = 0;
    CHECK_INT(ridge_llm_run(&c, &r, &err), RIDGE_EINVAL);
    c.max_batch = 8;
    check_context("trace out of order");
    c.arrival = RIDGE_ARRIVAL_TRACE;
    c.trace_s = at;
    c.trace_prompt = prompt;
    c.trace_output = output;
    c.trace_n = 3;
    CHECK_INT(ridge_llm_run(&c, &r, &err), RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "trace arrival 2");
    check_context("failing cost model");
    c.arrival = RIDGE_ARRIVAL_POISSON;
    c.iter_time = failing_cost;
    CHECK_INT(ridge_llm_run(&c, &r, &err), RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "cost model failed");
    check_context(NULL);
}

/* A low rate puts the arrivals near 1e13 s, where a double's step is milliseconds: the latencies
 * come from times since the busy period began, so they are the isolated request's whatever the
 * rate (they rounded to 0 or 3.9 ms). A trace at i x 1e15 s likewise. */
static void test_low_rate(void)
{
    static const double rates[] = {1e-6, 1e-9};
    static double trace[3][40];
    cost_model m = {0.0029163, 0, 0, 0, 0, {0}};
    ridge_llm_config c;
    ridge_llm_result r[2];
    ridge_err err;
    check_context("low rate");
    for (int k = 0; k < 2; k++) {
        ridge_llm_config_init(&c);
        c.rate_per_s = rates[k];
        c.output_tokens = 3;
        c.iter_time = linear_cost;
        c.iter_ctx = &m;
        c.requests = 2000;
        c.warmup = 200;
        CHECK_INT(ridge_llm_run(&c, &r[k], &err), RIDGE_OK);
    }
    CHECK_NEAR(r[1].ttft.p50_s, 0.0029163, 1e-6 * 0.0029163);
    CHECK_NEAR(r[1].ttft.p90_s, r[0].ttft.p90_s, 1e-6 * r[0].ttft.p90_s);
    CHECK_NEAR(r[1].ttft.p99_s, r[0].ttft.p99_s, 1e-6 * r[0].ttft.p99_s);
    CHECK_NEAR(r[1].e2e.p50_s, 3 * 0.0029163, 1e-6 * 3 * 0.0029163);
    CHECK_NEAR(r[1].tpot.p99_s, r[0].tpot.p99_s, 1e-6 * r[0].tpot.p99_s);
    for (int i = 0; i < 40; i++) {
        trace[0][i] = i * 1e15;
        trace[1][i] = 100;
        trace[2][i] = 4;
    }
    ridge_llm_config_init(&c);
    c.arrival = RIDGE_ARRIVAL_TRACE;
    c.trace_s = trace[0];
    c.trace_prompt = trace[1];
    c.trace_output = trace[2];
    c.trace_n = 40;
    c.warmup = 4;
    c.requests = 36;
    c.iter_time = linear_cost;
    c.iter_ctx = &m;
    CHECK_INT(ridge_llm_run(&c, &r[0], &err), RIDGE_OK);
    CHECK_NEAR(r[0].ttft.p50_s, 0.0029163, 1e-9);
    CHECK_NEAR(r[0].e2e.p99_s, 4 * 0.0029163, 1e-9);
    CHECK_NEAR(r[0].tpot.p50_s, 0.0029163, 1e-9);
    check_context(NULL);
}

/* An offline run (every request queued at 0 s, no warm-up) of n requests of prompt + output
 * tokens, at most max_batch running, priced by the linear cost model m. */
static void offline_config(ridge_llm_config *c, cost_model *m, double prompt, double output, int max_batch, size_t n)
{
    ridge_llm_config_init(c);
    c->arrival = RIDGE_ARRIVAL_OFFLINE;
    c->prompt_tokens = prompt;
    c->output_tokens = output;
    c->max_batch = max_batch;
    c->requests = n;
    c->warmup = 0;
    c->iter_time = linear_cost;
    c->iter_ctx = m;
}

/* Offline (every request queued at 0 s): 10 requests of prompt 100, output 3, at most 4 running,
 * cost 1 ms + 0.5 ms per decode + 0.01 ms per prefill token. Three waves by hand: 4 prompts
 * (5 ms) then two decodes of 4 (3 ms each): 11 ms; the same again to 22 ms; the last 2 (3 ms,
 * then 2 ms twice) to 29 ms. 30 output tokens in 29 ms; TTFT 5, 16 and 25 ms. */
static void test_offline(void)
{
    cost_model m = {1e-3, 0.5e-3, 0.01e-3, 0, 0, {0}};
    ridge_llm_config c;
    ridge_llm_result r;
    ridge_err err;
    check_context("offline");
    offline_config(&c, &m, 100, 3, 4, 10);
    CHECK_INT(ridge_llm_run(&c, &r, &err), RIDGE_OK);
    CHECK_NEAR(r.output_tokens_per_s, 30 / 0.029, 1e-6);
    CHECK_NEAR(r.throughput_per_s, 10 / 0.029, 1e-6);
    CHECK_NEAR(r.ttft.mean_s, (4 * 5e-3 + 4 * 16e-3 + 2 * 25e-3) / 10, 1e-12);
    CHECK_NEAR(r.e2e.p99_s, 29e-3, 1e-12);
    CHECK_NEAR(r.prefill_share, 13.0 / 29.0, 1e-12); /* the three prompt-only iterations: 5 + 5 + 3 ms */
    CHECK_INT(r.requests, 10);
    CHECK_INT(r.stable, 0); /* an overload by construction */
    CHECK(m.max_running == 4);
    CHECK(all_finite(&r));
    /* No warm-up in an offline run: a request that would be discarded is refused, not skipped. */
    c.warmup = 1;
    CHECK_INT(ridge_llm_run(&c, &r, &err), RIDGE_EINVAL);
    CHECK(strstr(err.msg, "no warm-up") != NULL);
    check_context(NULL);
}

/* Chunked prefill under a token budget, by hand: offline, 2 requests of prompt 100 and output 2,
 * at most 2 running, 64 tokens per iteration, cost 1 ms + 0.5 ms per decode + 0.01 ms per prefill
 * token. Iterations: r0's first 64 tokens (1.64 ms); r0's last 36 and r1's first 28 (1.64 ms: r0's
 * first token at 3.28 ms); r0 decodes and r1 takes 63 (2.13 ms: r0 done at 5.41); r1's last 9
 * (1.09 ms: its first token at 6.50); r1 decodes (1.5 ms: done at 8.00 ms). A budget below the
 * running limit is refused: every running request decodes each iteration. */
static void test_chunked_prefill(void)
{
    cost_model m = {1e-3, 0.5e-3, 0.01e-3, 0, 0, {0}};
    ridge_llm_config c;
    ridge_llm_result r;
    ridge_err err;
    check_context("chunked prefill");
    offline_config(&c, &m, 100, 2, 2, 2);
    c.max_tokens = 64;
    CHECK_INT(ridge_llm_run(&c, &r, &err), RIDGE_OK);
    CHECK_INT(r.iterations, 5);
    /* no prefill_time: the prompt-only iterations (1.64 + 1.64 + 1.09 ms) of the 8.00; the mixed
     * one counts as decoding. With it (the cost of prompts alone), that one's 1 + 0.63 ms too. */
    CHECK_NEAR(r.prefill_share, (1.64e-3 + 1.64e-3 + 1.09e-3) / 8.00e-3, 1e-12);
    c.prefill_time = linear_cost;
    CHECK_INT(ridge_llm_run(&c, &r, &err), RIDGE_OK);
    CHECK_NEAR(r.prefill_share, (1.64e-3 + 1.64e-3 + 1.63e-3 + 1.09e-3) / 8.00e-3, 1e-12);
    c.prefill_time = NULL;
    CHECK_NEAR(r.ttft.mean_s, (3.28e-3 + 6.50e-3) / 2, 1e-12);
    CHECK_NEAR(r.e2e.mean_s, (5.41e-3 + 8.00e-3) / 2, 1e-12);
    CHECK_NEAR(r.output_tokens_per_s, 4 / 8.00e-3, 1e-6);
    CHECK(all_finite(&r));
    /* the saturation estimate under the budget: x = 64 / (100 + 2 - 1) admitted per iteration,
     * x decoding, x * 100 prefill tokens: 1 + 0.5 x + 0.01 * 100 x ms */
    {
        double x = 64.0 / 101.0, t = 1e-3 + 0.5e-3 * x + 0.01e-3 * 100 * x;
        CHECK_NEAR(r.saturation_rate_per_s, x / t, 1e-9);
    }
    /* no budget: both prompts whole in the first iteration (1 + 2 ms), one decode of 2 (2 ms) */
    c.max_tokens = 0;
    CHECK_INT(ridge_llm_run(&c, &r, &err), RIDGE_OK);
    CHECK_INT(r.iterations, 2);
    CHECK_NEAR(r.e2e.p99_s, 3e-3 + 2e-3, 1e-12);
    c.max_tokens = 1;
    CHECK_INT(ridge_llm_run(&c, &r, &err), RIDGE_EINVAL);
    CHECK(strstr(err.msg, "tokens per iteration") != NULL);
    check_context(NULL);
}

int main(void)
{
    test_isolated();
    test_low_rate();
    test_trace_by_hand();
    test_kv_limit();
    test_determinism_and_load();
    test_errors();
    test_offline();
    test_chunked_prefill();
    return check_report();
}
