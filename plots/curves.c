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

#define HLINE_COLOR "#b2182b"

/* The log y axis of one panel: the data's span [ylo, yhi] with some room (the labels of vertical
 * lines sit at the top), not whole decades, with 1-2-5 tics. */
static void log_y_axis(rp_buf *gp, double ylo, double yhi, int room_top)
{
    double lo = ylo / 1.1, hi = yhi * (room_top ? 2.0 : 1.25), dec = pow(10, floor(log10(lo)));
    /* Start at the 1-2-5 tic below the data, so the lowest curve has a labelled tic under it. */
    lo = lo >= 5 * dec ? 5 * dec : lo >= 2 * dec ? 2 * dec : dec;
    rp_printf(gp, "set yrange [%.6g:%.6g]\n", lo, hi);
    rp_gp_log_tics(gp, 'y', lo, hi);
}

static const char *group_color(int group)
{
    return group_colors[(size_t)(group < 0 ? 0 : group) % NCOLORS];
}

static int has_hline(const ridge_curve_options *opt, size_t p)
{
    for (size_t i = 0; i < opt->nhlines; i++)
        if ((size_t)opt->hline_panel[i] == p)
            return 1;
    return 0;
}

/* The vertical lines (labelled when `labelled`) and panel p's horizontal lines. */
static void guide_lines(rp_buf *gp, const ridge_curve_options *opt, size_t p, int labelled)
{
    for (size_t i = 0; i < opt->nvlines; i++) {
        if (!isfinite(opt->vline_x[i]))
            continue;
        rp_printf(gp, "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead dt 3 lw 1.5 lc rgb '%s'\n",
                  opt->vline_x[i], opt->vline_x[i], group_color(opt->vline_group[i]));
        if (!labelled)
            continue;
        rp_printf(gp, "set label ");
        rp_gp_string(gp, opt->vline_label[i]);
        rp_printf(gp, " at %.9g, graph 0.97 right offset -0.5,0 font ',10' tc rgb '%s'\n", opt->vline_x[i],
                  group_color(opt->vline_group[i]));
    }
    for (size_t i = 0; i < opt->nhlines; i++) {
        if ((size_t)opt->hline_panel[i] != p || !isfinite(opt->hline_y[i]))
            continue;
        rp_printf(gp, "set arrow from graph 0, first %.9g to graph 1, first %.9g nohead dt 4 lw 2 lc rgb '%s' back\n",
                  opt->hline_y[i], opt->hline_y[i], HLINE_COLOR);
        rp_printf(gp, "set label ");
        rp_gp_string(gp, opt->hline_label[i]);
        rp_printf(gp, " at graph 0.42, first %.9g left offset 0,0.6 font ',10' tc rgb '%s' front\n", opt->hline_y[i],
                  HLINE_COLOR);
    }
}

/* The plot command of panel p: its series. */
static void plot_panel(rp_buf *gp, const ridge_curve_series *series, size_t nseries, size_t p, int paneled)
{
    int first = 1;
    rp_printf(gp, "\nplot \\\n");
    for (size_t i = 0; i < nseries; i++) {
        if (paneled && (size_t)series[i].panel != p)
            continue;
        rp_printf(gp, "%s    dat index %zu using 1:2 with linespoints lw 2 dt %d pt %d ps 0.9 lc rgb '%s' title ",
                  first ? "" : ", \\\n", i, series[i].dash, dash_points[(size_t)(series[i].dash - 1) % NPOINTS],
                  group_color(series[i].group));
        rp_gp_key_title(gp, i, series[i].name, "series");
        first = 0;
    }
    if (first) /* a panel without series: an empty plot keeps the layout */
        rp_printf(gp, "    NaN notitle");
    rp_printf(gp, "\n");
}


/* The largest finite x of the series (with vlines, of the vertical lines too), a little beyond it
 * (1 when none). */
static double x_span(const ridge_curve_series *series, size_t n, const ridge_curve_options *opt, int vlines)
{
    double x = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < series[i].n; k++)
            if (isfinite(series[i].x[k]))
                x = fmax(x, series[i].x[k]);
    for (size_t i = 0; vlines && i < opt->nvlines; i++)
        if (isfinite(opt->vline_x[i]))
            x = fmax(x, opt->vline_x[i]);
    return x > 0 ? 1.05 * x : 1;
}

