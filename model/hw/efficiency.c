/* Default efficiency parameters. Every constant here is explained in docs/model.md, section
 * "Default efficiency parameters"; `ridge calibrate` replaces them with fitted values.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "ridge/efficiency.h"

#include "efficiency_inline.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Share of the dense tensor peak a large aligned cuBLAS/CUTLASS GEMM sustains: the mean of
 * two independent observations in shared/gpu-specs.md §8, A100 SXM CUTLASS 235/312 = 0.753
 * and A40 torch BF16 122.3/149.7 = 0.817 (the H200 figure is kept out: it is a test case). */
#define RIDGE_DEFAULT_TENSOR_FRACTION 0.785
/* FP32/FP64 FMA on the vector path: non-dual-issue parts sustain ~0.9 in SGEMM/DGEMM. */
#define RIDGE_DEFAULT_VECTOR_FRACTION 0.90
/* GA10x/AD10x count 128 FP32 lanes per SM of which 64 are shared with INT32: A40 SGEMM reaches
 * 23.7/37.4 = 0.63 (gpu-specs §8), A10 CUTLASS ~20/31.2 (§8, CUTLASS-941). */
#define RIDGE_DEFAULT_VECTOR_FRACTION_DUAL_ISSUE 0.64
/* Large streaming kernels reach ~90% of the DRAM datasheet bandwidth (ANCHORS.md). */
#define RIDGE_DEFAULT_DRAM_FRACTION 0.90
/* L2 delivers ~32 bytes per clock per SM (A100 estimate 5,288 GB/s / 108 SMs / 1.41 GHz = 34.7). */
#define RIDGE_DEFAULT_L2_BYTES_PER_CLOCK_PER_SM 32.0
/* GPU-side duration of a minimal kernel: launch, block dispatch, ramp-up and drain. */
#define RIDGE_DEFAULT_KERNEL_FLOOR_S 2.5e-6
/* The same for a kernel replayed right after the same kernel in a CUDA graph, whose node the GPU
 * front end has ready: 1.0 us per tiny kernel (h200-2026-11-29/a/add_fp32_2^10/graph, 100 adds
 * replayed: 1.011 us; ^14: 1.253 us). A step's other kernels keep kernel_floor_s (docs/model.md §7). */
#define RIDGE_DEFAULT_GRAPH_KERNEL_FLOOR_S 1.0e-6
/* The floors are the GPU's own cycles (the front end's launch processing, block dispatch, ramp-up,
 * drain): given at the H200's 1.98 GHz boost clock, where the records that set them were taken
 * (the graph floor's add replays, the decode graphs that keep the kernel floor: docs/model.md §7),
 * they scale as 1 / boost_clock_hz (docs/model.md §9; an A100 at 1.41 GHz: 3.5 and 1.4 us). */
#define RIDGE_DEFAULT_FLOOR_CLOCK_HZ 1.98e9
/* DRAM load-to-use latency (~400 cycles at 1.4-2 GHz plus the L2 path; gpu-specs §9). */
#define RIDGE_DEFAULT_DRAM_LATENCY_S 600e-9
/* Eager host cost of one kernel launch: the CUDA launch call, 5.1 us per launch issued back to
 * back on an H200 (gpu-specs §9). */
#define RIDGE_DEFAULT_HOST_LAUNCH_S 5e-6
/* Framework dispatch per operator in eager mode (Python, the dispatcher, allocator), on top of the
 * launches: an estimate, ~3 us; 0 for plain CUDA programs. */
#define RIDGE_DEFAULT_FRAMEWORK_OP_S 3e-6
/* Per kernel replayed inside a CUDA graph (0.58 us per node, gpu-specs §9 OCANNL-488). */
#define RIDGE_DEFAULT_GRAPH_LAUNCH_S 0.6e-6

static const char *const peak_keys[RIDGE_PEAK_COUNT] = {
    "fp64", "fp64_tensor", "fp32", "fp16_vector", "tf32", "fp16", "fp16_fp32acc", "bf16", "fp8", "int8", "int4",
};
static const char *const peak_labels[RIDGE_PEAK_COUNT] = {
    "FP64 vector",         "FP64 tensor", "FP32 vector",  "FP16 vector", "TF32 tensor", "FP16 tensor (FP16 acc)",
    "FP16 tensor (FP32 acc)", "BF16 tensor", "FP8 tensor", "INT8 tensor", "INT4 tensor",
};

const char *ridge_peak_key(ridge_peak p)
{
    return (unsigned)p < RIDGE_PEAK_COUNT ? peak_keys[p] : "?";
}

