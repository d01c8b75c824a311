/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>
#include <float.h>
#include <ctype.h>
#include <math.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "progress.h"
#include "ridge/measure.h"
#include "ridge/file.h"
#include "ridge/plot.h"

/* msg on f as one line: its control characters escaped as text output escapes them
 * (cli_text_escape: a name from a file holding a line break stays on the error's line), with the
 * flags in their place when `flags` (cli_put_flags). */
static void put_escaped(const char *msg, int flags, FILE *f)
{
    char small[1024], *esc = small;
    size_t n = cli_text_escape(msg, small, sizeof small);
    if (n >= sizeof small && (esc = malloc(n + 1)) != NULL)
        cli_text_escape(msg, esc, n + 1);
    if (!esc)
        esc = small; /* out of memory: the message cut short */
    if (flags)
        cli_put_flags(esc, f);
    else
        fputs(esc, f);
    if (esc != small)
        free(esc);
}

/* The message of fmt on stderr as one line (put_escaped), formatted whole first: into a buffer on
 * the stack, or one as long as it needs; cut short when there is no memory for that. */
static void put_message(int flags, const char *fmt, va_list ap)
{
    char small[1024], *msg = small;
    va_list again;
    int n;
    va_copy(again, ap);
    n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= (int)sizeof small && (msg = malloc((size_t)n + 1)) != NULL)
        vsnprintf(msg, (size_t)n + 1, fmt, again);
    va_end(again);
    if (n >= 0)
        put_escaped(msg ? msg : small, flags, stderr);
    if (msg != small)
        free(msg);
}

/* Library messages name run, parallel and cluster fields; what the user typed was a flag, so
 * the message is formatted whole and written with the flags in their place (cli_put_flags). */
void cli_error(const char *fmt, ...)
{
    va_list ap;
    fputs("ridge: ", stderr);
    va_start(ap, fmt);
    put_message(1, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "ridge %s: ", cmd);
    va_start(ap, fmt);
    put_message(0, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see 'ridge %s --help')\n", cmd);
    return CLI_EXIT_USAGE;
}

int cli_take_once(const char *cmd, const char *flag, const char **slot, const char *value, const char *why)
{
    if (*slot)
        return cli_usage_error(cmd, "%s given twice: %s", flag, why);
    *slot = value;
    return CLI_EXIT_OK;
}

int cli_refuse_output_over_input(const char *cmd, const char *flag, const char *out, const char *const *inputs,
                                 int n)
{
    struct stat so, si;
    if (!out || stat(out, &so) != 0 || !S_ISREG(so.st_mode))
        return CLI_EXIT_OK;
    for (int i = 0; i < n; i++)
        if (inputs[i] && stat(inputs[i], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
            return cli_usage_error(cmd, "%s: %s is also an input file (writing it would replace that input)", flag,
                                   out);
    return CLI_EXIT_OK;
}

/* The long options a shortened "--NAME" (up to '=') could be, listed in buf ("--precision,
 * --price, --prices"); their count. getopt_long takes a prefix of one option's name for it, and
 * reports a prefix of several as it reports an unknown name. */
static int long_prefix_matches(const char *arg, const struct option *longopts, char *buf, size_t cap)
{
    const char *name = arg + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name), used = 0;
    int n = 0;
    buf[0] = '\0';
    for (const struct option *lo = longopts; lo && lo->name; lo++) {
        if (len == 0 || strncmp(lo->name, name, len) != 0)
            continue;
        if (used < cap) {
            int w = snprintf(buf + used, cap - used, "%s--%s", n ? ", " : "", lo->name);
            used += w > 0 ? (size_t)w : 0;
        }
        n++;
    }
    return n;
}

int cli_getopt_error(const char *cmd, int c, char *const argv[], const struct option *longopts)
{
    const char *arg = argv[optind - 1], *eq = strchr(arg, '=');
    char names[256];
    if (c == ':')
        return cli_usage_error(cmd, "option '%s' needs a value", arg);
    /* getopt_long sets optopt to a known flag's value when "--flag=VALUE" gives a value to a
     * flag that takes none (0 for a name it does not know) */
    if (optopt && arg[0] == '-' && arg[1] == '-' && eq)
        return cli_usage_error(cmd, "option '%.*s' takes no value", (int)(eq - arg), arg);
    if (arg[0] == '-' && arg[1] == '-' && long_prefix_matches(arg, longopts, names, sizeof names) > 1)
        return cli_usage_error(cmd, "ambiguous option '%.*s' (%s)", eq ? (int)(eq - arg) : (int)strlen(arg), arg,
                               names);
    return cli_usage_error(cmd, "unknown option '%s'", arg);
}

int cli_getopt(cli_opts *o, int argc, char **argv, const char *shortopts, const struct option *longopts)
{
    int c;
    if (!o->started) {
        optind = 1;
        opterr = 0; /* one line of our own instead of getopt's */
        o->started = 1;
        o->exit = -1;
    }
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (c == 'f' && o->fmt) {
            if (cli_parse_format(optarg, o->fmt)) {
                o->exit = CLI_EXIT_USAGE;
                return -1;
            }
            continue;
        }
        if (c == 'h') {
            fputs(o->help, stdout);
            if (o->help_more)
                fputs(o->help_more, stdout);
            if (o->help_last)
                fputs(o->help_last, stdout);
            o->exit = CLI_EXIT_OK;
            return -1;
        }
        if (c == ':' || c == '?') {
            o->exit = cli_getopt_error(o->cmd, c, argv, longopts);
            return -1;
        }
        return c;
    }
    return -1;
}

