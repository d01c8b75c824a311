/* Private: ridge_peak_is_tensor and ridge_efficiency_fraction as inline functions, for the kernel
 * model's hot paths (a call into the shared library's exported symbol goes through the PLT and
 * cannot be inlined). efficiency.c's exported functions are these.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_EFFICIENCY_INLINE_H
#define RIDGE_EFFICIENCY_INLINE_H

#include "ridge/efficiency.h"

static inline int rh_peak_is_tensor(ridge_peak p)
{
    return !(p == RIDGE_PEAK_FP64 || p == RIDGE_PEAK_FP32 || p == RIDGE_PEAK_FP16_VECTOR);
}

static inline double rh_efficiency_fraction(const ridge_efficiency *e, ridge_peak p)
{
    if ((int)p >= 0 && p < RIDGE_PEAK_COUNT && e->fraction_by_peak[p] > 0)
        return e->fraction_by_peak[p];
    return rh_peak_is_tensor(p) ? e->tensor_fraction : e->vector_fraction;
}

#endif
