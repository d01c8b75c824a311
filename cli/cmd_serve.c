/* ridge serve: latency percentiles, SLO and cost of serving a model at a request rate
 * (docs/serving.md). SPDX-License-Identifier: GPL-3.0-or-later */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "model_run.h"
#include "ridge/queue.h"
#include "ridge/schedule.h"
#include "ridge/workload.h"

#define SERVE_MAX_BATCH 1024
#define SERVE_MAX_REPLICAS 4096

static const char help[] =
    "usage: ridge serve --gpu ID|--gpu-file PATH --workload ID|FILE --rate R [--replicas N]\n"
    "                   [--max-batch B [--batch-timeout-ms T]] [--slo-p99-ms X] [--find max-rate|replicas]\n"
    "                   [--price-per-hour P] [--output N] [--simulate] [--seed S] [run options]\n"
    "                   [--format text|json|csv]\n"
    "\n"
    "Serving a model: requests arrive as a Poisson process at R per second and are served by N\n"
    "replicas, one GPU each (docs/serving.md). The service time of a request comes from the\n"
    "performance model: one inference pass (--mode infer, the default for CNNs and encoders) or,\n"
    "for decoder LLMs, prefill(--prompt) + --output (default 128) x decode at context prompt +\n"
    "output/2. Continuous batching is not modelled yet: an LLM batch is served as a static batch.\n"
    "\n"
    "Without --max-batch each replica serves one request at a time: M/D/1 for one replica,\n"
    "M/D/c by the Allen-Cunneen approximation of M/G/c for several; --simulate adds a\n"
    "discrete-event simulation as a check. With --max-batch the replicas batch dynamically (up to B\n"
    "requests, waiting at most T ms for a batch to fill; a batch of b takes the model's time at\n"
    "batch b); the arrivals split evenly over the replicas and each is simulated (no closed form).\n"
    "\n"
    "Prints utilisation, throughput, mean/p50/p90/p99 latency, stability (with the saturation rate\n"
    "when the queue cannot keep up), whether p99 meets --slo-p99-ms, and the cost per 1,000 requests\n"
    "from the GPU's price per hour (--price-per-hour overrides). --find max-rate: the highest rate\n"
    "whose p99 meets the SLO (Brent's method); --find replicas: the fewest replicas meeting it at R.\n"
    "\n"
    "Options:\n"
    "  --rate R               requests per second (> 0)\n"
    "  --replicas N           GPUs serving the model (default 1)\n"
    "  --max-batch B          dynamic batching with at most B requests per batch\n"
    "  --batch-timeout-ms T   longest wait for a batch to fill (default 0: take what is queued)\n"
    "  --slo-p99-ms X         latency objective for the 99th percentile\n"
    "  --find max-rate|replicas\n"
    "  --price-per-hour P     US dollars per GPU-hour (default: the GPU's catalogue price)\n"
    "  --output N             LLM: tokens generated per request (default 128)\n"
    "  --simulate             also simulate the queue without batching (200000 requests)\n"
    "  --seed S               simulation seed (default 1)\n"
    "\n" CLI_RUN_HELP;

typedef struct {
    const ridge_gpu *g;
    const ridge_model *m;
    ridge_run_config run;
    int llm;
    double output;
    int max_batch;        /* 0: no batching */
    double timeout_s;
    double *service_s;    /* s(b), b = 1..max(1, max_batch) */
    int replicas;
    unsigned long seed;
    size_t customers;     /* batching simulation size */
} serve_ctx;

/* Service time of a batch of b requests: one pass, or prefill + output x decode for an LLM. */
static int service_time(const serve_ctx *s, double b, double *t_s)
{
    ridge_run_config rc = s->run;
    cli_model_prediction p;
    int rc_exit;
    rc.batch = b;
    if (!s->llm) {
        rc_exit = cli_model_predict(s->g, s->m, &rc, RIDGE_RUNTIME_EAGER, &p);
        *t_s = p.time_s;
        cli_model_prediction_free(&p);
        return rc_exit;
    }
    rc.mode = RIDGE_MODE_PREFILL;
    rc_exit = cli_model_predict(s->g, s->m, &rc, RIDGE_RUNTIME_EAGER, &p);
    *t_s = p.time_s;
    cli_model_prediction_free(&p);
    if (rc_exit != CLI_EXIT_OK || s->output <= 0)
        return rc_exit;
    rc.mode = RIDGE_MODE_DECODE;
    rc.context = (s->run.prompt > 0 ? s->run.prompt : 512) + floor(s->output / 2);
    rc_exit = cli_model_predict(s->g, s->m, &rc, RIDGE_RUNTIME_EAGER, &p);
    *t_s += s->output * p.time_s;
    cli_model_prediction_free(&p);
    return rc_exit;
}

