/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "chart_render.h"

#include <stdio.h>

#include "cli.h"

int cli_chart_render(const ridge_plot_paths *paths, int kept, int *rendered)
{
    ridge_err err = {{0}};
    int st;
    if (!ridge_gnuplot_find(NULL, 0)) {
        if (kept)
            fprintf(stderr, "ridge: gnuplot not found; wrote %s and %s; render with: gnuplot %s\n", paths->dat, paths->gp,
                    paths->gp);
        return CLI_EXIT_OK;
    }
    st = ridge_gnuplot_run(paths, &err);
    if (st != RIDGE_OK) {
        cli_error(kept ? "%s (the .dat and .gp are kept)" : "%s", err.msg);
        return cli_exit_code(st);
    }
    *rendered = 1;
    return CLI_EXIT_OK;
}

int cli_chart_render_noted(const ridge_plot_paths *paths)
{
    int rendered = 0;
    int rc = cli_chart_render(paths, 1, &rendered);
    if (rc == CLI_EXIT_OK && rendered)
        fprintf(stderr, "ridge: wrote %s (data %s, script %s)\n", paths->chart, paths->dat, paths->gp);
    return rc;
}

int cli_refuse_chart_over_input(const char *cmd, const ridge_plot_paths *paths, const char *const *inputs, int n)
{
    const char *out[3] = {paths->chart, paths->dat, paths->gp};
    int rc = CLI_EXIT_OK;
    for (int i = 0; i < 3 && rc == CLI_EXIT_OK; i++)
        rc = cli_refuse_output_over_input(cmd, "-o", out[i], inputs, n);
    return rc;
}
