/* ridge predict: per-kernel time and bound for an operator-list workload on one GPU.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_emit.h"
#include "model_run.h"
#include "predict_cluster.h"
#include "predict_emit.h"
#include "ridge/parallel.h"
#include "ridge/schedule.h"
#include "ridge/workload.h"

static const char help[] =
    "usage: ridge predict --gpu ID|--gpu-file PATH --workload ID|FILE.json [run options]\n"
    "                     [--runtime eager|graph] [--per-op] [--format text|json|csv]\n"
    "       ridge predict --cluster ID|FILE [--nodes N] --tp T --pp P --dp D [--ep E] [--zero 0|1|2|3]\n"
    "                     [--fsdp full|grad-op|hybrid [--fsdp-group F]] [--prefetch N] [--bucket-mb X]\n"
    "                     [--grad-reduce fp32|param] [--dp-overlap buckets|none]\n"
    "                     [--sp] --microbatch M --global-batch B [--schedule 1f1b|interleaved\n"
    "                     --virtual-stages V] --workload ID [run options] [--format text|json|csv]\n"
    "\n"
    "With an operator-list file (docs/workloads.md), predicts each operator on one GPU with the\n"
    "kernel model (docs/model.md): time, bound (compute, memory, l2, latency, host), FLOPs, DRAM\n"
    "bytes, arithmetic intensity, achieved FLOP/s and bytes/s, and efficiency against the plain\n"
    "roofline. Ops are issued in order through the host launch pipeline: in eager mode each kernel\n"
    "costs host dispatch time and a GPU waiting for the host shows up as bound 'host'.\n"
    "\n"
    "With a model (a built-in id, see 'ridge workloads', or a model file), builds\n"
    "the operator graph of one step for the run options and predicts: step time, throughput, MFU,\n"
    "time by layer type and by bound, and memory (weights, gradients, optimizer state, activations,\n"
    "KV cache, workspace) against the GPU's capacity, with the largest batch that fits. --per-op\n"
    "adds the operator rows.\n"
    "\n"
    "With --cluster (instead of --gpu), predicts one step on the whole cluster with tensor (--tp),\n"
    "pipeline (--pp), data (--dp) and expert (--ep) parallelism (docs/parallel.md): tp x pp x dp\n"
    "must equal the cluster's GPUs. Prints step time split into compute, exposed communication\n"
    "per kind, pipeline bubble and optimizer, throughput, model FLOP/s per GPU, MFU and memory per\n"
    "GPU. --zero 1|2|3 shards optimizer state, gradients, weights over dp with DeepSpeed's\n"
    "schedules (ZeRO-3 gathers every layer's parameters in forward and backward, per microbatch);\n"
    "--fsdp full|grad-op|hybrid takes PyTorch FSDP's instead (hybrid: shard groups of --fsdp-group\n"
    "GPUs, default one node's dp ranks); --prefetch N layers gathered ahead (default 1); the DP\n"
    "gradient reduction runs in --bucket-mb buckets (default 25) behind the backward, or after it\n"
    "with --dp-overlap none (Megatron's local DDP); --grad-reduce fp32 reduces fp32 main gradients\n"
    "(default param: the parameter dtype). --sp adds sequence parallelism (needs --tp 2 or more).\n"
    "tp, pp, ep and --sp are modelled for transformers; other models take --dp only. The batch is\n"
    "--microbatch per GPU and --global-batch per step (not --batch).\n"
    "\n";
/* Apart: C99 compilers need only take string literals of 4095 characters. */
static const char help_run[] = CLI_RUN_HELP;

