/* A progress line on stderr for long runs (docs/cli.md, "Progress and --quiet"): shown only when
 * stderr is a terminal, not under --quiet, and only once the run has taken about a second; at
 * most ten updates a second; erased at the end, so that what the command prints stays as it is.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_PROGRESS_H
#define RIDGE_CLI_PROGRESS_H

#include <stddef.h>

typedef struct cli_progress {
    const char *what; /* "plan", "validate": the word before the bar */
    double start_s;   /* monotonic clock at cli_progress_begin */
    double last_s;    /* of the last update drawn */
    int on;           /* stderr is a terminal and not --quiet */
    int drawn;        /* a line is on the terminal, to erase */
} cli_progress;

/* --quiet (cli/main.c): no progress line for the rest of the process. */
void cli_progress_set_quiet(int quiet);
void cli_progress_begin(cli_progress *p, const char *what);
/* done of total units (total <= 0: a count with no bar). */
void cli_progress_update(cli_progress *p, double done, double total);
/* A library's progress callback (ridge_progress_fn, ridge/measure.h): arg is a cli_progress. */
void cli_progress_cb(void *arg, size_t done, size_t total);
/* Erase the line if one was drawn. */
void cli_progress_end(cli_progress *p);

#endif
