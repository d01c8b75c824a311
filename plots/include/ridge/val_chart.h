/* ridge — the chart of a validation's cases (plots/val_chart.c, `ridge validate --chart`): the
 * cases of ridge/validate.h as ridge_validation_write sets, one per unit.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_VAL_CHART_H
#define RIDGE_VAL_CHART_H

#include "ridge/plot.h"
#include "ridge/validate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most sets of the chart: a 17th unit and beyond share the last set. */
#define RIDGE_VAL_CHART_MAX_SETS 16

/* Write paths->dat and paths->gp (ridge_validation_write) for the cases of s: one set per unit
 * in order of first appearance, each case numbered in input order; the title names the style,
 * the note the MAPE and the cases within 10 % and 25 %. No cases: one empty set, so the chart
 * still shows the bands. Statuses of ridge_validation_write; RIDGE_ENOMEM. */
int ridge_val_chart_write(const ridge_val_cases *s, ridge_validation_style style, const ridge_plot_paths *paths,
                          ridge_err *err);

#ifdef __cplusplus
}
#endif
#endif
