/* ridge predict --cluster: the multi-GPU flags and the step on a cluster (docs/parallel.md).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "predict_cluster.h"

#include <stdlib.h>
#include <string.h>

#include "json_emit.h"
#include "model_run.h"
#include "predict_emit.h"

void cli_cluster_args_init(cli_cluster_args *a)
{
    memset(a, 0, sizeof *a);
    ridge_parallel_config_init(&a->pc);
}

/* The data-parallel flags: --fsdp .. --dp-overlap. */
static int dp_option(int c, const char *arg, ridge_parallel_config *pc)
{
    long v = 0;
    double mb;
    switch (c) {
    case 2012:
        if (ridge_fsdp_mode_parse(arg, &pc->fsdp) || pc->fsdp == RIDGE_FSDP_NONE) {
            cli_usage_error("predict", "--fsdp: '%s' is not full, grad-op or hybrid", arg);
            return -1;
        }
        return 1;
    case 2013:
        if (cli_parse_long("--fsdp-group", arg, 1, 1000000, &v))
            return -1;
        pc->fsdp_group = (int)v;
        return 1;
    case 2014:
        if (cli_parse_long("--prefetch", arg, 0, 64, &v))
            return -1;
        pc->prefetch = (int)v;
        return 1;
    case 2015:
        if (cli_parse_double("--bucket-mb", arg, 1e-6, RIDGE_PARALLEL_MAX_BUCKET_BYTES / 1048576.0, &mb))
            return -1;
        pc->bucket_bytes = mb * 1048576.0;
        return 1;
    case 2016:
        if (strcmp(arg, "fp32") != 0 && strcmp(arg, "param") != 0) {
            cli_usage_error("predict", "--grad-reduce: '%s' is not fp32 or param", arg);
            return -1;
        }
        pc->grad_reduce_fp32 = strcmp(arg, "fp32") == 0;
        return 1;
    default:
        if (strcmp(arg, "buckets") != 0 && strcmp(arg, "none") != 0) {
            cli_usage_error("predict", "--dp-overlap: '%s' is not buckets or none", arg);
            return -1;
        }
        pc->dp_overlap = strcmp(arg, "buckets") == 0;
        return 1;
    }
}

int cli_cluster_option(int c, const char *arg, cli_cluster_args *a)
{
    static const char *const pname[] = {"--cluster", "--nodes", "--tp", "--pp", "--dp", "--ep", "--zero",
                                        "--sp", "--microbatch", "--global-batch", "--schedule",
                                        "--virtual-stages"};
    static const long hi[] = {0, 100000, 1024, 4096, 1000000, 1000000, 3, 0, 10000000, 1000000000, 0, 64};
    static const long lo[] = {0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1};
    ridge_parallel_config *pc = &a->pc;
    long v = 0;
    if (c < 2000 || c > 2017)
        return 0;
    if (c > 2000)
        a->flags++;
    if (c >= 2012)
        return dp_option(c, arg, pc);
    if (c == 2000) {
        a->cluster_id = arg;
        return 1;
    }
    if (c == 2007) {
        pc->sequence_parallel = 1;
        return 1;
    }
    if (c == 2010) {
        if (ridge_pp_schedule_parse(arg, &pc->schedule)) {
            cli_usage_error("predict", "--schedule: '%s' is not 1f1b or interleaved", arg);
            return -1;
        }
        return 1;
    }
    if (cli_parse_long(pname[c - 2000], arg, lo[c - 2000], hi[c - 2000], &v))
        return -1;
    switch (c) {
    case 2001: a->nodes = v; break;
    case 2002: pc->tp = (int)v; a->have_tp = 1; break;
    case 2003: pc->pp = (int)v; a->have_pp = 1; break;
    case 2004: pc->dp = (int)v; a->have_dp = 1; break;
    case 2005: pc->ep = (int)v; break;
    case 2006: pc->zero = (int)v; break;
    case 2008: pc->microbatch = (double)v; a->have_mb = 1; break;
    case 2009: pc->global_batch = (double)v; a->have_gb = 1; break;
    default: pc->virtual_stages = (int)v; break;
    }
    return 1;
}

