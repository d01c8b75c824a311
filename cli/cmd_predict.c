/* ridge predict: per-kernel time and bound for an operator-list workload on one GPU.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "model_run.h"
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
    "(default param: the parameter dtype). --sp adds sequence parallelism. tp, pp, ep and --sp are\n"
    "modelled for transformers; other models take --dp only.\n"
    "\n";
/* Apart: C99 compilers need only take string literals of 4095 characters. */
static const char help_run[] = CLI_RUN_HELP;

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
    if (op->cold_bytes > 0) {
        cJSON_AddNumberToObject(o, "cold_bytes", op->cold_bytes);
        cJSON_AddNumberToObject(o, "reuse_bytes", op->reuse_bytes);
    }
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
    char gname[CLI_NAME_TEXT_CAP], wname[CLI_NAME_TEXT_CAP];
    printf("GPU %s (%s), workload %s, runtime %s\n\n", g->id, cli_text(g->name, gname, sizeof gname),
           cli_text(w->name, wname, sizeof wname), ridge_runtime_name(rt));
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

static int predict_model(const ridge_gpu *g, const char *wl, const ridge_run_config *given, int precision_given,
                         ridge_runtime rt, int per_op, cli_format fmt)
{
    ridge_model *m = NULL;
    ridge_err err;
    cli_model_prediction p;
    ridge_run_config rc_run = *given;
    const ridge_run_config *run = &rc_run;
    char b[8][48], acc[48], note[96] = "";
    int rc;
    if (!precision_given)
        cli_default_precision(&rc_run, g, 1, note, sizeof note);
    rc = ridge_model_load(wl, &m, &err);
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
        cJSON_AddStringToObject(root, "runtime", ridge_runtime_name(p.runtime));
        cJSON_AddStringToObject(root, "host_profile", p.host.id);
        cJSON_AddStringToObject(root, "code", ridge_code_name(p.code));
        cJSON_AddBoolToObject(root, "amp", run->amp);
        cJSON_AddStringToObject(root, "fusion", run->engine ? "engine" : "eager");
        cJSON_AddStringToObject(root, "optimizer_impl", ridge_optimizer_impl_name(run->optimizer_impl));
        cJSON_AddNumberToObject(root, "grad_accum", run->grad_accum > 1 ? run->grad_accum : 1);
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
        cJSON_AddNumberToObject(root, "host_issue_s", p.tot.host_issue_s);
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
        rc = print_table(g, &p.ops, p.runtime, p.results, &p.tot, fmt);
    } else if (fmt == CLI_FMT_CSV) {
        printf("gpu,workload,mode,batch,precision,runtime,time_s,throughput,throughput_unit,mfu,memory_total_bytes,"
               "memory_capacity_bytes,fits,max_batch\n");
        printf("%s,%s,%s,%.0f,%s,%s,%.9g,%.9g,%s,%.6g,%.9g,%.9g,%s,%.0f\n", g->id, ridge_model_name(m),
               ridge_mode_name(run->mode), run->batch, ridge_dtype_name(run->precision), ridge_runtime_name(p.runtime), p.time_s,
               p.throughput, p.throughput_unit, p.mfu, p.mem.total_bytes, p.capacity_bytes, p.fits ? "true" : "false",
               p.max_batch);
    } else {
        char mname[CLI_NAME_TEXT_CAP], gname[CLI_NAME_TEXT_CAP];
        printf("%s on %s (%s), %s, batch %.0f%s, %s%s%s%s, %s\n\n", cli_text(ridge_model_name(m), mname, sizeof mname),
               g->id, cli_text(g->name, gname, sizeof gname),
               ridge_mode_name(run->mode), run->batch, cli_grad_accum_note(run, acc, sizeof acc),
               ridge_dtype_name(run->precision), note, run->amp ? " autocast" : "", run->engine ? ", engine fusion" : "",
               ridge_runtime_name(p.runtime));
        printf("host profile      %s, code %s\n", p.host.id, ridge_code_name(p.code));
        printf("step time         %s ms\n", cli_num(p.time_s * 1e3, b[0], 48));
        printf("throughput        %s %s\n", cli_num(p.throughput, b[0], 48), p.throughput_unit);
        printf("MFU               %s %%  (%s TFLOP model FLOPs per step, %s params)\n", cli_num(p.mfu * 100, b[0], 48),
               cli_num(p.model_flops / 1e12, b[1], 48), cli_num(p.params, b[2], 48));
        printf("kernels           %s per step (host issue %s ms, GPU waiting for the host %s ms)\n",
               cli_num(p.tot.kernels, b[0], 48), cli_num(p.tot.host_issue_s * 1e3, b[2], 48),
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
            rc = print_table(g, &p.ops, p.runtime, p.results, &p.tot, fmt);
        }
    }
    cli_model_prediction_free(&p);
    ridge_model_free(m);
    return rc;
}

