/* One model step on one GPU: the graph, its schedule through the host pipeline, MFU, time by
 * layer type, memory and the largest batch that fits (ridge/predict.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ridge/predict.h"

double ridge_predict_mfu(const ridge_gpu *g, ridge_dtype precision, double model_flops_per_s)
{
    /* The dense peak of the run's precision: its tensor path, else the vector path. */
    int peak = ridge_kernel_peak_for(g, precision, 1);
    double peak_flops = 0;
    if (peak < 0)
        peak = ridge_kernel_peak_for(g, precision, 0);
    if (peak >= 0)
        peak_flops = g->peak_flops_per_s[peak];
    return peak_flops > 0 ? model_flops_per_s / peak_flops : 0;
}

int ridge_predict_default_precision(const ridge_gpu *g, int n, ridge_dtype *out)
{
    static const ridge_dtype best[] = {RIDGE_DTYPE_BF16, RIDGE_DTYPE_FP16};
    int lacking = -1; /* the first GPU without a bf16 tensor path */
    *out = RIDGE_DTYPE_FP32;
    for (size_t k = 0; k < sizeof best / sizeof best[0]; k++) {
        int all = 1;
        for (int i = 0; i < n && all; i++)
            if (ridge_kernel_peak_for(&g[i], best[k], 1) < 0) {
                all = 0;
                if (k == 0)
                    lacking = i;
            }
        if (all) {
            *out = best[k];
            break;
        }
    }
    return lacking;
}

/* 1 if run rc at this batch fits in capacity_bytes (a run the model cannot size does not). */
static int batch_fits(const ridge_model *m, const ridge_run_config *rc, double batch, double capacity_bytes)
{
    ridge_run_config r = *rc;
    ridge_memory mem;
    ridge_err err;
    r.batch = batch;
    return ridge_model_memory(m, &r, &mem, &err) == RIDGE_OK && mem.total_bytes <= capacity_bytes;
}

double ridge_predict_max_batch(const ridge_model *m, const ridge_run_config *rc, double capacity_bytes)
{
    double lo = 0, hi = 1;
    while (hi <= 1e7) {
        if (!batch_fits(m, rc, hi, capacity_bytes))
            break;
        lo = hi;
        hi *= 2;
    }
    if (hi > 1e7)
        return lo;
    while (hi - lo > 1) {
        double mid = (double)(long long)((lo + hi) / 2);
        if (batch_fits(m, rc, mid, capacity_bytes))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Time by layer type: each op's time added to its group, the groups in order of first appearance. */
static void group_times(ridge_predict_result *p)
{
    for (size_t i = 0; i < p->ops.n; i++) {
        const char *grp = p->ops.ops[i].group[0] ? p->ops.ops[i].group : "other";
        int k;
        for (k = 0; k < p->ngroups; k++)
            if (strcmp(p->groups[k], grp) == 0)
                break;
        if (k == p->ngroups) {
            if (p->ngroups == RIDGE_PREDICT_GROUPS_MAX)
                k = RIDGE_PREDICT_GROUPS_MAX - 1; /* lump the rest */
            else {
                snprintf(p->groups[k], sizeof p->groups[k], "%s", grp);
                p->ngroups++;
            }
        }
        p->group_time_s[k] += p->results[i].time_s;
    }
}

int ridge_predict_model(const ridge_gpu *g, const ridge_model *m, const ridge_run_config *rc,
                        const ridge_host_profile *hp, ridge_runtime rt, ridge_predict_result *p, ridge_err *err)
{
    ridge_err e;
    int st;
    ridge_run_config run = *rc;
    memset(p, 0, sizeof *p);
    p->host = *hp;
    ridge_host_apply(hp, &run);
    p->runtime = (ridge_runtime)ridge_host_runtime_for(hp, run.mode == RIDGE_MODE_DECODE, rt);
    p->code = run.code;
    st = ridge_model_build(m, &run, &p->ops, &e);
    if (st != RIDGE_OK)
        return ridge_err_set(err, st, "%s: %s", ridge_model_name(m), e.msg);
    p->results = calloc(p->ops.n ? p->ops.n : 1, sizeof *p->results);
    if (!p->results)
        return ridge_err_set(err, RIDGE_ENOMEM, "out of memory");
    st = ridge_schedule_ops_host(g, p->ops.ops, p->ops.n, p->runtime, &p->host, p->results, &p->tot, &e);
    if (st != RIDGE_OK)
        return ridge_err_set(err, st, "%s on %s: %s", ridge_model_name(m), g->id, e.msg);
    if (run.mode == RIDGE_MODE_PREFILL) /* a prefill starts a request (docs/model.md §7) */
        ridge_host_add_request(&p->host, g, &p->tot);
    if (run.mode != RIDGE_MODE_TRAIN) /* an engine's work per sequence of the step (docs/model.md §7) */
        ridge_host_add_sequences(&p->host, g, run.batch, &p->tot);
    st = ridge_model_memory(m, &run, &p->mem, &e);
    if (st != RIDGE_OK)
        return ridge_err_set(err, st, "%s: %s", ridge_model_name(m), e.msg);
    p->time_s = p->tot.total_time_s;
    p->items_per_step = ridge_model_items_per_step(m, &run);
    p->throughput = p->time_s > 0 ? p->items_per_step / p->time_s : 0;
    p->throughput_unit = ridge_model_throughput_unit(m, &run);
    p->model_flops = ridge_model_flops(m, &run);
    p->params = ridge_model_params_for(m, &run);
    p->mfu = p->time_s > 0 ? ridge_predict_mfu(g, run.precision, p->model_flops / p->time_s) : 0;
    p->capacity_bytes = g->memory_bytes;
    p->fits = p->mem.total_bytes <= g->memory_bytes;
    p->max_batch = ridge_predict_max_batch(m, &run, g->memory_bytes);
    group_times(p);
    return RIDGE_OK;
}

void ridge_predict_result_free(ridge_predict_result *p)
{
    if (!p)
        return;
    ridge_oplist_free(&p->ops);
    free(p->results);
    p->results = NULL;
}