static int parallel_json(const ridge_cluster *cl, const ridge_model *m, const ridge_run_config *run,
                         const ridge_parallel_config *pc, ridge_runtime rt, const ridge_parallel_result *r,
                         const char *host_id)
{
    const ridge_parallel_breakdown *bd = &r->breakdown;
    cJSON *root = cJSON_CreateObject();
    const cli_json_field head[] = {
        CLI_JNUM("schema_version", CLI_SCHEMA_VERSION), CLI_JSTR("cluster", cl->id), CLI_JSTR("gpu", cl->gpu.id),
        CLI_JNUM("nodes", cl->nodes), CLI_JNUM("gpus", r->gpus), CLI_JSTR("workload", ridge_model_name(m)),
        CLI_JSTR("mode", ridge_mode_name(run->mode)), CLI_JSTR("precision", ridge_dtype_name(run->precision)),
        CLI_JSTR("recompute", ridge_recompute_name(run->recompute)), CLI_JSTR("runtime", ridge_runtime_name(rt)),
        CLI_JSTR("host_profile", host_id), CLI_JSTR("code", ridge_code_name(run->code))};
    const cli_json_field par[] = {
        CLI_JNUM("tp", pc->tp), CLI_JNUM("pp", pc->pp), CLI_JNUM("dp", pc->dp), CLI_JNUM("ep", pc->ep),
        CLI_JNUM("zero", pc->zero), CLI_JSTR("fsdp", ridge_fsdp_mode_name(pc->fsdp)),
        CLI_JNUM("shard_group", r->dp_shard_group), CLI_JNUM("prefetch", pc->prefetch),
        CLI_JNUM("bucket_bytes", pc->bucket_bytes), CLI_JSTR("grad_reduce", pc->grad_reduce_fp32 ? "fp32" : "param"),
        CLI_JSTR("dp_overlap", pc->dp_overlap ? "buckets" : "none"),
        CLI_JBOOL("sequence_parallel", pc->sequence_parallel), CLI_JNUM("microbatch", pc->microbatch),
        CLI_JNUM("global_batch", pc->global_batch), CLI_JSTR("schedule", ridge_pp_schedule_name(pc->schedule)),
        CLI_JNUM("virtual_stages", pc->virtual_stages)};
    const cli_json_field brk[] = {
        CLI_JNUM("compute", bd->compute_s), CLI_JNUM("tp_comm", bd->tp_comm_s), CLI_JNUM("pp_comm", bd->pp_comm_s),
        CLI_JNUM("dp_comm_exposed", bd->dp_comm_exposed_s), CLI_JNUM("dp_comm_hidden", bd->dp_comm_hidden_s),
        CLI_JNUM("ep_comm", bd->ep_comm_s), CLI_JNUM("bubble", bd->bubble_s), CLI_JNUM("optimizer", bd->optimizer_s),
        CLI_JNUM("host", bd->host_s)};
    const cli_json_field tail[] = {
        CLI_JNUM("microbatches", r->microbatches), CLI_JNUM("bubble_fraction", r->bubble_fraction),
        CLI_JNUM("stage_forward_s", r->stage_forward_s), CLI_JNUM("stage_backward_s", r->stage_backward_s),
        CLI_JNUM("grad_accumulate_s", r->grad_accumulate_s), CLI_JNUM("dp_collective_s", r->dp_collective_s),
        CLI_JNUM("dp_bytes", r->dp_bytes), CLI_JNUM("dp_per_microbatch_s", r->dp_per_microbatch_s),
        CLI_JNUM("dp_layer_allgather_s", r->dp_layer_allgather_s),
        CLI_JNUM("dp_layer_reducescatter_s", r->dp_layer_reducescatter_s), CLI_JNUM("p2p_s", r->p2p_s),
        CLI_JNUM("params", r->params), CLI_JNUM("throughput", r->throughput),
        CLI_JNUM("throughput_per_gpu", r->throughput_per_gpu), CLI_JSTR("throughput_unit", r->throughput_unit),
        CLI_JNUM("model_flops", r->model_flops), CLI_JNUM("model_flops_per_s_per_gpu", r->model_flops_per_s_per_gpu),
        CLI_JNUM("mfu", r->mfu)};
    CLI_JSON_ADD(root, head);
    CLI_JSON_ADD(cJSON_AddObjectToObject(root, "parallel"), par);
    cJSON_AddNumberToObject(root, "step_time_s", r->step_time_s);
    CLI_JSON_ADD(cJSON_AddObjectToObject(root, "breakdown_s"), brk);
    CLI_JSON_ADD(root, tail);
    cli_memory_json(root, "memory_per_gpu", &r->memory, r->capacity_bytes, r->fits);
    return cli_print_json(root);
}