/* The system at a total rate: closed form or, with batching, simulation of one replica. */
static int evaluate(const serve_ctx *s, double rate, int replicas, ridge_queue_result *r, ridge_err *err)
{
    if (s->max_batch > 0) {
        ridge_batch_params bp = {0};
        ridge_des_result sim;
        int st;
        bp.rate_per_s = rate / replicas;
        bp.max_batch = s->max_batch;
        bp.batch_timeout_s = s->timeout_s;
        bp.batch_service_s = s->service_s;
        bp.customers = s->customers;
        bp.seed = s->seed;
        st = ridge_queue_batch(&bp, r, &sim, err);
        r->saturation_rate_per_s *= replicas;
        r->throughput_per_s *= replicas;
        return st;
    } else {
        ridge_queue_params p;
        ridge_queue_params_init(&p);
        p.rate_per_s = rate;
        p.mean_service_s = s->service_s[0];
        p.service_cs2 = 0; /* the model's service time is deterministic */
        p.servers = replicas;
        return ridge_queue_mgc(&p, r, err);
    }
}

static int p99_at(double rate, void *ctx, double *v)
{
    const serve_ctx *s = ctx;
    ridge_queue_result r;
    ridge_err err;
    if (evaluate(s, rate, s->replicas, &r, &err) != RIDGE_OK)
        return -1;
    /* Unstable: report a latency above any objective so the root stays below saturation. */
    *v = r.stable ? r.p99_s : 1e30;
    return 0;
}

static const char *yesno(int v)
{
    return v ? "yes" : "no";
}