static int model_json(const ridge_gpu *g, const ridge_model *m, const ridge_run_config *run,
                      const cli_model_prediction *p, int per_op)
{
    cJSON *root = cJSON_CreateObject(), *o;
    const cli_json_field head[] = {CLI_JNUM("schema_version", CLI_SCHEMA_VERSION),
                                   CLI_JSTR("gpu", g->id),
                                   CLI_JSTR("workload", ridge_model_name(m)),
                                   CLI_JSTR("family", ridge_model_family(m)),
                                   CLI_JSTR("mode", ridge_mode_name(run->mode)),
                                   CLI_JNUM("batch", run->batch),
                                   CLI_JSTR("precision", ridge_dtype_name(run->precision)),
                                   CLI_JSTR("runtime", ridge_runtime_name(p->runtime)),
                                   CLI_JSTR("host_profile", p->host.id),
                                   CLI_JSTR("code", ridge_code_name(p->code))};
    CLI_JSON_ADD(root, head);
    cli_run_json(root, run);
    const cli_json_field tail[] = {CLI_JNUM("params", p->params),
                                   CLI_JNUM("time_s", p->time_s),
                                   CLI_JNUM("throughput", p->throughput),
                                   CLI_JSTR("throughput_unit", p->throughput_unit),
                                   CLI_JNUM("items_per_step", p->items_per_step),
                                   CLI_JNUM("model_flops", p->model_flops),
                                   CLI_JNUM("hardware_flops", p->tot.flops),
                                   CLI_JNUM("mfu", p->mfu),
                                   CLI_JNUM("kernels", p->tot.kernels),
                                   CLI_JNUM("gpu_busy_s", p->tot.gpu_busy_s),
                                   CLI_JNUM("host_wait_s", p->tot.host_wait_s),
                                   CLI_JNUM("host_issue_s", p->tot.host_issue_s)};
    CLI_JSON_ADD(root, tail);
    o = cJSON_AddObjectToObject(root, "time_by_layer_type_s");
    for (int k = 0; k < p->ngroups; k++)
        cJSON_AddNumberToObject(o, p->groups[k], p->group_time_s[k]);
    o = cJSON_AddObjectToObject(root, "time_by_bound_s");
    for (int k = 0; k < RIDGE_BOUND_COUNT; k++)
        cJSON_AddNumberToObject(o, ridge_bound_name((ridge_bound)k), p->tot.time_by_bound_s[k]);
    o = cli_memory_json(root, "memory", &p->mem, p->capacity_bytes, p->fits);
    cJSON_AddNumberToObject(o, "max_batch", p->max_batch);
    if (per_op) {
        cJSON *ops = cJSON_AddArrayToObject(root, "ops");
        for (size_t i = 0; i < p->ops.n; i++) {
            cJSON *oj = cli_op_json(&p->ops.ops[i], &p->results[i], i);
            cJSON_AddStringToObject(oj, "group", p->ops.ops[i].group);
            cJSON_AddItemToArray(ops, oj);
        }
    }
    return cli_print_json(root);
}

static void model_csv(const ridge_gpu *g, const ridge_model *m, const ridge_run_config *run,
                      const cli_model_prediction *p)
{
    printf("gpu,workload,mode,batch,precision,runtime,time_s,throughput,throughput_unit,mfu,memory_total_bytes,"
           "memory_capacity_bytes,fits,max_batch\n");
    /* ids and names from files are quoted as every CSV cell of ridge's (cli_csv_cell) */
    cli_csv_cell(g->id, stdout);
    putchar(',');
    cli_csv_cell(ridge_model_name(m), stdout);
    printf(",%s,%.0f,%s,%s,%.9g,%.9g,%s,%.6g,%.9g,%.9g,%s,%.0f\n",
           ridge_mode_name(run->mode), run->batch, ridge_dtype_name(run->precision), ridge_runtime_name(p->runtime),
           p->time_s, p->throughput, p->throughput_unit, p->mfu, p->mem.total_bytes, p->capacity_bytes,
           p->fits ? "true" : "false", p->max_batch);
}

/* "  NAME  T ms  S %" rows: a step's time split n ways. */
static void share_rows(int n, const char *const *names, const double *t_s, double step_s)
{
    char b[2][48];
    for (int k = 0; k < n; k++) {
        cli_num_time(t_s[k], b[0], 48);
        printf("  %-16s %*s%s  %5s %%\n", names[k], 11 - cli_text_width(b[0]), "", b[0],
               cli_num(step_s > 0 ? 100 * t_s[k] / step_s : 0, b[1], 48));
    }
}

