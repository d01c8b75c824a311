/* ridge predict: per-kernel time and bound for an operator-list workload on one GPU.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "model_run.h"
#include "ridge/schedule.h"
#include "ridge/workload.h"

static const char help[] =
    "usage: ridge predict --gpu ID|--gpu-file PATH --workload ID|FILE.json [run options]\n"
    "                     [--runtime eager|graph] [--per-op] [--format text|json|csv]\n"
    "\n"
    "With an operator-list file (docs/workloads.md), predicts each operator on one GPU with the\n"
    "kernel model (docs/model.md): time, bound (compute, memory, l2, latency, host), FLOPs, DRAM\n"
    "bytes, arithmetic intensity, achieved FLOP/s and bytes/s, and efficiency against the plain\n"
    "roofline. Ops are issued in order through the host launch pipeline: in eager mode each kernel\n"
    "costs host dispatch time and a GPU waiting for the host shows up as bound 'host'; in graph\n"
    "mode (CUDA graphs) the per-kernel host cost is small.\n"
    "\n"
    "With a model (a built-in id: 'ridge predict --help' lists them below, or a model file), builds\n"
    "the operator graph of one step for the run options and predicts: step time, throughput, MFU,\n"
    "time by layer type and by bound, and memory (weights, gradients, optimizer state, activations,\n"
    "KV cache, workspace) against the GPU's capacity, with the largest batch that fits. --per-op\n"
    "adds the operator rows.\n"
    "\n" CLI_RUN_HELP;

static void op_label(const ridge_op *op, size_t i, char *buf, size_t cap)
{
    if (op->name[0])
        snprintf(buf, cap, "%s", op->name);
    else
        snprintf(buf, cap, "%s#%zu", ridge_op_kind_name(op->kind), i);
}

static cJSON *op_json(const ridge_op *op, const ridge_op_result *r, size_t i)
{
    const ridge_kernel_result *k = &r->kernel;
    cJSON *o = cJSON_CreateObject();
    char name[RIDGE_OP_NAME_MAX + 16];
    op_label(op, i, name, sizeof name);
    cJSON_AddNumberToObject(o, "index", (double)i);
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "op", ridge_op_kind_name(op->kind));
    cJSON_AddStringToObject(o, "dtype", ridge_dtype_name(op->dtype));
    cJSON_AddNumberToObject(o, "count", op->count);
    cJSON_AddNumberToObject(o, "time_s", r->time_s);
    cJSON_AddNumberToObject(o, "time_per_instance_s", k->time_s);
    cJSON_AddNumberToObject(o, "gpu_s", r->gpu_s);
    cJSON_AddNumberToObject(o, "host_wait_s", r->host_wait_s);
    cJSON_AddStringToObject(o, "bound", ridge_bound_name(r->bound));
    cJSON_AddStringToObject(o, "kernel_bound", ridge_bound_name(k->bound));
    cJSON_AddStringToObject(o, "unit", k->tensor ? "tensor" : "vector");
    cJSON_AddStringToObject(o, "peak", ridge_peak_key(k->peak));
    cJSON_AddNumberToObject(o, "flops", k->flops);
    cJSON_AddNumberToObject(o, "dram_bytes", k->dram_bytes);
    cJSON_AddNumberToObject(o, "l2_bytes", k->l2_bytes);
    cJSON_AddNumberToObject(o, "intensity_flops_per_byte", k->intensity_flops_per_byte);
    cJSON_AddNumberToObject(o, "achieved_flops_per_s", k->achieved_flops_per_s);
    cJSON_AddNumberToObject(o, "achieved_bytes_per_s", k->achieved_bytes_per_s);
    cJSON_AddNumberToObject(o, "roof_efficiency", k->roof_efficiency);
    cJSON_AddNumberToObject(o, "kernels", k->kernels);
    cJSON_AddNumberToObject(o, "compute_s", k->compute_s);
    cJSON_AddNumberToObject(o, "memory_s", k->memory_s);
    cJSON_AddNumberToObject(o, "l2_s", k->l2_s);
    cJSON_AddNumberToObject(o, "floor_s", k->floor_s);
    if (k->tiles > 0) {
        cJSON_AddNumberToObject(o, "tile_m", k->tile_m);
        cJSON_AddNumberToObject(o, "tile_n", k->tile_n);
        cJSON_AddNumberToObject(o, "tiles", k->tiles);
        cJSON_AddNumberToObject(o, "waves", k->waves);
        cJSON_AddNumberToObject(o, "wave_efficiency", k->wave_efficiency);
        cJSON_AddNumberToObject(o, "split_k", k->split_k);
        cJSON_AddNumberToObject(o, "align_efficiency", k->align_efficiency);
    }
    return o;
}

static int print_json(const ridge_gpu *g, const ridge_oplist *w, ridge_runtime rt, const ridge_op_result *res,
                      const ridge_schedule_totals *tot)
{
    cJSON *root = cJSON_CreateObject(), *ops, *by;
    cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
    cJSON_AddStringToObject(root, "gpu", g->id);
    cJSON_AddStringToObject(root, "workload", w->name);
    cJSON_AddStringToObject(root, "runtime", ridge_runtime_name(rt));
    cJSON_AddNumberToObject(root, "total_time_s", tot->total_time_s);
    cJSON_AddNumberToObject(root, "gpu_busy_s", tot->gpu_busy_s);
    cJSON_AddNumberToObject(root, "host_issue_s", tot->host_issue_s);
    cJSON_AddNumberToObject(root, "host_wait_s", tot->host_wait_s);
    cJSON_AddNumberToObject(root, "kernels", tot->kernels);
    cJSON_AddNumberToObject(root, "flops", tot->flops);
    cJSON_AddNumberToObject(root, "dram_bytes", tot->dram_bytes);
    cJSON_AddNumberToObject(root, "achieved_flops_per_s", tot->total_time_s > 0 ? tot->flops / tot->total_time_s : 0);
    by = cJSON_AddObjectToObject(root, "time_by_bound_s");
    for (int b = 0; b < RIDGE_BOUND_COUNT; b++)
        cJSON_AddNumberToObject(by, ridge_bound_name((ridge_bound)b), tot->time_by_bound_s[b]);
    ops = cJSON_AddArrayToObject(root, "ops");
    for (size_t i = 0; i < w->n; i++)
        cJSON_AddItemToArray(ops, op_json(&w->ops[i], &res[i], i));
    return cli_print_json(root);
}

static int print_table(const ridge_gpu *g, const ridge_oplist *w, ridge_runtime rt, const ridge_op_result *res,
                       const ridge_schedule_totals *tot, cli_format fmt)
{
    cli_table t;
    char b[12][48];
    if (cli_table_init(&t, 12))
        return CLI_EXIT_FAILURE;
    if (fmt == CLI_FMT_CSV) {
        const char *h[12] = {"index",      "name",         "op",          "dtype",        "count",
                             "time_s",     "share",        "bound",       "flops",        "dram_bytes",
                             "achieved_flops_per_s", "roof_efficiency"};
        cli_table_add(&t, h);
    } else {
        const char *h[12] = {"#",          "name",       "op",         "dtype",       "count",
                             "time [us]",  "share [%]",  "bound",      "GFLOP",       "DRAM [MB]",
                             "TFLOP/s",    "roof eff [%]"};
        cli_table_add(&t, h);
        for (int c = 4; c < 12; c++)
            t.right[c] = 1;
        t.right[0] = 1;
        t.right[7] = 0;
    }
    for (size_t i = 0; i < w->n; i++) {
        const ridge_op *op = &w->ops[i];
        const ridge_op_result *r = &res[i];
        char name[RIDGE_OP_NAME_MAX + 16];
        double share = tot->total_time_s > 0 ? r->time_s / tot->total_time_s : 0;
        op_label(op, i, name, sizeof name);
        snprintf(b[0], 48, "%zu", i);
        snprintf(b[4], 48, "%.0f", op->count);
        if (fmt == CLI_FMT_CSV) {
            snprintf(b[5], 48, "%.9g", r->time_s);
            snprintf(b[6], 48, "%.6g", share);
            snprintf(b[8], 48, "%.9g", r->kernel.flops * op->count);
            snprintf(b[9], 48, "%.9g", r->kernel.dram_bytes * op->count);
            snprintf(b[10], 48, "%.6g", r->kernel.achieved_flops_per_s);
            snprintf(b[11], 48, "%.6g", r->kernel.roof_efficiency);
        } else {
            cli_num(r->time_s * 1e6, b[5], 48);
            cli_num(share * 100, b[6], 48);
            cli_num(r->kernel.flops * op->count / 1e9, b[8], 48);
            cli_num(r->kernel.dram_bytes * op->count / 1e6, b[9], 48);
            cli_num(r->kernel.achieved_flops_per_s / 1e12, b[10], 48);
            cli_num(r->kernel.roof_efficiency * 100, b[11], 48);
        }
        const char *row[12] = {b[0], name, ridge_op_kind_name(op->kind), ridge_dtype_name(op->dtype), b[4], b[5], b[6],
                               ridge_bound_name(r->bound), b[8], b[9], b[10], b[11]};
        cli_table_add(&t, row);
    }
    if (fmt == CLI_FMT_CSV) {
        cli_table_print_csv(&t, stdout);
        cli_table_free(&t);
        return CLI_EXIT_OK;
    }
    printf("GPU %s (%s), workload %s, runtime %s\n\n", g->id, g->name, w->name, ridge_runtime_name(rt));
    cli_table_print_text(&t, stdout);
    cli_table_free(&t);
    printf("\ntotal time        %s us\n", cli_num(tot->total_time_s * 1e6, b[0], 48));
    printf("GPU busy          %s us\n", cli_num(tot->gpu_busy_s * 1e6, b[0], 48));
    printf("GPU waiting host  %s us (%s kernels, host issue %s us)\n", cli_num(tot->host_wait_s * 1e6, b[0], 48),
           cli_num(tot->kernels, b[1], 48), cli_num(tot->host_issue_s * 1e6, b[2], 48));
    printf("work              %s GFLOP, %s MB DRAM, %s TFLOP/s achieved\n", cli_num(tot->flops / 1e9, b[0], 48),
           cli_num(tot->dram_bytes / 1e6, b[1], 48),
           cli_num(tot->total_time_s > 0 ? tot->flops / tot->total_time_s / 1e12 : 0, b[2], 48));
    printf("time by bound    ");
    for (int k = 0; k < RIDGE_BOUND_COUNT; k++)
        printf(" %s %s%%", ridge_bound_name((ridge_bound)k),
               cli_num(tot->total_time_s > 0 ? 100 * tot->time_by_bound_s[k] / tot->total_time_s : 0, b[0], 48));
    printf("\n");
    return CLI_EXIT_OK;
}

static void add_memory_json(cJSON *o, const cli_model_prediction *p)
{
    cJSON *m = cJSON_AddObjectToObject(o, "memory");
    cJSON_AddNumberToObject(m, "weights_bytes", p->mem.weights_bytes);
    cJSON_AddNumberToObject(m, "gradients_bytes", p->mem.gradients_bytes);
    cJSON_AddNumberToObject(m, "optimizer_bytes", p->mem.optimizer_bytes);
    cJSON_AddNumberToObject(m, "activations_bytes", p->mem.activations_bytes);
    cJSON_AddNumberToObject(m, "kv_cache_bytes", p->mem.kv_cache_bytes);
    cJSON_AddNumberToObject(m, "workspace_bytes", p->mem.workspace_bytes);
    cJSON_AddNumberToObject(m, "total_bytes", p->mem.total_bytes);
    cJSON_AddNumberToObject(m, "capacity_bytes", p->capacity_bytes);
    cJSON_AddBoolToObject(m, "fits", p->fits);
    cJSON_AddNumberToObject(m, "max_batch", p->max_batch);
}

static int predict_model(const ridge_gpu *g, const char *wl, const ridge_run_config *run, ridge_runtime rt, int per_op,
                         cli_format fmt)
{
    ridge_model *m = NULL;
    ridge_err err;
    cli_model_prediction p;
    char b[8][48];
    int rc = ridge_model_load(wl, &m, &err);
    if (rc != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(rc);
    }
    rc = cli_model_predict(g, m, run, rt, &p);
    if (rc != CLI_EXIT_OK) {
        cli_model_prediction_free(&p);
        ridge_model_free(m);
        return rc;
    }
    if (fmt == CLI_FMT_JSON) {
        cJSON *root = cJSON_CreateObject(), *o;
        cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
        cJSON_AddStringToObject(root, "gpu", g->id);
        cJSON_AddStringToObject(root, "workload", ridge_model_name(m));
        cJSON_AddStringToObject(root, "family", ridge_model_family(m));
        cJSON_AddStringToObject(root, "mode", ridge_mode_name(run->mode));
        cJSON_AddNumberToObject(root, "batch", run->batch);
        cJSON_AddStringToObject(root, "precision", ridge_dtype_name(run->precision));
        cJSON_AddStringToObject(root, "runtime", ridge_runtime_name(rt));
        cJSON_AddNumberToObject(root, "params", p.params);
        cJSON_AddNumberToObject(root, "time_s", p.time_s);
        cJSON_AddNumberToObject(root, "throughput", p.throughput);
        cJSON_AddStringToObject(root, "throughput_unit", p.throughput_unit);
        cJSON_AddNumberToObject(root, "items_per_step", p.items_per_step);
        cJSON_AddNumberToObject(root, "model_flops", p.model_flops);
        cJSON_AddNumberToObject(root, "hardware_flops", p.tot.flops);
        cJSON_AddNumberToObject(root, "mfu", p.mfu);
        cJSON_AddNumberToObject(root, "kernels", p.tot.kernels);
        cJSON_AddNumberToObject(root, "gpu_busy_s", p.tot.gpu_busy_s);
        cJSON_AddNumberToObject(root, "host_wait_s", p.tot.host_wait_s);
        o = cJSON_AddObjectToObject(root, "time_by_layer_type_s");
        for (int k = 0; k < p.ngroups; k++)
            cJSON_AddNumberToObject(o, p.groups[k], p.group_time_s[k]);
        o = cJSON_AddObjectToObject(root, "time_by_bound_s");
        for (int k = 0; k < RIDGE_BOUND_COUNT; k++)
            cJSON_AddNumberToObject(o, ridge_bound_name((ridge_bound)k), p.tot.time_by_bound_s[k]);
        add_memory_json(root, &p);
        if (per_op) {
            cJSON *ops = cJSON_AddArrayToObject(root, "ops");
            for (size_t i = 0; i < p.ops.n; i++) {
                cJSON *oj = op_json(&p.ops.ops[i], &p.results[i], i);
                cJSON_AddStringToObject(oj, "group", p.ops.ops[i].group);
                cJSON_AddItemToArray(ops, oj);
            }
        }
        rc = cli_print_json(root);
    } else if (fmt == CLI_FMT_CSV && per_op) {
        rc = print_table(g, &p.ops, rt, p.results, &p.tot, fmt);
    } else if (fmt == CLI_FMT_CSV) {
        printf("gpu,workload,mode,batch,precision,runtime,time_s,throughput,throughput_unit,mfu,memory_total_bytes,"
               "memory_capacity_bytes,fits,max_batch\n");
        printf("%s,%s,%s,%.0f,%s,%s,%.9g,%.9g,%s,%.6g,%.9g,%.9g,%s,%.0f\n", g->id, ridge_model_name(m),
               ridge_mode_name(run->mode), run->batch, ridge_dtype_name(run->precision), ridge_runtime_name(rt), p.time_s,
               p.throughput, p.throughput_unit, p.mfu, p.mem.total_bytes, p.capacity_bytes, p.fits ? "true" : "false",
               p.max_batch);
    } else {
        printf("%s on %s (%s), %s, batch %.0f, %s, %s\n\n", ridge_model_name(m), g->id, g->name,
               ridge_mode_name(run->mode), run->batch, ridge_dtype_name(run->precision), ridge_runtime_name(rt));
        printf("step time         %s ms\n", cli_num(p.time_s * 1e3, b[0], 48));
        printf("throughput        %s %s\n", cli_num(p.throughput, b[0], 48), p.throughput_unit);
        printf("MFU               %s %%  (%s TFLOP model FLOPs per step, %s params)\n", cli_num(p.mfu * 100, b[0], 48),
               cli_num(p.model_flops / 1e12, b[1], 48), cli_num(p.params, b[2], 48));
        printf("kernels           %s (GPU waiting for the host %s ms)\n", cli_num(p.tot.kernels, b[0], 48),
               cli_num(p.tot.host_wait_s * 1e3, b[1], 48));
        printf("\ntime by layer type\n");
        for (int k = 0; k < p.ngroups; k++)
            printf("  %-16s %10s ms  %5s %%\n", p.groups[k], cli_num(p.group_time_s[k] * 1e3, b[0], 48),
                   cli_num(p.time_s > 0 ? 100 * p.group_time_s[k] / p.time_s : 0, b[1], 48));
        printf("\ntime by bound\n");
        for (int k = 0; k < RIDGE_BOUND_COUNT; k++)
            printf("  %-16s %10s ms  %5s %%\n", ridge_bound_name((ridge_bound)k),
                   cli_num(p.tot.time_by_bound_s[k] * 1e3, b[0], 48),
                   cli_num(p.time_s > 0 ? 100 * p.tot.time_by_bound_s[k] / p.time_s : 0, b[1], 48));
        printf("\nmemory [GiB]\n");
        printf("  weights %s, gradients %s, optimizer %s, activations %s, KV cache %s, workspace %s\n",
               cli_num(p.mem.weights_bytes / 1073741824.0, b[0], 48), cli_num(p.mem.gradients_bytes / 1073741824.0, b[1], 48),
               cli_num(p.mem.optimizer_bytes / 1073741824.0, b[2], 48),
               cli_num(p.mem.activations_bytes / 1073741824.0, b[3], 48),
               cli_num(p.mem.kv_cache_bytes / 1073741824.0, b[4], 48),
               cli_num(p.mem.workspace_bytes / 1073741824.0, b[5], 48));
        printf("  total %s of %s: %s; largest batch that fits: %s\n", cli_num(p.mem.total_bytes / 1073741824.0, b[0], 48),
               cli_num(p.capacity_bytes / 1073741824.0, b[1], 48), p.fits ? "fits" : "DOES NOT FIT",
               cli_num(p.max_batch, b[2], 48));
        if (per_op) {
            printf("\n");
            rc = print_table(g, &p.ops, rt, p.results, &p.tot, fmt);
        }
    }
    cli_model_prediction_free(&p);
    ridge_model_free(m);
    return rc;
}

int cmd_predict(int argc, char **argv)
{
    static const struct option opts[] = {{"gpu", required_argument, 0, 'g'},
                                         {"gpu-file", required_argument, 0, 'G'},
                                         {"workload", required_argument, 0, 'w'},
                                         {"runtime", required_argument, 0, 'r'},
                                         {"format", required_argument, 0, 'f'},
                                         {"per-op", no_argument, 0, 'p'},
                                         {"help", no_argument, 0, 'h'},
                                         CLI_RUN_OPTIONS,
                                         {0, 0, 0, 0}};
    const char *gpu_id = NULL, *gpu_file = NULL, *wfile = NULL;
    ridge_run_config run;
    int per_op = 0, run_flags = 0;
    cli_format fmt = CLI_FMT_TEXT;
    ridge_runtime rt = RIDGE_RUNTIME_EAGER;
    ridge_gpu g;
    ridge_oplist w = {0};
    ridge_op_result *res = NULL;
    ridge_schedule_totals tot;
    ridge_err err;
    int c, rc;
    ridge_run_config_init(&run);
    optind = 1;
    opterr = 0; /* one line of our own instead of getopt's */
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c >= CLI_RUN_OPT_BASE) {
            if (cli_run_option(c, optarg, &run) < 0)
                return CLI_EXIT_USAGE;
            run_flags++;
            continue;
        }
        switch (c) {
        case 'p': per_op = 1; break;
        case 'g': gpu_id = optarg; break;
        case 'G': gpu_file = optarg; break;
        case 'w': wfile = optarg; break;
        case 'r':
            if (ridge_runtime_parse(optarg, &rt))
                return cli_usage_error("predict", "--runtime: '%s' is not eager or graph", optarg);
            break;
        case 'f':
            if (cli_parse_format(optarg, &fmt))
                return CLI_EXIT_USAGE;
            break;
        case 'h': fputs(help, stdout); return CLI_EXIT_OK;
        case ':': return cli_usage_error("predict", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("predict", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("predict", "unexpected argument '%s'", argv[optind]);
    if (!gpu_id == !gpu_file)
        return cli_usage_error("predict", "give exactly one of --gpu ID or --gpu-file PATH");
    if (!wfile)
        return cli_usage_error("predict", "missing --workload ID|FILE.json");
    rc = cli_load_gpu(gpu_id, gpu_file, &g);
    if (rc)
        return rc;
    if (!cli_is_oplist_file(wfile))
        return predict_model(&g, wfile, &run, rt, per_op, fmt);
    if (run_flags)
        return cli_usage_error("predict", "run options (--mode, --batch...) apply to model workloads, not to the "
                                          "operator list %s", wfile);
    rc = ridge_oplist_load_file(wfile, &w, &err);
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
    rc = ridge_schedule_ops(&g, w.ops, w.n, rt, res, &tot, &err);
    if (rc != RIDGE_OK) {
        cli_error("%s: %s", wfile, err.msg);
        rc = cli_exit_code(rc);
    } else if (fmt == CLI_FMT_JSON) {
        rc = print_json(&g, &w, rt, res, &tot);
    } else {
        rc = print_table(&g, &w, rt, res, &tot, fmt);
    }
    free(res);
    ridge_oplist_free(&w);
    return rc;
}
