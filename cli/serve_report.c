/* ridge serve: the reports of one deployment at one rate, text, JSON and CSV (docs/serving.md).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "json_emit.h"
#include "model_run.h"
#include "prices.h"
#include "serve_cli.h"

static const char *yesno(int v)
{
    return v ? "yes" : "no";
}

const char *serve_queue_title(const serve_cli *c)
{
    if (ridge_serve_queue_for(c->s.max_batch) == ridge_queue_type_batch)
        return "dynamic batching (simulated)";
    return c->s.replicas == 1 ? "M/D/1 (Pollaczek-Khinchine)" : "M/D/c (Erlang C, Allen-Cunneen)";
}

const char *serve_precision_text(const serve_cli *c, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (c->precision_note[0])
        snprintf(buf, cap, "%s%s, ", ridge_dtype_name(c->s.run.precision), c->precision_note);
    return buf;
}

void serve_default_precision(serve_cli *c, const ridge_gpu *g, int n)
{
    if (!c->precision_given)
        cli_default_precision(&c->s.run, g, n, c->precision_note, sizeof c->precision_note);
}

static void stats_json(cJSON *root, const char *key, const ridge_llm_stats *st)
{
    const cli_json_field f[] = {CLI_JNUM("mean", st->mean_s), CLI_JNUM("p50", st->p50_s), CLI_JNUM("p90", st->p90_s),
                                CLI_JNUM("p99", st->p99_s)};
    CLI_JSON_ADD(cJSON_AddObjectToObject(root, key), f);
}

static void stats_text(const char *label, const ridge_llm_stats *st)
{
    char b[4][48];
    printf("%-18smean %s, p50 %s, p90 %s, p99 %s\n", label, cli_num_time(st->mean_s, b[0], 48),
           cli_num_time(st->p50_s, b[1], 48), cli_num_time(st->p90_s, b[2], 48), cli_num_time(st->p99_s, b[3], 48));
}

/* The head of both JSON reports: schema, GPU, --cluster's cluster and tensor-parallel size, workload. */
static cJSON *head_json(const serve_cli *c)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
    cJSON_AddStringToObject(root, "gpu", c->s.g->id);
    if (c->cl) {
        cJSON_AddStringToObject(root, "cluster", c->cl->id);
        cJSON_AddNumberToObject(root, "cluster_gpus", (double)c->cl->gpus_per_node * c->cl->nodes);
        cJSON_AddNumberToObject(root, "tp", c->tp);
        cJSON_AddNumberToObject(root, "gpus_per_replica", c->tp);
    }
    cJSON_AddStringToObject(root, "workload", ridge_model_name(c->s.m));
    return root;
}

/* The first line of the text report: "MODEL on GPU (NAME)" or, on a cluster, the replica layout. */
static void title_text(const serve_cli *c, const char *what)
{
    char mname[CLI_NAME_TEXT_CAP], name[CLI_NAME_TEXT_CAP], prec[128], line[1024];
    const ridge_gpu *g = c->s.g;
    cli_text(ridge_model_name(c->s.m), mname, sizeof mname);
    serve_precision_text(c, prec, sizeof prec);
    if (c->cl)
        snprintf(line, sizeof line, "%s on %s (%s), replicas of %d x %s with tensor parallelism (tp %d), %s%s", mname,
                 c->cl->id, cli_text(c->cl->name, name, sizeof name), c->tp, g->id, c->tp, prec, what);
    else
        snprintf(line, sizeof line, "%s on %s (%s), %s%s", mname, g->id, cli_text(g->name, name, sizeof name), prec,
                 what);
    cli_print_wrapped(stdout, line, 0, 2); /* 120 columns */
    printf("\n");
}

/* The cost line: "cost  C UNIT (P USD per GPU-hour[, T GPUs per replica])", or unknown; then
 * where the price comes from. */
static void cost_text(const serve_cli *c, double cost, const char *unit, double pr, double given)
{
    char b[2][48], why[1024];
    if (!(cost > 0)) {
        printf("cost              unknown: %s\n", cli_price_text(c->s.g, why, sizeof why));
        return;
    }
    printf("cost              %s %s ", cli_num(cost, b[0], 48), unit);
    printf("(%s USD per GPU-hour", cli_num(pr, b[1], 48));
    if (c->rep_cl)
        printf(", %d GPU%s per replica", c->tp, c->tp == 1 ? "" : "s");
    printf(")\nprice             ");
    if (given >= 0)
        printf("--price-per-hour %s\n", cli_num(given, b[1], 48));
    else
        cli_print_wrapped(stdout, cli_price_text(c->s.g, why, sizeof why), 18, 18);
}

