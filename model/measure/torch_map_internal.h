/* Private: ridge_torch_map on a config already parsed, for the measurement reader (measure.c).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_TORCH_MAP_INTERNAL_H
#define RIDGE_TORCH_MAP_INTERNAL_H

#include <cjson/cJSON.h>

#include "ridge/torch_map.h"

/* ridge_torch_map (ridge/torch_map.h) of the config object cfg (NULL or not an object: a reason). */
const char *ridge_torch_map_config(const cJSON *cfg, ridge_model **model, ridge_run_config *rc, ridge_runtime *rt);

#endif
