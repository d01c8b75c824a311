/* ridge report: the document writer (HTML with inline SVG charts, or Markdown with PNG charts
 * beside it), the table cells of the sections and the one price lookup.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chart_render.h"
#include "report.h"

/* Markdown: the text is plain text, never markup, whatever it holds (a host profile's id, a
 * prices file's source...): HTML's special characters as entities, so that no tag reaches a
 * renderer; a backslash before the characters that would make a table cell end ('|'), a link or
 * image ('[', ']'), code ('`') or an escape ('\\'); control bytes (a line break would end a table
 * row or start a block) as spaces. */
static void put_md(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '&')
            fputs("&amp;", out);
        else if (c == '<')
            fputs("&lt;", out);
        else if (c == '>')
            fputs("&gt;", out);
        else if (strchr("|[]`\\", c))
            fprintf(out, "\\%c", c);
        else
            fputc(c < 0x20 || c == 0x7f ? ' ' : c, out);
    }
}

static void put_text(report_doc *d, const char *s)
{
    if (d->fmt == REPORT_MD) {
        put_md(d->out, s);
        return;
    }
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", d->out); break;
        case '<': fputs("&lt;", d->out); break;
        case '>': fputs("&gt;", d->out); break;
        case '"': fputs("&quot;", d->out); break;
        default: fputc(*s, d->out);
        }
    }
}

/* A Markdown link's target, a file name taken from -o: percent-encoded but for the characters
 * that cannot end or break it, so that "a (b).png" stays one link. */
static void put_md_target(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (isalnum(c) || strchr("-._~", c))
            fputc(c, out);
        else
            fprintf(out, "%%%02X", c);
    }
}

static void put_vfmt(report_doc *d, const char *fmt, va_list ap)
{
    char buf[2048];
    vsnprintf(buf, sizeof buf, fmt, ap);
    put_text(d, buf);
}

void report_h(report_doc *d, int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (d->fmt == REPORT_HTML)
        fprintf(d->out, "<h%d>", level);
    else
        fprintf(d->out, "\n%.*s ", level, "######");
    put_vfmt(d, fmt, ap);
    if (d->fmt == REPORT_HTML)
        fprintf(d->out, "</h%d>\n", level);
    else
        fputs("\n\n", d->out);
    va_end(ap);
}

void report_p(report_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(d->fmt == REPORT_HTML ? "<p>" : "", d->out);
    put_vfmt(d, fmt, ap);
    fputs(d->fmt == REPORT_HTML ? "</p>\n" : "\n\n", d->out);
    va_end(ap);
}

void report_li(report_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (d->fmt == REPORT_HTML && !d->list_open)
        fputs("<ul>\n", d->out);
    d->list_open = 1;
    fputs(d->fmt == REPORT_HTML ? "<li>" : "- ", d->out);
    put_vfmt(d, fmt, ap);
    fputs(d->fmt == REPORT_HTML ? "</li>\n" : "\n", d->out);
    va_end(ap);
}

void report_list_end(report_doc *d)
{
    if (d->fmt == REPORT_HTML && d->list_open)
        fputs("</ul>\n", d->out);
    else if (d->fmt == REPORT_MD)
        fputc('\n', d->out);
    d->list_open = 0;
}

void report_table(report_doc *d, const cli_table *t)
{
    if (d->fmt == REPORT_HTML) {
        fputs("<table>\n", d->out);
        for (int r = 0; r < t->nrows; r++) {
            fputs("<tr>", d->out);
            for (int c = 0; c < t->ncols; c++) {
                const char *tag = r == 0 ? "th" : "td";
                fprintf(d->out, "<%s%s>", tag, r > 0 && t->right && t->right[c] ? " class=\"n\"" : "");
                put_text(d, t->cells[r * t->ncols + c]);
                fprintf(d->out, "</%s>", tag);
            }
            fputs("</tr>\n", d->out);
        }
        fputs("</table>\n", d->out);
        return;
    }
    for (int r = 0; r < t->nrows; r++) {
        fputc('|', d->out);
        for (int c = 0; c < t->ncols; c++) {
            fputc(' ', d->out);
            put_text(d, t->cells[r * t->ncols + c]);
            fputs(" |", d->out);
        }
        fputc('\n', d->out);
        if (r == 0) {
            fputc('|', d->out);
            for (int c = 0; c < t->ncols; c++)
                fputs(t->right && t->right[c] ? " ---: |" : " --- |", d->out);
            fputc('\n', d->out);
        }
    }
    fputc('\n', d->out);
}

