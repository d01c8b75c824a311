/* Validation charts: predicted / measured per case against the case number, one colour per unit,
 * with the exact line (1) and the ±10 % and ±25 % bands (plots/include/ridge/plot.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ridge/plot.h"
#include "ridge/version.h"
#include "textbuf.h"

/* The other charts' palette (Okabe–Ito) and four more of Tol's, one colour and marker per set
 * (per group on a chart of panels). */
static const char *const set_colors[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
                                         "#000000", "#882255", "#44AA99", "#999933", "#AA4499", "#777777"};
#define NCOLORS (sizeof set_colors / sizeof set_colors[0])
static const int set_points[] = {7, 5, 9, 11, 13, 15};
#define NPOINTS (sizeof set_points / sizeof set_points[0])

static int usable(double m, double p)
{
    return isfinite(m) && isfinite(p) && m > 0 && p > 0;
}

/* The ratio tics: the bands as well as the usual 1-2-5 steps, labelled as ratios. */
#define RATIO_TICS "set ytics (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.6, 0.75, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 5, 10, 20, 50, 100)\n"

/* The per-panel range of one SCATTER panel: measured values and ratios of its usable cases. */
typedef struct {
    double xlo, xhi, rlo, rhi;
    size_t n;
} panel_range;

/* SCATTER: one panel per unit, the ratio against the measured value (log-log). */
static void scatter_panels(rp_buf *gp, const ridge_validation_set *sets, size_t nsets,
                           const ridge_validation_options *opt, const ridge_plot_paths *paths)
{
    panel_range pr[RIDGE_VALIDATION_MAX_PANELS];
    size_t *order = malloc(nsets * sizeof *order);
    size_t np = opt->npanels ? opt->npanels : 1, cols = np > 1 ? 2 : 1, rows = (np + cols - 1) / cols;
    if (!order) {
        gp->oom = 1;
        return;
    }
    for (size_t i = 0; i < nsets; i++) { /* by n, largest first (insertion: a few dozen sets) */
        size_t j = i;
        for (; j > 0 && sets[order[j - 1]].n < sets[i].n; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    for (size_t p = 0; p < np; p++)
        pr[p] = (panel_range){INFINITY, 0, 1.0, 1.0, 0};
    for (size_t i = 0; i < nsets; i++) {
        panel_range *r = &pr[opt->npanels ? (size_t)sets[i].panel : 0];
        for (size_t k = 0; k < sets[i].n; k++)
            if (usable(sets[i].measured[k], sets[i].predicted[k])) {
                double q = sets[i].predicted[k] / sets[i].measured[k];
                r->xlo = fmin(r->xlo, sets[i].measured[k]);
                r->xhi = fmax(r->xhi, sets[i].measured[k]);
                r->rlo = fmin(r->rlo, q);
                r->rhi = fmax(r->rhi, q);
                r->n++;
            }
    }
    rp_gp_terminal(gp, paths, cols == 2 ? 1500 : 950, 110 + 420 * (double)rows, 12);
    rp_printf(gp, "set logscale xy 10\nset format x '%%g'\nset format y '%%g'\n" RATIO_TICS
                  "set xtics out nomirror\nset ytics out nomirror\nset mxtics 10\n"
                  "set grid xtics ytics lc rgb '#e4e4e4' lw 1\nset border lw 1.2\n"
                  "set ylabel 'Predicted / measured (1 = exact)'\n"
                  "set key outside right top vertical Left reverse samplen 1 spacing 1.05 font ',10'\n"
                  "set samples 2\n"
                  "set object 1 rect from graph 0, first 0.9 to graph 1, first 1.1 behind fc rgb '#e6f2e6' "
                  "fs solid 1.0 noborder\n");
    rp_printf(gp, "set multiplot layout %zu,%zu title ", rows, cols);
    rp_gp_string(gp, opt->title ? opt->title : "Predicted / measured");
    if (opt->note) {
        rp_printf(gp, " . \"\\n\" . ");
        rp_gp_string(gp, opt->note);
    }
    rp_printf(gp, " font ',14'\n");
    for (size_t p = 0; p < np; p++) {
        const panel_range *r = &pr[p];
        double lo = r->n ? r->xlo : 0.1, hi = r->n ? r->xhi : 10, m = hi > lo ? pow(hi / lo, 0.06) : 2;
        rp_printf(gp, "\n# ---- panel %zu ----\nset title ", p);
        rp_gp_string(gp, opt->npanels && opt->panel_titles && opt->panel_titles[p] ? opt->panel_titles[p] : "");
        rp_printf(gp, " font ',12'\nset xlabel ");
        if (opt->npanels && opt->panel_units && opt->panel_units[p]) {
            rp_printf(gp, "'Measured [' . ");
            rp_gp_string(gp, opt->panel_units[p]);
            rp_printf(gp, " . ']'\n");
        } else
            rp_printf(gp, "'Measured (in the set''s unit)'\n");
        double ylo = fmin(r->rlo / 1.12, 0.6), yhi = fmax(r->rhi * 1.12, 1.6);
        rp_printf(gp, "set xrange [%.6g:%.6g]\nset yrange [%.6g:%.6g]\n", lo / m, hi * m, ylo, yhi);
        /* A wide ratio range: the band tics (0.9, 1.1 ...) would run into each other. */
        rp_printf(gp, "%s", yhi / ylo > 8 ? "set ytics (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100)\n"
                                          : RATIO_TICS);
        if (hi * m / (lo / m) < 100)
            rp_gp_log_tics(gp, 'x', lo / m, hi * m);
        else
            rp_printf(gp, "set xtics auto\n");
        rp_printf(gp, "plot \\\n"
                      "    1 with lines lw 2 lc rgb '#222222' %s, \\\n"
                      "    1.1 with lines lw 1.2 dt 2 lc rgb '#777777' %s, \\\n"
                      "    0.9 with lines lw 1.2 dt 2 lc rgb '#777777' notitle, \\\n"
                      "    1.25 with lines lw 1.2 dt 3 lc rgb '#777777' %s, \\\n"
                      "    0.75 with lines lw 1.2 dt 3 lc rgb '#777777' notitle",
                  p == 0 ? "title 'exact'" : "notitle", p == 0 ? "title '±10 %'" : "notitle",
                  p == 0 ? "title '±25 %'" : "notitle");
        /* The largest sets first, so that the small ones are drawn over them. */
        for (size_t j = 0; j < nsets; j++) {
            size_t i = order[j], c = opt->npanels ? (size_t)sets[i].color : i;
            /* Many cases: small translucent markers, so that dense clouds show their density. */
            const char *alpha = sets[i].n > 2000 ? "b0" : sets[i].n > 200 ? "60" : "";
            double ps = sets[i].n > 2000 ? 0.35 : sets[i].n > 200 ? 0.6 : 0.9;
            if (opt->npanels && (size_t)sets[i].panel != p)
                continue;
            rp_printf(gp, ", \\\n    dat index %zu using 2:4 with points pt %d ps %.2g lc rgb '#%s%s' title ", i,
                      set_points[c % NPOINTS], ps, alpha, set_colors[c % NCOLORS] + 1);
            rp_gp_key_title(gp, i, sets[i].name, "set");
        }
        rp_printf(gp, "\n");
    }
    rp_printf(gp, "unset multiplot\n");
    free(order);
}

int ridge_validation_write(const ridge_validation_set *sets, size_t nsets, const ridge_validation_options *opt,
                           const ridge_plot_paths *paths, ridge_err *err)
{
    static const ridge_validation_options none = {0};
    rp_buf dat = {0}, gp = {0};
    double rmin = 1.0, rmax = 1.0, xmax = 1.0;
    int rc;
    if (!opt)
        opt = &none;
    if (!sets || nsets == 0)
        return ridge_err_set(err, RIDGE_EINVAL, "validation chart: no case sets to draw");
    if (!paths)
        return ridge_err_set(err, RIDGE_EINVAL, "validation chart: no chart paths");
    if (opt->npanels > RIDGE_VALIDATION_MAX_PANELS)
        return ridge_err_set(err, RIDGE_EINVAL, "validation chart: %zu panels (at most %d)", opt->npanels,
                             RIDGE_VALIDATION_MAX_PANELS);
    for (size_t i = 0; i < nsets && opt->npanels; i++)
        if (sets[i].panel < 0 || (size_t)sets[i].panel >= opt->npanels || sets[i].color < 0)
            return ridge_err_set(err, RIDGE_EINVAL, "validation chart: set %zu in panel %d of %zu (colour %d)", i,
                                 sets[i].panel, opt->npanels, sets[i].color);
    for (size_t i = 0; i < nsets; i++)
        if (sets[i].n && (!sets[i].number || !sets[i].measured || !sets[i].predicted))
            return ridge_err_set(err, RIDGE_EINVAL, "validation chart: set %zu has %zu cases but no data", i,
                                 sets[i].n);
    for (size_t i = 0; i < nsets; i++)
        for (size_t k = 0; k < sets[i].n; k++)
            if (usable(sets[i].measured[k], sets[i].predicted[k])) {
                double r = sets[i].predicted[k] / sets[i].measured[k];
                rmin = r < rmin ? r : rmin;
                rmax = r > rmax ? r : rmax;
                xmax = sets[i].number[k] > xmax ? sets[i].number[k] : xmax;
            }
    /* At least the ±25 % band with room around it; otherwise the data with a margin. */
    rmin = fmin(rmin / 1.15, 0.6);
    rmax = fmax(rmax * 1.15, 1.6);

    /* ---- the .dat ---- */
    rp_dat_blocks_header(&dat, "validation chart", opt->title, "set");
    rp_printf(&dat, "# Columns: case number, measured, predicted (both in the set's unit), "
                    "ratio = predicted / measured, \"id\"\n");
    for (size_t i = 0; i < nsets; i++) {
        size_t kept = 0;
        rp_dat_block_header(&dat, i, sets[i].name, "set");
        if (opt->npanels && opt->style == RIDGE_VALIDATION_SCATTER) {
            rp_printf(&dat, " (panel %d: ", sets[i].panel);
            rp_comment(&dat, opt->panel_titles && opt->panel_titles[sets[i].panel] ? opt->panel_titles[sets[i].panel]
                                                                                   : "-");
            rp_printf(&dat, ")");
        }
        rp_printf(&dat, "\n");
        for (size_t k = 0; k < sets[i].n; k++) {
            double m = sets[i].measured[k], p = sets[i].predicted[k];
            if (!usable(m, p))
                continue;
            rp_printf(&dat, "%.9g %.9g %.9g %.9g \"", sets[i].number[k], m, p, p / m);
            rp_quoted_text(&dat, sets[i].ids && sets[i].ids[k] ? sets[i].ids[k] : "-");
            rp_printf(&dat, "\"\n");
            kept++;
        }
        if (!kept) /* gnuplot rejects an empty block in a plot command */
            rp_printf(&dat, "NaN NaN NaN NaN \"-\"\n");
    }

    /* ---- the .gp ---- */
    rp_printf(&gp, "# ridge %s validation chart\n", ridge_version());
    rp_gp_preamble(&gp, paths->gp, paths->dat, paths->chart);
    if (opt->style == RIDGE_VALIDATION_SCATTER) {
        scatter_panels(&gp, sets, nsets, opt, paths);
        goto write;
    }
    rp_gp_terminal(&gp, paths, 1100, 700, 12);
    rp_gp_title(&gp, opt->title ? opt->title : "Predicted / measured", opt->note);
    rp_printf(&gp, "set xlabel 'Case (input order)'\n"
                   "set ylabel 'Predicted / measured (log scale; 1 = exact)'\n"
                   "set logscale y 10\n"
                   "set xrange [0.5:%.9g]\nset yrange [%.9g:%.9g]\n",
              xmax + 0.5, rmin, rmax);
    rp_printf(&gp, RATIO_TICS "set format y '%%g'\nset xtics out nomirror\n"
                   "set grid xtics ytics lc rgb '#e4e4e4' lw 1\n"
                   "set border lw 1.2\nset rmargin 9\n");
    rp_printf(&gp, "set label 'exact' at graph 1, first 1 offset 1,0 left font ',10'\n"
                   "set label '+10 %%' at graph 1, first 1.1 offset 1,0.3 left font ',10' tc rgb '#555555'\n"
                   "set label '-10 %%' at graph 1, first 0.9 offset 1,-0.3 left font ',10' tc rgb '#555555'\n"
                   "set label '+25 %%' at graph 1, first 1.25 offset 1,0.3 left font ',10' tc rgb '#555555'\n"
                   "set label '-25 %%' at graph 1, first 0.75 offset 1,-0.3 left font ',10' tc rgb '#555555'\n");
    rp_printf(&gp, "set key outside bottom center horizontal Left reverse samplen 1.5 spacing 1.1 font ',11'\n"
                   "set samples 2\n\nplot \\\n"
                   "    1 with lines lw 2 lc rgb '#222222' notitle, \\\n"
                   "    1.1 with lines lw 1.2 dt 2 lc rgb '#777777' notitle, \\\n"
                   "    0.9 with lines lw 1.2 dt 2 lc rgb '#777777' notitle, \\\n"
                   "    1.25 with lines lw 1.2 dt 3 lc rgb '#777777' notitle, \\\n"
                   "    0.75 with lines lw 1.2 dt 3 lc rgb '#777777' notitle");
    for (size_t i = 0; i < nsets; i++) {
        rp_printf(&gp, ", \\\n    dat index %zu using 1:4 with points pt %d ps 1.4 lc rgb '%s' title ", i,
                  set_points[i % NPOINTS], set_colors[i % NCOLORS]);
        rp_gp_key_title(&gp, i, sets[i].name, "set");
    }
    rp_printf(&gp, "\n");

write:
    rc = rp_write_pair(paths, &dat, &gp, err);
    free(dat.s);
    free(gp.s);
    return rc;
}
