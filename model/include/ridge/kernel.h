/* ridge — the kernel-level performance model: one op on one GPU (docs/model.md).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * ridge_kernel_predict is pure: no allocation, no global state, safe on many threads. */
#ifndef RIDGE_KERNEL_H
#define RIDGE_KERNEL_H

#include "ridge/error.h"
#include "ridge/gpu.h"
#include "ridge/op.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    RIDGE_BOUND_COMPUTE = 0, /* tensor or vector throughput */
    RIDGE_BOUND_MEMORY,      /* DRAM bandwidth */
    RIDGE_BOUND_L2,          /* L2 bandwidth */
    RIDGE_BOUND_LATENCY,     /* launch, ramp-up and memory latency floors */
    RIDGE_BOUND_HOST,        /* the GPU waits for the host to issue kernels (set by the schedule) */
    RIDGE_BOUND_COUNT
} ridge_bound;

extern const ridge_names ridge_bound_names; /* "compute", "memory", "l2", "latency", "host" */
const char *ridge_bound_name(ridge_bound b);

typedef enum { RIDGE_RUNTIME_EAGER = 0, RIDGE_RUNTIME_GRAPH } ridge_runtime;
/* "eager", "graph"; parse: RIDGE_OK, or RIDGE_EINVAL when unknown (ridge/names.h). */
extern const ridge_names ridge_runtime_names;
const char *ridge_runtime_name(ridge_runtime r);
int ridge_runtime_parse(const char *s, ridge_runtime *out);

typedef struct {
    /* Per instance of the op (its `count` not applied). */
    double time_s;     /* GPU time: floor + max(compute, memory, l2) */
    double flops;      /* useful FLOPs (not padded) */
    double dram_bytes; /* bytes to/from DRAM (0 when the working set stays in L2) */
    double l2_bytes;   /* bytes served by L2 without DRAM (hits, re-reads): with dram_bytes, the L2 traffic */
    double kernels;    /* kernel launches */
    /* Components of time_s. */
    double compute_s;  /* at the achievable peak, after tile and wave quantization */
    double memory_s;   /* DRAM: latency + bytes / min(bandwidth, Little's-law limit) */
    double l2_s;       /* (dram_bytes + l2_bytes) / L2 bandwidth: every byte passes the L2 */
    double floor_s;    /* kernels x kernel_floor_s */
    ridge_bound bound;
    ridge_peak peak;   /* the execution unit and precision used */
    int tensor;        /* 1 if tensor cores */
    /* Quantization details (GEMM-like ops; 0 elsewhere). */
    double tile_m, tile_n;
    double tiles;        /* output tiles (x split_k) */
    double waves;        /* tiles / concurrent tiles, unrounded */
    double wave_efficiency; /* waves / ceil(waves) */
    double split_k;
    double align_efficiency; /* 1 when the contiguous dims are 16-byte multiples */
    /* Derived. */
    double min_bytes;                /* compulsory bytes of the op (ridge_op_min_bytes) */
    double intensity_flops_per_byte; /* flops / min_bytes (0 if no bytes) */
    double achieved_flops_per_s;     /* flops / time_s */
    double achieved_bytes_per_s;     /* min_bytes / time_s */
    double roof_efficiency;          /* plain roofline max(flops/peak, min_bytes/bandwidth) / time_s */
} ridge_kernel_result;

/* Predict one instance of op on gpu. RIDGE_EUNSUPPORTED when the GPU lacks the precision
 * (e.g. an fp8 GEMM on an A100); RIDGE_EINVAL for an unknown op kind or when the model gives
 * no finite time. The op must pass
 * ridge_op_check (the op-list loader and the graph builders check theirs): the hot path does not
 * check sizes again, and an unchecked op (a zero or NaN side) gets whatever the arithmetic gives,
 * a result or an error. */
int ridge_kernel_predict(const ridge_gpu *gpu, const ridge_op *op, ridge_kernel_result *res, ridge_err *err);

/* GPU time of one instance of a predicted op when it runs in `rt` right after the same kernel: in
 * a CUDA graph each kernel's floor is then graph_kernel_floor_s instead of kernel_floor_s
 * (docs/model.md §1; a step's schedule gives it only to back-to-back repeats, §7). */
double ridge_kernel_time_in(const ridge_gpu *g, const ridge_kernel_result *r, ridge_runtime rt);

/* The peak an op's dtype and unit run at on this GPU, or -1 if the GPU has none. */
int ridge_kernel_peak_for(const ridge_gpu *gpu, ridge_dtype dt, int tensor);

#ifdef __cplusplus
}
#endif
#endif
