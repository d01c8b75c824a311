/* Figures of a GPU: raw fields and derived ratios (docs/cli.md, "gpu show" and "compare").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "ridge/figures.h"

#include <stdio.h>
#include <string.h>

enum {
    F_NAME, F_VENDOR, F_ARCH, F_CHIP, F_CC, F_FORM,
    F_PROCESS, F_FOUNDRY, F_DIE_AREA, F_TRANSISTORS, F_RT_CORES,
    F_SMS, F_LANES, F_TCORES, F_BASE_CLK, F_BOOST_CLK, F_TENSOR_CLK,
    F_PEAK0, /* RIDGE_PEAK_COUNT entries */
    F_MEM_TYPE = F_PEAK0 + RIDGE_PEAK_COUNT, F_ECC, F_MEM_CAP, F_MEM_BW, F_BUS, F_L2, F_L2_WHOLE, F_SMEM, F_WARPS, F_MEM_PER_SM,
    F_RIDGE_FP32, F_RIDGE_TF32, F_RIDGE_FP16, F_RIDGE_BF16, F_RIDGE_FP8, F_RIDGE_INT8,
    F_BW_PER_TFLOP, F_FP32_PER_W, F_TENSOR_PER_W, F_BW_PER_W,
    F_NVL_KIND, F_NVL_LINKS, F_NVL_BW, F_PCIE_GEN, F_PCIE_BW,
    F_TDP,
    F_PRICE_H, F_PRICE_KIND, F_PRICE_SPOT, F_PRICE_LIST, F_TENSOR_PER_USD_H, F_TENSOR_PER_KUSD, F_PRICE_DATE,
    F_MIG_COUNT, F_MIG_MAX, F_MIG_LIST,
    F_COUNT
};

