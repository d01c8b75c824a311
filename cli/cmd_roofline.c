/* ridge roofline: a roofline chart of a GPU with a workload's kernels (predicted) and, from a
 * measurement file, measured kernels beside their predictions. Writes CHART.dat and CHART.gp,
 * then renders CHART with gnuplot when it is installed.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_render.h"
#include "cli.h"
#include "model_run.h"
#include "predict_emit.h"
#include "ridge/kernel.h"
#include "ridge/measure.h"
#include "ridge/plot.h"
#include "ridge/workload.h"

static const char help[] =
    "usage: ridge roofline --gpu ID|--gpu-file PATH [--gpu ID|--gpu-file PATH]\n"
    "                      [--workload ID|FILE [run options]] [--measured FILE]\n"
    "                      [--runtime eager|graph] -o CHART.png|CHART.svg\n"
    "\n"
    "Draws a roofline chart (log-log; x: arithmetic intensity [FLOP/byte], y: performance\n"
    "[TFLOP/s]): one roof per precision (datasheet dense peak, solid; achievable peak from the\n"
    "model's efficiency parameters, dashed) for the precisions the kernels use plus FP32 and the\n"
    "16-bit tensor peak; DRAM and L2 bandwidth diagonals; ridge points; each kernel of the\n"
    "workload at its predicted intensity and FLOP/s, coloured by what bounds it.\n"
    "\n"
    "With a model (a built-in id such as resnet50, or a model file) and the run options of\n"
    "`ridge predict`, each kernel of the step is a point whose area is its share of the step's\n"
    "time (a minimum size keeps small ones visible); the 5 largest are numbered, and a key on\n"
    "the chart names them with their share and bound. Ops without FLOPs are counted in a note.\n"
    "Two GPUs (--gpu twice, or --gpu and --gpu-file) share one chart: each GPU's roofs (solid,\n"
    "then dash-dot) and its kernels (circles, then triangles); a model run is predicted on both\n"
    "in one precision (without --precision, the best both have).\n"
    "\n"
    "Options:\n"
    "  --gpu ID             a built-in GPU (ridge gpus), ID:MIGPROFILE for a MIG slice; twice\n"
    "                       for two GPUs on one chart\n"
    "  --gpu-file PATH      a GPU description file instead (docs/gpu-schema.md)\n"
    "  --workload ID|FILE   a model (ridge workloads, or a model file) or an operator-list\n"
    "                       workload (docs/workloads.md)\n"
    "  --measured FILE      a measurement file (kind \"ridge-measurements\", docs/validation.md):\n"
    "                       each kernel measurement (config.op, read as ridge validate reads\n"
    "                       it) is drawn hollow at the op's FLOPs / compulsory bytes and FLOPs /\n"
    "                       median time, joined to its predicted GPU time on this GPU; the rest\n"
    "                       (model runs, failed checks, ops ridge cannot map) are counted as skipped\n"
    "  --runtime eager|graph  accepted as in `ridge predict`; kernel points are GPU times and\n"
    "                       do not depend on it\n"
    "  -o, --output CHART   the chart, .png or .svg; CHART.dat and CHART.gp are written beside it\n"
    "  -h, --help           this help\n"
    "\n"
    "gnuplot is found on PATH or through $RIDGE_GNUPLOT. Without it the .dat and .gp are still\n"
    "written and a note says how to render them. Ops without FLOPs (copies) are not drawn.\n"
    "\n";
static const char help_run[] = CLI_RUN_HELP;

#define CMD "roofline"

/* The points drawn: one per op; measured points carry their own label storage. */
typedef struct {
    ridge_roofline_point *pts;
    char (*labels)[RIDGE_OP_NAME_MAX + 32];
    size_t n, cap;
} point_list;