static void parallel_csv(const ridge_cluster *cl, const ridge_model *m, const ridge_run_config *run,
                         const ridge_parallel_config *pc, const ridge_parallel_result *r)
{
    const ridge_parallel_breakdown *bd = &r->breakdown;
    printf("cluster,gpus,workload,mode,precision,tp,pp,dp,ep,zero,sequence_parallel,microbatch,global_batch,"
           "schedule,virtual_stages,step_time_s,compute_s,tp_comm_s,pp_comm_s,dp_comm_exposed_s,dp_comm_hidden_s,"
           "ep_comm_s,bubble_s,optimizer_s,throughput,throughput_unit,model_flops_per_s_per_gpu,mfu,"
           "memory_per_gpu_bytes,capacity_bytes,fits,host_s\n");
    /* names from files are quoted as every CSV cell of ridge's (cli_csv_cell) */
    cli_csv_cell(cl->id, stdout);
    printf(",%d,", r->gpus);
    cli_csv_cell(ridge_model_name(m), stdout);
    printf(",%s,%s,%d,%d,%d,%d,%d,%s,%.0f,%.0f,%s,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%s,"
           "%.9g,%.6g,%.9g,%.9g,%s,%.9g\n",
           ridge_mode_name(run->mode), ridge_dtype_name(run->precision),
           pc->tp, pc->pp, pc->dp, pc->ep, pc->zero, pc->sequence_parallel ? "true" : "false", pc->microbatch,
           pc->global_batch, ridge_pp_schedule_name(pc->schedule), pc->virtual_stages, r->step_time_s,
           bd->compute_s, bd->tp_comm_s, bd->pp_comm_s, bd->dp_comm_exposed_s, bd->dp_comm_hidden_s, bd->ep_comm_s,
           bd->bubble_s, bd->optimizer_s, r->throughput, r->throughput_unit, r->model_flops_per_s_per_gpu, r->mfu,
           r->memory.total_bytes, r->capacity_bytes, r->fits ? "true" : "false", bd->host_s);
}

