/* The fixed colours of the charts, the same on every chart. SPDX-License-Identifier: GPL-3.0-or-later */
#include "ridge/plot.h"

/* Indexed by ridge_bound: compute red, DRAM blue, L2 green, latency orange, host grey. */
static const char *const bound_colors[RIDGE_BOUND_COUNT] = {"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e",
                                                            "#7f7f7f"};

const char *ridge_plot_bound_color(ridge_bound bound)
{
    return (unsigned)bound < RIDGE_BOUND_COUNT ? bound_colors[bound] : NULL;
}