int ridge_curves_write(const ridge_curve_series *series, size_t nseries, const ridge_curve_options *opt,
                       const ridge_plot_paths *paths, ridge_err *err)
{
    static const ridge_curve_options none = {0};
    double ylo[RIDGE_CURVES_MAX_PANELS], yhi[RIDGE_CURVES_MAX_PANELS];
    rp_buf dat = {0}, gp = {0};
    size_t npanels, npoints = 0;
    int rc, paneled, drawn = 0; /* drawn: some series has a point on the chart */
    if (!opt)
        opt = &none;
    npanels = opt->npanels > 1 ? opt->npanels : 1;
    paneled = npanels > 1;
    if (!series || nseries == 0)
        return ridge_err_set(err, RIDGE_EINVAL, "curves: no series to draw");
    if (!paths)
        return ridge_err_set(err, RIDGE_EINVAL, "curves: no chart paths");
    if (npanels > RIDGE_CURVES_MAX_PANELS)
        return ridge_err_set(err, RIDGE_EINVAL, "curves: %zu panels (at most %d)", npanels, RIDGE_CURVES_MAX_PANELS);
    if (opt->nvlines && (!opt->vline_x || !opt->vline_group || !opt->vline_label))
        return ridge_err_set(err, RIDGE_EINVAL, "curves: %zu vertical lines but no data", opt->nvlines);
    if (opt->nhlines && (!opt->hline_y || !opt->hline_panel || !opt->hline_label))
        return ridge_err_set(err, RIDGE_EINVAL, "curves: %zu horizontal lines but no data", opt->nhlines);
    for (size_t i = 0; i < opt->nhlines; i++)
        if (opt->hline_panel[i] < 0 || (size_t)opt->hline_panel[i] >= npanels)
            return ridge_err_set(err, RIDGE_EINVAL, "curves: horizontal line %zu in panel %d of %zu", i,
                                 opt->hline_panel[i], npanels);
    for (size_t i = 0; i < nseries; i++) {
        if (series[i].group < 0 || series[i].dash < 1)
            return ridge_err_set(err, RIDGE_EINVAL, "curves: series %zu has group %d, dash %d (need >= 0, >= 1)", i,
                                 series[i].group, series[i].dash);
        if (series[i].n && (!series[i].x || !series[i].y))
            return ridge_err_set(err, RIDGE_EINVAL, "curves: series %zu has %zu points but no data", i, series[i].n);
        if (paneled && (series[i].panel < 0 || (size_t)series[i].panel >= npanels))
            return ridge_err_set(err, RIDGE_EINVAL, "curves: series %zu in panel %d of %zu", i, series[i].panel,
                                 npanels);
    }
    for (size_t p = 0; p < npanels; p++) {
        ylo[p] = HUGE_VAL;
        yhi[p] = -HUGE_VAL;
    }
    for (size_t i = 0; i < opt->nhlines; i++)
        if (isfinite(opt->hline_y[i]) && (!opt->log_y || opt->hline_y[i] > 0)) {
            ylo[opt->hline_panel[i]] = fmin(ylo[opt->hline_panel[i]], opt->hline_y[i]);
            yhi[opt->hline_panel[i]] = fmax(yhi[opt->hline_panel[i]], opt->hline_y[i]);
        }

    /* ---- the .dat ---- */
    rp_dat_blocks_header(&dat, "curves", opt->title, "series");
    rp_dat_xy_columns(&dat, opt->xlabel, opt->ylabel);
    rp_printf(&dat, "; points without a finite value are left out.\n");
    for (size_t i = 0; i < nseries; i++) {
        size_t p = paneled ? (size_t)series[i].panel : 0;
        rp_dat_block_header(&dat, i, series[i].name, "series");
        if (paneled) {
            rp_printf(&dat, " (panel %zu: ", p);
            rp_comment(&dat, opt->panel_ylabel && opt->panel_ylabel[p] ? opt->panel_ylabel[p] : "y");
            rp_printf(&dat, ")");
        }
        rp_printf(&dat, "\n");
        for (size_t k = 0; k < series[i].n; k++)
            if (isfinite(series[i].x[k]) && isfinite(series[i].y[k]) && (!opt->log_y || series[i].y[k] > 0)) {
                rp_printf(&dat, "%.9g %.9g\n", series[i].x[k], series[i].y[k]);
                npoints++;
                ylo[p] = fmin(ylo[p], series[i].y[k]);
                yhi[p] = fmax(yhi[p], series[i].y[k]);
            }
        /* gnuplot rejects an empty block in a plot command; a lone NaN row keeps the index valid. */
        if (npoints == 0)
            rp_printf(&dat, "NaN NaN\n");
        drawn |= npoints > 0;
        npoints = 0;
    }
    for (size_t i = 0; i < opt->nvlines; i++) {
        rp_printf(&dat, "%s# vertical line: x = %.9g, ", i ? "" : "\n", opt->vline_x[i]);
        rp_comment(&dat, opt->vline_label[i]);
        rp_printf(&dat, "\n");
    }
    for (size_t i = 0; i < opt->nhlines; i++) {
        rp_printf(&dat, "%s# horizontal line: y = %.9g (panel %d), ", i || opt->nvlines ? "" : "\n", opt->hline_y[i],
                  opt->hline_panel[i]);
        rp_comment(&dat, opt->hline_label[i]);
        rp_printf(&dat, "\n");
    }

    /* ---- the .gp ---- */
    rp_printf(&gp, "# ridge %s curve chart\n", ridge_version());
    rp_gp_preamble(&gp, paths->gp, paths->dat, paths->chart);
    rp_gp_terminal(&gp, paths, 1000, paneled ? 120 + 330 * (double)npanels : 700, 12);
    if (!paneled)
        rp_gp_title(&gp, opt->title, NULL);
    rp_printf(&gp, "set xlabel ");
    rp_gp_string(&gp, opt->xlabel ? opt->xlabel : "x");
    rp_printf(&gp, "\n");
    /* x autoscales from the points; a chart with none (every rate at or past saturation) gets the
     * span of its x values or guide lines, which gnuplot cannot find by itself. */
    if (drawn)
        rp_printf(&gp, "set xrange [0:*]\n");
    else
        rp_printf(&gp, "set xrange [0:%.9g]\n", x_span(series, nseries, opt, 1));
    rp_printf(&gp, "set format x '%%g'\nset format y '%%g'\n"
                   "set grid xtics ytics mytics lc rgb '#d8d8d8' lw 1, lc rgb '#f0f0f0' lw 1\n"
                   "set border lw 1.2\n"
                   "set key at graph 0.02, graph 0.90 left top vertical Left reverse box opaque samplen 4 spacing 1.1 "
                   "font ',11' width 1\n");
    if (opt->log_y)
        rp_printf(&gp, "set logscale y 10\nset mytics 10\n");
    if (paneled) {
        /* One column of panels with equal plot areas: fixed left and right margins, the x label on
         * the bottom panel only. */
        rp_printf(&gp, "set lmargin 12\nset rmargin 4\nset multiplot layout %zu,1", npanels);
        if (opt->title) {
            rp_printf(&gp, " title ");
            rp_gp_string(&gp, opt->title);
            rp_printf(&gp, " font ',14'");
        }
        rp_printf(&gp, "\n");
    }
    for (size_t p = 0; p < npanels; p++) {
        if (paneled)
            rp_printf(&gp, "\n# ---- panel %zu ----\nunset arrow\nunset label\n%s", p,
                      p + 1 < npanels ? "set xlabel ''\n" : "set xlabel ");
        if (paneled && p + 1 == npanels) {
            rp_gp_string(&gp, opt->xlabel ? opt->xlabel : "x");
            rp_printf(&gp, "\n");
        }
        rp_printf(&gp, "set ylabel ");
        rp_gp_string(&gp, paneled && opt->panel_ylabel && opt->panel_ylabel[p] ? opt->panel_ylabel[p]
                          : opt->ylabel                                        ? opt->ylabel
                                                                               : "y");
        rp_printf(&gp, "\n");
        if (!opt->log_y)
            rp_printf(&gp, "set yrange [0:*]\n");
        else if (ylo[p] <= yhi[p])
            log_y_axis(&gp, ylo[p], yhi[p], (opt->nvlines && p == 0) || has_hline(opt, p));
        else /* nothing to scale to: a fixed decade and the chart's x span, said so on the panel */
            rp_printf(&gp, "set yrange [1:10]\nset xrange [0:%.9g]\n"
                           "set label 'no finite value to draw' at graph 0.5, graph 0.5 center\n",
                      x_span(series, nseries, opt, !drawn));
        guide_lines(&gp, opt, p, p == 0);
        plot_panel(&gp, series, nseries, p, paneled);
        if (opt->log_y && !(ylo[p] <= yhi[p]) && drawn)
            rp_printf(&gp, "set xrange [0:*]\n"); /* the next panel autoscales again */
    }
    if (paneled)
        rp_printf(&gp, "unset multiplot\n");

    rc = rp_write_pair(paths, &dat, &gp, err);
    free(dat.s);
    free(gp.s);
    return rc;
}