int report_chart_paths(report_doc *d, const char *name, ridge_plot_paths *paths)
{
    char chart[RIDGE_PLOT_PATH_MAX];
    ridge_err err;
    int n;
    if (d->fmt == REPORT_HTML)
        n = snprintf(chart, sizeof chart, "%s/%s.svg", d->tmpdir, name);
    else
        n = snprintf(chart, sizeof chart, "%s/%s-%s.png", d->dir, d->stem, name);
    if (n < 0 || (size_t)n >= sizeof chart || ridge_plot_paths_from_chart(chart, paths, &err) != RIDGE_OK) {
        cli_error("report: chart path too long: %s", chart);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

/* Remove `name="..."` attributes whose value is a URL (xmlns, xmlns:xlink) from an SVG text, in
 * place: an HTML5 page's inline SVG needs none, and the page must name no external address. */
static void strip_url_attrs(char *s)
{
    char *p;
    while ((p = strstr(s, "=\"http")) != NULL) {
        char *start = p, *end = strchr(p + 2, '"');
        while (start > s && start[-1] != ' ' && start[-1] != '\n' && start[-1] != '\t')
            start--;
        if (start > s)
            start--; /* the blank before the attribute */
        if (!end)
            break;
        memmove(start, end + 1, strlen(end + 1) + 1);
    }
}

static void inline_svg(report_doc *d, const char *path, const char *alt)
{
    char *text = NULL;
    size_t len = 0;
    if (cli_read_file(path, &text, &len) != CLI_EXIT_OK)
        return;
    char *svg = strstr(text, "<svg");
    if (svg) {
        strip_url_attrs(svg);
        fputs("<figure>", d->out);
        fputs(svg, d->out);
        fputs("<figcaption>", d->out);
        put_text(d, alt);
        fputs("</figcaption></figure>\n", d->out);
        d->charts++;
    }
    free(text);
}

int report_chart(report_doc *d, const ridge_plot_paths *paths, const char *alt)
{
    /* Without gnuplot the page says so. The .dat and .gp are removed below (a failed run's too:
     * the report is not written, exit 4), so cli_chart_render names neither. */
    int drawn = 0, rc = cli_chart_render(paths, 0, &drawn);
    if (rc == CLI_EXIT_OK && drawn) {
        if (d->fmt == REPORT_HTML) {
            inline_svg(d, paths->chart, alt);
            unlink(paths->chart);
        } else {
            const char *base = strrchr(paths->chart, '/');
            fputs("![", d->out);
            put_text(d, alt);
            fputs("](", d->out);
            put_md_target(d->out, base ? base + 1 : paths->chart);
            fputs(")\n\n", d->out);
            d->charts++;
        }
    } else if (rc == CLI_EXIT_OK) {
        d->charts_missing++;
        report_p(d, "(Chart not drawn: gnuplot was not found. %s)", alt);
    }
    unlink(paths->dat);
    unlink(paths->gp);
    return rc;
}

char *report_num(double v, char *buf, size_t cap)
{
    cli_num(v, buf, cap);
    return buf;
}

void report_cell(char *dst, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, 96, fmt, ap);
    va_end(ap);
}

int report_row(cli_table *t, char cells[][96])
{
    const char *row[16];
    for (int i = 0; i < t->ncols; i++)
        row[i] = cells[i];
    return cli_table_add(t, row);
}

void report_table_start(cli_table *t, int ncols, char cells[][96])
{
    cli_table_init(t, ncols);
    report_row(t, cells);
    for (int i = 1; i < ncols; i++)
        t->right[i] = 1;
}

int report_price(const ridge_gpu *g, double *usd_per_hour, const char **source, const char **date)
{
    /* The GPU's price as cli_prices_apply left it: --price / --prices, else the catalogue's. */
    *usd_per_hour = g->price_usd_per_hour;
    *source = g->price_source;
    *date = g->price_date;
    return g->price_usd_per_hour > 0;
}
