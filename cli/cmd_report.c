/* ridge report GPU... -o report.html|report.md: the article's questions (training or inference,
 * CNN, RNN or transformer, per watt, per dollar, the largest batch and model, MIG, NVLink or PCIe)
 * answered with the model's predictions for the GPUs given, each with the bound that explains it
 * and the model's measured error for its family (docs/cli.md, "report").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model_run.h"
#include "prices.h"
#include "report.h"

static const char help[] =
    "usage: ridge report GPU... [run options] -o report.html|report.md\n"
    "\n"
    "One self-contained page that answers which of the GPUs to use for deep learning: training\n"
    "and inference throughput of a CNN (ResNet-50), an RNN (GNMT) and transformers (BERT-large,\n"
    "Llama 2 7B), per watt and per dollar where a price exists, the largest batch and model that\n"
    "fit, MIG slices for inference, data-parallel scaling over the GPU's built-in cluster (NVLink\n"
    "or PCIe), the bound behind each answer, the assumptions and the model's measured error.\n"
    ".html: inline SVG charts, no external link; .md: charts as PNG files beside it. The report\n"
    "sets each question's mode, batch and lengths; --precision, --host, --code, --optimizer and\n"
    "the other run options apply to every question. Up to 4 GPUs.\n"
    "\n"
    "Options:\n"
    "  -o, --output PATH   the report (.html, .htm or .md); its directory must exist (a device\n"
    "                      such as /dev/stdout is written in place, HTML without an extension)\n"
    "  --price ID=USD_PER_HOUR   a price per GPU-hour in place of the catalogue's (repeatable;\n"
    "                      a MIG slice takes its share of its parent's); --prices FILE: a prices\n"
    "                      file (docs/cli.md, \"Prices\")\n"
    "  -h, --help          this help\n"
    "\n";

const report_case report_cases[] = {
    {"ResNet-50 training", "resnet50", RIDGE_MODE_TRAIN, 256, 0, 0, "resnet50"},
    {"ResNet-50 inference", "resnet50", RIDGE_MODE_INFER, 128, 0, 0, "resnet50"},
    {"GNMT (LSTM) training", "gnmt", RIDGE_MODE_TRAIN, 128, 0, 0, "lstm"},
    {"GNMT (LSTM) inference", "gnmt", RIDGE_MODE_INFER, 128, 0, 0, "lstm"},
    {"BERT-large training", "bert-large", RIDGE_MODE_TRAIN, 32, 0, 0, "bert-large"},
    {"BERT-large inference", "bert-large", RIDGE_MODE_INFER, 64, 0, 0, "bert-large"},
    {"Llama 2 7B prefill", "llama2-7b", RIDGE_MODE_PREFILL, 1, 2048, 0, "llama2-7b"},
    {"Llama 2 7B decode", "llama2-7b", RIDGE_MODE_DECODE, 16, 0, 1024, "llama2-7b"},
};
_Static_assert(sizeof report_cases / sizeof report_cases[0] == REPORT_NCASES, "REPORT_NCASES: the questions");

void report_progress(const report_run *r, const char *what)
{
    if (r->progress)
        fprintf(stderr, "\rridge report: %-40s", what);
}

/* "compute 71 %": the bound that holds most of the step's time. */
void report_dominant_bound(const ridge_schedule_totals *t, char *buf, size_t cap)
{
    double sum = 0, best = -1;
    int b = 0;
    for (int i = 0; i < RIDGE_BOUND_COUNT; i++) {
        sum += t->time_by_bound_s[i];
        if (t->time_by_bound_s[i] > best) {
            best = t->time_by_bound_s[i];
            b = i;
        }
    }
    snprintf(buf, cap, "%s %.0f %%", ridge_bound_name((ridge_bound)b), sum > 0 ? 100 * best / sum : 0);
}

static void case_config(const report_run *r, const report_case *c, ridge_run_config *rc)
{
    *rc = r->given;
    rc->mode = c->mode;
    rc->batch = c->batch;
    if (c->prompt > 0)
        rc->prompt = c->prompt;
    if (c->context > 0)
        rc->context = c->context;
}

static int predict_cases(report_run *r)
{
    for (size_t c = 0; c < REPORT_NCASES; c++) {
        ridge_model *m = NULL;
        ridge_err err;
        ridge_run_config rc;
        int st;
        report_progress(r, report_cases[c].label);
        case_config(r, &report_cases[c], &rc);
        if ((st = ridge_model_load(report_cases[c].id, &m, &err)) != RIDGE_OK) {
            cli_error("%s", err.msg);
            return cli_exit_code(st);
        }
        for (int i = 0; i < r->n; i++) {
            cli_model_prediction p;
            memset(&p, 0, sizeof p);
            st = cli_model_predict(&r->g[i], m, &rc, r->rt, &p);
            if (st != CLI_EXIT_OK) {
                cli_model_prediction_free(&p);
                ridge_model_free(m);
                return st;
            }
            r->thr[c][i] = p.fits ? p.throughput : NAN;
            r->unit[c] = p.throughput_unit;
            if (p.fits)
                report_dominant_bound(&p.tot, r->bound[c][i], sizeof r->bound[c][i]);
            else
                snprintf(r->bound[c][i], sizeof r->bound[c][i], "capacity (does not fit)");
            r->max_batch[c][i] = p.max_batch;
            r->mem_gib[c][i] = p.mem.total_bytes / 1073741824.0;
            if (c == 0 && i == 0) {
                snprintf(r->host_id, sizeof r->host_id, "%s", p.host.id);
                snprintf(r->code, sizeof r->code, "%s", ridge_code_name(p.code));
            }
            cli_model_prediction_free(&p);
        }
        ridge_model_free(m);
    }
    return CLI_EXIT_OK;
}