static void model_text(const ridge_gpu *g, const ridge_model *m, const ridge_run_config *run, const char *note,
                       const cli_model_prediction *p)
{
    char b[3][48], sum[256], mname[CLI_NAME_TEXT_CAP], gname[CLI_NAME_TEXT_CAP];
    const char *names[RIDGE_PREDICT_GROUPS_MAX > RIDGE_BOUND_COUNT ? RIDGE_PREDICT_GROUPS_MAX : RIDGE_BOUND_COUNT];
    printf("%s on %s (%s), %s, %s\n\n", cli_text(ridge_model_name(m), mname, sizeof mname), g->id,
           cli_text(g->name, gname, sizeof gname), cli_run_summary(run, note, sum, sizeof sum),
           ridge_runtime_name(p->runtime));
    printf("host profile      %s, code %s\n", p->host.id, ridge_code_name(p->code));
    printf("step time         %s\n", cli_num_time(p->time_s, b[0], 48));
    printf("throughput        %s %s\n", cli_num(p->throughput, b[0], 48), p->throughput_unit);
    printf("MFU               %s %%  (%s TFLOP model FLOPs per step, %s params)\n", cli_num(p->mfu * 100, b[0], 48),
           cli_num(p->model_flops / 1e12, b[1], 48), cli_num_si(p->params, b[2], 48));
    printf("kernels           %s per step (host issue %s, GPU waiting for the host %s)\n",
           cli_num(p->tot.kernels, b[0], 48), cli_num_time(p->tot.host_issue_s, b[2], 48),
           cli_num_time(p->tot.host_wait_s, b[1], 48));
    printf("\ntime by layer type\n");
    for (int k = 0; k < p->ngroups; k++)
        names[k] = p->groups[k];
    share_rows(p->ngroups, names, p->group_time_s, p->time_s);
    printf("\ntime by bound\n");
    for (int k = 0; k < RIDGE_BOUND_COUNT; k++)
        names[k] = ridge_bound_name((ridge_bound)k);
    share_rows(RIDGE_BOUND_COUNT, names, p->tot.time_by_bound_s, p->time_s);
    printf("\nmemory [GiB]\n");
    cli_memory_text(&p->mem);
    printf("  total %s of %s: %s; largest batch that fits: %s\n", cli_num(p->mem.total_bytes / 1073741824.0, b[0], 48),
           cli_num(p->capacity_bytes / 1073741824.0, b[1], 48), p->fits ? "fits" : "DOES NOT FIT",
           cli_num(p->max_batch, b[2], 48));
}

static int predict_model(const ridge_gpu *g, cli_workload *wl, const ridge_run_config *given, int precision_given,
                         ridge_runtime rt, int per_op, cli_format fmt)
{
    ridge_model *m = NULL;
    ridge_err err;
    cli_model_prediction p;
    ridge_run_config run = *given;
    char note[96] = "";
    int rc;
    if (!precision_given)
        cli_default_precision(&run, g, 1, note, sizeof note);
    rc = cli_workload_model(wl, &m, &err);
    if (rc != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(rc);
    }
    rc = cli_model_predict(g, m, &run, rt, &p);
    if (rc == CLI_EXIT_OK && fmt == CLI_FMT_JSON) {
        rc = model_json(g, m, &run, &p, per_op);
    } else if (rc == CLI_EXIT_OK && fmt == CLI_FMT_CSV && per_op) {
        rc = cli_ops_table(g, &p.ops, p.runtime, p.results, &p.tot, fmt);
    } else if (rc == CLI_EXIT_OK && fmt == CLI_FMT_CSV) {
        model_csv(g, m, &run, &p);
    } else if (rc == CLI_EXIT_OK) {
        model_text(g, m, &run, note, &p);
        if (per_op) {
            printf("\n");
            rc = cli_ops_table(g, &p.ops, p.runtime, p.results, &p.tot, fmt);
        }
    }
    cli_model_prediction_free(&p);
    ridge_model_free(m);
    return rc;
}

