/* Validation charts: predicted / measured per case against the case number, one colour per unit,
 * with the exact line (1) and the ±10 % and ±25 % bands (plots/include/ridge/plot.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ridge/plot.h"
#include "ridge/version.h"
#include "textbuf.h"

/* The other charts' palette (Okabe–Ito), one colour and marker per set. */
static const char *const set_colors[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                         "#E69F00", "#56B4E9", "#000000", "#F0E442"};
#define NCOLORS (sizeof set_colors / sizeof set_colors[0])
static const int set_points[] = {7, 5, 9, 11, 13, 15};
#define NPOINTS (sizeof set_points / sizeof set_points[0])

static int usable(double m, double p)
{
    return isfinite(m) && isfinite(p) && m > 0 && p > 0;
}

int ridge_validation_write(const ridge_validation_set *sets, size_t nsets, const ridge_validation_options *opt,
                           const ridge_plot_paths *paths, ridge_err *err)
{
    static const ridge_validation_options none = {0};
    rp_buf dat = {0}, gp = {0};
    double rmin = 1.0, rmax = 1.0, xmax = 1.0, vmin = INFINITY, vmax = 0;
    size_t total = 0;
    int rc;
    if (!opt)
        opt = &none;
    if (!sets || nsets == 0)
        return ridge_err_set(err, RIDGE_EINVAL, "validation chart: no case sets to draw");
    if (!paths)
        return ridge_err_set(err, RIDGE_EINVAL, "validation chart: no chart paths");
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
                vmin = fmin(vmin, fmin(sets[i].measured[k], sets[i].predicted[k]));
                vmax = fmax(vmax, fmax(sets[i].measured[k], sets[i].predicted[k]));
                total++;
            }
    if (!(vmax > 0)) { /* nothing to draw: a decade around 1 still shows the bands */
        vmin = 0.1;
        vmax = 10;
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
    if (opt->style == RIDGE_VALIDATION_RATIO)
        rp_gp_terminal(&gp, paths, 1100, 700, 12);
    else
        rp_gp_terminal(&gp, paths, 860, 860, 12); /* square: equal decades on both axes */
    rp_gp_title(&gp, opt->title ? opt->title : "Predicted / measured", opt->note);
    if (opt->style == RIDGE_VALIDATION_RATIO) {
        rp_printf(&gp, "set xlabel 'Case (input order)'\n"
                       "set ylabel 'Predicted / measured (log scale; 1 = exact)'\n"
                       "set logscale y 10\n"
                       "set xrange [0.5:%.9g]\nset yrange [%.9g:%.9g]\n",
                  xmax + 0.5, rmin, rmax);
        /* Tics at the bands as well as the usual 1-2-5 steps, labelled as ratios. */
        rp_printf(&gp, "set ytics (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.75, 0.9, 1, 1.1, 1.25, 2, 3, 5, 10, 20, 50, 100)\n"
                       "set format y '%%g'\nset xtics out nomirror\n"
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
    } else {
        /* Log-log, the same decades on both axes, so the bands are parallel diagonals. */
        double lo = pow(10, floor(log10(vmin / 1.3))), hi = pow(10, ceil(log10(vmax * 1.3)));
        rp_printf(&gp, "set xlabel 'Measured (each case in its own unit: see the key)'\n"
                       "set ylabel 'Predicted (same unit)'\n"
                       "set logscale xy 10\nset xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n"
                       "set size ratio -1\nset format x '%%g'\nset format y '%%g'\n"
                       "set xtics out nomirror\nset ytics out nomirror\n"
                       "set grid xtics ytics lc rgb '#e4e4e4' lw 1\nset border lw 1.2\n",
                  lo, hi, lo, hi);
        rp_printf(&gp, "set label 'exact' at %.9g, %.9g rotate by 45 font ',10' offset 0,0.6\n", lo * 3, lo * 3);
        rp_printf(&gp, "set key inside top left vertical Left reverse samplen 1.5 spacing 1.1 font ',11' "
                       "box lc rgb '#bbbbbb' opaque\n"
                       "set samples 200\n\nplot \\\n"
                       "    x with lines lw 2 lc rgb '#222222' notitle, \\\n"
                       "    1.1*x with lines lw 1.2 dt 2 lc rgb '#777777' title '±10 %%', \\\n"
                       "    0.9*x with lines lw 1.2 dt 2 lc rgb '#777777' notitle, \\\n"
                       "    1.25*x with lines lw 1.2 dt 3 lc rgb '#777777' title '±25 %%', \\\n"
                       "    0.75*x with lines lw 1.2 dt 3 lc rgb '#777777' notitle");
    }
    for (size_t i = 0; i < nsets; i++) {
        rp_printf(&gp, ", \\\n    dat index %zu using %s with points pt %d ps 1.4 lc rgb '%s' title ", i,
                  opt->style == RIDGE_VALIDATION_RATIO ? "1:4" : "2:3", set_points[i % NPOINTS],
                  set_colors[i % NCOLORS]);
        rp_gp_key_title(&gp, i, sets[i].name, "set");
    }
    rp_printf(&gp, "\n");
    (void)total;

    rc = rp_write_pair(paths, &dat, &gp, err);
    free(dat.s);
    free(gp.s);
    return rc;
}
