/* Curve charts: y against x for several named series (latency against offered load, say), as a
 * .dat with one block per series and a gnuplot script drawing lines with points.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ridge/plot.h"
#include "textbuf.h"
#include "ridge/version.h"

/* Colour-blind-safe palette (Okabe–Ito), one colour per group. */
static const char *const group_colors[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                           "#E69F00", "#56B4E9", "#000000", "#F0E442"};
#define NCOLORS (sizeof group_colors / sizeof group_colors[0])
static const int dash_points[] = {7, 5, 9, 11, 13}; /* point type per dash pattern */
#define NPOINTS (sizeof dash_points / sizeof dash_points[0])

int ridge_curves_write(const ridge_curve_series *series, size_t nseries, const ridge_curve_options *opt,
                       const ridge_plot_paths *paths, ridge_err *err)
{
    static const ridge_curve_options none = {NULL, NULL, NULL, 0, 0, NULL, NULL, NULL};
    double ylo = HUGE_VAL, yhi = -HUGE_VAL;
    rp_buf dat = {0}, gp = {0};
    size_t npoints = 0;
    int rc;
    if (!opt)
        opt = &none;
    if (!series || nseries == 0)
        return ridge_err_set(err, RIDGE_EINVAL, "curves: no series to draw");
    if (!paths)
        return ridge_err_set(err, RIDGE_EINVAL, "curves: no chart paths");
    for (size_t i = 0; i < nseries; i++) {
        if (series[i].group < 0 || series[i].dash < 1)
            return ridge_err_set(err, RIDGE_EINVAL, "curves: series %zu has group %d, dash %d (need >= 0, >= 1)", i,
                                 series[i].group, series[i].dash);
        if (series[i].n && (!series[i].x || !series[i].y))
            return ridge_err_set(err, RIDGE_EINVAL, "curves: series %zu has %zu points but no data", i, series[i].n);
    }

    /* ---- the .dat ---- */
    rp_dat_blocks_header(&dat, "curves", opt->title, "series");
    rp_dat_xy_columns(&dat, opt->xlabel, opt->ylabel);
    rp_printf(&dat, "; points without a finite value are left out.\n");
    for (size_t i = 0; i < nseries; i++) {
        rp_dat_block_header(&dat, i, series[i].name, "series");
        rp_printf(&dat, "\n");
        for (size_t k = 0; k < series[i].n; k++)
            if (isfinite(series[i].x[k]) && isfinite(series[i].y[k]) && (!opt->log_y || series[i].y[k] > 0)) {
                rp_printf(&dat, "%.9g %.9g\n", series[i].x[k], series[i].y[k]);
                npoints++;
                ylo = fmin(ylo, series[i].y[k]);
                yhi = fmax(yhi, series[i].y[k]);
            }
        /* gnuplot rejects an empty block in a plot command; a lone NaN row keeps the index valid. */
        if (npoints == 0)
            rp_printf(&dat, "NaN NaN\n");
        npoints = 0;
    }
    if (opt->nvlines && (!opt->vline_x || !opt->vline_group || !opt->vline_label)) {
        free(dat.s);
        return ridge_err_set(err, RIDGE_EINVAL, "curves: %zu vertical lines but no data", opt->nvlines);
    }
    for (size_t i = 0; i < opt->nvlines; i++) {
        rp_printf(&dat, "%s# vertical line: x = %.9g, ", i ? "" : "\n", opt->vline_x[i]);
        rp_comment(&dat, opt->vline_label[i]);
        rp_printf(&dat, "\n");
    }

    /* ---- the .gp ---- */
    rp_printf(&gp, "# ridge %s curve chart\n", ridge_version());
    rp_gp_preamble(&gp, paths->gp, paths->dat, paths->chart);
    rp_gp_terminal(&gp, paths, 1000, 700, 12);
    rp_gp_title(&gp, opt->title, NULL);
    rp_printf(&gp, "set xlabel ");
    rp_gp_string(&gp, opt->xlabel ? opt->xlabel : "x");
    rp_printf(&gp, "\nset ylabel ");
    rp_gp_string(&gp, opt->ylabel ? opt->ylabel : "y");
    rp_printf(&gp, "\n");
    if (opt->log_y) {
        rp_printf(&gp, "set logscale y 10\nset mytics 10\n");
        /* The data's span with some room (the labels of vertical lines sit at the top), not whole decades. */
        if (ylo <= yhi) {
            double lo = ylo / 1.1, hi = yhi * (opt->nvlines ? 2.0 : 1.25), dec = pow(10, floor(log10(lo)));
            /* Start at the 1-2-5 tic below the data, so the lowest curve has a labelled tic under it. */
            lo = lo >= 5 * dec ? 5 * dec : lo >= 2 * dec ? 2 * dec : dec;
            /* Label 1-2-5 steps: a narrow log range would otherwise show one labelled tic. */
            int first = 1;
            rp_printf(&gp, "set yrange [%.6g:%.6g]\nset ytics (", lo, hi);
            for (double d = pow(10, floor(log10(lo))); d <= hi; d *= 10)
                for (int k = 0; k < 3; k++) {
                    double t = d * (k == 0 ? 1 : k == 1 ? 2 : 5);
                    if (t >= lo && t <= hi) {
                        rp_printf(&gp, "%s%.6g", first ? "" : ", ", t);
                        first = 0;
                    }
                }
            rp_printf(&gp, ")\n");
        }
    } else {
        rp_printf(&gp, "set yrange [0:*]\n");
    }
    for (size_t i = 0; i < opt->nvlines; i++) {
        if (!isfinite(opt->vline_x[i]))
            continue;
        rp_printf(&gp, "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead dt 3 lw 1.5 lc rgb '%s'\n",
                  opt->vline_x[i], opt->vline_x[i], group_colors[(size_t)(opt->vline_group[i] < 0 ? 0 : opt->vline_group[i]) % NCOLORS]);
        rp_printf(&gp, "set label ");
        rp_gp_string(&gp, opt->vline_label[i]);
        rp_printf(&gp, " at %.9g, graph 0.97 right offset -0.5,0 font ',10' tc rgb '%s'\n", opt->vline_x[i],
                  group_colors[(size_t)(opt->vline_group[i] < 0 ? 0 : opt->vline_group[i]) % NCOLORS]);
    }
    rp_printf(&gp, "set xrange [0:*]\n"
                   "set format x '%%g'\nset format y '%%g'\n"
                   "set grid xtics ytics mytics lc rgb '#d8d8d8' lw 1, lc rgb '#f0f0f0' lw 1\n"
                   "set border lw 1.2\n"
                   "set key at graph 0.02, graph 0.90 left top vertical Left reverse box opaque samplen 4 spacing 1.1 "
                   "font ',11' width 1\n"
                   "\nplot \\\n");
    for (size_t i = 0; i < nseries; i++) {
        rp_printf(&gp, "    dat index %zu using 1:2 with linespoints lw 2 dt %d pt %d ps 0.9 lc rgb '%s' title ", i,
                  series[i].dash, dash_points[(size_t)(series[i].dash - 1) % NPOINTS],
                  group_colors[(size_t)series[i].group % NCOLORS]);
        rp_gp_key_title(&gp, i, series[i].name, "series");
        rp_printf(&gp, "%s\n", i + 1 < nseries ? ", \\" : "");
    }

    rc = rp_write_pair(paths, &dat, &gp, err);
    free(dat.s);
    free(gp.s);
    return rc;
}
