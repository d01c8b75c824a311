/* Shared pieces of the ridge command-line program: formats, errors, exit codes, tables.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_H
#define RIDGE_CLI_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "ridge/gpu.h"
#include "ridge/measure.h"

/* Exit codes (docs/cli.md). */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_FAILURE = 1,  /* internal error (out of memory) */
    CLI_EXIT_USAGE = 2,    /* bad usage or bad input: unknown id, malformed or invalid file */
    CLI_EXIT_IO = 3,       /* a file could not be read or written */
    CLI_EXIT_EXTERNAL = 4, /* an external program (gnuplot) failed */
    CLI_EXIT_CHECK = 5,    /* a check failed: an error grew beyond its baseline (validate --baseline) */
};

#define CLI_SCHEMA_VERSION 1

typedef enum { CLI_FMT_TEXT = 0, CLI_FMT_JSON, CLI_FMT_CSV } cli_format;

/* "ridge: message" on stderr, one line, with the fields a library message names written as the
 * flags that set them (cli_put_flags). */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Map a libridge status to an exit code. */
int cli_exit_code(int status);
/* Parse text|json|csv; usage error message on failure. */
int cli_parse_format(const char *s, cli_format *f);
/* The same for a command without CSV (bench, calibrate): text|json, the error naming those two. */
int cli_parse_format_text_json(const char *s, cli_format *f);
/* Whether s is written as ridge reads numbers: no leading blank, no hexadecimal. */
int cli_plain_number(const char *s);
/* Strict number parsing: the whole string, finite, within [lo, hi]. 0 ok, -1 error (printed). */
int cli_parse_double(const char *opt, const char *s, double lo, double hi, double *out);
int cli_parse_long(const char *opt, const char *s, long lo, long hi, long *out);
/* A comma-separated list must have no empty entry ("1,,2", a leading or trailing comma), which
 * strtok would skip. 0 ok, -1 error (printed). */
int cli_check_list(const char *opt, const char *s);
/* Load a GPU by id (built-in, "ID:MIGPROFILE" allowed) or from a file when `file` is set.
 * Prints the error and returns an exit code (0 on success). */
int cli_load_gpu(const char *id, const char *file, ridge_gpu *g);
/* Read a whole file into a NUL-terminated buffer (caller frees) with ridge_file_read, so at most
 * RIDGE_FILE_MAX_BYTES. Prints the error and returns an exit code (0 on success). */
int cli_read_file(const char *path, char **out, size_t *len);
/* ridge_meas_collect_files (ridge/measure.h) of the measurement files paths[0..n): prints the
 * error of the first file that fails to load and returns its exit code (s untouched). prog (or
 * NULL): a progress line begun by the caller (cli/progress.h), updated as measurements are
 * collected. */
struct cli_progress;
int cli_meas_collect(char *const *paths, int n, const char *gpu_opt, const ridge_gpu *gpu_file, ridge_meas_set *s,
                     struct cli_progress *prog);
/* A measurement skip reason (ridge_meas_set.reason) or a ridge_cal_fit refusal as the CLI says
 * it: the ones the library words by its arguments name the flags that set them ("GPU not mapped
 * (use --gpu)"); the others are returned as they are (cli/measure_flags.c). */
const char *cli_flag_words(const char *why);
/* Write msg to f with the fields library messages name ("parallel.tp", "run.grad_accum",
 * "cluster.nodes") replaced by the flags that set them ("--tp", "--grad-accum", "--nodes"), whole
 * tokens only; cli_error prints every message through it (cli/measure_flags.c). */
void cli_put_flags(const char *msg, FILE *f);
/* Write a cJSON tree (pretty, newline-terminated) to path atomically (ridge_plot_write_file: a device or FIFO in place), and free it. Prints the
 * error and returns an exit code. */
int cli_write_json_file(const char *path, cJSON *root);
/* Print a cJSON tree to stdout (pretty) and free it. */
int cli_print_json(cJSON *root);
/* Text output of strings from files (names, notes, sources): control characters as escapes, so
 * that a file cannot drive the terminal. C0 controls and DEL become \xHH, the C1 controls
 * U+0080..U+009F \u00HH (U+009B is a CSI to many terminals). cli_text_escape writes the escaped s
 * into out (cap bytes, NUL-terminated, cut at a whole character; out may be NULL with cap 0) and
 * returns its full length; cli_text returns buf holding the escaped s, cut to fit. An escape is
 * at most 4 times the bytes it stands for: CLI_TEXT_CAP(sizeof field) holds any field's. */
#define CLI_TEXT_CAP(bytes) (4 * (bytes) + 1)
/* Of a GPU, model, operator-list or cluster name (each a char[96]). */
#define CLI_NAME_TEXT_CAP CLI_TEXT_CAP(96)
size_t cli_text_escape(const char *s, char *out, size_t cap);
const char *cli_text(const char *s, char *buf, size_t cap);
/* Human number formatting: 4 significant digits, no exponent below 1e15. */
const char *cli_num(double v, char *buf, size_t cap);
/* Human units for text (docs/cli.md, "Keys and units"), 4 significant digits: a time in seconds
 * as ns, µs, ms, s, min or h ("18.53 min"); bytes as B, KiB, MiB, GiB or TiB ("16.83 GiB");
 * a count or rate with k, M, G, T or P from 1e4 on ("4.792 M"), plainly below. */
const char *cli_num_time(double s, char *buf, size_t cap);
const char *cli_num_bytes(double bytes, char *buf, size_t cap);
const char *cli_num_si(double v, char *buf, size_t cap);
/* A short usage line printer for a command; help text is in each cmd_*.c. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* An option that may be given once: *slot = value and CLI_EXIT_OK the first time; a second time
 * the usage error "FLAG given twice: WHY" (a one-GPU command given two GPUs, not the last one
 * silently). */