#define H RIDGE_BETTER_HIGHER
#define L RIDGE_BETTER_LOWER
#define N RIDGE_BETTER_NONE
static const ridge_figure_info figures[F_COUNT] = {
    [F_NAME] = {"name", "identity", "Name", "", 1, N, 0, NULL},
    [F_VENDOR] = {"vendor", "identity", "Vendor", "", 1, N, 0, NULL},
    [F_ARCH] = {"architecture", "identity", "Architecture", "", 1, N, 0, "architecture"},
    [F_CHIP] = {"chip", "identity", "Chip", "", 1, N, 0, "chip"},
    [F_CC] = {"compute_capability", "identity", "Compute capability", "", 1, N, 0, "compute_capability"},
    [F_FORM] = {"form_factor", "identity", "Form factor", "", 1, N, 0, "form_factor"},
    [F_PROCESS] = {"process", "die", "Process", "", 1, N, 0, "die.process"},
    [F_FOUNDRY] = {"foundry", "die", "Foundry", "", 1, N, 0, "die.foundry"},
    [F_DIE_AREA] = {"die_area_mm2", "die", "Die area", "mm²", 1, N, 0, "die.area_mm2"},
    [F_TRANSISTORS] = {"transistors", "die", "Transistors", "B", 1e9, N, 0, "die.transistors"},
    [F_RT_CORES] = {"rt_cores", "die", "RT cores", "", 1, N, 0, "rt_cores"},
    [F_SMS] = {"sm_count", "compute", "SMs (AMD: CUs)", "", 1, H, 0, "sm_count"},
    [F_LANES] = {"fp32_lanes", "compute", "FP32 lanes (CUDA cores)", "", 1, H, 0, "fp32_lanes"},
    [F_TCORES] = {"tensor_cores", "compute", "Tensor cores", "", 1, H, 0, "tensor_cores"},
    [F_BASE_CLK] = {"base_clock_hz", "compute", "Base clock", "MHz", 1e6, H, 0, "base_clock_hz"},
    [F_BOOST_CLK] = {"boost_clock_hz", "compute", "Boost clock", "MHz", 1e6, H, 0, "boost_clock_hz"},
    [F_TENSOR_CLK] = {"tensor_clock_hz", "compute", "Tensor-peak clock", "MHz", 1e6, H, 0, "tensor_clock_hz"},
    [F_PEAK0 + RIDGE_PEAK_FP64] = {"peak_fp64_flops_per_s", "peak", "FP64 vector", "TFLOP/s", 1e12, H, 0, "peak_dense_flops_per_s.fp64"},
    [F_PEAK0 + RIDGE_PEAK_FP64_TENSOR] = {"peak_fp64_tensor_flops_per_s", "peak", "FP64 tensor", "TFLOP/s", 1e12, H, 0, "peak_dense_flops_per_s.fp64_tensor"},
    [F_PEAK0 + RIDGE_PEAK_FP32] = {"peak_fp32_flops_per_s", "peak", "FP32 vector", "TFLOP/s", 1e12, H, 0, "peak_dense_flops_per_s.fp32"},
    [F_PEAK0 + RIDGE_PEAK_FP16_VECTOR] = {"peak_fp16_vector_flops_per_s", "peak", "FP16 vector", "TFLOP/s", 1e12, H, 0, "peak_dense_flops_per_s.fp16_vector"},
    [F_PEAK0 + RIDGE_PEAK_TF32] = {"peak_tf32_flops_per_s", "peak", "TF32 tensor", "TFLOP/s", 1e12, H, 0, "peak_dense_flops_per_s.tf32"},
    [F_PEAK0 + RIDGE_PEAK_FP16] = {"peak_fp16_flops_per_s", "peak", "FP16 tensor, FP16 acc", "TFLOP/s", 1e12, H, 0, "peak_dense_flops_per_s.fp16"},
    [F_PEAK0 + RIDGE_PEAK_FP16_FP32ACC] = {"peak_fp16_fp32acc_flops_per_s", "peak", "FP16 tensor, FP32 acc", "TFLOP/s", 1e12, H, 0, "peak_dense_flops_per_s.fp16_fp32acc"},
    [F_PEAK0 + RIDGE_PEAK_BF16] = {"peak_bf16_flops_per_s", "peak", "BF16 tensor", "TFLOP/s", 1e12, H, 0, "peak_dense_flops_per_s.bf16"},
    [F_PEAK0 + RIDGE_PEAK_FP8] = {"peak_fp8_flops_per_s", "peak", "FP8 tensor", "TFLOP/s", 1e12, H, 0, "peak_dense_flops_per_s.fp8"},
    [F_PEAK0 + RIDGE_PEAK_INT8] = {"peak_int8_ops_per_s", "peak", "INT8 tensor", "TOP/s", 1e12, H, 0, "peak_dense_flops_per_s.int8"},
    [F_PEAK0 + RIDGE_PEAK_INT4] = {"peak_int4_ops_per_s", "peak", "INT4 tensor", "TOP/s", 1e12, H, 0, "peak_dense_flops_per_s.int4"},
    [F_MEM_TYPE] = {"memory_type", "memory", "Memory type", "", 1, N, 0, "memory.type"},
    [F_ECC] = {"memory_ecc", "memory", "ECC memory", "", 1, N, 0, "memory.ecc"},
    [F_MEM_CAP] = {"memory_bytes", "memory", "Memory capacity", "GiB", 1073741824.0, H, 0, "memory.capacity_bytes"},
    [F_MEM_BW] = {"memory_bandwidth_bytes_per_s", "memory", "Memory bandwidth", "GB/s", 1e9, H, 0, "memory.bandwidth_bytes_per_s"},
    [F_BUS] = {"memory_bus_width_bits", "memory", "Memory bus width", "bit", 1, H, 0, "memory.bus_width_bits"},
    [F_L2] = {"l2_bytes", "memory", "L2 cache", "MiB", 1048576.0, H, 0, "l2_bytes"},
    [F_L2_WHOLE] = {"l2_full_hit_bytes", "memory", "L2 served whole (cache rule)", "MiB", 1048576.0, H, 1, NULL},
    [F_SMEM] = {"shared_memory_per_sm_bytes", "memory", "Shared memory per SM", "KiB", 1024.0, H, 0, "sm.shared_memory_bytes"},
    [F_WARPS] = {"max_warps_per_sm", "memory", "Max resident warps per SM", "", 1, H, 0, "sm.max_warps"},
    [F_MEM_PER_SM] = {"memory_per_sm_bytes", "memory", "Memory per SM", "MiB", 1048576.0, H, 1, NULL},
    [F_RIDGE_FP32] = {"ridge_point_fp32_flops_per_byte", "balance", "Ridge point FP32", "FLOP/B", 1, N, 1, NULL},
    [F_RIDGE_TF32] = {"ridge_point_tf32_flops_per_byte", "balance", "Ridge point TF32", "FLOP/B", 1, N, 1, NULL},
    [F_RIDGE_FP16] = {"ridge_point_fp16_fp32acc_flops_per_byte", "balance", "Ridge point FP16 (FP32 acc)", "FLOP/B", 1, N, 1, NULL},
    [F_RIDGE_BF16] = {"ridge_point_bf16_flops_per_byte", "balance", "Ridge point BF16", "FLOP/B", 1, N, 1, NULL},
    [F_RIDGE_FP8] = {"ridge_point_fp8_flops_per_byte", "balance", "Ridge point FP8", "FLOP/B", 1, N, 1, NULL},
    [F_RIDGE_INT8] = {"ridge_point_int8_ops_per_byte", "balance", "Ridge point INT8", "OP/B", 1, N, 1, NULL},
    [F_BW_PER_TFLOP] = {"bandwidth_per_16bit_tensor_flop_bytes_per_flop", "balance", "Bandwidth per 16-bit tensor TFLOP/s", "GB/s per TFLOP/s", 1e-3, H, 1, NULL},
    [F_FP32_PER_W] = {"fp32_flops_per_s_per_w", "efficiency", "FP32 per watt", "GFLOP/s/W", 1e9, H, 1, NULL},
    [F_TENSOR_PER_W] = {"tensor_16bit_flops_per_s_per_w", "efficiency", "16-bit tensor per watt", "GFLOP/s/W", 1e9, H, 1, NULL},
    [F_BW_PER_W] = {"memory_bandwidth_bytes_per_s_per_w", "efficiency", "Memory bandwidth per watt", "GB/s/W", 1e9, H, 1, NULL},
    [F_NVL_KIND] = {"nvlink_kind", "interconnect", "NVLink / fabric", "", 1, N, 0, "interconnect.nvlink_kind"},
    [F_NVL_LINKS] = {"nvlink_links", "interconnect", "NVLink links", "", 1, H, 0, "interconnect.nvlink_links"},
    [F_NVL_BW] = {"nvlink_bandwidth_bytes_per_s_per_direction", "interconnect", "NVLink bandwidth per direction", "GB/s", 1e9, H, 0, "interconnect.nvlink_bandwidth_bytes_per_s_per_direction"},
    [F_PCIE_GEN] = {"pcie_generation", "interconnect", "PCIe generation", "", 1, H, 0, "interconnect.pcie_generation"},
    [F_PCIE_BW] = {"pcie_bandwidth_bytes_per_s_per_direction", "interconnect", "PCIe bandwidth per direction", "GB/s", 1e9, H, 1, NULL},
    [F_TDP] = {"tdp_w", "power", "Board power (TDP)", "W", 1, L, 0, "tdp_w"},
    [F_PRICE_H] = {"price_usd_per_hour", "price", "Price per GPU-hour", "USD/h", 1, L, 0, "price"},
    [F_PRICE_KIND] = {"price_kind", "price", "Price kind", "", 1, N, 0, "price"},
    [F_PRICE_SPOT] = {"price_spot_usd_per_hour", "price", "Spot price per GPU-hour", "USD/h", 1, L, 0, "price"},
    [F_PRICE_LIST] = {"price_usd_list", "price", "List price", "USD", 1, L, 0, "price"},
    [F_TENSOR_PER_USD_H] = {"tensor_16bit_flops_per_s_per_usd_per_hour", "price", "16-bit tensor per USD/h", "TFLOP/s per USD/h", 1e12, H, 1, NULL},
    [F_TENSOR_PER_KUSD] = {"tensor_16bit_flops_per_s_per_kusd_list", "price", "16-bit tensor per 1000 USD list", "TFLOP/s per kUSD", 1e12, H, 1, NULL},
    [F_PRICE_DATE] = {"price_date", "price", "Price date", "", 1, N, 0, "price"},
    [F_MIG_COUNT] = {"mig_profiles", "mig", "MIG profiles", "", 1, H, 0, "mig"},
    [F_MIG_MAX] = {"mig_max_instances", "mig", "MIG max instances", "", 1, H, 0, "mig"},
    [F_MIG_LIST] = {"mig_profile_names", "mig", "MIG profile names", "", 1, N, 0, "mig"},
};
#undef H
#undef L
#undef N