/* ---- multi-GPU (--cluster): docs/parallel.md ---- */

static int predict_parallel(const char *cluster_id, long nodes, const char *wl, const ridge_run_config *given,
                            int precision_given, const ridge_parallel_config *pc, ridge_runtime rt, cli_format fmt)
{
    ridge_cluster *cl = malloc(sizeof *cl);
    ridge_model *m = NULL;
    ridge_parallel_result r;
    ridge_err err;
    const ridge_parallel_breakdown *bd = &r.breakdown;
    const double gib = 1073741824.0;
    ridge_run_config rc_run = *given;
    const ridge_run_config *run = &rc_run;
    char b[8][48], note[96] = "";
    int rc;
    if (!cl) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    rc = ridge_cluster_load(cluster_id, (int)nodes, cl, &err);
    if (rc == RIDGE_OK && !precision_given)
        cli_default_precision(&rc_run, &cl->gpu, 1, note, sizeof note);
    if (rc == RIDGE_OK)
        rc = ridge_model_load(wl, &m, &err);
    if (rc == RIDGE_OK)
        rc = ridge_parallel_predict(cl, m, run, pc, rt, &r, &err);
    if (rc != RIDGE_OK) {
        cli_error("%s", err.msg);
        ridge_model_free(m);
        free(cl);
        return cli_exit_code(rc);
    }
    if (fmt == CLI_FMT_JSON) {
        cJSON *root = cJSON_CreateObject(), *o;
        cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
        cJSON_AddStringToObject(root, "cluster", cl->id);
        cJSON_AddStringToObject(root, "gpu", cl->gpu.id);
        cJSON_AddNumberToObject(root, "nodes", cl->nodes);
        cJSON_AddNumberToObject(root, "gpus", r.gpus);
        cJSON_AddStringToObject(root, "workload", ridge_model_name(m));
        cJSON_AddStringToObject(root, "mode", ridge_mode_name(run->mode));
        cJSON_AddStringToObject(root, "precision", ridge_dtype_name(run->precision));
        cJSON_AddStringToObject(root, "recompute", ridge_recompute_name(run->recompute));
        cJSON_AddStringToObject(root, "runtime", ridge_runtime_name(rt));
        o = cJSON_AddObjectToObject(root, "parallel");
        cJSON_AddNumberToObject(o, "tp", pc->tp);
        cJSON_AddNumberToObject(o, "pp", pc->pp);
        cJSON_AddNumberToObject(o, "dp", pc->dp);
        cJSON_AddNumberToObject(o, "ep", pc->ep);
        cJSON_AddNumberToObject(o, "zero", pc->zero);
        cJSON_AddStringToObject(o, "fsdp", ridge_fsdp_mode_name(pc->fsdp));
        cJSON_AddNumberToObject(o, "shard_group", r.dp_shard_group);
        cJSON_AddNumberToObject(o, "prefetch", pc->prefetch);
        cJSON_AddNumberToObject(o, "bucket_bytes", pc->bucket_bytes);
        cJSON_AddStringToObject(o, "grad_reduce", pc->grad_reduce_fp32 ? "fp32" : "param");
        cJSON_AddStringToObject(o, "dp_overlap", pc->dp_overlap ? "buckets" : "none");
        cJSON_AddBoolToObject(o, "sequence_parallel", pc->sequence_parallel);
        cJSON_AddNumberToObject(o, "microbatch", pc->microbatch);
        cJSON_AddNumberToObject(o, "global_batch", pc->global_batch);
        cJSON_AddStringToObject(o, "schedule", ridge_pp_schedule_name(pc->schedule));
        cJSON_AddNumberToObject(o, "virtual_stages", pc->virtual_stages);
        cJSON_AddNumberToObject(root, "step_time_s", r.step_time_s);
        o = cJSON_AddObjectToObject(root, "breakdown_s");
        cJSON_AddNumberToObject(o, "compute", bd->compute_s);
        cJSON_AddNumberToObject(o, "tp_comm", bd->tp_comm_s);
        cJSON_AddNumberToObject(o, "pp_comm", bd->pp_comm_s);
        cJSON_AddNumberToObject(o, "dp_comm_exposed", bd->dp_comm_exposed_s);
        cJSON_AddNumberToObject(o, "dp_comm_hidden", bd->dp_comm_hidden_s);
        cJSON_AddNumberToObject(o, "ep_comm", bd->ep_comm_s);
        cJSON_AddNumberToObject(o, "bubble", bd->bubble_s);
        cJSON_AddNumberToObject(o, "optimizer", bd->optimizer_s);
        cJSON_AddNumberToObject(root, "microbatches", r.microbatches);
        cJSON_AddNumberToObject(root, "bubble_fraction", r.bubble_fraction);
        cJSON_AddNumberToObject(root, "stage_forward_s", r.stage_forward_s);
        cJSON_AddNumberToObject(root, "stage_backward_s", r.stage_backward_s);
        cJSON_AddNumberToObject(root, "grad_accumulate_s", r.grad_accumulate_s);
        cJSON_AddNumberToObject(root, "dp_collective_s", r.dp_collective_s);
        cJSON_AddNumberToObject(root, "dp_bytes", r.dp_bytes);
        cJSON_AddNumberToObject(root, "dp_per_microbatch_s", r.dp_per_microbatch_s);
        cJSON_AddNumberToObject(root, "dp_layer_allgather_s", r.dp_layer_allgather_s);
        cJSON_AddNumberToObject(root, "dp_layer_reducescatter_s", r.dp_layer_reducescatter_s);
        cJSON_AddNumberToObject(root, "p2p_s", r.p2p_s);
        cJSON_AddNumberToObject(root, "params", r.params);
        cJSON_AddNumberToObject(root, "throughput", r.throughput);
        cJSON_AddNumberToObject(root, "throughput_per_gpu", r.throughput_per_gpu);
        cJSON_AddStringToObject(root, "throughput_unit", r.throughput_unit);
        cJSON_AddNumberToObject(root, "model_flops", r.model_flops);
        cJSON_AddNumberToObject(root, "model_flops_per_s_per_gpu", r.model_flops_per_s_per_gpu);
        cJSON_AddNumberToObject(root, "mfu", r.mfu);
        o = cJSON_AddObjectToObject(root, "memory_per_gpu");
        cJSON_AddNumberToObject(o, "weights_bytes", r.memory.weights_bytes);
        cJSON_AddNumberToObject(o, "gradients_bytes", r.memory.gradients_bytes);
        cJSON_AddNumberToObject(o, "optimizer_bytes", r.memory.optimizer_bytes);
        cJSON_AddNumberToObject(o, "activations_bytes", r.memory.activations_bytes);
        cJSON_AddNumberToObject(o, "kv_cache_bytes", r.memory.kv_cache_bytes);
        cJSON_AddNumberToObject(o, "workspace_bytes", r.memory.workspace_bytes);
        cJSON_AddNumberToObject(o, "total_bytes", r.memory.total_bytes);
        cJSON_AddNumberToObject(o, "capacity_bytes", r.capacity_bytes);
        cJSON_AddBoolToObject(o, "fits", r.fits);
        rc = cli_print_json(root);
    } else if (fmt == CLI_FMT_CSV) {
        printf("cluster,gpus,workload,mode,precision,tp,pp,dp,ep,zero,sequence_parallel,microbatch,global_batch,"
               "schedule,virtual_stages,step_time_s,compute_s,tp_comm_s,pp_comm_s,dp_comm_exposed_s,dp_comm_hidden_s,"
               "ep_comm_s,bubble_s,optimizer_s,throughput,throughput_unit,model_flops_per_s_per_gpu,mfu,"
               "memory_per_gpu_bytes,capacity_bytes,fits\n");
        printf("%s,%d,%s,%s,%s,%d,%d,%d,%d,%d,%s,%.0f,%.0f,%s,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%s,"
               "%.9g,%.6g,%.9g,%.9g,%s\n",
               cl->id, r.gpus, ridge_model_name(m), ridge_mode_name(run->mode), ridge_dtype_name(run->precision),
               pc->tp, pc->pp, pc->dp, pc->ep, pc->zero, pc->sequence_parallel ? "true" : "false", pc->microbatch,
               pc->global_batch, ridge_pp_schedule_name(pc->schedule), pc->virtual_stages, r.step_time_s,
               bd->compute_s, bd->tp_comm_s, bd->pp_comm_s, bd->dp_comm_exposed_s, bd->dp_comm_hidden_s, bd->ep_comm_s,
               bd->bubble_s, bd->optimizer_s, r.throughput, r.throughput_unit, r.model_flops_per_s_per_gpu, r.mfu,
               r.memory.total_bytes, r.capacity_bytes, r.fits ? "true" : "false");
        rc = CLI_EXIT_OK;
    } else {
        const char *names[7] = {"compute", "tp comm", "pp comm", "dp comm (exposed)", "ep comm", "pipeline bubble",
                                "optimizer"};
        double v[7] = {bd->compute_s, bd->tp_comm_s, bd->pp_comm_s, bd->dp_comm_exposed_s, bd->ep_comm_s,
                       bd->bubble_s, bd->optimizer_s};
        char mname[CLI_NAME_TEXT_CAP];
        printf("%s on %s, %d node%s x %d = %d GPUs (%s), %s, %s%s, %s\n",
               cli_text(ridge_model_name(m), mname, sizeof mname), cl->id, cl->nodes, cl->nodes == 1 ? "" : "s",
               cl->gpus_per_node, r.gpus, cl->gpu.id, ridge_mode_name(run->mode), ridge_dtype_name(run->precision),
               note, ridge_runtime_name(rt));
        printf("tp %d, pp %d, dp %d, ep %d, ", pc->tp, pc->pp, pc->dp, pc->ep);
        if (pc->fsdp != RIDGE_FSDP_NONE)
            printf("fsdp %s (shard group %d)", ridge_fsdp_mode_name(pc->fsdp), r.dp_shard_group);
        else
            printf("zero %d", pc->zero);
        printf("%s, microbatch %.0f, global batch %.0f, %s", pc->sequence_parallel ? ", sequence parallel" : "",
               pc->microbatch, pc->global_batch, ridge_pp_schedule_name(pc->schedule));
        if (pc->virtual_stages > 1)
            printf(" (%d virtual stages)", pc->virtual_stages);
        printf("\n\n");
        printf("step time         %s ms\n", cli_num(r.step_time_s * 1e3, b[0], 48));
        printf("throughput        %s %s (%s per GPU)\n", cli_num(r.throughput, b[0], 48), r.throughput_unit,
               cli_num(r.throughput_per_gpu, b[1], 48));
        printf("model FLOP/s      %s TFLOP/s per GPU, MFU %s %%\n", cli_num(r.model_flops_per_s_per_gpu / 1e12, b[0], 48),
               cli_num(r.mfu * 100, b[1], 48));
        printf("microbatches      %s per step, bubble %s %%\n", cli_num(r.microbatches, b[0], 48),
               cli_num(r.bubble_fraction * 100, b[1], 48));
        printf("\ntime breakdown\n");
        for (int k = 0; k < 7; k++)
            printf("  %-18s %10s ms  %5s %%\n", names[k], cli_num(v[k] * 1e3, b[0], 48),
                   cli_num(r.step_time_s > 0 ? 100 * v[k] / r.step_time_s : 0, b[1], 48));
        printf("  %-18s %10s ms  (behind the compute)\n", "dp comm (hidden)",
               cli_num(bd->dp_comm_hidden_s * 1e3, b[0], 48));
        printf("\nmemory per GPU [GiB]\n");
        printf("  weights %s, gradients %s, optimizer %s, activations %s, KV cache %s, workspace %s\n",
               cli_num(r.memory.weights_bytes / gib, b[0], 48), cli_num(r.memory.gradients_bytes / gib, b[1], 48),
               cli_num(r.memory.optimizer_bytes / gib, b[2], 48), cli_num(r.memory.activations_bytes / gib, b[3], 48),
               cli_num(r.memory.kv_cache_bytes / gib, b[4], 48), cli_num(r.memory.workspace_bytes / gib, b[5], 48));
        printf("  total %s of %s: %s\n", cli_num(r.memory.total_bytes / gib, b[0], 48),
               cli_num(r.capacity_bytes / gib, b[1], 48), r.fits ? "fits" : "DOES NOT FIT");
        rc = CLI_EXIT_OK;
    }
    ridge_model_free(m);
    free(cl);
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
                                         {"cluster", required_argument, 0, 2000},
                                         {"nodes", required_argument, 0, 2001},
                                         {"tp", required_argument, 0, 2002},
                                         {"pp", required_argument, 0, 2003},
                                         {"dp", required_argument, 0, 2004},
                                         {"ep", required_argument, 0, 2005},
                                         {"zero", required_argument, 0, 2006},
                                         {"sp", no_argument, 0, 2007},
                                         {"microbatch", required_argument, 0, 2008},
                                         {"global-batch", required_argument, 0, 2009},
                                         {"schedule", required_argument, 0, 2010},
                                         {"virtual-stages", required_argument, 0, 2011},
                                         {"fsdp", required_argument, 0, 2012},
                                         {"fsdp-group", required_argument, 0, 2013},
                                         {"prefetch", required_argument, 0, 2014},
                                         {"bucket-mb", required_argument, 0, 2015},
                                         {"grad-reduce", required_argument, 0, 2016},
                                         {"dp-overlap", required_argument, 0, 2017},
                                         CLI_RUN_OPTIONS,
                                         {0, 0, 0, 0}};
    const char *gpu_id = NULL, *gpu_file = NULL, *wfile = NULL;
    ridge_run_config run;
    int per_op = 0, run_flags = 0, par_flags = 0, have_tp = 0, have_pp = 0, have_dp = 0, have_mb = 0, have_gb = 0;
    int precision_given = 0;
    const char *cluster_id = NULL;
    long nodes = 0, v = 0;
    ridge_parallel_config pc;
    cli_format fmt = CLI_FMT_TEXT;
    ridge_runtime rt = RIDGE_RUNTIME_EAGER;
    ridge_gpu g;
    ridge_oplist w = {0};
    ridge_op_result *res = NULL;
    ridge_schedule_totals tot;
    ridge_err err;
    int c, rc;
    ridge_run_config_init(&run);
    ridge_parallel_config_init(&pc);
    optind = 1;
    opterr = 0; /* one line of our own instead of getopt's */
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c >= CLI_RUN_OPT_BASE && c < 2000) {
            if (cli_run_option(c, optarg, NULL, &run) < 0)
                return CLI_EXIT_USAGE;
            run_flags++;
            precision_given |= c == CLI_RUN_OPT_PRECISION;
            continue;
        }
        if (c >= 2012 && c <= 2017) {
            double mb;
            par_flags++;
            switch (c) {
            case 2012:
                if (ridge_fsdp_mode_parse(optarg, &pc.fsdp) || pc.fsdp == RIDGE_FSDP_NONE)
                    return cli_usage_error("predict", "--fsdp: '%s' is not full, grad-op or hybrid", optarg);
                break;
            case 2013:
                if (cli_parse_long("--fsdp-group", optarg, 1, 1000000, &v))
                    return CLI_EXIT_USAGE;
                pc.fsdp_group = (int)v;
                break;
            case 2014:
                if (cli_parse_long("--prefetch", optarg, 0, 64, &v))
                    return CLI_EXIT_USAGE;
                pc.prefetch = (int)v;
                break;
            case 2015:
                if (cli_parse_double("--bucket-mb", optarg, 1e-6, 1e6, &mb))
                    return CLI_EXIT_USAGE;
                pc.bucket_bytes = mb * 1048576.0;
                break;
            case 2016:
                if (strcmp(optarg, "fp32") != 0 && strcmp(optarg, "param") != 0)
                    return cli_usage_error("predict", "--grad-reduce: '%s' is not fp32 or param", optarg);
                pc.grad_reduce_fp32 = strcmp(optarg, "fp32") == 0;
                break;
            default:
                if (strcmp(optarg, "buckets") != 0 && strcmp(optarg, "none") != 0)
                    return cli_usage_error("predict", "--dp-overlap: '%s' is not buckets or none", optarg);
                pc.dp_overlap = strcmp(optarg, "buckets") == 0;
                break;
            }
            continue;
        }
        if (c >= 2000 && c <= 2011) {
            static const char *const pname[] = {"--cluster", "--nodes", "--tp", "--pp", "--dp", "--ep", "--zero",
                                                "--sp", "--microbatch", "--global-batch", "--schedule",
                                                "--virtual-stages"};
            static const long hi[] = {0, 100000, 1024, 4096, 1000000, 1000000, 3, 0, 10000000, 1000000000, 0, 64};
            static const long lo[] = {0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1};
            const char *pn = pname[c - 2000];
            if (c > 2000)
                par_flags++;
            if (c == 2000) {
                cluster_id = optarg;
                continue;
            }
            if (c == 2007) {
                pc.sequence_parallel = 1;
                continue;
            }
            if (c == 2010) {
                if (ridge_pp_schedule_parse(optarg, &pc.schedule))
                    return cli_usage_error("predict", "--schedule: '%s' is not 1f1b or interleaved", optarg);
                continue;
            }
            if (cli_parse_long(pn, optarg, lo[c - 2000], hi[c - 2000], &v))
                return CLI_EXIT_USAGE;
            switch (c) {
            case 2001: nodes = v; break;
            case 2002: pc.tp = (int)v; have_tp = 1; break;
            case 2003: pc.pp = (int)v; have_pp = 1; break;
            case 2004: pc.dp = (int)v; have_dp = 1; break;
            case 2005: pc.ep = (int)v; break;
            case 2006: pc.zero = (int)v; break;
            case 2008: pc.microbatch = (double)v; have_mb = 1; break;
            case 2009: pc.global_batch = (double)v; have_gb = 1; break;
            default: pc.virtual_stages = (int)v; break;
            }
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
        case 'h':
            fputs(help, stdout);
            fputs(help_run, stdout);
            return CLI_EXIT_OK;
        case ':':
        default: return cli_getopt_error("predict", c, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("predict", "unexpected argument '%s'", argv[optind]);
    if (cluster_id) {
        if (gpu_id || gpu_file)
            return cli_usage_error("predict", "give --gpu or --cluster, not both");
        if (!wfile)
            return cli_usage_error("predict", "missing --workload ID|FILE.json");
        if (per_op)
            return cli_usage_error("predict", "--per-op applies to one GPU (--gpu), not to --cluster");
        if (!have_tp || !have_pp || !have_dp)
            return cli_usage_error("predict", "--cluster needs --tp, --pp and --dp");
        if (!have_mb || !have_gb)
            return cli_usage_error("predict", "--cluster needs --microbatch and --global-batch");
        if (cli_is_oplist_file(wfile))
            return cli_usage_error("predict", "--cluster takes a model workload, not the operator list %s", wfile);
        return predict_parallel(cluster_id, nodes, wfile, &run, precision_given, &pc, rt, fmt);
    }
    if (par_flags)
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
    if (!cli_is_oplist_file(wfile))
        return predict_model(&g, wfile, &run, precision_given, rt, per_op, fmt);
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