int cmd_serve(int argc, char **argv)
{
    static const struct option opts[] = {{"gpu", required_argument, 0, 'g'},
                                         {"gpu-file", required_argument, 0, 'G'},
                                         {"workload", required_argument, 0, 'w'},
                                         {"rate", required_argument, 0, 'r'},
                                         {"replicas", required_argument, 0, 'n'},
                                         {"max-batch", required_argument, 0, 'b'},
                                         {"batch-timeout-ms", required_argument, 0, 't'},
                                         {"slo-p99-ms", required_argument, 0, 's'},
                                         {"find", required_argument, 0, 'F'},
                                         {"price-per-hour", required_argument, 0, 'P'},
                                         {"output", required_argument, 0, 'o'},
                                         {"simulate", no_argument, 0, 'S'},
                                         {"seed", required_argument, 0, 'e'},
                                         {"format", required_argument, 0, 'f'},
                                         {"help", no_argument, 0, 'h'},
                                         CLI_RUN_OPTIONS,
                                         {0, 0, 0, 0}};
    const char *gpu_id = NULL, *gpu_file = NULL, *wl = NULL, *find = NULL;
    double rate = 0, slo_ms = 0, timeout_ms = -1, price = -1, v;
    long lv;
    int mode_given = 0, simulate = 0, c, rc = CLI_EXIT_OK, st, nserv;
    cli_format fmt = CLI_FMT_TEXT;
    serve_ctx s;
    ridge_gpu g;
    ridge_model *m = NULL;
    ridge_err err;
    ridge_queue_result r;
    ridge_des_result sim;
    int have_sim = 0;
    const char *queue_name;
    char b[8][48];

    memset(&s, 0, sizeof s);
    ridge_run_config_init(&s.run);
    s.run.mode = RIDGE_MODE_INFER;
    s.replicas = 1;
    s.output = 128;
    s.seed = 1;
    s.customers = 100000;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c >= CLI_RUN_OPT_BASE) {
            if (cli_run_option(c, optarg, &s.run) < 0)
                return CLI_EXIT_USAGE;
            if (c == CLI_RUN_OPT_BASE)
                mode_given = 1;
            continue;
        }
        switch (c) {
        case 'g': gpu_id = optarg; break;
        case 'G': gpu_file = optarg; break;
        case 'w': wl = optarg; break;
        case 'r':
            if (cli_parse_double("--rate", optarg, 1e-9, 1e12, &rate))
                return CLI_EXIT_USAGE;
            break;
        case 'n':
            if (cli_parse_long("--replicas", optarg, 1, SERVE_MAX_REPLICAS, &lv))
                return CLI_EXIT_USAGE;
            s.replicas = (int)lv;
            break;
        case 'b':
            if (cli_parse_long("--max-batch", optarg, 1, SERVE_MAX_BATCH, &lv))
                return CLI_EXIT_USAGE;
            s.max_batch = (int)lv;
            break;
        case 't':
            if (cli_parse_double("--batch-timeout-ms", optarg, 0, 1e9, &timeout_ms))
                return CLI_EXIT_USAGE;
            break;
        case 's':
            if (cli_parse_double("--slo-p99-ms", optarg, 1e-9, 1e12, &slo_ms))
                return CLI_EXIT_USAGE;
            break;
        case 'F':
            if (strcmp(optarg, "max-rate") && strcmp(optarg, "replicas"))
                return cli_usage_error("serve", "--find: '%s' is not max-rate or replicas", optarg);
            find = optarg;
            break;
        case 'P':
            if (cli_parse_double("--price-per-hour", optarg, 0, 1e9, &price))
                return CLI_EXIT_USAGE;
            break;
        case 'o':
            if (cli_parse_long("--output", optarg, 0, 10000000, &lv))
                return CLI_EXIT_USAGE;
            s.output = (double)lv;
            break;
        case 'S': simulate = 1; break;
        case 'e':
            if (cli_parse_double("--seed", optarg, 0, 4294967295.0, &v) || v != floor(v))
                return cli_usage_error("serve", "--seed: '%s' is not an integer in [0, 4294967295]", optarg);
            s.seed = (unsigned long)v;
            break;
        case 'f':
            if (cli_parse_format(optarg, &fmt))
                return CLI_EXIT_USAGE;
            break;
        case 'h': fputs(help, stdout); return CLI_EXIT_OK;
        case ':': return cli_usage_error("serve", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("serve", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("serve", "unexpected argument '%s'", argv[optind]);
    if (!gpu_id == !gpu_file)
        return cli_usage_error("serve", "give exactly one of --gpu ID or --gpu-file PATH");
    if (!wl)
        return cli_usage_error("serve", "missing --workload ID|FILE");
    if (rate <= 0 && !(find && strcmp(find, "max-rate") == 0))
        return cli_usage_error("serve", "missing --rate R (requests per second)");
    if (find && slo_ms <= 0)
        return cli_usage_error("serve", "--find %s needs --slo-p99-ms", find);
    if (timeout_ms >= 0 && !s.max_batch)
        return cli_usage_error("serve", "--batch-timeout-ms needs --max-batch");
    if (s.run.mode == RIDGE_MODE_TRAIN)
        return cli_usage_error("serve", "--mode train: serving runs infer, prefill or decode");
    if (simulate && s.max_batch)
        return cli_usage_error("serve", "--simulate applies without --max-batch (batching is always simulated)");
    s.timeout_s = timeout_ms > 0 ? timeout_ms / 1e3 : 0;
    if (cli_is_oplist_file(wl))
        return cli_usage_error("serve", "%s is an operator list; serve needs a model (built-in id or model file)", wl);
    rc = cli_load_gpu(gpu_id, gpu_file, &g);
    if (rc)
        return rc;
    st = ridge_model_load(wl, &m, &err);
    if (st != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(st);
    }
    s.g = &g;
    s.m = m;
    /* Decoder LLMs: prefill + decode, unless --mode infer says one pass. */
    if (mode_given) {
        s.llm = s.run.mode == RIDGE_MODE_PREFILL || s.run.mode == RIDGE_MODE_DECODE;
    } else if (strcmp(ridge_model_family(m), "transformer") == 0) {
        ridge_run_config t = s.run;
        ridge_oplist ol = {0};
        t.mode = RIDGE_MODE_DECODE;
        s.llm = ridge_model_build(m, &t, &ol, &err) == RIDGE_OK;
        ridge_oplist_free(&ol);
    }
    nserv = s.max_batch > 0 ? s.max_batch : 1;
    s.service_s = calloc((size_t)nserv, sizeof *s.service_s);
    if (!s.service_s) {
        cli_error("out of memory");
        rc = CLI_EXIT_FAILURE;
        goto done;
    }
    for (int k = 1; k <= nserv; k++) {
        rc = service_time(&s, k, &s.service_s[k - 1]);
        if (rc != CLI_EXIT_OK)
            goto done;
        if (!(s.service_s[k - 1] > 0)) {
            cli_error("%s on %s: predicted service time is not positive", ridge_model_name(m), g.id);
            rc = CLI_EXIT_FAILURE;
            goto done;
        }
    }
    if (find && strcmp(find, "replicas") == 0) {
        int n;
        for (n = 1; n <= SERVE_MAX_REPLICAS; n++) {
            st = evaluate(&s, rate, n, &r, &err);
            if (st != RIDGE_OK)
                break;
            if (r.stable && r.p99_s * 1e3 <= slo_ms)
                break;
        }
        if (st == RIDGE_OK && n > SERVE_MAX_REPLICAS) {
            cli_error("serve: no number of replicas up to %d meets p99 <= %g ms at %g requests/s", SERVE_MAX_REPLICAS,
                      slo_ms, rate);
            rc = CLI_EXIT_USAGE;
            goto done;
        }
        s.replicas = n;
    } else if (find) {
        double hi, found;
        st = evaluate(&s, 1, s.replicas, &r, &err);
        if (st == RIDGE_OK) {
            hi = r.saturation_rate_per_s;
            st = ridge_queue_max_rate(p99_at, &s, hi, slo_ms / 1e3, &found, &err);
            rate = found;
        }
        if (st == RIDGE_OK && rate <= 0) {
            cli_error("serve: no rate meets p99 <= %g ms: a lone request takes %s ms", slo_ms,
                      cli_num(s.service_s[0] * 1e3, b[0], 48));
            rc = CLI_EXIT_USAGE;
            goto done;
        }
    }
    if (st == RIDGE_OK)
        st = evaluate(&s, rate, s.replicas, &r, &err);
    if (st != RIDGE_OK) {
        cli_error("serve: %s", err.msg);
        rc = cli_exit_code(st);
        goto done;
    }
    if (simulate && r.stable) {
        ridge_des_config dc;
        ridge_des_config_init(&dc);
        dc.rate_per_s = rate;
        dc.service = RIDGE_SERVICE_DETERMINISTIC;
        dc.mean_service_s = s.service_s[0];
        dc.servers = s.replicas;
        dc.seed = s.seed;
        st = ridge_des_run(&dc, &sim, &err);
        if (st != RIDGE_OK) {
            cli_error("serve: %s", err.msg);
            rc = cli_exit_code(st);
            goto done;
        }
        have_sim = 1;
    }
    {
        int slo_set = slo_ms > 0, slo_ok = r.stable && r.p99_s * 1e3 <= slo_ms;
        double pr = price >= 0 ? price : g.price_usd_per_hour;
        double thr = r.stable ? rate : r.throughput_per_s;
        double cost = pr > 0 && thr > 0 ? pr * s.replicas / (3600 * thr) * 1000 : 0;
        queue_name = s.max_batch ? "dynamic batching (simulated)"
                     : s.replicas == 1 ? "M/D/1 (Pollaczek-Khinchine)"
                                       : "M/D/c (Erlang C, Allen-Cunneen)";
        if (fmt == CLI_FMT_JSON) {
            cJSON *root = cJSON_CreateObject(), *o;
            cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
            cJSON_AddStringToObject(root, "gpu", g.id);
            cJSON_AddStringToObject(root, "workload", ridge_model_name(m));
            cJSON_AddStringToObject(root, "service_model", s.llm ? "prefill+decode" : "infer");
            cJSON_AddStringToObject(root, "queue", queue_name);
            cJSON_AddNumberToObject(root, "replicas", s.replicas);
            cJSON_AddNumberToObject(root, "max_batch", s.max_batch);
            cJSON_AddNumberToObject(root, "batch_timeout_s", s.timeout_s);
            cJSON_AddNumberToObject(root, "service_time_s", s.service_s[0]);
            cJSON_AddNumberToObject(root, "rate_per_s", rate);
            cJSON_AddBoolToObject(root, "stable", r.stable);
            cJSON_AddNumberToObject(root, "utilisation", r.utilisation);
            cJSON_AddNumberToObject(root, "throughput_per_s", thr);
            cJSON_AddNumberToObject(root, "saturation_rate_per_s", r.saturation_rate_per_s);
            if (r.stable) {
                o = cJSON_AddObjectToObject(root, "latency_s");
                cJSON_AddNumberToObject(o, "mean", r.mean_latency_s);
                cJSON_AddNumberToObject(o, "p50", r.p50_s);
                cJSON_AddNumberToObject(o, "p90", r.p90_s);
                cJSON_AddNumberToObject(o, "p99", r.p99_s);
            }
            if (slo_set) {
                cJSON_AddNumberToObject(root, "slo_p99_s", slo_ms / 1e3);
                cJSON_AddBoolToObject(root, "slo_holds", slo_ok);
            }
            if (find)
                cJSON_AddStringToObject(root, "found", find);
            if (cost > 0) {
                cJSON_AddNumberToObject(root, "price_usd_per_gpu_hour", pr);
                cJSON_AddNumberToObject(root, "cost_usd_per_1000_requests", cost);
            }
            if (have_sim) {
                o = cJSON_AddObjectToObject(root, "simulation");
                cJSON_AddNumberToObject(o, "customers", (double)sim.customers);
                cJSON_AddNumberToObject(o, "mean_latency_s", sim.mean_latency_s);
                cJSON_AddNumberToObject(o, "mean_latency_ci95_s", sim.ci95_half_width_s);
                cJSON_AddNumberToObject(o, "p50_s", sim.p50_s);
                cJSON_AddNumberToObject(o, "p90_s", sim.p90_s);
                cJSON_AddNumberToObject(o, "p99_s", sim.p99_s);
            }
            rc = cli_print_json(root);
        } else if (fmt == CLI_FMT_CSV) {
            printf("gpu,workload,replicas,max_batch,rate_per_s,service_time_s,utilisation,throughput_per_s,"
                   "saturation_rate_per_s,stable,mean_latency_s,p50_s,p90_s,p99_s,slo_p99_s,slo_holds,"
                   "cost_usd_per_1000_requests\n");
            printf("%s,%s,%d,%d,%.9g,%.9g,%.6g,%.9g,%.9g,%s,%.9g,%.9g,%.9g,%.9g,%.9g,%s,%.6g\n", g.id,
                   ridge_model_name(m), s.replicas, s.max_batch, rate, s.service_s[0], r.utilisation, thr,
                   r.saturation_rate_per_s, r.stable ? "true" : "false", r.mean_latency_s, r.p50_s, r.p90_s, r.p99_s,
                   slo_ms / 1e3, slo_set ? (slo_ok ? "true" : "false") : "", cost);
        } else {
            printf("%s on %s (%s), %s\n\n", ridge_model_name(m), g.id, g.name,
                   s.llm ? "LLM: prefill + output x decode per request" : "one inference pass per request");
            printf("service time      %s ms (batch 1)", cli_num(s.service_s[0] * 1e3, b[0], 48));
            if (s.max_batch > 1)
                printf(", %s ms (batch %d)", cli_num(s.service_s[s.max_batch - 1] * 1e3, b[0], 48), s.max_batch);
            printf("\nqueue             %s, %d replica%s\n", queue_name, s.replicas, s.replicas == 1 ? "" : "s");
            if (find)
                printf("found             %s: %s\n", find,
                       strcmp(find, "replicas") == 0 ? cli_num(s.replicas, b[0], 48) : cli_num(rate, b[0], 48));
            printf("arrival rate      %s requests/s\n", cli_num(rate, b[0], 48));
            printf("utilisation       %s %%\n", cli_num(r.utilisation * 100, b[0], 48));
            printf("throughput        %s requests/s\n", cli_num(thr, b[0], 48));
            printf("stable            %s (saturation %s requests/s)\n", yesno(r.stable),
                   cli_num(r.saturation_rate_per_s, b[0], 48));
            if (r.stable)
                printf("latency [ms]      mean %s, p50 %s, p90 %s, p99 %s\n", cli_num(r.mean_latency_s * 1e3, b[0], 48),
                       cli_num(r.p50_s * 1e3, b[1], 48), cli_num(r.p90_s * 1e3, b[2], 48),
                       cli_num(r.p99_s * 1e3, b[3], 48));
            else
                printf("latency [ms]      unbounded: the queue grows without limit\n");
            if (have_sim)
                printf("simulated [ms]    mean %s +- %s, p50 %s, p90 %s, p99 %s (%zu requests)\n",
                       cli_num(sim.mean_latency_s * 1e3, b[0], 48), cli_num(sim.ci95_half_width_s * 1e3, b[1], 48),
                       cli_num(sim.p50_s * 1e3, b[2], 48), cli_num(sim.p90_s * 1e3, b[3], 48),
                       cli_num(sim.p99_s * 1e3, b[4], 48), sim.customers);
            if (slo_set)
                printf("SLO p99 <= %s ms  %s\n", cli_num(slo_ms, b[0], 48), slo_ok ? "holds" : "MISSED");
            if (cost > 0)
                printf("cost              %s USD per 1,000 requests (%s USD per GPU-hour)\n", cli_num(cost, b[0], 48),
                       cli_num(pr, b[1], 48));
            else
                printf("cost              unknown (no price: give --price-per-hour)\n");
        }
    }
done:
    free(s.service_s);
    ridge_model_free(m);
    return rc;
}
