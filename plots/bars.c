/* Bar charts: grouped or stacked bars over named categories (GPUs, say), as a .dat table and a
 * gnuplot script using histograms. SPDX-License-Identifier: GPL-3.0-or-later */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ridge/plot.h"
#include "ridge/version.h"
#include "textbuf.h"

/* The curve charts' palette (Okabe–Ito), one colour per series unless the caller gives one. */
static const char *const series_colors[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                            "#E69F00", "#56B4E9", "#000000", "#F0E442"};
#define NCOLORS (sizeof series_colors / sizeof series_colors[0])

/* A .dat token: double-quoted, no quotes or control bytes inside. */
static void bars_token(rp_buf *b, const char *s)
{
    rp_printf(b, "\"");
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        rp_printf(b, "%c", c < 0x20 || c == 0x7f || c == '"' ? ' ' : (char)c);
    }
    rp_printf(b, "\"");
}

/* "#rrggbb". */
static int is_rgb(const char *s)
{
    if (s[0] != '#')
        return 0;
    for (int i = 1; i <= 6; i++)
        if (!isxdigit((unsigned char)s[i]))
            return 0;
    return s[7] == '\0';
}

int ridge_bars_write(const char *const *categories, size_t ncategories, const ridge_bar_series *series,
                     size_t nseries, const ridge_bars_options *opt, const ridge_plot_paths *paths, ridge_err *err)
{
    return ridge_bars_write_colored(categories, ncategories, series, nseries, NULL, opt, paths, err);
}

