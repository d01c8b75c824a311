/* Model files and built-in presets: loading, dispatch to the family, common memory terms
 * (docs/workloads.md, "Model families"; docs/model.md, "Memory").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "embedded.h"
#include "nearest.h"
#include "family.h"
#include "ridge/file.h"
#include "ridge/gpu.h"
#include "ridge/workload.h"

/* Library workspaces (cuBLAS/cuDNN), the CUDA context's device allocations and allocator slack
 * that a framework process holds besides tensors. */
#define RW_WORKSPACE_BYTES (768.0 * 1048576.0)

struct ridge_model {
    char name[96];
    char source[512];
    const rw_family *fam;
    void *arch;
};

static const rw_family *const families[] = {&rw_family_transformer, &rw_family_cnn, &rw_family_rnn};

static const ridge_name mode_rows[] = {
    {"train", RIDGE_MODE_TRAIN}, {"infer", RIDGE_MODE_INFER}, {"prefill", RIDGE_MODE_PREFILL}, {"decode", RIDGE_MODE_DECODE}};
static const ridge_name opt_rows[] = {
    {"sgd", RIDGE_OPTIMIZER_SGD}, {"adamw", RIDGE_OPTIMIZER_ADAMW}, {"lamb", RIDGE_OPTIMIZER_LAMB}};
static const ridge_name rec_rows[] = {
    {"none", RIDGE_RECOMPUTE_NONE}, {"selective", RIDGE_RECOMPUTE_SELECTIVE}, {"full", RIDGE_RECOMPUTE_FULL}};
static const ridge_name opt_impl_rows[] = {{"fused", RIDGE_OPT_IMPL_FUSED},
                                           {"foreach", RIDGE_OPT_IMPL_FOREACH},
                                           {"foreach-capturable", RIDGE_OPT_IMPL_FOREACH_CAPTURABLE},
                                           {"forloop", RIDGE_OPT_IMPL_FORLOOP}};
/* RIDGE_CODE_AS_WRITTEN has no name to parse: it is what a run gets when none is given. */
static const ridge_name code_rows[] = {{"torch", RIDGE_CODE_TORCH},
                                       {"hf", RIDGE_CODE_HF},
                                       {"megatron", RIDGE_CODE_MEGATRON},
                                       {"engine", RIDGE_CODE_ENGINE},
                                       {"compile", RIDGE_CODE_COMPILE}};

RIDGE_NAMES_DEFINE(ridge_mode, mode_rows, "?")
RIDGE_NAMES_DEFINE(ridge_optimizer, opt_rows, "?")
RIDGE_NAMES_DEFINE(ridge_recompute, rec_rows, "?")
RIDGE_NAMES_DEFINE(ridge_optimizer_impl, opt_impl_rows, "?")
RIDGE_NAMES_DEFINE(ridge_code, code_rows, "as-written")

void ridge_run_config_init(ridge_run_config *rc)
{
    memset(rc, 0, sizeof *rc);
    rc->mode = RIDGE_MODE_TRAIN;
    rc->batch = 1;
    rc->precision = RIDGE_DTYPE_BF16;
    rc->optimizer = RIDGE_OPTIMIZER_ADAMW;
    rc->optimizer_impl = RIDGE_OPT_IMPL_FUSED;
    rc->recompute = RIDGE_RECOMPUTE_NONE;
    rc->grad_accum = 1;
}

int rw_mixed_precision(ridge_dtype p)
{
    return p == RIDGE_DTYPE_FP16 || p == RIDGE_DTYPE_BF16;
}

static const char *const top_keys[] = {"schema_version", "name", "family", "description", "source", "arch", NULL};

