/* ridge report: one self-contained HTML or Markdown page answering "which GPU for deep learning"
 * for the GPUs given (docs/cli.md, "report"). The sections are written once, through a small
 * document writer that renders HTML (charts as inline SVG) or Markdown (charts as PNG files beside
 * the page). The files: cmd_report.c (the command, its options, the predictions and the page's
 * order), report_doc.c (the writer and its table cells), report_throughput.c (the GPUs,
 * throughput, per watt and per dollar, capacity), report_scaling.c (MIG and multi-GPU scaling),
 * report_answer.c (the short answer, trust and assumptions), report_trust.c (the baseline).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_REPORT_H
#define RIDGE_CLI_REPORT_H

#include <stdio.h>

#include "cli.h"
#include "ridge/gpu.h"
#include "ridge/plot.h"
#include "ridge/schedule.h"
#include "ridge/workload.h"

#define REPORT_MAX_GPUS 4

/* One question of throughput: a model run. */
typedef struct {
    const char *label;  /* "ResNet-50 training" */
    const char *id;     /* workload preset */
    ridge_mode mode;
    double batch, prompt, context;
    const char *trust;  /* the baseline's workload summary that measures this family */
} report_case;

/* The questions of throughput, in the page's order (cmd_report.c). */
#define REPORT_NCASES 8
extern const report_case report_cases[REPORT_NCASES];

/* The GPUs, the run options and each question's prediction on each GPU. */
typedef struct {
    int n;
    ridge_gpu g[REPORT_MAX_GPUS];
    ridge_run_config given;
    int precision_given;
    ridge_runtime rt;
    char precision_note[96];
    double thr[REPORT_NCASES][REPORT_MAX_GPUS];
    const char *unit[REPORT_NCASES];
    char bound[REPORT_NCASES][REPORT_MAX_GPUS][48];
    double max_batch[REPORT_NCASES][REPORT_MAX_GPUS];
    double mem_gib[REPORT_NCASES][REPORT_MAX_GPUS];
    char host_id[64], code[24];
    int progress;
} report_run;

typedef enum { REPORT_HTML = 0, REPORT_MD } report_format;

/* The page being written: its text in memory (open_memstream), written to the path at the end. */
typedef struct {
    report_format fmt;
    FILE *out;
    char *buf;
    size_t len;
    char dir[RIDGE_PLOT_PATH_MAX];   /* where the charts are drawn: the report's directory (Markdown: its
                                      * PNGs go there), $TMPDIR for an HTML page written to a device */
    char stem[RIDGE_PLOT_PATH_MAX];  /* the report's file name without its extension */
    char tmpdir[RIDGE_PLOT_PATH_MAX]; /* HTML: where the SVGs are drawn before they are inlined */
    int charts;                      /* charts placed */
    int charts_missing;              /* charts gnuplot could not draw (absent) */
    int list_open;                   /* an HTML <ul> is open (report_li until report_list_end) */
} report_doc;

/* Headings, paragraphs (printf-style) and lists. All text of the page, table cells and chart
 * captions too, is plain text, escaped for the format: HTML's special characters, and in Markdown
 * also table pipes, brackets, backquotes, backslashes and line breaks (report_doc.c), so that text
 * from a file (a host profile, a prices file's source) cannot become markup. */
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

/* The table cells of the sections (report_doc.c): v as cli_num writes it, into buf; a large count
 * in 3 significant digits with k, M, G ("4.22 M"); a printf-style cell of 96 bytes, cut to fit; a
 * row of cells (cli_table_add); a table started with its header row, the columns after the
 * first right-aligned. */
char *report_num(double v, char *buf, size_t cap);
void report_cell(char *dst, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int report_row(cli_table *t, char cells[][96]);
void report_table_start(cli_table *t, int ncols, char cells[][96]);

/* "ridge report: WHAT" on stderr while r->progress (a terminal), and "compute 71 %": the bound
 * that holds most of the step's time (cmd_report.c). */
void report_progress(const report_run *r, const char *what);
void report_dominant_bound(const ridge_schedule_totals *t, char *buf, size_t cap);

/* The sections, in the page's order after the short answer; those returning int return an exit
 * code (they print errors). */
void report_section_short(report_doc *d, const report_run *r);      /* report_answer.c */
void report_section_gpus(report_doc *d, const report_run *r);       /* report_throughput.c */
int report_section_throughput(report_doc *d, report_run *r);
int report_section_efficiency(report_doc *d, report_run *r);
int report_section_capacity(report_doc *d, report_run *r);
int report_section_mig(report_doc *d, report_run *r);               /* report_scaling.c */
int report_section_scaling(report_doc *d, report_run *r);
void report_section_trust(report_doc *d, const report_run *r);      /* report_answer.c */
void report_section_assumptions(report_doc *d, const report_run *r);

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