static int points_reserve(point_list *pl, size_t more)
{
    size_t need = pl->n + more, ncap;
    ridge_roofline_point *np;
    char (*nl)[RIDGE_OP_NAME_MAX + 32];
    if (need <= pl->cap)
        return 0;
    ncap = pl->cap ? pl->cap : 16;
    while (ncap < need)
        ncap *= 2;
    np = realloc(pl->pts, ncap * sizeof *np);
    if (!np)
        return -1;
    pl->pts = np;
    nl = realloc(pl->labels, ncap * sizeof *nl);
    if (!nl)
        return -1;
    pl->labels = nl;
    pl->cap = ncap;
    return 0;
}

static void points_free(point_list *pl)
{
    free(pl->pts);
    free(pl->labels);
    memset(pl, 0, sizeof *pl);
}

/* Predict op on gpu and append it; label is copied. `where` names the op in errors. */
static int add_prediction(point_list *pl, const ridge_gpu *gpu, const ridge_op *op, const char *label,
                          const char *where)
{
    ridge_err err = {{0}};
    ridge_roofline_point *p;
    int rc;
    if (points_reserve(pl, 1)) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    p = &pl->pts[pl->n];
    memset(p, 0, sizeof *p);
    rc = ridge_kernel_predict(gpu, op, &p->pred, &err);
    if (rc != RIDGE_OK) {
        cli_error("%s: %s", where, err.msg);
        return cli_exit_code(rc);
    }
    p->min_bytes = ridge_op_min_bytes(op);
    snprintf(pl->labels[pl->n], sizeof pl->labels[pl->n], "%s", label);
    pl->n++;
    return CLI_EXIT_OK;
}

static int add_workload(point_list *pl, const ridge_gpu *gpu, const ridge_oplist *w, const char *path)
{
    for (size_t i = 0; i < w->n; i++) {
        char label[32], where[RIDGE_PLOT_PATH_MAX + 64];
        int rc;
        snprintf(label, sizeof label, "#%zu", i);
        snprintf(where, sizeof where, "%s: $.ops[%zu]%s%s", path, i, w->ops[i].name[0] ? " " : "", w->ops[i].name);
        rc = add_prediction(pl, gpu, &w->ops[i], w->ops[i].name[0] ? w->ops[i].name : label, where);
        if (rc)
            return rc;
    }
    return CLI_EXIT_OK;
}

/* The kernels of one step of model m on gpu (cli_model_predict, as `ridge predict` runs it): each
 * at its GPU time per instance, with the schedule's bound (host when the GPU waits for the host)
 * and its share of the step's time. The step's time and throughput go into *step. */
static int add_model_run(point_list *pl, const ridge_gpu *gpu, const ridge_model *m, const ridge_run_config *run,
                         ridge_runtime rt, cli_model_prediction *step)
{
    int rc = cli_model_predict(gpu, m, run, rt, step);
    for (size_t i = 0; rc == CLI_EXIT_OK && i < step->ops.n; i++) {
        const ridge_op_result *r = &step->results[i];
        const ridge_op *op = &step->ops.ops[i];
        ridge_roofline_point *p;
        if (points_reserve(pl, 1)) {
            cli_error("out of memory");
            return CLI_EXIT_FAILURE;
        }
        p = &pl->pts[pl->n];
        memset(p, 0, sizeof *p);
        p->pred = r->kernel;
        if (r->count > 0 && r->gpu_s > 0) { /* the runtime's GPU time (a graph's kernel floor) */
            p->pred.time_s = r->gpu_s / r->count;
            p->pred.achieved_flops_per_s = p->pred.flops / p->pred.time_s;
        }
        p->pred.bound = r->bound;
        p->min_bytes = ridge_op_min_bytes(op);
        p->share = step->tot.total_time_s > 0 ? r->time_s / step->tot.total_time_s : 0;
        if (op->name[0])
            snprintf(pl->labels[pl->n], sizeof pl->labels[pl->n], "%s", op->name);
        else
            snprintf(pl->labels[pl->n], sizeof pl->labels[pl->n], "#%zu", i);
        pl->n++;
    }
    return rc;
}

