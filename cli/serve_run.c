/* ridge serve: running the library's serving model (model/serve/serve.c) for the flags, and mapping
 * its answers (the SLO below its floor, the longest request, a failed search) to messages that
 * name the flags (docs/serving.md). SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "ridge/host.h"
#include "serve_cli.h"

#define LLM_DEFAULT_MAX_BATCH 256

/* The run's host profile (--host, else the default), loaded once; a profile that does not load
 * is a usage error naming the flag. */
static int serve_host(serve_cli *c, const ridge_run_config *rc, ridge_err *err)
{
    ridge_err e;
    if (c->hp_loaded)
        return RIDGE_OK;
    if (cli_host_load(rc->host[0] ? rc->host : RIDGE_HOST_DEFAULT, &c->hp, &e) != RIDGE_OK)
        return ridge_err_set(err, RIDGE_EINVAL, "--host: %s", e.msg);
    c->hp_loaded = 1;
    return RIDGE_OK;
}

int serve_replica_step(const ridge_run_config *rc, void *ctx, double *t_s, ridge_memory *mem, ridge_err *err)
{
    serve_cli *c = ctx;
    ridge_serve_replica rp = {c->s.g, c->rep_cl, c->tp, c->s.m, &c->hp, c->s.offline};
    int st;
    if ((st = serve_host(c, rc, err)) != RIDGE_OK)
        return st;
    return ridge_serve_replica_step(rc, &rp, t_s, mem, err);
}

/* Print a library error and return the exit code. */
static int serve_fail(int st, const ridge_err *err, const char *prefix)
{
    cli_error("%s%s", prefix, err->msg);
    return cli_exit_code(st);
}

int serve_prepare(serve_cli *c)
{
    ridge_err err;
    int st = ridge_serve_prepare(&c->s, &err);
    return st == RIDGE_OK ? CLI_EXIT_OK : serve_fail(st, &err, "");
}

/* Decoder LLMs: prefill + decode, unless --mode infer says one pass; continuous batching unless
 * --static. Checks the flags that belong to one service model, loads a --trace. */
int serve_setup_service_model(serve_opts *o, serve_cli *c, double **trace_cols)
{
    ridge_serve *s = &c->s;
    ridge_err err;
    int rc;
    if (o->mode_given) {
        s->llm = s->run.mode == RIDGE_MODE_PREFILL || s->run.mode == RIDGE_MODE_DECODE;
    } else if (strcmp(ridge_model_family(s->m), "transformer") == 0) {
        ridge_run_config t = s->run;
        ridge_oplist ol = {0};
        t.mode = RIDGE_MODE_DECODE;
        s->llm = ridge_model_build(s->m, &t, &ol, &err) == RIDGE_OK;
        ridge_oplist_free(&ol);
    }
    s->continuous = s->llm && !o->static_model;
    if (o->offline && !s->continuous)
        return cli_usage_error("serve", "--offline applies to decoder LLMs with continuous batching");
    s->offline = o->offline;
    if ((rc = serve_host(c, &s->run, &err)) != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(rc);
    }
    s->kv_fraction = ridge_host_kv_fraction(&c->hp); /* the engine's KV-cache pool */
    if (!s->continuous) {
        if (s->max_tokens > 0)
            return cli_usage_error("serve", "--max-tokens applies to decoder LLMs with continuous batching");
        if (o->trace || o->slo.ttft_p99_ms > 0 || o->slo.tpot_p99_ms > 0)
            return cli_usage_error("serve", "%s to decoder LLMs with continuous batching",
                                   o->trace ? "--trace applies" : "--slo-ttft-p99-ms and --slo-tpot-ms apply");
        if (o->static_model && !s->llm)
            return cli_usage_error("serve", "--static applies to decoder LLMs");
        if (o->find && o->slo_ms <= 0)
            return cli_usage_error("serve", "--find %s needs --slo-p99-ms", o->find);
        return CLI_EXIT_OK;
    }
    if (o->timeout_ms >= 0 || o->simulate)
        return cli_usage_error("serve", "%s applies to the queue models; continuous batching has no batch timeout "
                                        "and is always simulated (--static for the static model)",
                               o->simulate ? "--simulate" : "--batch-timeout-ms");
    if (s->output < 1)
        return cli_usage_error("serve", "--output 0: continuous batching needs at least one output token");
    if (!o->batch_given)
        s->max_batch = LLM_DEFAULT_MAX_BATCH;
    if (s->max_tokens > 0 && s->max_tokens < s->max_batch)
        return cli_usage_error("serve", "--max-tokens %.0f: below --max-batch %d (every running request decodes a "
                                        "token each iteration)", s->max_tokens, s->max_batch);
    o->slo.e2e_p99_ms = o->slo_ms;
    if (o->find && o->slo.e2e_p99_ms <= 0 && o->slo.ttft_p99_ms <= 0 && o->slo.tpot_p99_ms <= 0)
        return cli_usage_error("serve", "--find %s needs --slo-p99-ms, --slo-ttft-p99-ms or --slo-tpot-ms", o->find);
    if (o->trace) {
        rc = ridge_serve_trace_load(o->trace, trace_cols, &s->trace_n, &err);
        if (rc != RIDGE_OK) {
            cli_error("%s", err.msg);
            return cli_exit_code(rc);
        }
        s->trace_s = *trace_cols;
        s->trace_prompt = *trace_cols + s->trace_n;
        s->trace_output = *trace_cols + 2 * s->trace_n;
        s->requests = s->trace_n;
    }
    return CLI_EXIT_OK;
}