/* "found             replicas: N" or "max-rate: R". */
static void found_text(const serve_cli *c, const char *find, double rate)
{
    char b[48];
    if (find)
        printf("found             %s: %s\n", find,
               strcmp(find, "replicas") == 0 ? cli_num(c->s.replicas, b, 48) : cli_num(rate, b, 48));
}

/* ---- continuous batching ---- */

/* The keys both service models end with: what --find found, and the price and cost when there is one. */
static cJSON *money_json(const serve_cli *c, cJSON *root, const char *find, double pr, const char *cost_key,
                         double cost, double given)
{
    const cli_json_field f[] = {CLI_JSTR_IF("found", find != NULL, find),
                                CLI_JNUM_IF("price_usd_per_gpu_hour", cost > 0, pr),
                                CLI_JNUM_IF(cost_key, cost > 0, cost)};
    CLI_JSON_ADD(root, f);
    if (!(cost > 0)) { /* no price: the figures are not known */
        cJSON_AddNullToObject(root, "price_usd_per_gpu_hour");
        cJSON_AddNullToObject(root, cost_key);
    }
    if (given >= 0) {
        cJSON *o = cJSON_AddObjectToObject(root, "price");
        cJSON_AddNumberToObject(o, "usd_per_hour", given);
        cJSON_AddStringToObject(o, "source", "--price-per-hour");
    } else {
        cJSON_AddItemToObject(root, "price", cli_price_json(c->s.g));
    }
    return root;
}

/* The price per GPU hour: --price-per-hour where given (price >= 0), else the GPU's. */
static double price_of(const serve_cli *c, double price)
{
    return price >= 0 ? price : c->s.g->price_usd_per_hour;
}

/* The cost of `per` units (output tokens, requests) served at `rate` per second by all the replicas'
 * GPUs at pr per GPU hour; 0 where either is unknown. */
static double cost_per(const serve_cli *c, double pr, double rate, double per)
{
    const ridge_serve *s = &c->s;
    return pr > 0 && rate > 0 ? pr * s->replicas * s->gpus_per_replica / (3600 * rate) * per : 0;
}

static int slo_set(const ridge_serve_slo *slo)
{
    return slo->e2e_p99_ms > 0 || slo->ttft_p99_ms > 0 || slo->tpot_p99_ms > 0;
}

static int llm_json(const serve_cli *c, const serve_llm_report *p, double pr, double tok_total, double cost)
{
    const ridge_serve *s = &c->s;
    const ridge_llm_result *r = &p->r;
    cJSON *root = head_json(c);
    const cli_json_field f[] = {CLI_JSTR("service_model", "continuous-batching"),
                                CLI_JSTR("arrivals", s->trace_n ? "trace" : s->offline ? "offline" : "poisson"),
                                CLI_JNUM("replicas", s->replicas),
                                CLI_JNUM("max_batch", s->max_batch),
                                CLI_JNUM("prompt_tokens", p->mean_prompt),
                                CLI_JNUM("output_tokens", p->mean_out),
                                CLI_JNUM("rate_per_s", p->rate),
                                CLI_JBOOL("stable", r->stable),
                                CLI_JNUM("saturation_rate_per_s", r->saturation_rate_per_s * s->replicas),
                                CLI_JNUM("throughput_per_s", r->throughput_per_s * s->replicas),
                                CLI_JNUM("output_tokens_per_s", tok_total),
                                CLI_JNUM("mean_running_batch", r->mean_batch),
                                CLI_JNUM("mean_iteration_s", r->mean_iteration_s),
                                CLI_JNUM("prefill_time_share", r->prefill_share),
                                CLI_JNUM("kv_bytes_per_token", s->kv_bytes_per_token),
                                CLI_JNUM("kv_capacity_bytes", s->kv_capacity_bytes),
                                CLI_JNUM("kv_max_running", r->kv_max_running),
                                CLI_JNUM_IF("sustained_tensor_clock_hz",
                                            s->offline && s->g->sustained_tensor_clock_hz > 0 &&
                                                s->g->sustained_tensor_clock_hz < s->g->tensor_clock_hz,
                                            s->g->sustained_tensor_clock_hz)};
    CLI_JSON_ADD(root, f);
    const cli_json_field it[] = {CLI_JNUM("decode_batch_1", s->decode_s[0][0]),
                                 CLI_JNUM("decode_batch_max", s->decode_s[s->nb - 1][s->nc - 1]),
                                 CLI_JNUM("prefill_one_prompt", s->prefill_s[0])};
    CLI_JSON_ADD(cJSON_AddObjectToObject(root, "iteration_time_s"), it);
    cJSON_AddNumberToObject(root, "simulated_requests", (double)r->requests);
    stats_json(root, "ttft_s", &r->ttft);
    stats_json(root, "tpot_s", &r->tpot);
    stats_json(root, "e2e_s", &r->e2e);
    if (slo_set(p->slo)) {
        const ridge_serve_slo *slo = p->slo;
        const cli_json_field lim[] = {CLI_JNUM_IF("e2e_p99_s", slo->e2e_p99_ms > 0, slo->e2e_p99_ms / 1e3),
                                      CLI_JNUM_IF("ttft_p99_s", slo->ttft_p99_ms > 0, slo->ttft_p99_ms / 1e3),
                                      CLI_JNUM_IF("tpot_p99_s", slo->tpot_p99_ms > 0, slo->tpot_p99_ms / 1e3),
                                      CLI_JBOOL("holds", ridge_serve_slo_holds(slo, r))};
        CLI_JSON_ADD(cJSON_AddObjectToObject(root, "slo"), lim);
    }
    money_json(c, root, p->find, pr, "cost_usd_per_million_output_tokens", cost, p->price);
    return cli_print_json(root);
}

