/* The hierarchical roofline: execution units, DRAM and L2 levels, latency floors, and how they
 * combine into one kernel's time and bound (docs/model.md, "Kernel time").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <string.h>

#include "roofline.h"

int rk_no_tensor_path(const ridge_gpu *g, ridge_dtype dt, ridge_err *err)
{
    char have[96] = "";
    for (int d = 0; d < RIDGE_DTYPE_COUNT; d++) {
        if (rk_tensor_peak(g, (ridge_dtype)d) < 0)
            continue;
        if (have[0])
            strncat(have, ", ", sizeof have - strlen(have) - 1);
        strncat(have, ridge_dtype_name((ridge_dtype)d), sizeof have - strlen(have) - 1);
    }
    return ridge_err_set(err, RIDGE_EUNSUPPORTED, "%s has no %s tensor path (it has: %s)", g->id,
                         ridge_dtype_name(dt), have[0] ? have : "none");
}

int ridge_kernel_peak_for(const ridge_gpu *g, ridge_dtype dt, int tensor)
{
    return tensor ? rk_tensor_peak(g, dt) : (int)rk_vector_peak(g, dt);
}

void rk_streaming(const rk_kernel_prepared *p, ridge_dtype dt, double flops, rk_bytes bytes, double kernels,
                  ridge_kernel_result *r)
{
    rk_streaming_in(p, dt, flops, bytes, kernels, r);
}

void rk_accumulate(ridge_kernel_result *a, const ridge_kernel_result *b, double times)
{
    a->time_s += b->time_s * times;
    a->flops += b->flops * times;
    a->dram_bytes += b->dram_bytes * times;
    a->l2_bytes += b->l2_bytes * times;
    a->kernels += b->kernels * times;
    a->compute_s += b->compute_s * times;
    a->memory_s += b->memory_s * times;
    a->l2_s += b->l2_s * times;
    a->floor_s += b->floor_s * times;
}

void rk_composite_bound(ridge_kernel_result *r)
{
    double bound_time[RIDGE_BOUND_COUNT] = {0};
    bound_time[RIDGE_BOUND_COMPUTE] = r->compute_s;
    bound_time[RIDGE_BOUND_MEMORY] = r->memory_s;
    bound_time[RIDGE_BOUND_L2] = r->l2_s;
    bound_time[RIDGE_BOUND_LATENCY] = r->floor_s;
    r->bound = RIDGE_BOUND_COMPUTE;
    for (int i = 1; i < RIDGE_BOUND_COUNT; i++)
        if (bound_time[i] > bound_time[r->bound])
            r->bound = (ridge_bound)i;
}