/* Continuous batching simulates every output token of every request (an iteration decodes at
 * least one, at most --max-batch): their number, the warm-up's included, is bounded up front so
 * that one simulation takes seconds, not hours (docs/serving.md, "Simulation size"). The whole
 * trace counts, the share of one replica when the search starts at one. */
static int serve_check_budget(const serve_cli *c)
{
    double tokens = 0;
    if (!c->s.continuous)
        return CLI_EXIT_OK;
    const double mt = c->s.max_tokens;
    const char *chunks = mt > 0 ? " and prompt chunks of --max-tokens" : "";
    if (c->s.trace_n) {
        for (size_t i = 0; i < c->s.trace_n; i++)
            tokens += ridge_serve_sim_steps(c->s.trace_prompt[i], c->s.trace_output[i], mt);
        if (tokens > RIDGE_SERVE_MAX_SIM_TOKENS)
            return cli_usage_error("serve", "--trace: its %zu requests have %.4g output tokens%s to simulate, above "
                                            "the limit of %.0e: use a shorter trace%s",
                                   c->s.trace_n, tokens, chunks, (double)RIDGE_SERVE_MAX_SIM_TOKENS,
                                   mt > 0 ? " or a larger --max-tokens" : "");
        return CLI_EXIT_OK;
    }
    tokens = (double)(c->s.requests + (c->s.offline ? 0 : c->s.requests / 10)) *
             ridge_serve_sim_steps(ridge_serve_prompt(&c->s), c->s.output, mt);
    if (tokens > RIDGE_SERVE_MAX_SIM_TOKENS && mt > 0)
        return cli_usage_error("serve", "--requests %zu, --prompt %.0f, --output %.0f and --max-tokens %.0f: %.4g "
                                        "output tokens and prompt chunks to simulate, above the limit of %.0e: "
                                        "reduce --requests, --prompt or --output, or raise --max-tokens",
                               c->s.requests, ridge_serve_prompt(&c->s), c->s.output, mt, tokens,
                               (double)RIDGE_SERVE_MAX_SIM_TOKENS);
    if (tokens > RIDGE_SERVE_MAX_SIM_TOKENS)
        return cli_usage_error("serve", "--requests %zu and --output %.0f: %.4g output tokens to simulate%s, above "
                                        "the limit of %.0e: reduce --requests or --output",
                               c->s.requests, c->s.output, tokens,
                               c->s.offline ? "" : " (a tenth more requests as warm-up)",
                               (double)RIDGE_SERVE_MAX_SIM_TOKENS);
    return CLI_EXIT_OK;
}

/* The longest request must fit the model: the error names --prompt and --output (or the trace)
 * rather than the --context of the decode step serve derives from them. */
int serve_check_request(const serve_cli *c)
{
    double prompt, output;
    ridge_err err;
    int st;
    if (!c->s.llm)
        return CLI_EXIT_OK;
    st = ridge_serve_check_request(&c->s, &prompt, &output, &err);
    if (st == RIDGE_OK)
        return serve_check_budget(c);
    if (c->s.trace_n)
        cli_error("%s: the trace's longest request, %.0f prompt + %.0f output = %.0f tokens, does not fit the "
                  "model (its last decode step: %s)",
                  ridge_model_name(c->s.m), prompt, output, prompt + output, err.msg);
    else
        cli_error("%s: a request of --prompt %.0f + --output %.0f = %.0f tokens does not fit the model (its "
                  "last decode step: %s)",
                  ridge_model_name(c->s.m), prompt, output, prompt + output, err.msg);
    return cli_exit_code(st);
}