static int parse_model(const char *text, size_t len, const char *origin, ridge_model **out, ridge_err *err)
{
    rj_ctx c = {origin, err};
    cJSON *root = NULL;
    const cJSON *arch = NULL;
    ridge_model *m = NULL;
    char family[24] = "";
    long version = 0;
    int rc = rj_parse_object(text, len, &c, &root);
    *out = NULL;
    if (rc != RIDGE_OK)
        return rc;
    m = calloc(1, sizeof *m);
    if (!m) {
        rc = ridge_err_set(err, RIDGE_ENOMEM, "%s: out of memory", origin);
        goto fail;
    }
    if ((rc = rj_check_keys(root, "$", top_keys, &c)) < 0)
        goto fail;
    if ((rc = rj_int(root, "$", "schema_version", 1, 1, 1000, &version, &c)) < 0)
        goto fail;
    if (version != 1) {
        rc = rj_fail(&c, RIDGE_EINVAL, "$", "schema_version", "%ld is not supported (this ridge reads 1)", version);
        goto fail;
    }
    if ((rc = rj_string(root, "$", "name", 1, m->name, sizeof m->name, &c)) < 0)
        goto fail;
    if ((rc = rj_string(root, "$", "source", 0, m->source, sizeof m->source, &c)) < 0)
        goto fail;
    { /* checked, as an operator list's, and not kept */
        char description[2048];
        if ((rc = rj_string(root, "$", "description", 0, description, sizeof description, &c)) < 0)
            goto fail;
    }
    if ((rc = rj_string(root, "$", "family", 1, family, sizeof family, &c)) < 0) {
        if (!cJSON_GetObjectItemCaseSensitive(root, "family") && cJSON_GetObjectItemCaseSensitive(root, "ops"))
            rc = rj_fail(&c, RIDGE_EINVAL, "$", "family",
                         "missing (an operator list has \"ops\"; use it with ridge_oplist_load_file)");
        goto fail;
    }
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (strcmp(families[i]->name, family) == 0)
            m->fam = families[i];
    if (!m->fam) {
        char list[64] = "";
        for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", families[i]->name);
        rc = rj_fail(&c, RIDGE_EINVAL, "$", "family", "'%s' is not one of: %s", family, list);
        goto fail;
    }
    if ((rc = rj_object(root, "$", "arch", 1, &arch, &c)) < 0)
        goto fail;
    m->arch = calloc(1, m->fam->arch_size);
    if (!m->arch) {
        rc = ridge_err_set(err, RIDGE_ENOMEM, "%s: out of memory", origin);
        goto fail;
    }
    if ((rc = m->fam->parse(arch, m->arch, &c)) < 0)
        goto fail;
    cJSON_Delete(root);
    *out = m;
    return RIDGE_OK;
fail:
    cJSON_Delete(root);
    ridge_model_free(m);
    return rc < 0 ? rc : RIDGE_EINVAL;
}

static int parse_loaded(const char *text, size_t len, const char *path, void *out, ridge_err *err)
{
    return parse_model(text, len, path, out, err);
}

int ridge_model_load_file(const char *path, ridge_model **out, ridge_err *err)
{
    *out = NULL;
    return ridge_file_load(path, parse_loaded, out, err);
}

int ridge_model_parse(const char *json, size_t len, const char *origin, ridge_model **out, ridge_err *err)
{
    if (!out)
        return ridge_err_set(err, RIDGE_EINVAL, "ridge_model_parse: no output pointer");
    *out = NULL;
    if (!json)
        return ridge_err_set(err, RIDGE_EINVAL, "%s: no JSON text", origin ? origin : "model");
    return parse_model(json, len, origin ? origin : "model", out, err);
}

size_t ridge_model_builtin_count(void)
{
    return ridge_workload_count_;
}

const char *ridge_model_builtin_id(size_t i)
{
    return i < ridge_workload_count_ ? ridge_workload_files[i].name : NULL;
}

int ridge_model_load_builtin(const char *id, ridge_model **out, ridge_err *err)
{
    char origin[96];
    *out = NULL;
    for (size_t i = 0; i < ridge_workload_count_; i++) {
        if (strcmp(ridge_workload_files[i].name, id) == 0) {
            snprintf(origin, sizeof origin, "builtin:%.80s", id);
            return parse_model(ridge_workload_files[i].data, ridge_workload_files[i].len, origin, out, err);
        }
    }
    {
        char near[200];
        ridge_nearest_names(id, ridge_model_builtin_id, ridge_workload_count_, near, sizeof near);
        return ridge_err_set(err, RIDGE_ENOTFOUND, "unknown workload '%s' (nearest: %s; or give a file path)", id, near);
    }
}

int ridge_model_names_file(const char *id_or_path)
{
    struct stat st;
    return stat(id_or_path, &st) == 0 || strchr(id_or_path, '/') || strstr(id_or_path, ".json");
}

int ridge_model_load(const char *id_or_path, ridge_model **out, ridge_err *err)
{
    if (ridge_model_names_file(id_or_path))
        return ridge_model_load_file(id_or_path, out, err);
    return ridge_model_load_builtin(id_or_path, out, err);
}

void ridge_model_free(ridge_model *m)
{
    if (!m)
        return;
    if (m->arch && m->fam && m->fam->free_arch)
        m->fam->free_arch(m->arch);
    free(m->arch);
    free(m);
}

const char *ridge_model_name(const ridge_model *m)
{
    return m->name;
}

const char *ridge_model_family(const ridge_model *m)
{
    return m->fam->name;
}

double ridge_model_params(const ridge_model *m)
{
    return m->fam->params(m->arch, NULL);
}

