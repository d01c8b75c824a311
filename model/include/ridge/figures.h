/* ridge — the figures of a GPU that `gpu show` and `compare` print: raw datasheet fields and
 * derived ones (ridge points, FLOP/s per watt, bandwidth per FLOP, per dollar).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_FIGURES_H
#define RIDGE_FIGURES_H

#include <stddef.h>

#include "ridge/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { RIDGE_BETTER_NONE = 0, RIDGE_BETTER_HIGHER, RIDGE_BETTER_LOWER } ridge_better;

typedef struct {
    const char *key;        /* snake_case with SI unit: "memory_bandwidth_bytes_per_s" */
    const char *group;      /* "compute", "memory", ... */
    const char *label;      /* "Memory bandwidth" */
    const char *unit;       /* display unit: "GB/s" ("" for counts and text) */
    double scale;           /* display value = SI value / scale */
    ridge_better better;    /* which way wins in `compare` */
    int derived;            /* 1: computed by ridge, not a datasheet field */
    const char *source_key; /* field path in the GPU file whose source applies, or NULL */
} ridge_figure_info;

typedef enum { RIDGE_FIGURE_ABSENT = 0, RIDGE_FIGURE_NUMBER = 1, RIDGE_FIGURE_TEXT = 2 } ridge_figure_kind;

size_t ridge_figure_count(void);
const ridge_figure_info *ridge_figure(size_t i);
/* Value of figure i for gpu: a number (SI units) in *num or a string in text. */
ridge_figure_kind ridge_figure_value(const ridge_gpu *gpu, size_t i, double *num, char *text, size_t cap);
/* The source string for a field path (exact key, else the nearest enclosing group), or NULL. */
const char *ridge_gpu_source_for(const ridge_gpu_provenance *prov, const char *field_path);

#ifdef __cplusplus
}
#endif
#endif