static void parallel_text(const ridge_cluster *cl, const ridge_model *m, const ridge_run_config *run,
                          const ridge_parallel_config *pc, ridge_runtime rt, const ridge_parallel_result *r, const char *note,
                          const char *host_id)
{
    const ridge_parallel_breakdown *bd = &r->breakdown;
    const double gib = 1073741824.0;
    char b[2][48];
    const char *names[8] = {"compute", "tp comm", "pp comm", "dp comm (exposed)", "ep comm", "pipeline bubble",
                            "optimizer", "host (requests)"};
    double v[8] = {bd->compute_s, bd->tp_comm_s, bd->pp_comm_s, bd->dp_comm_exposed_s, bd->ep_comm_s,
                   bd->bubble_s, bd->optimizer_s, bd->host_s};
    char mname[CLI_NAME_TEXT_CAP];
    printf("%s on %s, %d node%s x %d = %d GPUs (%s), %s, %s%s, %s\n",
           cli_text(ridge_model_name(m), mname, sizeof mname), cl->id, cl->nodes, cl->nodes == 1 ? "" : "s",
           cl->gpus_per_node, r->gpus, cl->gpu.id, ridge_mode_name(run->mode), ridge_dtype_name(run->precision),
           note, ridge_runtime_name(rt));
    printf("host profile %s, code %s\n", cli_text(host_id, mname, sizeof mname), ridge_code_name(run->code));
    printf("tp %d, pp %d, dp %d, ep %d, ", pc->tp, pc->pp, pc->dp, pc->ep);
    if (pc->fsdp != RIDGE_FSDP_NONE)
        printf("fsdp %s (shard group %d)", ridge_fsdp_mode_name(pc->fsdp), r->dp_shard_group);
    else
        printf("zero %d", pc->zero);
    printf("%s, microbatch %.0f, global batch %.0f, %s", pc->sequence_parallel ? ", sequence parallel" : "",
           pc->microbatch, pc->global_batch, ridge_pp_schedule_name(pc->schedule));
    if (pc->virtual_stages > 1)
        printf(" (%d virtual stages)", pc->virtual_stages);
    printf("\n\n");
    printf("step time         %s ms\n", cli_num(r->step_time_s * 1e3, b[0], 48));
    printf("throughput        %s %s (%s per GPU)\n", cli_num(r->throughput, b[0], 48), r->throughput_unit,
           cli_num(r->throughput_per_gpu, b[1], 48));
    printf("model FLOP/s      %s TFLOP/s per GPU, MFU %s %%\n", cli_num(r->model_flops_per_s_per_gpu / 1e12, b[0], 48),
           cli_num(r->mfu * 100, b[1], 48));
    printf("microbatches      %s per step, bubble %s %%\n", cli_num(r->microbatches, b[0], 48),
           cli_num(r->bubble_fraction * 100, b[1], 48));
    printf("\ntime breakdown\n");
    for (int k = 0; k < 8; k++)
        if (k < 7 || v[k] > 0) /* the host line only when a profile's request work is in the step */
            printf("  %-18s %10s ms  %5s %%\n", names[k], cli_num(v[k] * 1e3, b[0], 48),
               cli_num(r->step_time_s > 0 ? 100 * v[k] / r->step_time_s : 0, b[1], 48));
    printf("  %-18s %10s ms  (behind the compute)\n", "dp comm (hidden)",
           cli_num(bd->dp_comm_hidden_s * 1e3, b[0], 48));
    printf("\nmemory per GPU [GiB]\n");
    cli_memory_text(&r->memory);
    printf("  total %s of %s: %s\n", cli_num(r->memory.total_bytes / gib, b[0], 48),
           cli_num(r->capacity_bytes / gib, b[1], 48), r->fits ? "fits" : "DOES NOT FIT");
}

int cli_predict_cluster(const cli_cluster_args *a, cli_workload *wl, const ridge_run_config *given,
                        int precision_given, ridge_runtime rt, cli_format fmt)
{
    ridge_cluster *cl = malloc(sizeof *cl);
    ridge_model *m = NULL;
    ridge_parallel_result r;
    ridge_err err;
    ridge_run_config run = *given;
    ridge_host_profile hp;
    char note[96] = "";
    int rc;
    if (!cl) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    /* --host: its code style and runtimes (an engine's decode graphs), and a prefill's per-request
     * work; the ranks are scheduled with the GPU's own launch figures (docs/parallel.md). */
    if ((rc = cli_host_for_run(&run, &hp)) != CLI_EXIT_OK) {
        free(cl);
        return rc;
    }
    rt = (ridge_runtime)ridge_host_runtime_for(&hp, run.mode == RIDGE_MODE_DECODE, rt);
    rc = ridge_cluster_load(a->cluster_id, (int)a->nodes, cl, &err);
    if (rc == RIDGE_OK && !precision_given)
        cli_default_precision(&run, &cl->gpu, 1, note, sizeof note);
    if (rc == RIDGE_OK)
        rc = cli_workload_model(wl, &m, &err);
    if (rc == RIDGE_OK)
        rc = ridge_parallel_predict(cl, m, &run, &a->pc, rt, &r, &err);
    if (rc == RIDGE_OK)
        ridge_parallel_add_request(&hp, &cl->gpu, &run, a->pc.global_batch / a->pc.dp, &r);
    if (rc != RIDGE_OK) {
        cli_error("%s", err.msg);
        rc = cli_exit_code(rc);
    } else if (fmt == CLI_FMT_JSON) {
        rc = parallel_json(cl, m, &run, &a->pc, rt, &r, hp.id);
    } else if (fmt == CLI_FMT_CSV) {
        parallel_csv(cl, m, &run, &a->pc, &r);
    } else {
        parallel_text(cl, m, &run, &a->pc, rt, &r, note, hp.id);
    }
    ridge_model_free(m);
    free(cl);
    return rc;
}
