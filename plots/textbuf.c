/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "textbuf.h"

#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ridge/version.h"

void rp_printf(rp_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (b->oom)
        return;
    va_start(ap, fmt);
    n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = 1;
        return;
    }
    if (!b->s || b->len + (size_t)n + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap : 4096;
        char *ns;
        while (ncap < b->len + (size_t)n + 1)
            ncap *= 2;
        ns = realloc(b->s, ncap);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = ncap;
        va_start(ap, fmt);
        vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}

void rp_gp_string(rp_buf *b, const char *s)
{
    rp_printf(b, "'");
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\'')
            rp_printf(b, "''");
        else if (c < 0x20 || c == 0x7f)
            rp_printf(b, " ");
        else
            rp_printf(b, "%c", c);
    }
    rp_printf(b, "'");
}

/* A printf-formatted text in new memory, for the helpers that must see the whole text before
 * writing it; NULL (and b->oom set) when out of memory. */
static char *formatted(rp_buf *b, const char *fmt, va_list ap)
{
    va_list again;
    char *s;
    int n;
    va_copy(again, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    s = n < 0 ? NULL : malloc((size_t)n + 1);
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, again);
    else
        b->oom = 1;
    va_end(again);
    return s;
}

/* fmt's text through `put` (a helper that must see the whole text): rp_gp_stringf, rp_commentf. */
static void put_formatted(rp_buf *b, void (*put)(rp_buf *, const char *), const char *fmt, va_list ap)
{
    char *s = formatted(b, fmt, ap);
    if (s)
        put(b, s);
    free(s);
}

void rp_gp_stringf(rp_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_formatted(b, rp_gp_string, fmt, ap);
    va_end(ap);
}

const char *rp_base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

void rp_gp_preamble(rp_buf *gp, const char *gp_path, const char *dat_path, const char *chart_path)
{
    rp_printf(gp, "# ");
    rp_commentf(gp, "Render with: gnuplot %s  (reads %s, writes %s; from any directory)", gp_path,
                rp_base_name(dat_path), rp_base_name(chart_path));
    rp_printf(gp, "\n");
    rp_printf(gp, "set encoding utf8\nset locale \"C\"\n\n");
    rp_printf(gp, "# Files are named relative to this script's directory.\n"
                  "dir = ''\n"
                  "if (exists('ARG0')) {\n"
                  "    s = ARG0\n"
                  "    while (strstrt(s, '/') > 0) {\n"
                  "        i = strstrt(s, '/')\n"
                  "        dir = dir . s[1:i]\n"
                  "        s = s[i+1:]\n"
                  "    }\n"
                  "}\n");
    rp_printf(gp, "dat = dir . ");
    rp_gp_string(gp, rp_base_name(dat_path));
    rp_printf(gp, "\n\n");
}

void rp_gp_terminal(rp_buf *gp, const ridge_plot_paths *paths, double w_px, double h_px, int font_pt)
{
    if (paths->format == RIDGE_PLOT_SVG)
        rp_printf(gp, "set terminal svg size %g,%g dynamic noenhanced font 'Sans,%d' background '#ffffff'\n", w_px,
                  h_px, font_pt);
    else
        rp_printf(gp,
                  "if (strstrt(GPVAL_TERMINALS, ' pngcairo ') > 0) {\n"
                  "    set terminal pngcairo size %g,%g noenhanced font 'Sans,%d' background '#ffffff'\n"
                  "} else {\n"
                  "    set terminal png size %g,%g noenhanced\n"
                  "}\n",
                  w_px, h_px, font_pt, w_px, h_px);
    /* ridge runs `gnuplot -c SCRIPT -` and renames what it writes over the chart (atomic). */
    rp_printf(gp, "# ridge renders with `gnuplot -c SCRIPT -`: the chart on standard output, into a temporary file\n"
                  "# it then renames over the chart.\n"
                  "if (exists('ARGC') && ARGC > 0 && ARG1 eq '-') {\n"
                  "    set output\n"
                  "} else {\n"
                  "    set output dir . ");
    rp_gp_string(gp, rp_base_name(paths->chart));
    rp_printf(gp, "\n}\n\n");
}

