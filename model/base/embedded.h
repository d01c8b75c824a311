/* Private: data files embedded at build time (cmake/embed.cmake).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_EMBEDDED_H
#define RIDGE_EMBEDDED_H

#include <stddef.h>

typedef struct {
    const char *name; /* file name without .json */
    const char *data; /* NUL-terminated */
    size_t len;
} ridge_embedded_file;

extern const ridge_embedded_file ridge_catalog_files[];
extern const size_t ridge_catalog_count_;
/* Built-in workload presets: the JSON files directly in workloads/. */
extern const ridge_embedded_file ridge_workload_files[];
extern const size_t ridge_workload_count_;

/* Built-in clusters: the JSON files in model/clusters/. */
extern const ridge_embedded_file ridge_cluster_files[];
extern const size_t ridge_cluster_count_;

#endif
