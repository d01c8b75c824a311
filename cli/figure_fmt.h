/* Formatting GPU figures for text, JSON and CSV (shared by gpu show and compare).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_FIGURE_FMT_H
#define RIDGE_CLI_FIGURE_FMT_H

#include <cjson/cJSON.h>

#include "ridge/figures.h"

typedef struct {
    ridge_figure_kind kind;
    double num;      /* SI */
    char text[256];  /* text value, or the display-unit number */
} cli_figure_val;

/* Facts a GPU file may leave out for want of a source (chip, die facts, RT cores, ECC): absent,
 * they read "unknown", not "-" (which elsewhere says the part has no such path or figure). */
int cli_figure_unknown_when_absent(const ridge_figure_info *f);
/* Evaluate figure i for g and format its display string. */
void cli_figure_eval(const ridge_gpu *g, size_t i, cli_figure_val *v);
/* The figure as a JSON value (number in SI, string, or null). */
cJSON *cli_figure_json(const cli_figure_val *v);

#endif