int cli_extra_arg_error(const char *cmd, char *const argv[])
{
    return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
}

int cli_exit_code(int status)
{
    switch (status) {
    case RIDGE_OK: return CLI_EXIT_OK;
    case RIDGE_EIO: return CLI_EXIT_IO;
    case RIDGE_EEXTERNAL: return CLI_EXIT_EXTERNAL;
    case RIDGE_ENOMEM: return CLI_EXIT_FAILURE;
    default: return CLI_EXIT_USAGE;
    }
}

/* s as one of the formats, csv among them when `csv`; else the error naming those there are. */
static int parse_format(const char *s, int csv, cli_format *f)
{
    if (strcmp(s, "text") == 0)
        *f = CLI_FMT_TEXT;
    else if (strcmp(s, "json") == 0)
        *f = CLI_FMT_JSON;
    else if (csv && strcmp(s, "csv") == 0)
        *f = CLI_FMT_CSV;
    else {
        cli_error("--format: '%s' is not one of text, json%s", s, csv ? ", csv" : "");
        return -1;
    }
    return 0;
}

int cli_parse_format(const char *s, cli_format *f)
{
    return parse_format(s, 1, f);
}

int cli_parse_format_text_json(const char *s, cli_format *f)
{
    return parse_format(s, 0, f);
}

/* Whether s is a number as ridge reads it: strtod and strtol also take leading blanks ("' 5'")
 * and strtod hexadecimal ("0x10", "0x1p4"), which ridge does not. */
int cli_plain_number(const char *s)
{
    const char *p = s + (*s == '-' || *s == '+');
    return !isspace((unsigned char)*s) && !(p[0] == '0' && (p[1] == 'x' || p[1] == 'X'));
}

