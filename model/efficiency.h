/* Private: documented default efficiency parameters by architecture (docs/model.md §Defaults).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_EFFICIENCY_H
#define RIDGE_EFFICIENCY_H

#include "ridge/gpu.h"

/* Fill *e with the defaults for gpu (its peaks, memory, SMs and clocks must already be set). */
void ridge_efficiency_defaults(const ridge_gpu *gpu, ridge_efficiency *e);

#endif