static const char css[] =
    "body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222;line-height:1.4}"
    "table{border-collapse:collapse;margin:.5em 0 1em;font-size:90%}"
    "th,td{border:1px solid #bbb;padding:.2em .5em}th{background:#eee}td.n{text-align:right}"
    "figure{margin:1em 0}svg{max-width:100%;width:760px;height:auto}figcaption{font-size:90%;color:#555}";

static int write_doc(report_doc *d, report_run *r)
{
    char title[512];
    int n = snprintf(title, sizeof title, "Which GPU for deep learning:"), rc;
    for (int i = 0; i < r->n; i++)
        n += snprintf(title + n, sizeof title - (size_t)n, "%s %s", i ? (i == r->n - 1 ? " or" : ",") : "", r->g[i].id);
    if (d->fmt == REPORT_HTML)
        fprintf(d->out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n"
                        "<style>%s</style>\n</head>\n<body>\n", title, css);
    report_h(d, 1, "%s", title);
    report_p(d, "Training or inference, CNNs or RNNs or transformers, large models, per watt, per dollar, MIG, "
                "NVLink: the answers ridge's model predicts for these GPUs, each with the bound that explains it "
                "and the model's measured error.");
    report_section_short(d, r);
    report_section_gpus(d, r);
    if ((rc = report_section_throughput(d, r)) != CLI_EXIT_OK ||
        (rc = report_section_efficiency(d, r)) != CLI_EXIT_OK || (rc = report_section_capacity(d, r)) != CLI_EXIT_OK ||
        (rc = report_section_mig(d, r)) != CLI_EXIT_OK || (rc = report_section_scaling(d, r)) != CLI_EXIT_OK)
        return rc;
    report_section_trust(d, r);
    report_section_assumptions(d, r);
    if (d->fmt == REPORT_HTML)
        fputs("</body>\n</html>\n", d->out);
    return CLI_EXIT_OK;
}

/* The format of path from its extension: 0, or -1 when it has none that names one. */
static int output_format(const char *base, const char *dot, report_format *fmt)
{
    if (!dot || dot == base)
        return -1;
    if (strcasecmp(dot, ".html") == 0 || strcasecmp(dot, ".htm") == 0)
        *fmt = REPORT_HTML;
    else if (strcasecmp(dot, ".md") == 0)
        *fmt = REPORT_MD;
    else
        return -1;
    return 0;
}

/* Split path into its directory (which must exist) and stem; the extension picks the format. A
 * directory is no place for the page (exit 3). An output written in place (ridge_plot_in_place:
 * /dev/stdout, /dev/full, a FIFO), as every output is (docs/cli.md), gets HTML without an
 * extension, and an HTML page's charts are then drawn under $TMPDIR, not beside a device. */
