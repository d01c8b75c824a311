/* Rendering a chart the plots library wrote (CHART.dat and CHART.gp) with gnuplot, when it is here:
 * one wording of the note and the errors for every command that draws one.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_CHART_RENDER_H
#define RIDGE_CLI_CHART_RENDER_H

#include "ridge/plot.h"

/* Render paths->gp into paths->chart (ridge_gnuplot_run). Without gnuplot: success, and when
 * `kept` (the .dat and .gp stay beside the chart) a note on stderr that names them and how to
 * render them; a failed run's error says they are kept. A caller that removes them (the report,
 * which inlines the chart) passes 0: no note, the error alone. Returns an exit code; *rendered is
 * set to 1 when the chart was drawn, else left as it is. What a command says of a drawn chart is
 * its own. */
int cli_chart_render(const ridge_plot_paths *paths, int kept, int *rendered);

/* cli_refuse_output_over_input (cli.h) for a chart's three files, flag "-o": a chart whose
 * CHART.dat or CHART.gp is an input file (a trace named load.dat, charted as load.png) would
 * replace it. */
int cli_refuse_chart_over_input(const char *cmd, const ridge_plot_paths *paths, const char *const *inputs, int n);

/* cli_chart_render, then "ridge: wrote CHART (data DAT, script GP)" on stderr when drawn. */
int cli_chart_render_noted(const ridge_plot_paths *paths);

#endif