/* Resolve defaults into a copy of the run configuration; all entry points go through it. */
static int resolve(const ridge_model *m, const ridge_run_config *rc, ridge_run_config *out, ridge_err *err)
{
    *out = *rc;
    if (!(rc->batch >= 1 && rc->batch <= RIDGE_RUN_BATCH_MAX && rc->batch == (double)(long long)rc->batch))
        return ridge_err_set(err, RIDGE_EINVAL, "run.batch: %g is not an integer in [1, %d]", rc->batch,
                             RIDGE_RUN_BATCH_MAX);
    if (rc->mode == RIDGE_MODE_TRAIN &&
        (rc->precision == RIDGE_DTYPE_INT8 || rc->precision == RIDGE_DTYPE_INT4 || rc->precision == RIDGE_DTYPE_FP64))
        return ridge_err_set(err, RIDGE_EINVAL, "run.precision %s: training supports fp32, tf32, fp16, bf16 and fp8",
                             ridge_dtype_name(rc->precision));
    if (rc->engine && (rc->mode != RIDGE_MODE_INFER || strcmp(m->fam->name, "cnn") != 0))
        return ridge_err_set(err, RIDGE_EINVAL, "run.fusion engine: modelled for CNN inference only");
    if (rc->bn_fused && strcmp(m->fam->name, "cnn") != 0)
        return ridge_err_set(err, RIDGE_EINVAL, "run.bn_fusion fused: batch norms are modelled in CNNs only");
    if (rc->engine && rc->amp)
        return ridge_err_set(err, RIDGE_EINVAL,
                             "run.fusion engine builds its weights in the run precision; no run.amp");
    if (rc->amp && !rw_mixed_precision(rc->precision))
        return ridge_err_set(err, RIDGE_EINVAL, "run.amp needs run.precision fp16 or bf16, not %s",
                             ridge_dtype_name(rc->precision));
    if (rc->mode == RIDGE_MODE_TRAIN && rc->optimizer == RIDGE_OPTIMIZER_LAMB && rc->optimizer_impl != RIDGE_OPT_IMPL_FUSED)
        return ridge_err_set(err, RIDGE_EINVAL,
                             "run.optimizer lamb: modelled as apex's FusedLAMB only (run.optimizer_impl fused, not %s)",
                             ridge_optimizer_impl_name(rc->optimizer_impl));
    if (rc->mode == RIDGE_MODE_TRAIN && rc->optimizer_impl == RIDGE_OPT_IMPL_FOREACH_CAPTURABLE &&
        rc->optimizer != RIDGE_OPTIMIZER_ADAMW)
        return ridge_err_set(err, RIDGE_EINVAL,
                             "run.optimizer_impl foreach-capturable: AdamW's capturable=True; %s has none",
                             ridge_optimizer_name(rc->optimizer));
    if (rc->mlm_positions != 0 && strcmp(m->fam->name, "transformer") != 0)
        return ridge_err_set(err, RIDGE_EINVAL, "run.mlm_positions: applies to masked-LM training of text encoders; "
                                                "%s is a %s model", m->name, m->fam->name);
    if (rc->grad_accum == 0)
        out->grad_accum = 1;
    else if (!(rc->grad_accum >= 1 && rc->grad_accum <= RIDGE_RUN_GRAD_ACCUM_MAX &&
               rc->grad_accum == (double)(long long)rc->grad_accum))
        return ridge_err_set(err, RIDGE_EINVAL, "run.grad_accum: %g is not an integer in [1, %d]", rc->grad_accum,
                             RIDGE_RUN_GRAD_ACCUM_MAX);
    else if (rc->grad_accum > 1 && rc->mode != RIDGE_MODE_TRAIN)
        return ridge_err_set(err, RIDGE_EINVAL, "run.grad_accum: applies to run.mode train, not %s",
                             ridge_mode_name(rc->mode));
    return m->fam->resolve(m->arch, out, err);
}

double ridge_model_expert_params(const ridge_model *m)
{
    return m->fam->expert_params ? m->fam->expert_params(m->arch) : 0;
}

double ridge_model_params_for(const ridge_model *m, const ridge_run_config *rc)
{
    ridge_run_config r;
    if (resolve(m, rc, &r, NULL) != RIDGE_OK)
        return m->fam->params(m->arch, NULL);
    return m->fam->params(m->arch, &r);
}

const char *ridge_model_throughput_unit(const ridge_model *m, const ridge_run_config *rc)
{
    ridge_run_config r;
    if (resolve(m, rc, &r, NULL) != RIDGE_OK)
        r = *rc;
    return m->fam->unit(m->arch, &r);
}