int cli_parse_double(const char *opt, const char *s, double lo, double hi, double *out)
{
    char *end = NULL;
    double v;
    errno = 0;
    v = strtod(s, &end);
    /* ERANGE with a result below DBL_MIN is an underflow (1e-308): a finite number, checked
     * against the range like any other; only an overflow (1e400) is not a finite number. */
    int underflow = errno == ERANGE && fabs(v) <= DBL_MIN;
    if (end == s || *end != '\0' || (errno == ERANGE && !underflow) || !isfinite(v) || !cli_plain_number(s)) {
        cli_error("%s: '%s' is not a finite number", opt, s);
        return -1;
    }
    /* below the smallest subnormal (1e-400) is out of range, not the 0 it rounds to */
    if ((underflow && v == 0) || v < lo || v > hi) {
        cli_error("%s: %s is out of range [%g, %g]", opt, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_parse_long(const char *opt, const char *s, long lo, long hi, long *out)
{
    char *end = NULL;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    /* digits only (a minus sign is read, to say it is out of range): no '+', blank or 0x */
    if (end == s || *end != '\0' || errno == ERANGE || !cli_plain_number(s) || s[0] == '+') {
        cli_error("%s: '%s' is not an integer", opt, s);
        return -1;
    }
    if (v < lo || v > hi) {
        cli_error("%s: %s is out of range [%ld, %ld]", opt, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_check_list(const char *opt, const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || s[0] == ',' || s[n - 1] == ',' || strstr(s, ",,")) {
        cli_error("%s: an empty entry in '%s'", opt, s);
        return -1;
    }
    return 0;
}

int cli_read_file(const char *path, char **out, size_t *len)
{
    ridge_err err = {{0}};
    int rc = ridge_file_read(path, out, len, &err);
    if (rc != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(rc);
    }
    return CLI_EXIT_OK;
}

int cli_load_gpu(const char *id, const char *file, ridge_gpu *g)
{
    ridge_err err = {{0}};
    int rc = file ? ridge_gpu_load_file(file, g, &err) : ridge_catalog_load(id, g, &err);
    if (rc != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(rc);
    }
    return CLI_EXIT_OK;
}

int cli_write_json_file(const char *path, cJSON *root)
{
    ridge_err err = {{0}};
    char *text, *buf;
    size_t n;
    int st;
    if (!root) {
        cli_error("out of memory building JSON");
        return CLI_EXIT_FAILURE;
    }
    text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) {
        cli_error("out of memory building JSON");
        return CLI_EXIT_FAILURE;
    }
    n = strlen(text);
    buf = realloc(text, n + 2);
    if (!buf) {
        free(text);
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    buf[n] = '\n';
    buf[n + 1] = '\0';
    st = ridge_plot_write_file(path, buf, n + 1, &err);
    free(buf);
    if (st != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(st);
    }
    return CLI_EXIT_OK;
}

int cli_print_json(cJSON *root)
{
    char *s;
    if (!root) {
        cli_error("out of memory building JSON");
        return CLI_EXIT_FAILURE;
    }
    s = cJSON_Print(root);
    cJSON_Delete(root);
    if (!s) {
        cli_error("out of memory printing JSON");
        return CLI_EXIT_FAILURE;
    }
    fputs(s, stdout);
    fputc('\n', stdout);
    free(s);
    return CLI_EXIT_OK;
}

/* Bytes of the control character at s (0: none there): C0 and DEL take one, C1 two (UTF-8). */
static size_t control_len(const char *s)
{
    unsigned char a = (unsigned char)s[0];
    if (a == 0)
        return 0;
    if (a < 0x20 || a == 0x7f)
        return 1;
    if (a == 0xc2 && (unsigned char)s[1] >= 0x80 && (unsigned char)s[1] <= 0x9f)
        return 2;
    return 0;
}

size_t cli_text_escape(const char *s, char *out, size_t cap)
{
    size_t n = 0, kept = 0; /* escaped length so far; bytes written to out */
    int cut = 0;
    while (*s) {
        char esc[8];
        const char *piece = s;
        size_t k = control_len(s), len;
        if (k) {
            unsigned code = k == 1 ? (unsigned char)s[0] : (unsigned char)s[1];
            len = (size_t)snprintf(esc, sizeof esc, k == 1 ? "\\x%02x" : "\\u%04x", code);
            piece = esc;
        } else {
            /* One whole character: a UTF-8 lead byte with its continuation bytes. */
            k = 1;
            while (((unsigned char)s[k] & 0xc0) == 0x80)
                k++;
            len = k;
        }
        if (!cut && n + len < cap) {
            memcpy(out + n, piece, len);
            kept = n + len;
        } else {
            cut = 1;
        }
        n += len;
        s += k;
    }
    if (cap > 0)
        out[kept] = '\0';
    return n;
}

const char *cli_text(const char *s, char *buf, size_t cap)
{
    cli_text_escape(s, buf, cap);
    return buf;
}

const char *cli_num(double v, char *buf, size_t cap)
{
    double a = fabs(v);
    if (!isfinite(v))
        snprintf(buf, cap, "-");
    else if (a >= 1e4 && a < 1e15)
        snprintf(buf, cap, "%.0f", v);
    else
        snprintf(buf, cap, "%.4g", v);
    return buf;
}

/* Human units (docs/cli.md, "Keys and units"): the unit picked by magnitude so the number keeps
 * 4 significant digits and at most 4 before the point. */
typedef struct {
    double scale; /* value / scale is printed */
    const char *unit;
} cli_unit;

static const char *num_unit(double v, const cli_unit *u, size_t n, char *buf, size_t cap)
{
    double a = fabs(v);
    size_t i = 0;
    if (!isfinite(v)) {
        snprintf(buf, cap, "-");
        return buf;
    }
    /* the largest unit the value reaches (the first one for 0 and below it) */
    while (i + 1 < n && a >= u[i + 1].scale * 0.99995)
        i++;
    snprintf(buf, cap, "%.4g %s", v / u[i].scale, u[i].unit);
    return buf;
}

const char *cli_num_time(double s, char *buf, size_t cap)
{
    static const cli_unit u[] = {{1e-9, "ns"}, {1e-6, "\xc2\xb5" "s"}, {1e-3, "ms"}, {1, "s"}, {3600, "h"}};
    if (s == 0) {
        snprintf(buf, cap, "0 s");
        return buf;
    }
    if (fabs(s) >= 60 && fabs(s) < 3600 * 0.99995) {
        snprintf(buf, cap, "%.4g min", s / 60);
        return buf;
    }
    return num_unit(s, u, sizeof u / sizeof u[0], buf, cap);
}

const char *cli_num_bytes(double b, char *buf, size_t cap)
{
    static const cli_unit u[] = {{1, "B"}, {1024.0, "KiB"}, {1048576.0, "MiB"}, {1073741824.0, "GiB"},
                                 {1099511627776.0, "TiB"}};
    return num_unit(b, u, sizeof u / sizeof u[0], buf, cap);
}

const char *cli_num_si(double v, char *buf, size_t cap)
{
    double a = fabs(v);
    if (isfinite(v) && a >= 1e4) {
        static const cli_unit u[] = {{1, ""}, {1e3, "k"}, {1e6, "M"}, {1e9, "G"}, {1e12, "T"}, {1e15, "P"}};
        num_unit(v, u, sizeof u / sizeof u[0], buf, cap);
        return buf;
    }
    snprintf(buf, cap, isfinite(v) ? "%.4g" : "-", v);
    return buf;
}

/* The measurement files a command names (validate, calibrate, roofline --measured), collected
 * with the library and its error printed. A file named twice (the same path, or another path to
 * the same file) is a usage error: its cases would count twice in every figure and fit. */
int cli_meas_collect(char *const *paths, int n, const char *gpu_opt, const ridge_gpu *gpu_file, ridge_meas_set *s,
                     struct cli_progress *prog)
{
    ridge_err err = {{0}};
    int rc;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            struct stat a, b;
            if (strcmp(paths[i], paths[j]) == 0 ||
                (stat(paths[i], &a) == 0 && stat(paths[j], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)) {
                cli_error("%s: named twice (its measurements would count twice)", paths[i]);
                return CLI_EXIT_USAGE;
            }
        }
    rc = ridge_meas_collect_files_progress((const char *const *)paths, n, gpu_opt, gpu_file, s,
                                               prog ? cli_progress_cb : NULL, prog, &err);
    if (rc != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(rc);
    }
    return CLI_EXIT_OK;
}