static int output_path(const char *path, report_doc *d)
{
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path, *dot = strrchr(base, '.');
    const char *tmp = getenv("TMPDIR");
    struct stat st;
    int special = 0, e;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error("report: %s: is a directory", path);
        return CLI_EXIT_IO;
    }
    special = ridge_plot_in_place(path);
    if (output_format(base, dot, &d->fmt) != 0) {
        if (!special) {
            if (!dot || dot == base)
                cli_error("report: %s: the extension must be .html, .htm or .md", path);
            else
                cli_error("report: %s: unknown extension '%s' (use .html, .htm or .md)", path, dot);
            return CLI_EXIT_USAGE;
        }
        d->fmt = REPORT_HTML;
        dot = NULL;
    }
    if (strlen(path) >= sizeof d->dir - 64) {
        cli_error("report: %s: path too long", path);
        return CLI_EXIT_USAGE;
    }
    if (special && d->fmt == REPORT_HTML)
        snprintf(d->dir, sizeof d->dir, "%.3000s", tmp && tmp[0] == '/' ? tmp : "/tmp");
    else if (slash)
        snprintf(d->dir, sizeof d->dir, "%.*s", (int)(slash - path == 0 ? 1 : slash - path), path);
    else
        snprintf(d->dir, sizeof d->dir, ".");
    snprintf(d->stem, sizeof d->stem, "%.*s", dot ? (int)(dot - base) : (int)strlen(base), base);
    /* Checked before anything runs; worded, and exit 3, as every output that cannot be written. */
    e = stat(d->dir, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    if (e) {
        cli_error("%s: cannot write (%s)", path, strerror(e));
        return CLI_EXIT_IO;
    }
    return CLI_EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
    static const struct option longopts[] = {{"output", required_argument, 0, 'o'}, CLI_OPTION_HELP,
                                             CLI_OPTION_RUNTIME, CLI_OPTION_PRICES, CLI_RUN_OPTIONS, CLI_OPTION_END};
    static cli_prices prices; /* large: not on the stack */
    cli_opts o = {"report", help, CLI_RUN_HELP, NULL, 0, -1, NULL};
    report_run *r = calloc(1, sizeof *r);
    report_doc d;
    const char *out = NULL;
    int c, rc = CLI_EXIT_OK;
    if (!r)
        return CLI_EXIT_FAILURE;
    memset(&d, 0, sizeof d);
    ridge_run_config_init(&r->given);
    r->rt = RIDGE_RUNTIME_EAGER;
    while ((c = cli_getopt(&o, argc, argv, ":ho:", longopts)) != -1) {
        int k;
        if (c == 'o') {
            out = optarg;
        } else if (c == CLI_OPT_PRICE || c == CLI_OPT_PRICES) {
            if ((k = cli_prices_option(&prices, c, optarg)) != 0) {
                rc = k == -3 ? CLI_EXIT_IO : CLI_EXIT_USAGE;
                goto done;
            }
        } else if (c == 'r') {
            int st = ridge_runtime_parse(optarg, &r->rt);
            if (st != 0) {
                rc = cli_usage_error("report", "unknown --runtime '%s'", optarg);
                goto done;
            }
        } else if (c >= CLI_RUN_OPT_MODE && c <= CLI_RUN_OPT_CONTEXT) {
            /* --mode, --batch, --seq, --image, --prompt, --context (the run options' first six):
             * each question has its own */
            char flag[48];
            rc = cli_usage_error("report", "%s: the report sets each question's mode, batch and lengths",
                                 cli_run_option_flag(c, flag, sizeof flag));
            goto done;
        } else if ((k = cli_run_option(c, optarg, NULL, &r->given)) == 1) {
            if (c == CLI_RUN_OPT_PRECISION)
                r->precision_given = 1;
        } else {
            rc = k < 0 ? CLI_RUN_OPTION_EXIT(k) : cli_getopt_error("report", c, argv, longopts);
            goto done;
        }
    }
    if (o.exit >= 0) {
        rc = o.exit;
        goto done;
    }
    if (optind >= argc) {
        rc = cli_usage_error("report", "give one or more GPU ids");
        goto done;
    }
    if (!out) {
        rc = cli_usage_error("report", "give the report's path with -o PATH (.html or .md)");
        goto done;
    }
    if (argc - optind > REPORT_MAX_GPUS) {
        rc = cli_usage_error("report", "at most %d GPUs", REPORT_MAX_GPUS);
        goto done;
    }
    if ((rc = output_path(out, &d)) != CLI_EXIT_OK)
        goto done;
    for (int i = optind; i < argc; i++)
        if ((rc = cli_load_gpu(argv[i], NULL, &r->g[r->n++])) != CLI_EXIT_OK)
            goto done;
    /* Each GPU carries the price it is costed at: --price / --prices, else the catalogue's. */
    if ((rc = cli_prices_apply(&prices, r->g, (size_t)r->n, "report")) != CLI_EXIT_OK)
        goto done;
    if (!r->precision_given)
        cli_default_precision(&r->given, r->g, r->n, r->precision_note, sizeof r->precision_note);
    r->progress = isatty(2);
    if (d.fmt == REPORT_HTML) {
        int len = snprintf(d.tmpdir, sizeof d.tmpdir, "%s/.ridge-report.XXXXXX", d.dir);
        if (len < 0 || (size_t)len >= sizeof d.tmpdir) {
            cli_error("report: %s: path too long", out);
            d.tmpdir[0] = '\0';
            rc = CLI_EXIT_USAGE;
            goto done;
        }
        if (!mkdtemp(d.tmpdir)) {
            cli_error("report: cannot create a directory in '%s': %s", d.dir, strerror(errno));
            d.tmpdir[0] = '\0';
            rc = CLI_EXIT_IO;
            goto done;
        }
    }
    d.out = open_memstream(&d.buf, &d.len);
    if (!d.out) {
        rc = CLI_EXIT_FAILURE;
        goto done;
    }
    if ((rc = predict_cases(r)) == CLI_EXIT_OK)
        rc = write_doc(&d, r);
    fclose(d.out);
    d.out = NULL;
    if (r->progress)
        fputs("\r\033[K", stderr);
    if (rc == CLI_EXIT_OK) {
        ridge_err err;
        if (ridge_plot_write_file(out, d.buf, d.len, &err) != RIDGE_OK) {
            cli_error("%s", err.msg);
            rc = CLI_EXIT_IO;
        } else {
            fprintf(stderr, "ridge: wrote %s (%d chart%s%s)\n", out, d.charts, d.charts == 1 ? "" : "s",
                    d.charts_missing ? "; gnuplot absent, some charts not drawn" : "");
        }
    }
done:
    if (d.tmpdir[0])
        rmdir(d.tmpdir);
    free(d.buf);
    free(r);
    return rc;
}