/* The price cells behind a CSV row's cost (cli_price_cells): the GPU's, or --price-per-hour
 * where given (given >= 0), named as such. */
static void price_cells_csv(const serve_cli *c, double given)
{
    ridge_gpu g = *c->s.g;
    if (given >= 0) {
        g.price_usd_per_hour = given;
        g.price_kind[0] = g.price_date[0] = '\0';
        snprintf(g.price_source, sizeof g.price_source, "--price-per-hour");
        g.mig_of[0] = '\0'; /* the price given is the slice's own */
    }
    cli_price_cells(&g, 0);
}

/* ",X" with 9 significant digits, or "," alone for a figure that is not known (docs/cli.md:
 * an empty cell, never a 0 that reads as a value). */
static void csv_cell(int known, double x)
{
    if (known)
        printf(",%.9g", x);
    else
        printf(",");
}

static void llm_csv(const serve_cli *c, const serve_llm_report *p, double tok_total, double cost)
{
    const ridge_serve *s = &c->s;
    const ridge_llm_result *r = &p->r;
    printf("gpu,workload,replicas,max_batch,prompt_tokens,output_tokens,rate_per_s,stable,saturation_rate_per_s,"
           "output_tokens_per_s,mean_running_batch,mean_iteration_s,ttft_p50_s,ttft_p99_s,tpot_p50_s,tpot_p99_s,"
           "e2e_mean_s,e2e_p50_s,e2e_p99_s,slo_holds,cost_usd_per_million_output_tokens," CLI_PRICE_COLUMNS "\n");
    printf("%s,%s,%d,%d,%.9g,%.9g,%.9g,%s,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%s", s->g->id,
           ridge_model_name(s->m), s->replicas, s->max_batch, p->mean_prompt, p->mean_out, p->rate,
           r->stable ? "true" : "false", r->saturation_rate_per_s * s->replicas, tok_total, r->mean_batch,
           r->mean_iteration_s, r->ttft.p50_s, r->ttft.p99_s, r->tpot.p50_s, r->tpot.p99_s, r->e2e.mean_s, r->e2e.p50_s,
           r->e2e.p99_s, slo_set(p->slo) ? (ridge_serve_slo_holds(p->slo, r) ? "true" : "false") : "");
    csv_cell(cost > 0, cost); /* no price: not known */
    price_cells_csv(c, p->price);
    printf("\n");
}

/* "SLO NAME p99 <= X ms  holds|MISSED" for an objective that is set. */
static void slo_line(const char *name, double slo_ms, int stable, double p99_s)
{
    char b[48];
    if (slo_ms > 0)
        printf("SLO %s <= %s ms  %s\n", name, cli_num(slo_ms, b, 48), stable && p99_s * 1e3 <= slo_ms ? "holds" : "MISSED");
}