/* An SLO below what a request alone takes (ridge_serve_llm_floor) is infeasible: said at once. */
static int llm_floor_check(const serve_cli *c, const ridge_serve_slo *slo, const char *find)
{
    const char *what = strcmp(find, "replicas") == 0 ? "number of replicas" : "rate";
    ridge_serve_floor f;
    char b[3][48];
    ridge_serve_slo_kind k = ridge_serve_llm_floor(&c->s, slo, &f);
    cli_num(f.ttft_s * 1e3, b[1], 48);
    cli_num(f.tpot_s * 1e3, b[2], 48);
    if (k == RIDGE_SERVE_SLO_E2E)
        cli_error("serve: infeasible: no %s meets --slo-p99-ms %g: a request alone takes %s ms (the prefill of "
                  "%g prompt tokens, %s ms, and %g decode steps of at least %s ms)",
                  what, slo->e2e_p99_ms, cli_num(f.e2e_s * 1e3, b[0], 48), f.prompt, b[1], f.output - 1, b[2]);
    else if (k == RIDGE_SERVE_SLO_TTFT)
        cli_error("serve: infeasible: no %s meets --slo-ttft-p99-ms %g: the prefill of %g prompt tokens alone "
                  "takes %s ms",
                  what, slo->ttft_p99_ms, f.prompt, b[1]);
    else if (k == RIDGE_SERVE_SLO_TPOT)
        cli_error("serve: infeasible: no %s meets --slo-tpot-ms %g: a decode step at batch 1 takes %s ms", what,
                  slo->tpot_p99_ms, b[2]);
    return k == RIDGE_SERVE_SLO_NONE ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}

/* Continuous batching: find, simulate, report. */
static int run_llm(serve_cli *c, const serve_opts *o)
{
    ridge_serve *s = &c->s;
    serve_llm_report rep = {o->rate, ridge_serve_prompt(s), s->output, o->price, o->find, &o->slo, {0}};
    ridge_err err;
    int st = RIDGE_OK, rc, n;
    char b[4][48];
    if (s->trace_n) {
        double po = 0, pp = 0, span = s->trace_s[s->trace_n - 1] - s->trace_s[0];
        for (size_t i = 0; i < s->trace_n; i++) {
            po += s->trace_output[i];
            pp += s->trace_prompt[i];
        }
        rep.mean_out = po / (double)s->trace_n;
        rep.mean_prompt = pp / (double)s->trace_n;
        rep.rate = span > 0 ? (double)(s->trace_n - 1) / span : 0;
    }
    if (o->find && (rc = llm_floor_check(c, &o->slo, o->find)) != CLI_EXIT_OK)
        return rc;
    if (o->find && strcmp(o->find, "replicas") == 0) {
        st = ridge_serve_llm_find_replicas(s, rep.rate, &o->slo, &n, &err);
        if (st == RIDGE_OK && n == 0) {
            cli_error("serve: infeasible: no number of replicas up to %d meets the SLOs at %g requests/s",
                      s->max_replicas, rep.rate);
            return CLI_EXIT_USAGE;
        }
        s->replicas = n;
    } else if (o->find) {
        double lo = 0;
        st = ridge_serve_llm_find_rate(s, &o->slo, &rep.rate, &lo, &rep.r, &err);
        if (st == RIDGE_OK && !ridge_serve_slo_holds(&o->slo, &rep.r)) {
            cli_error("serve: no rate meets the SLOs: even at %s requests/s TTFT p99 is %s ms, TPOT p99 %s ms, e2e "
                      "p99 %s ms",
                      cli_num(lo, b[0], 48), cli_num(rep.r.ttft.p99_s * 1e3, b[1], 48),
                      cli_num(rep.r.tpot.p99_s * 1e3, b[2], 48), cli_num(rep.r.e2e.p99_s * 1e3, b[3], 48));
            return CLI_EXIT_USAGE;
        }
    }
    if (st == RIDGE_OK)
        st = ridge_serve_llm_eval(s, rep.rate, s->replicas, &rep.r, &err);
    if (st != RIDGE_OK)
        return serve_fail(st, &err, "serve: ");
    return serve_report_llm(c, &rep, o->fmt);
}