int ridge_bars_write_colored(const char *const *categories, size_t ncategories, const ridge_bar_series *series,
                             size_t nseries, const char *const *colors, const ridge_bars_options *opt,
                             const ridge_plot_paths *paths, ridge_err *err)
{
    static const ridge_bars_options none = {0};
    rp_buf dat = {0}, gp = {0};
    double ymax = 0;
    int rc;
    if (!opt)
        opt = &none;
    if (!categories || ncategories == 0 || !series || nseries == 0)
        return ridge_err_set(err, RIDGE_EINVAL, "bars: no categories or series to draw");
    if (!paths)
        return ridge_err_set(err, RIDGE_EINVAL, "bars: no chart paths");
    {
        int any = 0;
        for (size_t j = 0; j < nseries; j++) {
            if (!series[j].values)
                return ridge_err_set(err, RIDGE_EINVAL, "bars: series %zu has no values", j);
            if (colors && colors[j] && !is_rgb(colors[j]))
                return ridge_err_set(err, RIDGE_EINVAL, "bars: series %zu colour is not #rrggbb", j);
            for (size_t k = 0; k < ncategories; k++)
                any |= isfinite(series[j].values[k]) != 0;
        }
        if (!any)
            return ridge_err_set(err, RIDGE_EINVAL, "bars: no finite value to draw");
    }

    /* ---- the .dat ---- */
    rp_printf(&dat, "# ridge %s bars (%s)", ridge_version(), opt->stacked ? "stacked" : "grouped");
    if (opt->title) {
        rp_printf(&dat, ": ");
        rp_comment(&dat, opt->title);
    }
    rp_printf(&dat, "\n# Values: ");
    rp_comment(&dat, opt->ylabel ? opt->ylabel : "value");
    rp_printf(&dat, "; NaN: no bar.\n");
    bars_token(&dat, "category");
    for (size_t j = 0; j < nseries; j++) {
        rp_printf(&dat, " ");
        bars_token(&dat, series[j].name && series[j].name[0] ? series[j].name : "series");
    }
    rp_printf(&dat, "\n");
    for (size_t k = 0; k < ncategories; k++) {
        double total = 0;
        bars_token(&dat, categories[k] ? categories[k] : "");
        for (size_t j = 0; j < nseries; j++) {
            double v = series[j].values[k];
            if (isfinite(v)) {
                rp_printf(&dat, " %.9g", v);
                total += v;
                if (!opt->stacked && v > ymax)
                    ymax = v;
            } else
                rp_printf(&dat, " NaN");
        }
        if (opt->stacked && total > ymax)
            ymax = total;
        rp_printf(&dat, "\n");
    }

    /* ---- the .gp ---- */
    rp_printf(&gp, "# ridge %s bar chart\n", ridge_version());
    rp_gp_preamble(&gp, paths->gp, paths->dat, paths->chart);
    rp_gp_terminal(&gp, paths, 1000, 700, 12);
    rp_gp_title(&gp, opt->title, opt->note);
    rp_printf(&gp, "set ylabel ");
    rp_gp_string(&gp, opt->ylabel ? opt->ylabel : "value");
    rp_printf(&gp, "\nset yrange [0:%.6g]\n", ymax > 0 ? ymax * (1.15 + 0.07 * (double)nseries) : 1.0); /* room for the key */
    rp_printf(&gp, "set style data histograms\n"
                   "set style histogram %s\n"
                   "set style fill solid 0.85 border rgb '#333333'\n"
                   "set boxwidth %s\n"
                   "set xtics nomirror rotate by -30 left font ',11'\n"
                   "set format y '%%g'\n"
                   "set grid ytics lc rgb '#d8d8d8' lw 1\n"
                   "set border lw 1.2\n"
                   "set key inside right top vertical Left reverse box opaque samplen 2 font ',11'\n"
                   "\nplot \\\n",
              opt->stacked ? "rowstacked" : "clustered gap 1", opt->stacked ? "0.6" : "0.9");
    /* gnuplot rejects a histogram column without a number: such series are not drawn. */
    size_t ndrawn = 0, drawn = 0;
    for (size_t j = 0; j < nseries; j++)
        for (size_t k = 0; k < ncategories; k++)
            if (isfinite(series[j].values[k])) {
                ndrawn++;
                break;
            }
    for (size_t j = 0, first = 1; j < nseries; j++) {
        int any = 0;
        for (size_t k = 0; k < ncategories; k++)
            any |= isfinite(series[j].values[k]) != 0;
        if (!any)
            continue;
        rp_printf(&gp, "%s    dat using %zu%s lc rgb '%s' title columnheader", first ? "" : ", \\\n", j + 2,
                  first ? ":xtic(1)" : "", colors && colors[j] ? colors[j] : series_colors[j % NCOLORS]);
        if (opt->value_labels && !opt->stacked) {
            /* Clustered bars of a category k sit at k + (j - (n - 1) / 2) / (n + gap), gap 1. */
            double off = ((double)drawn - (double)(ndrawn - 1) / 2.0) / (double)(ndrawn + 1);
            rp_printf(&gp,
                      ", \\\n    dat using ($0 %+.6g):%zu:(sprintf('%%.3g', column(%zu))) every ::1 with labels "
                      "offset 0,0.7 font ',9' notitle",
                      off, j + 2, j + 2);
        }
        first = 0;
        drawn++;
    }
    rp_printf(&gp, "%s\n", opt->value_labels && opt->stacked ? ", \\" : "");
    if (opt->value_labels && opt->stacked) {
        {
            rp_printf(&gp, "    dat using 0:(");
            for (size_t j = 0; j < nseries; j++)
                rp_printf(&gp, "%s(valid(%zu) ? column(%zu) : 0)", j ? " + " : "", j + 2, j + 2);
            rp_printf(&gp, "):(sprintf('%%.3g', ");
            for (size_t j = 0; j < nseries; j++)
                rp_printf(&gp, "%s(valid(%zu) ? column(%zu) : 0)", j ? " + " : "", j + 2, j + 2);
            rp_printf(&gp, ")) every ::1 with labels offset 0,0.8 font ',10' notitle\n");
        }
    }

    rc = rp_write_pair(paths, &dat, &gp, err);
    free(dat.s);
    free(gp.s);
    return rc;
}