int cli_take_once(const char *cmd, const char *flag, const char **slot, const char *value, const char *why);

/* An output that is the same file as one of `n` inputs (the same device and inode: another
 * spelling of its path, or a link to it) is the usage error "FLAG: OUT is also an input file
 * (writing it would replace that input)": the input would be lost. NULL inputs are skipped; an
 * output that does not exist yet, or is not a plain file (written in place: /dev/null), is never
 * an input's. CLI_EXIT_OK otherwise. */
int cli_refuse_output_over_input(const char *cmd, const char *flag, const char *out, const char *const *inputs,
                                 int n);

/* The usage error for what getopt_long (with a leading ':' in its option string and opterr = 0)
 * returned for the option at argv[optind - 1]: ':' a missing value, a value given to a flag, a
 * shortened name that several of `longopts` start with ("ambiguous option '--pr' (--precision,
 * --price, --prices)"), anything else unknown. */
struct option;
int cli_getopt_error(const char *cmd, int c, char *const argv[], const struct option *longopts);

/* The options every command shares, read in one place (cli_getopt): --help ('h'), --format ('f')
 * when fmt is set, and getopt's missing values and unknown options. */
typedef struct {
    const char *cmd;              /* for messages: "bench", "gpu show" */
    const char *help, *help_more; /* what --help prints, in order (help_more may be NULL) */
    cli_format *fmt;              /* --format parsed into it; NULL: the command reads 'f' itself */
    int started;                  /* 0 before the first call: optind and opterr are reset */
    int exit;                     /* after the loop: -1 go on, else the exit code to return (0: --help) */
    const char *help_last;        /* printed after help_more (may be NULL): a third literal, each
                                   * under C's 4,095 characters */
} cli_opts;

/* getopt_long entries (<getopt.h>) the commands share, so that each flag is one name, one kind
 * and one value everywhere: --format ('f') and --help ('h') are the values cli_getopt reads; --gpu
 * and --gpu-file (a built-in id or a GPU file, cli_load_gpu), --workload and --runtime name what a
 * prediction runs; CLI_OPTION_END closes a table. */
#define CLI_OPTION_FORMAT {"format", required_argument, 0, 'f'}
#define CLI_OPTION_HELP {"help", no_argument, 0, 'h'}
#define CLI_OPTIONS_GPU {"gpu", required_argument, 0, 'g'}, {"gpu-file", required_argument, 0, 'G'}
#define CLI_OPTION_WORKLOAD {"workload", required_argument, 0, 'w'}
#define CLI_OPTION_RUNTIME {"runtime", required_argument, 0, 'r'}
/* --price ID=USD_PER_HOUR and --prices FILE (cli/prices.h): the codes lie above every command's own
 * (letters, plan's small enum) and below the run options' (CLI_RUN_OPT_BASE, cli/model_run.h);
 * cli_prices_option reads either. */
#define CLI_OPT_PRICE 900
#define CLI_OPT_PRICES 901
#define CLI_OPTION_PRICES {"price", required_argument, 0, CLI_OPT_PRICE}, {"prices", required_argument, 0, CLI_OPT_PRICES}
#define CLI_OPTION_END {0, 0, 0, 0}
struct option;
/* getopt_long (shortopts with a leading ':') over the command's options, with the shared ones
 * handled here: returns the next option for the command to handle, or -1 at the end of the options
 * or when the command must stop (o->exit >= 0: --help printed, or a usage error printed). */
int cli_getopt(cli_opts *o, int argc, char **argv, const char *shortopts, const struct option *longopts);
/* "unexpected argument 'ARG'" for argv[optind], the usage error when a command takes no more. */
int cli_extra_arg_error(const char *cmd, char *const argv[]);

/* The width text output keeps to (docs/cli.md, "Output"). */
#define CLI_TEXT_COLUMNS 120
/* Text to out, broken at spaces into lines of at most CLI_TEXT_COLUMNS: the first starts after
 * `first` columns already written (its indent), the others with `indent` spaces; then a newline.
 * A word longer than a line is written whole. */
void cli_print_wrapped(FILE *out, const char *text, int first, int indent);
/* Columns s takes on a terminal: its UTF-8 code points (our strings are narrow; "µs" is 2), for
 * padding where printf's widths count bytes. */
int cli_text_width(const char *s);

/* A simple table of strings, printed aligned (text) or as CSV. Text wider than CLI_TEXT_COLUMNS is
 * printed as several tables, one under the other, each repeating the first nkey columns (1 from
 * cli_table_init: the row's name) and holding as many of the others as fit. */
typedef struct {
    int ncols;
    int nkey;
    int nrows;
    int cap;
    char **cells;       /* nrows x ncols, row 0 is the header */
    unsigned char *right; /* per column: right-align in text */
} cli_table;

int cli_table_init(cli_table *t, int ncols);
void cli_table_free(cli_table *t);
/* Append a row of ncols strings (copied). */
int cli_table_add(cli_table *t, const char *const *row);
void cli_table_print_text(const cli_table *t, FILE *out);
void cli_table_print_csv(const cli_table *t, FILE *out);
/* One CSV cell, quoted by RFC 4180 where it holds a comma, a quote or a line break. */
void cli_csv_cell(const char *s, FILE *out);

/* Commands. */
int cmd_gpus(int argc, char **argv);
int cmd_gpu(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_roofline(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_workloads(int argc, char **argv);
int cmd_collective(int argc, char **argv);
int cmd_clusters(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