int rp_write_pair(const ridge_plot_paths *paths, const rp_buf *dat, const rp_buf *gp, ridge_err *err)
{
    int rc;
    if (dat->oom || gp->oom)
        return ridge_err_set(err, RIDGE_ENOMEM, "out of memory");
    rc = ridge_plot_write_file(paths->dat, dat->s, dat->len, err);
    if (rc)
        return rc;
    rc = ridge_plot_write_file(paths->gp, gp->s, gp->len, err);
    if (rc)
        remove(paths->dat); /* never one file without the other */
    return rc;
}

static void sanitized(rp_buf *b, const char *s, int quote)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        /* A line break would end a .gp comment and make the rest of a name a gnuplot command
         * (`system "..."`), and a backslash at the end of a line continues it onto the next. */
        rp_printf(b, "%c", c < 0x20 || c == 0x7f || (quote && c == '"') ? ' ' : c == '\\' ? '/' : (char)c);
    }
}

void rp_comment(rp_buf *b, const char *s)
{
    sanitized(b, s, 0);
}

void rp_commentf(rp_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_formatted(b, rp_comment, fmt, ap);
    va_end(ap);
}

void rp_quoted_text(rp_buf *b, const char *s)
{
    sanitized(b, s, 1);
}

void rp_dat_blocks_header(rp_buf *dat, const char *kind, const char *title, const char *noun)
{
    rp_printf(dat, "# ridge %s %s", ridge_version(), kind);
    if (title) {
        rp_printf(dat, ": ");
        rp_comment(dat, title);
    }
    rp_printf(dat, "\n# One block per %s (select with `index N`), separated by two blank lines.\n", noun);
}

void rp_dat_block_header(rp_buf *dat, size_t i, const char *name, const char *noun)
{
    rp_printf(dat, "%s# [index %zu] ", i ? "\n\n" : "\n", i);
    if (name && name[0])
        rp_comment(dat, name);
    else
        rp_printf(dat, "%s %zu", noun, i + 1);
}

void rp_gp_title(rp_buf *gp, const char *title, const char *note)
{
    if (!title && !note)
        return;
    rp_printf(gp, "set title ");
    /* rp_gp_string blanks control bytes: the line break is written as gnuplot's "\n". */
    rp_gp_string(gp, title ? title : "");
    if (note) {
        rp_printf(gp, " . \"\\n\" . ");
        rp_gp_string(gp, note);
    }
    rp_printf(gp, " font ',14'\n");
}

void rp_gp_key_title(rp_buf *gp, size_t i, const char *name, const char *noun)
{
    char fallback[32];
    if (!name || !name[0]) {
        snprintf(fallback, sizeof fallback, "%s %zu", noun, i + 1);
        name = fallback;
    }
    rp_gp_string(gp, name);
}

void rp_dat_xy_columns(rp_buf *dat, const char *xlabel, const char *ylabel)
{
    rp_printf(dat, "# Columns: x (");
    rp_comment(dat, xlabel ? xlabel : "x");
    rp_printf(dat, ") y (");
    rp_comment(dat, ylabel ? ylabel : "y");
    rp_printf(dat, ")");
}

void rp_gp_log_tics(rp_buf *gp, char axis, double lo, double hi)
{
    int first = 1;
    rp_printf(gp, "set %ctics (", axis);
    for (double d = pow(10, floor(log10(lo))); d <= hi; d *= 10)
        for (int k = 0; k < 3; k++) {
            double t = d * (k == 0 ? 1 : k == 1 ? 2 : 5);
            if (t >= lo && t <= hi) {
                rp_printf(gp, "%s%.6g", first ? "" : ", ", t);
                first = 0;
            }
        }
    rp_printf(gp, ")\n");
}