static void llm_text(const serve_cli *c, const serve_llm_report *p, double pr, double tok_total, double cost)
{
    const ridge_serve *s = &c->s;
    const ridge_llm_result *r = &p->r;
    double rate = p->rate;
    char b[6][48];
    title_text(c, "LLM: prefill + output x decode per request, continuous batching");
    if (s->offline)
        printf("requests          prompt %s, output %s tokens, offline: %zu queued at 0 s\n",
               cli_num(p->mean_prompt, b[0], 48), cli_num(p->mean_out, b[1], 48), s->requests);
    else
        printf("requests          prompt %s, output %s tokens%s, %s arrivals\n", cli_num(p->mean_prompt, b[0], 48),
               cli_num(p->mean_out, b[1], 48), s->trace_n ? " (trace means)" : "", s->trace_n ? "trace" : "Poisson");
    {
        char line[512];
        snprintf(line, sizeof line, "decode step %s (batch 1, context %s) to %s (batch %d, context %s); prefill of one "
                 "prompt %s", cli_num_time(s->decode_s[0][0], b[0], 48), cli_num(s->grid_c[0], b[1], 48),
                 cli_num_time(s->decode_s[s->nb - 1][s->nc - 1], b[2], 48), s->max_batch,
                 cli_num(s->grid_c[s->nc - 1], b[3], 48), cli_num_time(s->prefill_s[0], b[4], 48));
        fputs("iteration         ", stdout);
        cli_print_wrapped(stdout, line, 18, 18);
    }
    printf("KV cache          %s KiB per token, %s GB free: %d requests of %s tokens\n",
           cli_num(s->kv_bytes_per_token / 1024, b[0], 48), cli_num(s->kv_capacity_bytes / 1e9, b[1], 48),
           r->kv_max_running, cli_num(p->mean_prompt + p->mean_out, b[2], 48));
    printf("scheduler         continuous batching, at most %d running, %d replica%s\n", s->max_batch, s->replicas,
           s->replicas == 1 ? "" : "s");
    found_text(c, p->find, rate);
    if (!s->offline) {
        printf("arrival rate      %s requests/s", cli_num(rate, b[0], 48));
        if (s->replicas > 1)
            printf(" (%s per replica)", cli_num(rate / s->replicas, b[0], 48));
        printf("\n");
    }
    printf("throughput        %s requests/s, %s output tokens/s%s\n",
           cli_num(r->throughput_per_s * s->replicas, b[0], 48), cli_num(tok_total, b[1], 48),
           s->offline ? " (from time 0 to the last token)" : "");
    printf("running batch     mean %s per replica (limit %d)\n", cli_num(r->mean_batch, b[0], 48),
           r->kv_max_running < s->max_batch ? r->kv_max_running : s->max_batch);
    printf("iteration         mean %s (%zu iterations per replica); prefill %s %% of the time, decode %s %%\n",
           cli_num_time(r->mean_iteration_s, b[0], 48), r->iterations, cli_num(100 * r->prefill_share, b[1], 48),
           cli_num(100 * (1 - r->prefill_share), b[2], 48));
    if (s->offline) {
        printf("saturation        about %s requests/s (estimate at the full running batch)\n",
               cli_num(r->saturation_rate_per_s * s->replicas, b[0], 48));
        if (s->g->sustained_tensor_clock_hz > 0 && s->g->sustained_tensor_clock_hz < s->g->tensor_clock_hz)
            printf("clock             a sustained full load: 16/8-bit GEMMs at the power-limited %s GHz, not %s\n",
                   cli_num(s->g->sustained_tensor_clock_hz / 1e9, b[0], 48), cli_num(s->g->tensor_clock_hz / 1e9, b[1], 48));
        stats_text("TTFT", &r->ttft);
        stats_text("TPOT", &r->tpot);
        stats_text("e2e", &r->e2e);
        printf("latency           of an offline run: every request waited from time 0\n");
        cost_text(c, cost, "USD per million output tokens", pr, p->price);
        return;
    }
    printf("stable            %s (saturation about %s requests/s", yesno(r->stable),
           cli_num(r->saturation_rate_per_s * s->replicas, b[0], 48));
    if (!r->stable && rate >= r->saturation_rate_per_s * s->replicas)
        printf("; the rate is not below it");
    else if (!r->stable)
        printf("; second half: %s completions/s against %s arrivals/s per replica",
               cli_num(r->completion_rate_2nd_half_per_s, b[1], 48), cli_num(r->arrival_rate_2nd_half_per_s, b[2], 48));
    printf(")\n");
    stats_text("TTFT", &r->ttft);
    stats_text("TPOT", &r->tpot);
    stats_text("e2e", &r->e2e);
    if (!r->stable)
        printf("latency           unbounded: the queue grows (the figures above cover a finite run of %zu requests)\n",
               r->requests);
    slo_line("e2e p99", p->slo->e2e_p99_ms, r->stable, r->e2e.p99_s);
    slo_line("TTFT p99", p->slo->ttft_p99_ms, r->stable, r->ttft.p99_s);
    slo_line("TPOT p99", p->slo->tpot_p99_ms, r->stable, r->tpot.p99_s);
    cost_text(c, cost, "USD per million output tokens", pr, p->price);
}

