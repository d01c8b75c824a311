/* ridge report: one self-contained HTML or Markdown page answering "which GPU for deep learning"
 * for the GPUs given (docs/cli.md, "report"). The sections are written once, through a small
 * document writer that renders HTML (charts as inline SVG) or Markdown (charts as PNG files beside
 * the page).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_REPORT_H
#define RIDGE_CLI_REPORT_H

#include <stdio.h>

#include "cli.h"
#include "ridge/gpu.h"
#include "ridge/plot.h"

typedef enum { REPORT_HTML = 0, REPORT_MD } report_format;

/* The page being written: its text in memory (open_memstream), written to the path at the end. */
typedef struct {
    report_format fmt;
    FILE *out;
    char *buf;
    size_t len;
    char dir[RIDGE_PLOT_PATH_MAX];   /* the report's directory (Markdown: its PNGs go there) */
    char stem[RIDGE_PLOT_PATH_MAX];  /* the report's file name without its extension */
    char tmpdir[RIDGE_PLOT_PATH_MAX]; /* HTML: where the SVGs are drawn before they are inlined */
    int charts;                      /* charts placed */
    int charts_missing;              /* charts gnuplot could not draw (absent) */
    int list_open;                   /* an HTML <ul> is open (report_li until report_list_end) */
} report_doc;

/* Headings, paragraphs (printf-style; text is escaped for HTML, written as is in Markdown) and
 * lists. */
void report_h(report_doc *d, int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void report_p(report_doc *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void report_li(report_doc *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void report_list_end(report_doc *d);
/* A table; row 0 of t is the header. */
void report_table(report_doc *d, const cli_table *t);
/* Place the chart whose .dat and .gp were written for paths (report_chart_paths): render it
 * (gnuplot) and inline its SVG (HTML) or link its PNG (Markdown). Returns an exit code. */
int report_chart_paths(report_doc *d, const char *name, ridge_plot_paths *paths);
int report_chart(report_doc *d, const ridge_plot_paths *paths, const char *alt);

/* The price of one GPU per hour, with its source and date: the one place a price is looked up
 * (--price / --prices as cli_prices_apply applied them, else the catalogue's). Returns 1 when
 * priced, 0 for no price. */
int report_price(const ridge_gpu *g, double *usd_per_hour, const char **source, const char **date);

/* The embedded validation baseline (validation/baseline.json): the MAPE in percent and case count
 * of the summary by ("group", "gpu", "workload") named name; 0 when it has none. */
int report_trust(const char *by, const char *name, double *mape_percent, int *cases);
/* "commit abc1234, 2026-12-01" of the baseline, or "unknown commit". */
const char *report_trust_stamp(void);
/* The files the baseline was computed from, comma-separated, into buf. */
const char *report_trust_files(char *buf, size_t cap);

#endif