/* Kernel measurements (config.op) of a measurement file, read and mapped as `ridge validate` does
 * (ridge/measure.h): each drawn hollow at its op's FLOPs / compulsory bytes and FLOPs / median time,
 * joined to the op's predicted point on this GPU. The other measurements are counted as skipped. */
static int add_measured(point_list *pl, const ridge_gpu *gpu, const char *path, size_t *with_op, size_t *without_op)
{
    ridge_meas_doc *doc = NULL;
    ridge_meas_set ms;
    ridge_err err = {{0}};
    int rc;
    memset(&ms, 0, sizeof ms);
    rc = ridge_meas_doc_load(path, &doc, &err);
    if (rc != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(rc);
    }
    /* Every measurement is drawn on this chart's GPU (its id for all, the loaded GPU itself). */
    ridge_meas_collect(doc, gpu->id, gpu, &ms);
    *without_op = ridge_meas_doc_count(doc);
    for (int i = 0; i < ms.n && rc == CLI_EXIT_OK; i++) {
        const ridge_meas_item *it = &ms.v[i];
        double flops = ridge_op_flops(&it->op), bytes = ridge_op_min_bytes(&it->op);
        ridge_roofline_point *p;
        char where[RIDGE_PLOT_PATH_MAX + 128];
        if (it->type != RIDGE_MEAS_KERNEL)
            continue;
        snprintf(where, sizeof where, "%s: %s", path, it->id);
        rc = add_prediction(pl, gpu, &it->op, it->id, where);
        if (rc)
            break;
        p = &pl->pts[pl->n - 1];
        if (flops > 0 && bytes > 0) { /* the measured time covers every instance of the op */
            p->has_measured = 1;
            p->measured_intensity_flops_per_byte = flops / bytes;
            p->measured_flops_per_s = flops * it->op.count / it->measured;
        }
        (*with_op)++;
        (*without_op)--;
    }
    ridge_meas_set_free(&ms);
    ridge_meas_doc_free(doc);
    return rc;
}

/* " on GPU: step 86.1 ms, 743 images/s" of a model run, appended to buf. */
static void step_note(char *buf, size_t cap, const ridge_gpu *g, const cli_model_prediction *p, int name_gpu)
{
    size_t len = strlen(buf);
    char t[48], r[48];
    if (len >= cap)
        return;
    snprintf(buf + len, cap - len, "%s%s%sstep %s ms, %s %s", len ? "; " : "", name_gpu ? g->id : "",
             name_gpu ? ": " : "", cli_num(p->time_s * 1e3, t, sizeof t), cli_num(p->throughput, r, sizeof r),
             p->throughput_unit);
}

/* Long (about 160 lines) on purpose: the options, then the three inputs a chart can take (an
 * operator list, a model with run options, a measurement file), each validated before anything is
 * written, then one point list per GPU for the one chart call. Split, the dozen locals they share
 * (the GPUs, the point lists, the workload, the note) would travel as a struct used once. */