int serve_report_llm(const serve_cli *c, const serve_llm_report *p, cli_format fmt)
{
    double pr = price_of(c, p->price), tok_total = p->r.output_tokens_per_s * c->s.replicas;
    double cost = cost_per(c, pr, tok_total, 1e6);
    if (fmt == CLI_FMT_JSON)
        return llm_json(c, p, pr, tok_total, cost);
    if (fmt == CLI_FMT_CSV)
        llm_csv(c, p, tok_total, cost);
    else
        llm_text(c, p, pr, tok_total, cost);
    return CLI_EXIT_OK;
}

/* ---- the queue models ---- */

static int queue_json(const serve_cli *c, const serve_queue_report *p, double pr, double thr, double cost)
{
    const ridge_serve *s = &c->s;
    const ridge_queue_result *r = &p->r;
    cJSON *root = head_json(c);
    const cli_json_field f[] = {CLI_JSTR("service_model", s->llm ? "prefill+decode" : "infer"),
                                CLI_JSTR("queue", serve_queue_title(c)),
                                CLI_JNUM("replicas", s->replicas),
                                CLI_JNUM("max_batch", s->max_batch),
                                CLI_JNUM("batch_timeout_s", s->timeout_s),
                                CLI_JNUM("service_time_s", s->service_s[0]),
                                CLI_JNUM("rate_per_s", p->rate),
                                CLI_JBOOL("stable", r->stable),
                                CLI_JNUM("utilisation", r->utilisation),
                                CLI_JNUM("throughput_per_s", thr),
                                CLI_JNUM("saturation_rate_per_s", r->saturation_rate_per_s)};
    CLI_JSON_ADD(root, f);
    if (r->stable) {
        const cli_json_field lat[] = {CLI_JNUM("mean", r->mean_latency_s), CLI_JNUM("p50", r->p50_s),
                                      CLI_JNUM("p90", r->p90_s), CLI_JNUM("p99", r->p99_s)};
        CLI_JSON_ADD(cJSON_AddObjectToObject(root, "latency_s"), lat);
    } else {
        cJSON_AddNullToObject(root, "latency_s"); /* unbounded: not known */
    }
    if (p->slo_ms > 0) {
        const cli_json_field slo[] = {CLI_JNUM("slo_p99_s", p->slo_ms / 1e3),
                                      CLI_JBOOL("slo_holds", r->stable && r->p99_s * 1e3 <= p->slo_ms)};
        CLI_JSON_ADD(root, slo);
    }
    money_json(c, root, p->find, pr, "cost_usd_per_1000_requests", cost, p->price);
    if (p->have_sim) {
        const cli_json_field sim[] = {CLI_JNUM("customers", (double)p->sim.customers),
                                      CLI_JNUM("mean_latency_s", p->sim.mean_latency_s),
                                      CLI_JNUM("mean_latency_ci95_s", p->sim.ci95_half_width_s),
                                      CLI_JNUM("p50_s", p->sim.p50_s),
                                      CLI_JNUM("p90_s", p->sim.p90_s),
                                      CLI_JNUM("p99_s", p->sim.p99_s),
                                      CLI_JNUM("relaxation_requests", p->sim.relaxation_customers),
                                      CLI_JBOOL("run_too_short", p->sim.short_run)};
        CLI_JSON_ADD(cJSON_AddObjectToObject(root, "simulation"), sim);
    }
    return cli_print_json(root);
}

