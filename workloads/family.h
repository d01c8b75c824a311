/* Private: the interface each model family implements (transformer.c, cnn.c, rnn.c).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_WORKLOADS_FAMILY_H
#define RIDGE_WORKLOADS_FAMILY_H

#include <cjson/cJSON.h>

#include "graph.h"
#include "json_util.h"

typedef struct {
    const char *name;  /* the "family" value: "transformer", "cnn", "rnn" */
    size_t arch_size;  /* bytes of the family's parsed arch struct */
    /* Parse and check "$.arch" into arch (zeroed, arch_size bytes). Errors via rj_fail. */
    int (*parse)(const cJSON *arch_json, void *arch, const rj_ctx *c);
    void (*free_arch)(void *arch); /* release what parse allocated inside arch (may be NULL) */
    /* Parameter count; rc (resolved, or NULL for the file's own) matters where run options change
     * the architecture (RNN --hidden/--layers). */
    double (*params)(const void *arch, const ridge_run_config *rc);
    /* Check the run against the model (mode supported, sizes), filling defaults (seq, image) into
     * *rc. Errors name the run option: "--mode decode: a CNN has no decode". */
    int (*resolve)(const void *arch, ridge_run_config *rc, ridge_err *err);
    int (*build)(const void *arch, const ridge_run_config *rc, rw_graph *g, ridge_err *err);
    /* Activations, KV cache (and nothing else: weights, gradients, optimizer and workspace are
     * common, see model.c). */
    int (*memory)(const void *arch, const ridge_run_config *rc, ridge_memory *m, ridge_err *err);
    double (*flops)(const void *arch, const ridge_run_config *rc); /* model FLOPs of one step */
    const char *(*unit)(const void *arch, const ridge_run_config *rc);
    double (*items)(const void *arch, const ridge_run_config *rc);
    /* Parameters held by mixture-of-experts experts (sharded by expert parallelism); NULL = none. */
    double (*expert_params)(const void *arch);
    /* Parameters a run whose weights are 8-bit or narrower (fp8, int8, int4) keeps in 16-bit: the
     * token embedding and the LM head, which quantized checkpoints leave unquantized
     * (docs/workloads.md, "Precision"); NULL = none. */
    double (*wide_params)(const void *arch);
} rw_family;

extern const rw_family rw_family_transformer;
extern const rw_family rw_family_cnn;
extern const rw_family rw_family_rnn;

/* 1 when training in fp16/bf16 (mixed precision: half weights + FP32 master weights). */
int rw_mixed_precision(ridge_dtype precision);

#endif