/* --simulate: the queue without batching by discrete-event simulation, as a check. */
static int simulate_queue(const serve_cli *c, serve_queue_report *rep)
{
    ridge_des_config dc;
    ridge_err err;
    char b[2][48];
    int st;
    ridge_des_config_init(&dc);
    dc.rate_per_s = rep->rate;
    dc.service = RIDGE_SERVICE_DETERMINISTIC;
    dc.mean_service_s = c->s.service_s[0];
    dc.servers = c->s.replicas;
    dc.seed = c->s.seed;
    st = ridge_des_run(&dc, &rep->sim, &err);
    if (st != RIDGE_OK)
        return serve_fail(st, &err, "serve: ");
    rep->have_sim = 1;
    if (rep->sim.short_run)
        fprintf(stderr,
                "ridge: warning: --simulate: %zu requests are too few at utilisation %.4g: the queue forgets its "
                "state over about %s requests and the 95%% interval needs about %s (%g of those per batch); it may "
                "understate the error\n",
                rep->sim.customers, rep->r.utilisation, cli_num(rep->sim.relaxation_customers, b[0], 48),
                cli_num(RIDGE_DES_MIN_RELAXATIONS * rep->sim.relaxation_customers * (double)dc.ci_batches, b[1], 48),
                RIDGE_DES_MIN_RELAXATIONS);
    return CLI_EXIT_OK;
}

/* The queue models: find, evaluate, simulate, report. */
static int run_queue(serve_cli *c, const serve_opts *o)
{
    ridge_serve *s = &c->s;
    serve_queue_report rep = {o->rate, o->price, o->slo_ms, o->find, {0}, 0, {0}};
    const char *what = o->find && strcmp(o->find, "replicas") == 0 ? "number of replicas" : "rate";
    ridge_err err;
    int st = RIDGE_OK, n;
    char b[48];
    if (o->find && s->service_s[0] * 1e3 > o->slo_ms) {
        /* A lone request (or batch of one) is the floor of every latency (ridge_serve_llm_floor). */
        cli_error("serve: infeasible: no %s meets p99 <= %g ms: a lone request takes %s ms", what, o->slo_ms,
                  cli_num(s->service_s[0] * 1e3, b, 48));
        return CLI_EXIT_USAGE;
    }
    if (o->find && strcmp(o->find, "replicas") == 0) {
        st = ridge_serve_find_replicas(s, rep.rate, o->slo_ms / 1e3, &n, &err);
        if (st == RIDGE_OK && n == 0) {
            cli_error("serve: infeasible: no number of replicas up to %d meets p99 <= %g ms at %g requests/s",
                      s->max_replicas, o->slo_ms, rep.rate);
            return CLI_EXIT_USAGE;
        }
        s->replicas = n;
    } else if (o->find) {
        st = ridge_serve_find_rate(s, o->slo_ms / 1e3, &rep.rate, &err);
        if (st == RIDGE_OK && rep.rate <= 0) {
            cli_error("serve: no rate meets p99 <= %g ms: a lone request takes %s ms", o->slo_ms,
                      cli_num(s->service_s[0] * 1e3, b, 48));
            return CLI_EXIT_USAGE;
        }
    }
    if (st == RIDGE_OK)
        st = ridge_serve_eval(s, rep.rate, s->replicas, &rep.r, &err);
    if (st != RIDGE_OK)
        return serve_fail(st, &err, "serve: ");
    if (o->simulate && rep.r.stable && (st = simulate_queue(c, &rep)) != CLI_EXIT_OK)
        return st;
    return serve_report_queue(c, &rep, o->fmt);
}

/* One deployment. */
int serve_run(serve_cli *c, serve_opts *o, ridge_gpu *g)
{
    int rc;
    if (c->cl)
        *g = c->cl->gpu;
    else if ((rc = cli_load_gpu(o->gpu_id, o->gpu_file, g)) != CLI_EXIT_OK)
        return rc;
    if ((rc = cli_prices_apply(&o->prices, g, 1, "serve")) != CLI_EXIT_OK)
        return rc;
    c->s.g = g;
    serve_default_precision(c, g, 1);
    if ((rc = serve_prepare(c)) != CLI_EXIT_OK)
        return rc;
    return c->s.continuous ? run_llm(c, o) : run_queue(c, o);
}
