/* Scatter charts: points per group (one colour per GPU) with optional highlighted joined sets
 * (a Pareto front), as a .dat with one block per set and a gnuplot script.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- point labels: placed by the writer, in graph coordinates of explicit axis ranges ---- */

#define LABEL_FONT_PT 10
#define CHAR_W_PX 6.6   /* a 10 pt Sans character, about */
#define LINE_H_PX 16.0
#define MARKER_R_PX 12.0 /* the front's hollow circles (ps 2.2) */
#define STEP_PX 14.0

typedef struct {
    double x0, y0, x1, y1; /* graph coordinates */
} box;

static int overlaps(const box *a, const box *b)
{
    return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* The axis range [lo, hi] of the kept values (log10 on a log axis), with a margin. */
typedef struct {
    double lo, hi; /* in axis units (log10 when log) */
    int log;
} axis;

static double axis_pos(const axis *a, double v)
{
    double t = a->log ? log10(v) : v;
    return (t - a->lo) / (a->hi - a->lo);
}

static double axis_value(const axis *a, double t)
{
    return a->log ? pow(10, a->lo + t * (a->hi - a->lo)) : a->lo + t * (a->hi - a->lo);
}

static void axis_fit(axis *a, double lo, double hi, double m_lo, double m_hi, int from_zero)
{
    double span;
    if (a->log) {
        lo = log10(lo);
        hi = log10(hi);
    }
    span = hi - lo;
    if (!(span > 0))
        span = a->log ? 1 : (fabs(hi) > 0 ? fabs(hi) * 0.2 : 1);
    a->lo = from_zero && !a->log ? 0 : lo - m_lo * span;
    a->hi = hi + m_hi * span;
}

/* Labels for the labelled points (k of them, graph coordinates gx, gy; text txt): each takes the
 * first spot around its marker, nearest first, whose box is inside the plot and clear of the
 * markers and of the labels placed before it; when none is clear, the nearest spot. */
static void place_labels(rp_buf *gp, size_t k, const double *gx, const double *gy, const char *const *txt,
                         double plot_w_px, double plot_h_px)
{
    /* Straight above or below first: a label centred on its marker reads as its own. */
    static const int dir[8][2] = {{0, 1}, {0, -1}, {1, 1}, {-1, -1}, {1, -1}, {-1, 1}, {1, 0}, {-1, 0}};
    box *placed = malloc((k ? k : 1) * sizeof *placed);
    double rx = MARKER_R_PX / plot_w_px, ry = MARKER_R_PX / plot_h_px;
    if (!placed) {
        gp->oom = 1;
        return;
    }
    for (size_t i = 0; i < k; i++) {
        /* The text's box with half a character of room around it: neighbours never read as one. */
        double w = ((double)strlen(txt[i]) + 1) * CHAR_W_PX / plot_w_px, h = LINE_H_PX * 1.2 / plot_h_px;
        double pad = 0.5 * CHAR_W_PX / plot_w_px;
        box best = {0, 0, 0, 0}, b;
        int found = 0, align = 0, best_align = 0, best_dist = 1;
        for (int dist = 1; dist <= 8 && !found; dist++)
            for (int d = 0; d < 8 && !found; d++) {
                double ox = dir[d][0] * (rx + (dist - 1) * STEP_PX / plot_w_px),
                       oy = dir[d][1] * (ry + (dist - 1) * STEP_PX / plot_h_px);
                double cx = gx[i] + ox, cy = gy[i] + oy;
                align = dir[d][0];
                b.x0 = align > 0 ? cx : align < 0 ? cx - w : cx - w / 2;
                b.x1 = b.x0 + w;
                b.y0 = dir[d][1] > 0 ? cy : dir[d][1] < 0 ? cy - h : cy - h / 2;
                b.y1 = b.y0 + h;
                if (dist == 1 && d == 0) {
                    best = b;
                    best_align = align;
                }
                if (b.x0 < 0 || b.x1 > 1 || b.y0 < 0 || b.y1 > 1)
                    continue;
                found = 1;
                for (size_t j = 0; j < k && found; j++) {
                    box m = {gx[j] - rx, gy[j] - ry, gx[j] + rx, gy[j] + ry};
                    found = !overlaps(&b, &m);
                }
                for (size_t j = 0; j < i && found; j++)
                    found = !overlaps(&b, &placed[j]);
                if (found) {
                    best = b;
                    best_align = align;
                    best_dist = dist;
                }
            }
        placed[i] = best;
        if (best_dist > 2) /* far from its marker: a thin leader line to it */
            rp_printf(gp, "set arrow from graph %.4f, graph %.4f to graph %.4f, graph %.4f nohead lw 0.8 "
                          "lc rgb '#888888' front\n",
                      best_align > 0 ? best.x0 : best_align < 0 ? best.x1 : (best.x0 + best.x1) / 2,
                      (best.y0 + best.y1) / 2, gx[i], gy[i]);
        rp_printf(gp, "set label ");
        rp_gp_string(gp, txt[i]);
        rp_printf(gp, " at graph %.4f, graph %.4f %s font ',%d' tc rgb '#222222' front\n",
                  best_align > 0 ? best.x0 + pad : best_align < 0 ? best.x1 - pad : (best.x0 + best.x1) / 2,
                  (best.y0 + best.y1) / 2, best_align > 0 ? "left" : best_align < 0 ? "right" : "center",
                  LABEL_FONT_PT);
    }
    free(placed);
}

int ridge_scatter_write(const ridge_scatter_series *series, size_t nseries, const ridge_scatter_options *opt,
                        const ridge_plot_paths *paths, ridge_err *err)
{
    static const ridge_scatter_options none = {0};
    rp_buf dat = {0}, gp = {0};
    size_t nlabels = 0;
    double xlo = HUGE_VAL, xhi = -HUGE_VAL, ylo = HUGE_VAL, yhi = -HUGE_VAL, w_px = 1000, h_px = 700;
    int rc, numbered;
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
    for (size_t i = 0; i < nseries; i++)
        for (size_t k = 0; k < series[i].n; k++)
            if (keep(series[i].x[k], series[i].y[k], opt)) {
                nlabels += series[i].labels != NULL;
                xlo = fmin(xlo, series[i].x[k]);
                xhi = fmax(xhi, series[i].x[k]);
                ylo = fmin(ylo, series[i].y[k]);
                yhi = fmax(yhi, series[i].y[k]);
            }
    /* gnuplot cannot draw a chart without a point (its ranges are empty): nothing is written. */
    if (xlo > xhi)
        return ridge_err_set(err, RIDGE_EINVAL, "scatter: no point to draw (every set is empty or not finite)");
    numbered = nlabels > RIDGE_SCATTER_MAX_INLINE;
    if (numbered)
        w_px = 1300; /* room for the numbered key right of the plot */

    /* ---- the .dat ---- */
    rp_dat_blocks_header(&dat, "scatter", opt->title, "set");
    rp_dat_xy_columns(&dat, opt->xlabel, opt->ylabel);
    rp_printf(&dat, nlabels ? "; labelled sets: \"label\"\n" : "\n");
    for (size_t i = 0; i < nseries; i++) {
        size_t kept = 0;
        rp_dat_block_header(&dat, i, series[i].name, "set");
        rp_printf(&dat, "%s%s\n", series[i].line == 1 ? " (joined, highlighted)" : series[i].line ? " (joined)" : "",
                  series[i].labels ? " (labelled)" : "");
        for (size_t k = 0; k < series[i].n; k++)
            if (keep(series[i].x[k], series[i].y[k], opt)) {
                rp_printf(&dat, "%.9g %.9g", series[i].x[k], series[i].y[k]);
                if (series[i].labels) {
                    rp_printf(&dat, " \"");
                    rp_quoted_text(&dat, series[i].labels[k] ? series[i].labels[k] : "");
                    rp_printf(&dat, "\"");
                }
                rp_printf(&dat, "\n");
                kept++;
            }
        if (!kept) /* gnuplot rejects an empty block in a plot command */
            rp_printf(&dat, series[i].labels ? "NaN NaN \"\"\n" : "NaN NaN\n");
    }

    /* ---- the .gp ---- */
    rp_printf(&gp, "# ridge %s scatter chart\n", ridge_version());
    rp_gp_preamble(&gp, paths->gp, paths->dat, paths->chart);
    rp_gp_terminal(&gp, paths, w_px, h_px, 12);
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
    if (nlabels) {
        /* Labels are placed in graph coordinates: explicit ranges (the data with a margin) and
         * fixed margins, the key below the plot, so that the writer knows where everything is. */
        axis ax = {0, 0, opt->log_x}, ay = {0, 0, opt->log_y};
        double plot_w = w_px - 110 - (numbered ? 300 : 0), plot_h = h_px - 200;
        double *gx = malloc(nlabels * sizeof *gx), *gy = malloc(nlabels * sizeof *gy);
        const char **txt = malloc(nlabels * sizeof *txt);
        size_t n = 0;
        axis_fit(&ax, xlo, xhi, 0.08, 0.08, 0);
        axis_fit(&ay, ylo, yhi, 0.1, 0.12, opt->y_from_zero);
        rp_printf(&gp, "set xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n", axis_value(&ax, 0), axis_value(&ax, 1),
                  axis_value(&ay, 0), axis_value(&ay, 1));
        rp_printf(&gp, "set lmargin at screen %.4f\nset rmargin at screen %.4f\n"
                       "set tmargin at screen %.4f\nset bmargin at screen %.4f\n",
                  90 / w_px, (90 + plot_w) / w_px, 1 - 80 / h_px, 1 - (80 + plot_h) / h_px);
        if (!gx || !gy || !txt)
            gp.oom = 1;
        for (size_t i = 0; i < nseries && !gp.oom; i++)
            for (size_t k = 0; series[i].labels && k < series[i].n; k++)
                if (keep(series[i].x[k], series[i].y[k], opt)) {
                    gx[n] = axis_pos(&ax, series[i].x[k]);
                    gy[n] = axis_pos(&ay, series[i].y[k]);
                    txt[n++] = series[i].labels[k] ? series[i].labels[k] : "";
                }
        if (numbered && !gp.oom) { /* numbers beside the points, the numbered key right of the plot */
            char(*nums)[24] = malloc(nlabels * sizeof *nums);
            const char **np = malloc(nlabels * sizeof *np);
            double dy = fmin(0.045, 1.0 / (double)nlabels);
            if (nums && np) {
                for (size_t j = 0; j < nlabels; j++) {
                    snprintf(nums[j], sizeof nums[j], "%zu", j + 1);
                    np[j] = nums[j];
                    rp_printf(&gp, "set label '%zu  ' . ", j + 1);
                    rp_gp_string(&gp, txt[j]);
                    rp_printf(&gp, " at graph 1.03, graph %.4f left font ',%d' tc rgb '#222222'\n",
                              1 - dy * ((double)j + 0.5), dy < 0.03 ? 8 : LABEL_FONT_PT);
                }
                place_labels(&gp, nlabels, gx, gy, np, plot_w, plot_h);
            } else
                gp.oom = 1;
            free(nums);
            free(np);
        } else if (!gp.oom)
            place_labels(&gp, nlabels, gx, gy, txt, plot_w, plot_h);
        free(gx);
        free(gy);
        free(txt);
    } else {
        /* Tight autoscale plus a margin: log axes would otherwise round out to whole decades. */
        rp_printf(&gp, "set autoscale fix\nset offsets graph 0.05, graph 0.05, graph %s, graph %s\n",
                  opt->key_outside ? "0.05" : "0.3", opt->y_from_zero && !opt->log_y ? "0" : "0.12");
        if (opt->y_from_zero && !opt->log_y)
            rp_printf(&gp, "set yrange [0:*]\n");
    }
    rp_printf(&gp,
              "set format x '%%g'\nset format y '%%g'\n"
              "set grid xtics ytics mxtics mytics lc rgb '#d8d8d8' lw 1, lc rgb '#f0f0f0' lw 1\n"
              "set border lw 1.2\n"
              "set key %s vertical Left reverse box opaque samplen 2 spacing 1.1 font ',11'\n"
              "\nplot \\\n",
              nlabels             ? "at screen 0.5, screen 0.005 center bottom horizontal maxrows 2"
              : opt->key_outside ? "outside right top"
                                 : "inside left bottom");
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
