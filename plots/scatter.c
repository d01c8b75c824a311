/* Scatter charts: points per group (one colour per GPU) with optional highlighted joined sets
 * (a Pareto front), as a .dat with one block per set and a gnuplot script.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ridge/plot.h"
#include "ridge/version.h"
#include "textbuf.h"

/* The curve charts' palette (Okabe–Ito), one colour per group. */
static const char *const group_colors[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                           "#E69F00", "#56B4E9", "#000000", "#F0E442"};
#define NCOLORS (sizeof group_colors / sizeof group_colors[0])
static const int group_points[] = {7, 5, 9, 11, 13, 15}; /* filled circle, square, triangles... */
#define NPOINTS (sizeof group_points / sizeof group_points[0])

static int keep(double x, double y, const ridge_scatter_options *o)
{
    return isfinite(x) && isfinite(y) && (!o->log_x || x > 0) && (!o->log_y || y > 0);
}

int ridge_scatter_write(const ridge_scatter_series *series, size_t nseries, const ridge_scatter_options *opt,
                        const ridge_plot_paths *paths, ridge_err *err)
{
    static const ridge_scatter_options none = {0};
    rp_buf dat = {0}, gp = {0};
    int rc;
    if (!opt)
        opt = &none;
    if (!series || nseries == 0)
        return ridge_err_set(err, RIDGE_EINVAL, "scatter: no point sets to draw");
    if (!paths)
        return ridge_err_set(err, RIDGE_EINVAL, "scatter: no chart paths");
    for (size_t i = 0; i < nseries; i++) {
        if (series[i].group < 0)
            return ridge_err_set(err, RIDGE_EINVAL, "scatter: set %zu has group %d (need >= 0)", i, series[i].group);
        if (series[i].n && (!series[i].x || !series[i].y))
            return ridge_err_set(err, RIDGE_EINVAL, "scatter: set %zu has %zu points but no data", i, series[i].n);
    }

    /* ---- the .dat ---- */
    rp_dat_blocks_header(&dat, "scatter", opt->title, "set");
    rp_dat_xy_columns(&dat, opt->xlabel, opt->ylabel);
    rp_printf(&dat, "\n");
    for (size_t i = 0; i < nseries; i++) {
        size_t kept = 0;
        rp_dat_block_header(&dat, i, series[i].name, "set");
        rp_printf(&dat, "%s\n", series[i].line == 1 ? " (joined, highlighted)" : series[i].line ? " (joined)" : "");
        for (size_t k = 0; k < series[i].n; k++)
            if (keep(series[i].x[k], series[i].y[k], opt)) {
                rp_printf(&dat, "%.9g %.9g\n", series[i].x[k], series[i].y[k]);
                kept++;
            }
        if (!kept) /* gnuplot rejects an empty block in a plot command */
            rp_printf(&dat, "NaN NaN\n");
    }

    /* ---- the .gp ---- */
    rp_printf(&gp, "# ridge %s scatter chart\n", ridge_version());
    rp_gp_preamble(&gp, paths->gp, paths->dat, paths->chart);
    rp_gp_terminal(&gp, paths, 1000, 700, 12);
    rp_gp_title(&gp, opt->title, opt->note);
    rp_printf(&gp, "set xlabel ");
    rp_gp_string(&gp, opt->xlabel ? opt->xlabel : "x");
    rp_printf(&gp, "\nset ylabel ");
    rp_gp_string(&gp, opt->ylabel ? opt->ylabel : "y");
    rp_printf(&gp, "\n");
    if (opt->log_x)
        rp_printf(&gp, "set logscale x 10\nset mxtics 10\n");
    if (opt->log_y)
        rp_printf(&gp, "set logscale y 10\nset mytics 10\n");
    /* Tight autoscale plus a margin: log axes would otherwise round out to whole decades. */
    rp_printf(&gp, "set autoscale fix\nset offsets graph 0.05, graph 0.05, graph %s, graph %s\n",
              opt->key_outside ? "0.05" : "0.3", opt->y_from_zero && !opt->log_y ? "0" : "0.12");
    if (opt->y_from_zero && !opt->log_y)
        rp_printf(&gp, "set yrange [0:*]\n");
    rp_printf(&gp, 
                   "set format x '%%g'\nset format y '%%g'\n"
                   "set grid xtics ytics mxtics mytics lc rgb '#d8d8d8' lw 1, lc rgb '#f0f0f0' lw 1\n"
                   "set border lw 1.2\n"
                   "set key %s vertical Left reverse box opaque samplen 2 spacing 1.1 font ',11'\n"
                   "\nplot \\\n",
              opt->key_outside ? "outside right top" : "inside left bottom");
    for (size_t i = 0; i < nseries; i++) {
        const char *col = group_colors[(size_t)series[i].group % NCOLORS];
        if (series[i].line == 2)
            rp_printf(&gp, "    dat index %zu using 1:2 with linespoints lw 2 pt %d ps 1.1 lc rgb '%s' title ", i,
                      group_points[(size_t)series[i].group % NPOINTS], col);
        else if (series[i].line)
            rp_printf(&gp, "    dat index %zu using 1:2 with linespoints lw 3 lc rgb '#222222' pt 6 ps 2.2 title ",
                      i);
        else
            rp_printf(&gp, "    dat index %zu using 1:2 with points pt %d ps 1.3 lc rgb '%s' title ", i,
                      group_points[(size_t)series[i].group % NPOINTS], col);
        rp_gp_key_title(&gp, i, series[i].name, "set");
        rp_printf(&gp, "%s\n", i + 1 < nseries ? ", \\" : "");
    }

    rc = rp_write_pair(paths, &dat, &gp, err);
    free(dat.s);
    free(gp.s);
    return rc;
}