const char *ridge_peak_label(ridge_peak p)
{
    return (unsigned)p < RIDGE_PEAK_COUNT ? peak_labels[p] : "?";
}

int ridge_peak_is_tensor(ridge_peak p)
{
    return rh_peak_is_tensor(p);
}

int ridge_peak_is_integer(ridge_peak p)
{
    return p == RIDGE_PEAK_INT8 || p == RIDGE_PEAK_INT4;
}

static int dual_issue_fp32(const char *compute_capability)
{
    /* GA102/GA104/AD10x: compute capability 8.6 and 8.9. */
    return strcmp(compute_capability, "8.6") == 0 || strcmp(compute_capability, "8.9") == 0;
}

void ridge_efficiency_defaults(const char *compute_capability, int sm_count, double boost_clock_hz,
                               double memory_bw_bytes_per_s, ridge_efficiency *e)
{
    double l2, cycles = boost_clock_hz > 0 ? RIDGE_DEFAULT_FLOOR_CLOCK_HZ / boost_clock_hz : 1.0;
    memset(e, 0, sizeof *e);
    e->tensor_fraction = RIDGE_DEFAULT_TENSOR_FRACTION;
    e->vector_fraction = dual_issue_fp32(compute_capability) ? RIDGE_DEFAULT_VECTOR_FRACTION_DUAL_ISSUE : RIDGE_DEFAULT_VECTOR_FRACTION;
    e->dram_fraction = RIDGE_DEFAULT_DRAM_FRACTION;
    l2 = RIDGE_DEFAULT_L2_BYTES_PER_CLOCK_PER_SM * sm_count * boost_clock_hz;
    /* An L2 slower than DRAM would make the cache a penalty; keep it at least 2x DRAM. */
    if (l2 < 2.0 * memory_bw_bytes_per_s)
        l2 = 2.0 * memory_bw_bytes_per_s;
    e->l2_bandwidth_bytes_per_s = l2;
    e->kernel_floor_s = RIDGE_DEFAULT_KERNEL_FLOOR_S * cycles;
    e->dram_latency_s = RIDGE_DEFAULT_DRAM_LATENCY_S;
    e->host_launch_s = RIDGE_DEFAULT_HOST_LAUNCH_S;
    e->graph_launch_s = RIDGE_DEFAULT_GRAPH_LAUNCH_S;
    e->framework_op_s = RIDGE_DEFAULT_FRAMEWORK_OP_S;
    e->graph_kernel_floor_s = RIDGE_DEFAULT_GRAPH_KERNEL_FLOOR_S * cycles;
    e->from_file_mask = 0;
    snprintf(e->source, sizeof e->source, "defaults (docs/model.md)");
}

/* The scalar fields, in the order of RIDGE_EFF_FIELD_COUNT: their JSON names and places. */
static const struct {
    const char *name;
    size_t offset;
} fields[RIDGE_EFF_FIELD_COUNT] = {
    {"tensor_fraction", offsetof(ridge_efficiency, tensor_fraction)},
    {"vector_fraction", offsetof(ridge_efficiency, vector_fraction)},
    {"dram_fraction", offsetof(ridge_efficiency, dram_fraction)},
    {"l2_bandwidth_bytes_per_s", offsetof(ridge_efficiency, l2_bandwidth_bytes_per_s)},
    {"kernel_floor_s", offsetof(ridge_efficiency, kernel_floor_s)},
    {"dram_latency_s", offsetof(ridge_efficiency, dram_latency_s)},
    {"host_launch_s", offsetof(ridge_efficiency, host_launch_s)},
    {"graph_launch_s", offsetof(ridge_efficiency, graph_launch_s)},
    {"framework_op_s", offsetof(ridge_efficiency, framework_op_s)},
    {"graph_kernel_floor_s", offsetof(ridge_efficiency, graph_kernel_floor_s)},
};

const char *ridge_efficiency_field_name(int i)
{
    return i >= 0 && i < RIDGE_EFF_FIELD_COUNT ? fields[i].name : NULL;
}

double *ridge_efficiency_field(ridge_efficiency *e, int i)
{
    return i >= 0 && i < RIDGE_EFF_FIELD_COUNT ? (double *)((char *)e + fields[i].offset) : NULL;
}

double ridge_efficiency_get(const ridge_efficiency *e, int i)
{
    return i >= 0 && i < RIDGE_EFF_FIELD_COUNT ? *(const double *)((const char *)e + fields[i].offset) : 0;
}

double ridge_efficiency_fraction(const ridge_efficiency *e, ridge_peak p)
{
    return rh_efficiency_fraction(e, p);
}
