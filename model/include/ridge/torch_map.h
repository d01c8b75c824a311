/* ridge — mapping a PyTorch end-to-end measurement (validation/torch/wl_NAME.py; docs/validation.md, "config of a
 * PyTorch end-to-end measurement") to the ridge model and run that describe the same step.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_TORCH_MAP_H
#define RIDGE_TORCH_MAP_H

#include <stddef.h>

#include "ridge/kernel.h"   /* ridge_runtime */
#include "ridge/workload.h" /* ridge_model, ridge_run_config */

#ifdef __cplusplus
extern "C" {
#endif

/* Map the config of a PyTorch end-to-end measurement (docs/validation.md), the JSON text cfg_json
 * of len bytes (NULL, or not JSON: a reason), to the ridge model that
 * describes exactly the network that ran (layers_run layers, etc.) and its run configuration.
 * Returns NULL on success (*model is then owned by the caller: ridge_model_free) or a short,
 * static, human-readable skip reason ("unknown torch workload family", ...). Never crashes on
 * malformed configs (missing/wrong-typed keys -> a reason).
 *
 * On success *rc holds mode, batch, seq/image/prompt/context, precision, optimizer (train),
 * optimizer_impl, unfused_attention and, for RNNs, hidden/layers; *rt the runtime. On failure
 * *model is NULL and *rc, *rt hold ridge's defaults. The model is checked against the run
 * (ridge_model_memory) before it is returned, so a mapped pair always predicts. */
const char *ridge_torch_map(const char *cfg_json, size_t len, ridge_model **model, ridge_run_config *rc,
                            ridge_runtime *rt);

#ifdef __cplusplus
}
#endif
#endif
