/* The catalogue listings (gpus, workloads, clusters): one row per built-in entry, as a table for
 * text and CSV or as a JSON array of objects under {"schema_version", KEY: [...]}. The columns are
 * described once (cli/emit.h); each row goes through cli_emit_row(&l.e, ...).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_LISTING_H
#define RIDGE_CLI_LISTING_H

#include "cli.h"
#include "emit.h"

typedef struct {
    cli_format fmt;
    cli_table t;     /* text and CSV, its heading row from the columns */
    cJSON *root;     /* JSON only, else NULL */
    cli_emit_table e; /* the columns, writing into t or into root's array */
} cli_listing;

/* The command line of a listing: [--format text|json|csv] [--help] and nothing else. Returns -1
 * to go on, else the exit code to return (the help printed, or the usage error). */
int cli_listing_args(int argc, char **argv, const char *cmd, const char *help, cli_format *fmt);
/* cli_listing_args, then cli_listing_init with the format given: -1 to go on, else the exit code
 * to return. */
int cli_listing_open(cli_listing *l, int argc, char **argv, const char *cmd, const char *help,
                     const cli_emit_col *cols, size_t ncols, const char *array_key);
/* A table of the ncols columns, its heading added, and, for JSON, the root with its array under
 * array_key. Returns an exit code (CLI_EXIT_FAILURE out of memory). */
int cli_listing_init(cli_listing *l, cli_format fmt, const cli_emit_col *cols, size_t ncols, const char *array_key);
/* Where rc is CLI_EXIT_OK, print the listing in its format; free it either way. Returns rc, or
 * the JSON printer's exit code. */
int cli_listing_end(cli_listing *l, int rc);

#endif
