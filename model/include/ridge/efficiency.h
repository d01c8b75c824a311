/* ridge — peak kinds and the performance model's efficiency parameters (docs/model.md §9).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Below ridge/gpu.h: a ridge_gpu holds one ridge_efficiency (its `eff`), and the defaults are
 * computed from the few GPU figures they depend on, so this layer needs no ridge_gpu. */
#ifndef RIDGE_EFFICIENCY_H
#define RIDGE_EFFICIENCY_H

#ifdef __cplusplus
extern "C" {
#endif

/* Dense peak kinds, in the order of the JSON object `peak_dense_flops_per_s`. */
typedef enum {
    RIDGE_PEAK_FP64 = 0,
    RIDGE_PEAK_FP64_TENSOR,
    RIDGE_PEAK_FP32,
    RIDGE_PEAK_FP16_VECTOR,
    RIDGE_PEAK_TF32,
    RIDGE_PEAK_FP16,         /* tensor, FP16 accumulate */
    RIDGE_PEAK_FP16_FP32ACC, /* tensor, FP32 accumulate */
    RIDGE_PEAK_BF16,
    RIDGE_PEAK_FP8,
    RIDGE_PEAK_INT8,
    RIDGE_PEAK_INT4,
    RIDGE_PEAK_COUNT
} ridge_peak;

/* JSON key ("fp16_fp32acc"), and a human label ("FP16 tensor, FP32 acc"). */
const char *ridge_peak_key(ridge_peak p);
const char *ridge_peak_label(ridge_peak p);
/* 1 for kinds that run on tensor (matrix) cores, 0 for the vector path. */
int ridge_peak_is_tensor(ridge_peak p);
/* 1 for integer kinds (figures are operations per second). */
int ridge_peak_is_integer(ridge_peak p);

/* Parameters of the performance model (docs/model.md). Always filled: from the file where
 * given, else from the documented defaults for the architecture (see `from_file_mask`). */
typedef struct {
    double tensor_fraction;          /* achievable share of the dense tensor peak */
    double vector_fraction;          /* achievable share of the vector peak */
    double dram_fraction;            /* achievable share of DRAM bandwidth */
    double l2_bandwidth_bytes_per_s; /* achievable L2 bandwidth */
    double kernel_floor_s;           /* GPU time of an empty kernel */
    double dram_latency_s;           /* for the Little's-law limit of small kernels */
    double host_launch_s;            /* eager host cost of one kernel launch (the CUDA API call) */
    double graph_launch_s;           /* per kernel inside a CUDA graph */
    double framework_op_s;           /* eager framework dispatch per operator (0 for plain CUDA) */
    double graph_kernel_floor_s;     /* GPU time of an empty kernel replayed after itself in a CUDA graph */
    unsigned from_file_mask;         /* bit i set: i-th field above came from the file */
    /* Achievable share of one peak, overriding tensor_fraction / vector_fraction for it
     * (JSON `fraction_by_peak`, keys as in peak_dense_flops_per_s); 0 = not set. */
    double fraction_by_peak[RIDGE_PEAK_COUNT];
    char source[240];
} ridge_efficiency;

#define RIDGE_EFF_FIELD_COUNT 10 /* the doubles above from tensor_fraction to graph_kernel_floor_s */
/* Name of the i-th efficiency field ("tensor_fraction"...), and a pointer to it. */
const char *ridge_efficiency_field_name(int i);
double *ridge_efficiency_field(ridge_efficiency *e, int i);
double ridge_efficiency_get(const ridge_efficiency *e, int i);
/* The achievable share of peak p: fraction_by_peak[p] when set, else tensor_fraction or
 * vector_fraction by the kind of p. */
double ridge_efficiency_fraction(const ridge_efficiency *e, ridge_peak p);

/* Fill *e with the documented defaults for a GPU of compute capability `compute_capability`
 * ("8.6"), `sm_count` SMs at `boost_clock_hz`, with `memory_bw_bytes_per_s` of DRAM bandwidth. */
void ridge_efficiency_defaults(const char *compute_capability, int sm_count, double boost_clock_hz,
                               double memory_bw_bytes_per_s, ridge_efficiency *e);

#ifdef __cplusplus
}
#endif

#endif