int cmd_roofline(int argc, char **argv)
{
    static const struct option opts[] = {CLI_OPTIONS_GPU,
                                         CLI_OPTION_WORKLOAD,
                                         CLI_OPTION_RUNTIME,
                                         {"measured", required_argument, 0, 'm'},
                                         {"output", required_argument, 0, 'o'},
                                         CLI_OPTION_HELP,
                                         CLI_RUN_OPTIONS,
                                         CLI_OPTION_END};
    const char *gpu_id[RIDGE_ROOFLINE_MAX_GPUS] = {NULL}, *gpu_file[RIDGE_ROOFLINE_MAX_GPUS] = {NULL};
    const char *workload = NULL, *measured = NULL, *out = NULL;
    ridge_runtime runtime = RIDGE_RUNTIME_EAGER;
    ridge_run_config run;
    ridge_plot_paths paths;
    ridge_oplist w = {0};
    ridge_model *model = NULL;
    cli_workload wl;
    point_list pl[RIDGE_ROOFLINE_MAX_GPUS];
    ridge_roofline_series series[RIDGE_ROOFLINE_MAX_GPUS];
    ridge_gpu gpu[RIDGE_ROOFLINE_MAX_GPUS];
    ridge_err err = {{0}};
    ridge_roofline_options ropt = {NULL, NULL, 0};
    size_t with_op = 0, without_op = 0;
    char note[RIDGE_PLOT_PATH_MAX + 128] = "", title[400];
    int c, rc = CLI_EXIT_OK, ngpu = 0, run_flags = 0, precision_given = 0;

    memset(pl, 0, sizeof pl);
    ridge_run_config_init(&run);
    cli_opts co = {CMD, help, help_run, NULL, 0, -1, NULL};
    while ((c = cli_getopt(&co, argc, argv, ":ho:", opts)) != -1) {
        if (c >= CLI_RUN_OPT_BASE) {
            int k = cli_run_option(c, optarg, NULL, &run);
            if (k < 0)
                return CLI_RUN_OPTION_EXIT(k);
            run_flags++;
            precision_given |= c == CLI_RUN_OPT_PRECISION;
            continue;
        }
        switch (c) {
        case 'g':
        case 'G':
            if (ngpu == RIDGE_ROOFLINE_MAX_GPUS)
                return cli_usage_error(CMD, "at most %d GPUs on one chart (--gpu, --gpu-file)", RIDGE_ROOFLINE_MAX_GPUS);
            gpu_id[ngpu] = c == 'g' ? optarg : NULL;
            gpu_file[ngpu++] = c == 'G' ? optarg : NULL;
            break;
        case 'w':
            if (cli_take_once(CMD, "--workload", &workload, optarg, "one workload a chart"))
                return CLI_EXIT_USAGE;
            break;
        case 'm':
            if (cli_take_once(CMD, "--measured", &measured, optarg, "one measurement file a chart"))
                return CLI_EXIT_USAGE;
            break;
        case 'r':
            if (ridge_runtime_parse(optarg, &runtime) != RIDGE_OK) {
                char list[32];
                return cli_usage_error(CMD, "--runtime: '%s' is not one of %s", optarg,
                                       ridge_name_list(&ridge_runtime_names, list, sizeof list));
            }
            break;
        case 'o': out = optarg; break;
        }
    }
    if (co.exit >= 0)
        return co.exit;
    if (optind < argc)
        return cli_extra_arg_error(CMD, argv);
    if (!ngpu)
        return cli_usage_error(CMD, "missing --gpu ID (or --gpu-file PATH)");
    if (!out)
        return cli_usage_error(CMD, "missing -o CHART.png|CHART.svg");
    if (ridge_plot_paths_from_chart(out, &paths, &err) != RIDGE_OK)
        return cli_usage_error(CMD, "-o: %s", err.msg);
    {
        const char *in[2] = {workload, measured};
        if ((rc = cli_refuse_chart_over_input(CMD, &paths, in, 2)) != CLI_EXIT_OK ||
            (rc = cli_refuse_chart_over_input(CMD, &paths, gpu_file, ngpu)) != CLI_EXIT_OK)
            return rc;
    }
    if (measured && ngpu > 1)
        return cli_usage_error(CMD, "--measured draws on one GPU, not on two");
    if (run_flags && !workload)
        return cli_usage_error(CMD, "run options (--mode, --batch...) need --workload ID|FILE");
    cli_workload_init(&wl, workload);
    if (workload && cli_workload_is_oplist(&wl) && run_flags) {
        rc = cli_usage_error(CMD, "run options (--mode, --batch...) apply to model workloads, not to the "
                                  "operator list %s", workload);
        goto done;
    }

    for (int g = 0; g < ngpu && rc == CLI_EXIT_OK; g++)
        rc = cli_load_gpu(gpu_id[g], gpu_file[g], &gpu[g]);
    if (rc)
        goto done;
    if (workload && !cli_workload_is_oplist(&wl)) {
        char pnote[96], summary[200];
        int st = cli_workload_model(&wl, &model, &err);
        if (st != RIDGE_OK) {
            cli_error("%s", err.msg);
            rc = cli_exit_code(st);
            goto done;
        }
        if (!precision_given)
            cli_default_precision(&run, gpu, ngpu, pnote, sizeof pnote);
        else
            pnote[0] = '\0';
        for (int g = 0; g < ngpu && rc == CLI_EXIT_OK; g++) {
            cli_model_prediction step;
            rc = add_model_run(&pl[g], &gpu[g], model, &run, runtime, &step);
            if (rc == CLI_EXIT_OK)
                step_note(note, sizeof note, &gpu[g], &step, ngpu > 1);
            cli_model_prediction_free(&step);
        }
        if (rc)
            goto done;
        snprintf(title, sizeof title, "%.96s: %s", ridge_model_name(model),
                 cli_run_summary(&run, pnote, summary, sizeof summary));
        ropt.workload_name = title;
        ropt.note = note;
        ropt.key_top = 5;
    } else if (workload) {
        int st = cli_workload_oplist(&wl, &w, &err);
        if (st != RIDGE_OK) {
            cli_error("%s", err.msg);
            rc = cli_exit_code(st);
            goto done;
        }
        for (int g = 0; g < ngpu && rc == CLI_EXIT_OK; g++)
            rc = add_workload(&pl[g], &gpu[g], &w, workload);
        if (rc)
            goto done;
        ropt.workload_name = w.name[0] ? w.name : workload;
        ropt.key_top = ngpu > 1 ? 5 : 0; /* two GPUs' names would crowd the chart: a numbered key */
    }
    if (measured) {
        const char *base = strrchr(measured, '/');
        size_t len = strlen(note);
        rc = add_measured(&pl[0], &gpu[0], measured, &with_op, &without_op);
        if (rc)
            goto done;
        base = base ? base + 1 : measured;
        if (without_op)
            snprintf(note + len, sizeof note - len, "%smeasured: %zu kernel%s from %s (%zu other measurement%s skipped)",
                     len ? "; " : "", with_op, with_op == 1 ? "" : "s", base, without_op, without_op == 1 ? "" : "s");
        else
            snprintf(note + len, sizeof note - len, "%smeasured: %zu kernel%s from %s", len ? "; " : "", with_op,
                     with_op == 1 ? "" : "s", base);
        ropt.note = note;
        if (!ropt.workload_name)
            ropt.workload_name = base;
    }
    for (int g = 0; g < ngpu; g++) {
        for (size_t i = 0; i < pl[g].n; i++)
            pl[g].pts[i].label = pl[g].labels[i];
        series[g].gpu = &gpu[g];
        series[g].pts = pl[g].pts;
        series[g].n = pl[g].n;
    }

    {
        int st = ridge_roofline_write_gpus(series, (size_t)ngpu, &ropt, &paths, &err);
        if (st != RIDGE_OK) {
            cli_error("%s", err.msg);
            rc = cli_exit_code(st);
            goto done;
        }
    }
    {
        int rendered = 0;
        rc = cli_chart_render(&paths, 1, &rendered);
        if (rc == CLI_EXIT_OK && rendered)
            printf("wrote %s (data %s, script %s)\n", paths.chart, paths.dat, paths.gp);
    }
done:
    ridge_oplist_free(&w);
    ridge_model_free(model);
    cli_workload_free(&wl);
    for (int g = 0; g < RIDGE_ROOFLINE_MAX_GPUS; g++)
        points_free(&pl[g]);
    return rc;
}