double ridge_model_items_per_step(const ridge_model *m, const ridge_run_config *rc)
{
    ridge_run_config r;
    if (resolve(m, rc, &r, NULL) != RIDGE_OK)
        return 0;
    return r.grad_accum * m->fam->items(m->arch, &r); /* every micro-batch of the step */
}

double ridge_model_flops(const ridge_model *m, const ridge_run_config *rc)
{
    ridge_run_config r;
    if (resolve(m, rc, &r, NULL) != RIDGE_OK)
        return 0;
    return r.grad_accum * m->fam->flops(m->arch, &r);
}

static int resolved_memory(const ridge_model *m, const ridge_run_config *rp, ridge_memory *out, ridge_err *err);

int ridge_model_build(const ridge_model *m, const ridge_run_config *rc, ridge_oplist *out, ridge_err *err)
{
    ridge_run_config r;
    rw_graph g = {0};
    int st;
    memset(out, 0, sizeof *out);
    if ((st = resolve(m, rc, &r, err)) != RIDGE_OK)
        return st;
    g.amp = r.amp;
    g.grad_accum = r.grad_accum;
    g.modules = r.code == RIDGE_CODE_TORCH || r.code == RIDGE_CODE_HF;
    g.torch_step = g.modules || r.code == RIDGE_CODE_COMPILE;
    g.megatron_step = r.code == RIDGE_CODE_MEGATRON;
    {
        /* The step's footprint less the workspace: the reuse distance of weights and KV cache. */
        ridge_memory mem;
        if (resolved_memory(m, &r, &mem, NULL) == RIDGE_OK)
            g.reuse_bytes = mem.total_bytes - mem.workspace_bytes;
    }
    st = m->fam->build(m->arch, &r, &g, err);
    if (st != RIDGE_OK) {
        rw_free(&g);
        return st;
    }
    /* Gradient accumulation: every forward and backward kernel runs once per micro-batch; the
     * optimizer group (the step, zero_grad and the accumulation adds rw_optimizer sized for the
     * whole step) once. */
    if (r.grad_accum > 1)
        for (size_t i = 0; i < g.n; i++)
            if (strcmp(g.ops[i].group, "optimizer") != 0)
                g.ops[i].count *= r.grad_accum;
    return rw_finish(&g, m->name, out, err);
}

/* The memory of an already resolved run r. */
static int resolved_memory(const ridge_model *m, const ridge_run_config *rp, ridge_memory *out, ridge_err *err)
{
    const ridge_run_config r = *rp;
    double p, wbytes;
    int st;
    memset(out, 0, sizeof *out);
    p = m->fam->params(m->arch, &r);
    /* Weights in the run's storage precision (fp8/int8 inference stores 1 byte per weight;
     * tf32 stores fp32). */
    wbytes = ridge_dtype_bytes(r.precision == RIDGE_DTYPE_TF32 || r.amp ? RIDGE_DTYPE_FP32 : r.precision);
    out->weights_bytes = p * wbytes;
    if (wbytes < 2 && m->fam->wide_params) { /* the tables quantized checkpoints leave in 16-bit */
        double wide = fmin(p, m->fam->wide_params(m->arch));
        out->weights_bytes += wide * (2 - wbytes);
    }
    if (r.mode == RIDGE_MODE_TRAIN) {
        /* Mixed precision: 16-bit weights and gradients beside FP32 masters. Autocast (amp): the
         * weights and their gradients are FP32 themselves, no master copy. */
        int mixed = (rw_mixed_precision(r.precision) || r.precision == RIDGE_DTYPE_FP8) && !r.amp;
        double states = r.optimizer == RIDGE_OPTIMIZER_SGD ? 1 : 2; /* momentum; or m and v */
        out->gradients_bytes = p * (mixed ? 2 : 4);
        /* FP32 optimizer states, plus FP32 master weights in mixed precision. */
        out->optimizer_bytes = p * 4 * (states + (mixed ? 1 : 0));
    }
    if ((st = m->fam->memory(m->arch, &r, out, err)) != RIDGE_OK)
        return st;
    out->workspace_bytes = RW_WORKSPACE_BYTES;
    out->total_bytes = out->weights_bytes + out->gradients_bytes + out->optimizer_bytes + out->activations_bytes +
                       out->kv_cache_bytes + out->workspace_bytes;
    return RIDGE_OK;
}

int ridge_model_memory(const ridge_model *m, const ridge_run_config *rc, ridge_memory *out, ridge_err *err)
{
    ridge_run_config r;
    int st;
    memset(out, 0, sizeof *out);
    if ((st = resolve(m, rc, &r, err)) != RIDGE_OK)
        return st;
    return resolved_memory(m, &r, out, err);
}