size_t ridge_figure_count(void)
{
    return F_COUNT;
}

const ridge_figure_info *ridge_figure(size_t i)
{
    return i < F_COUNT ? &figures[i] : NULL;
}

/* The 16-bit tensor rate a DL user gets: BF16 where present, else FP16 with FP32 accumulate. */
static double tensor16(const ridge_gpu *g)
{
    double v = g->peak_flops_per_s[RIDGE_PEAK_BF16];
    return v > 0 ? v : g->peak_flops_per_s[RIDGE_PEAK_FP16_FP32ACC];
}

static ridge_figure_kind text_value(const char *s, char *text, size_t cap)
{
    if (!s || !*s)
        return RIDGE_FIGURE_ABSENT;
    snprintf(text, cap, "%s", s);
    return RIDGE_FIGURE_TEXT;
}

static ridge_figure_kind num_value(double v, double *num)
{
    if (!(v > 0))
        return RIDGE_FIGURE_ABSENT;
    *num = v;
    return RIDGE_FIGURE_NUMBER;
}

static ridge_figure_kind ratio(double a, double b, double *num)
{
    return (a > 0 && b > 0) ? num_value(a / b, num) : RIDGE_FIGURE_ABSENT;
}

ridge_figure_kind ridge_figure_value(const ridge_gpu *g, size_t i, double *num, char *text, size_t cap)
{
    if (i >= F_PEAK0 && i < F_PEAK0 + RIDGE_PEAK_COUNT)
        return num_value(g->peak_flops_per_s[i - F_PEAK0], num);
    switch (i) {
    case F_NAME: return text_value(g->name, text, cap);
    case F_VENDOR: return text_value(g->vendor, text, cap);
    case F_ARCH: return text_value(g->architecture, text, cap);
    case F_CHIP: return text_value(g->chip, text, cap);
    case F_CC: return text_value(g->compute_capability, text, cap);
    case F_FORM: return text_value(g->form_factor, text, cap);
    case F_PROCESS: return text_value(g->process, text, cap);
    case F_FOUNDRY: return text_value(g->foundry, text, cap);
    case F_DIE_AREA: return num_value(g->die_area_mm2, num);
    case F_TRANSISTORS: return num_value(g->transistors, num);
    case F_RT_CORES:
        return g->rt_cores == RIDGE_GPU_NONE ? text_value("none", text, cap) : num_value(g->rt_cores, num);
    case F_ECC: return g->ecc ? text_value(g->ecc > 0 ? "yes" : "no", text, cap) : RIDGE_FIGURE_ABSENT;
    case F_SMS: return num_value(g->sm_count, num);
    case F_LANES: return num_value(g->fp32_lanes, num);
    case F_TCORES: return num_value(g->tensor_cores, num);
    case F_BASE_CLK: return num_value(g->base_clock_hz, num);
    case F_BOOST_CLK: return num_value(g->boost_clock_hz, num);
    case F_TENSOR_CLK: return num_value(g->tensor_clock_hz, num);
    case F_MEM_TYPE: return text_value(g->memory_type, text, cap);
    case F_MEM_CAP: return num_value(g->memory_bytes, num);
    case F_MEM_BW: return num_value(g->memory_bw_bytes_per_s, num);
    case F_BUS: return num_value(g->memory_bus_bits, num);
    case F_L2: return num_value(g->l2_bytes, num);
    case F_L2_WHOLE: return num_value(ridge_gpu_l2_full_hit_bytes(g), num);
    case F_SMEM: return num_value(g->smem_per_sm_bytes, num);
    case F_WARPS: return num_value(g->max_warps_per_sm, num);
    case F_MEM_PER_SM: return ratio(g->memory_bytes, g->sm_count, num);
    case F_RIDGE_FP32: return num_value(ridge_gpu_ridge_point(g, RIDGE_PEAK_FP32), num);
    case F_RIDGE_TF32: return num_value(ridge_gpu_ridge_point(g, RIDGE_PEAK_TF32), num);
    case F_RIDGE_FP16: return num_value(ridge_gpu_ridge_point(g, RIDGE_PEAK_FP16_FP32ACC), num);
    case F_RIDGE_BF16: return num_value(ridge_gpu_ridge_point(g, RIDGE_PEAK_BF16), num);
    case F_RIDGE_FP8: return num_value(ridge_gpu_ridge_point(g, RIDGE_PEAK_FP8), num);
    case F_RIDGE_INT8: return num_value(ridge_gpu_ridge_point(g, RIDGE_PEAK_INT8), num);
    case F_BW_PER_TFLOP: return ratio(g->memory_bw_bytes_per_s, tensor16(g), num);
    case F_FP32_PER_W: return ratio(g->peak_flops_per_s[RIDGE_PEAK_FP32], g->tdp_w, num);
    case F_TENSOR_PER_W: return ratio(tensor16(g), g->tdp_w, num);
    case F_BW_PER_W: return ratio(g->memory_bw_bytes_per_s, g->tdp_w, num);
    case F_NVL_KIND: return g->nvlink_links > 0 ? text_value(g->nvlink_kind[0] ? g->nvlink_kind : "yes", text, cap)
                                                : text_value("none", text, cap);
    case F_NVL_LINKS: return num_value(g->nvlink_links, num);
    case F_NVL_BW: return num_value(g->nvlink_bw_bytes_per_s, num);
    case F_PCIE_GEN: return num_value(g->pcie_generation, num);
    case F_PCIE_BW: return num_value(ridge_gpu_pcie_bw_bytes_per_s(g), num);
    case F_TDP: return num_value(g->tdp_w, num);
    case F_PRICE_H: return num_value(g->price_usd_per_hour, num);
    case F_PRICE_KIND: return text_value(strcmp(g->price_kind, "on_demand") == 0 ? "on demand" : g->price_kind, text, cap);
    case F_PRICE_SPOT: return num_value(g->price_spot_usd_per_hour, num);
    case F_PRICE_LIST: return num_value(g->price_usd_list, num);
    case F_TENSOR_PER_USD_H: return ratio(tensor16(g), g->price_usd_per_hour, num);
    case F_TENSOR_PER_KUSD: return ratio(tensor16(g), g->price_usd_list / 1000.0, num);
    case F_PRICE_DATE: return text_value(g->price_date, text, cap);
    case F_MIG_COUNT: return num_value(g->mig_count, num);
    case F_MIG_MAX: {
        int m = 0;
        for (int k = 0; k < g->mig_count; k++)
            m = g->mig[k].max_instances > m ? g->mig[k].max_instances : m;
        return num_value(m, num);
    }
    case F_MIG_LIST: {
        char buf[256] = "";
        for (int k = 0; k < g->mig_count; k++) {
            if (buf[0])
                strncat(buf, " ", sizeof buf - strlen(buf) - 1);
            strncat(buf, g->mig[k].profile, sizeof buf - strlen(buf) - 1);
        }
        return g->mig_count > 0 ? text_value(buf, text, cap) : text_value("none", text, cap);
    }
    default: return RIDGE_FIGURE_ABSENT;
    }
}

const char *ridge_gpu_source_for(const ridge_gpu_provenance *prov, const char *path)
{
    size_t best_len = 0;
    const char *best = NULL;
    if (!path)
        return NULL;
    for (int i = 0; i < prov->source_count; i++) {
        const char *k = prov->sources[i].key;
        size_t kl = strlen(k);
        if (strcmp(k, path) == 0)
            return prov->sources[i].value;
        if (strncmp(k, path, kl) == 0 && path[kl] == '.' && kl > best_len) {
            best = prov->sources[i].value;
            best_len = kl;
        }
    }
    return best;
}