/* An operator list on one GPU. */
static int predict_oplist(const ridge_gpu *g, cli_workload *wl, ridge_runtime rt, cli_format fmt)
{
    ridge_oplist w = {0};
    ridge_op_result *res = NULL;
    ridge_schedule_totals tot;
    ridge_err err;
    int rc = cli_workload_oplist(wl, &w, &err);
    if (rc != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(rc);
    }
    res = calloc(w.n, sizeof *res);
    if (!res) {
        ridge_oplist_free(&w);
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    rc = ridge_schedule_ops(g, w.ops, w.n, rt, res, &tot, &err);
    if (rc != RIDGE_OK) {
        cli_error("%s: %s", wl->arg, err.msg);
        rc = cli_exit_code(rc);
    } else if (fmt == CLI_FMT_JSON) {
        rc = cli_oplist_json(g, &w, rt, res, &tot);
    } else {
        rc = cli_ops_table(g, &w, rt, res, &tot, fmt);
    }
    free(res);
    ridge_oplist_free(&w);
    return rc;
}

int cmd_predict(int argc, char **argv)
{
    static const struct option opts[] = {CLI_OPTIONS_GPU,     CLI_OPTION_WORKLOAD, CLI_OPTION_RUNTIME,
                                         {"per-op", no_argument, 0, 'p'},
                                         CLI_OPTION_FORMAT,   CLI_OPTION_HELP,     CLI_CLUSTER_OPTIONS,
                                         CLI_RUN_OPTIONS,     CLI_OPTION_END};
    const char *gpu_id = NULL, *gpu_file = NULL, *wfile = NULL;
    ridge_run_config run;
    int per_op = 0, run_flags = 0, precision_given = 0;
    cli_run_lengths lens = {0, 0, 0};
    cli_cluster_args ca;
    cli_format fmt = CLI_FMT_TEXT;
    ridge_runtime rt = RIDGE_RUNTIME_EAGER;
    ridge_gpu g;
    cli_workload wl;
    int c, r, rc, batch_given = 0;
    ridge_run_config_init(&run);
    cli_cluster_args_init(&ca);
    cli_opts co = {"predict", help, help_run, &fmt, 0, -1, NULL};
    while ((c = cli_getopt(&co, argc, argv, ":h", opts)) != -1) {
        if (c >= CLI_RUN_OPT_BASE && c < CLI_CLUSTER_OPT_BASE) {
            int k = cli_run_option(c, optarg, NULL, &run);
            if (k < 0)
                return CLI_RUN_OPTION_EXIT(k);
            run_flags++;
            precision_given |= c == CLI_RUN_OPT_PRECISION;
            batch_given |= c == CLI_RUN_OPT_BATCH;
            cli_run_lengths_note(&lens, c);
            continue;
        }
        if ((r = cli_cluster_option(c, optarg, &ca)) != 0) {
            if (r < 0)
                return CLI_EXIT_USAGE;
            continue;
        }
        switch (c) {
        case 'p': per_op = 1; break;
        case 'g':
            if (cli_take_once("predict", "--gpu", &gpu_id, optarg, "predict takes one GPU ('ridge compare' takes several)"))
                return CLI_EXIT_USAGE;
            break;
        case 'G':
            if (cli_take_once("predict", "--gpu-file", &gpu_file, optarg, "predict takes one GPU"))
                return CLI_EXIT_USAGE;
            break;
        case 'w':
            if (cli_take_once("predict", "--workload", &wfile, optarg, "predict takes one workload"))
                return CLI_EXIT_USAGE;
            break;
        case 'r':
            if (ridge_runtime_parse(optarg, &rt))
                return cli_usage_error("predict", "--runtime: '%s' is not eager or graph", optarg);
            break;
        }
    }
    if (co.exit >= 0)
        return co.exit;
    if (optind < argc)
        return cli_extra_arg_error("predict", argv);
    if ((rc = cli_run_lengths_check("predict", &lens, &run)) != 0)
        return rc;
    if (ca.cluster_id) {
        if (gpu_id || gpu_file)
            return cli_usage_error("predict", "give --gpu or --cluster, not both");
        if (!wfile)
            return cli_usage_error("predict", "missing --workload ID|FILE.json");
        if (per_op)
            return cli_usage_error("predict", "--per-op applies to one GPU (--gpu), not to --cluster");
        if (!ca.have_tp || !ca.have_pp || !ca.have_dp)
            return cli_usage_error("predict", "--cluster needs --tp, --pp and --dp");
        if (!ca.have_mb || !ca.have_gb)
            return cli_usage_error("predict", "--cluster needs --microbatch and --global-batch");
        if (batch_given) /* the step's batch is the layout's: --microbatch per GPU, --global-batch in all */
            return cli_usage_error("predict", "--batch applies to --gpu; with --cluster give --microbatch and "
                                              "--global-batch");
        if (ca.pc.sequence_parallel && ca.pc.tp < 2)
            return cli_usage_error("predict", "--sp splits the sequence over the tensor-parallel group: it needs "
                                              "--tp 2 or more");
        cli_workload_init(&wl, wfile);
        if (cli_workload_is_oplist(&wl))
            rc = cli_usage_error("predict", "--cluster takes a model workload, not the operator list %s", wfile);
        else
            rc = cli_predict_cluster(&ca, &wl, &run, precision_given, rt, fmt);
        cli_workload_free(&wl);
        return rc;
    }
    if (ca.flags)
        return cli_usage_error("predict", "--nodes, --tp, --pp, --dp, --ep, --zero, --fsdp, --sp, --microbatch, "
                                          "--global-batch, --schedule, --virtual-stages and the DP options need "
                                          "--cluster");
    if (!gpu_id == !gpu_file)
        return cli_usage_error("predict", "give exactly one of --gpu ID or --gpu-file PATH");
    if (!wfile)
        return cli_usage_error("predict", "missing --workload ID|FILE.json");
    rc = cli_load_gpu(gpu_id, gpu_file, &g);
    if (rc)
        return rc;
    cli_workload_init(&wl, wfile);
    if (!cli_workload_is_oplist(&wl))
        rc = predict_model(&g, &wl, &run, precision_given, rt, per_op, fmt);
    else if (run_flags)
        rc = cli_usage_error("predict", "run options (--mode, --batch...) apply to model workloads, not to the "
                                        "operator list %s", wfile);
    else
        rc = predict_oplist(&g, &wl, rt, fmt);
    cli_workload_free(&wl);
    return rc;
}