static void queue_csv(const serve_cli *c, const serve_queue_report *p, double thr, double cost)
{
    const ridge_serve *s = &c->s;
    const ridge_queue_result *r = &p->r;
    int slo_ok = r->stable && r->p99_s * 1e3 <= p->slo_ms;
    printf("gpu,workload,replicas,max_batch,rate_per_s,service_time_s,utilisation,throughput_per_s,"
           "saturation_rate_per_s,stable,latency_mean_s,latency_p50_s,latency_p90_s,latency_p99_s,slo_p99_s,slo_holds,"
           "cost_usd_per_1000_requests," CLI_PRICE_COLUMNS "\n");
    printf("%s,%s,%d,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%s", s->g->id, ridge_model_name(s->m), s->replicas, s->max_batch,
           p->rate, s->service_s[0], r->utilisation, thr, r->saturation_rate_per_s, r->stable ? "true" : "false");
    /* an unstable queue has no latency (it grows without bound); no SLO, no price: empty */
    csv_cell(r->stable, r->mean_latency_s);
    csv_cell(r->stable, r->p50_s);
    csv_cell(r->stable, r->p90_s);
    csv_cell(r->stable, r->p99_s);
    csv_cell(p->slo_ms > 0, p->slo_ms / 1e3);
    printf(",%s", p->slo_ms > 0 ? (slo_ok ? "true" : "false") : "");
    csv_cell(cost > 0, cost);
    price_cells_csv(c, p->price);
    printf("\n");
}

static void queue_text(const serve_cli *c, const serve_queue_report *p, double pr, double thr, double cost)
{
    const ridge_serve *s = &c->s;
    const ridge_queue_result *r = &p->r;
    const ridge_des_result *sim = &p->sim;
    char b[5][48];
    title_text(c, s->llm ? "LLM: prefill + output x decode per request" : "one inference pass per request");
    printf("service time      %s ms (batch 1)", cli_num(s->service_s[0] * 1e3, b[0], 48));
    if (s->max_batch > 1)
        printf(", %s ms (batch %d)", cli_num(s->service_s[s->max_batch - 1] * 1e3, b[0], 48), s->max_batch);
    printf("\nqueue             %s, %d replica%s\n", serve_queue_title(c), s->replicas, s->replicas == 1 ? "" : "s");
    found_text(c, p->find, p->rate);
    printf("arrival rate      %s requests/s\n", cli_num(p->rate, b[0], 48));
    printf("utilisation       %s %%\n", cli_num(r->utilisation * 100, b[0], 48));
    printf("throughput        %s requests/s\n", cli_num(thr, b[0], 48));
    printf("stable            %s (saturation %s requests/s)\n", yesno(r->stable),
           cli_num(r->saturation_rate_per_s, b[0], 48));
    if (r->stable)
        printf("latency           mean %s, p50 %s, p90 %s, p99 %s\n", cli_num_time(r->mean_latency_s, b[0], 48),
               cli_num_time(r->p50_s, b[1], 48), cli_num_time(r->p90_s, b[2], 48), cli_num_time(r->p99_s, b[3], 48));
    else
        printf("latency           unbounded: the queue grows without limit\n");
    if (p->have_sim)
        printf("simulated         mean %s +- %s, p50 %s, p90 %s, p99 %s (%zu requests)\n",
               cli_num_time(sim->mean_latency_s, b[0], 48), cli_num_time(sim->ci95_half_width_s, b[1], 48),
               cli_num_time(sim->p50_s, b[2], 48), cli_num_time(sim->p90_s, b[3], 48),
               cli_num_time(sim->p99_s, b[4], 48), sim->customers);
    slo_line("p99", p->slo_ms, r->stable, r->p99_s);
    cost_text(c, cost, "USD per 1,000 requests", pr, p->price);
}

int serve_report_queue(const serve_cli *c, const serve_queue_report *p, cli_format fmt)
{
    double pr = price_of(c, p->price), thr = p->r.stable ? p->rate : p->r.throughput_per_s;
    double cost = cost_per(c, pr, thr, 1000);
    if (fmt == CLI_FMT_JSON)
        return queue_json(c, p, pr, thr, cost);
    if (fmt == CLI_FMT_CSV)
        queue_csv(c, p, thr, cost);
    else
        queue_text(c, p, pr, thr, cost);
    return CLI_EXIT_OK;
}
