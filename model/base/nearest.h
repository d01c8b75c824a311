/* Private: "did you mean" suggestions for unknown ids (GPUs, workloads, clusters).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_NEAREST_H
#define RIDGE_NEAREST_H

#include <stddef.h>

/* Write the three names of names[0..n) nearest to query into out ("a, b, c"): by edit distance,
 * with a name containing the query (or contained in it) counted as at most 2 edits away. */
void ridge_nearest_names(const char *query, const char *(*name_at)(size_t i), size_t n, char *out, size_t cap);

#endif
