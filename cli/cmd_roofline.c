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
#include "ridge/kernel.h"
#include "ridge/measure.h"
#include "ridge/plot.h"
#include "ridge/workload.h"

static const char help[] =
    "usage: ridge roofline --gpu ID|--gpu-file PATH [--workload FILE] [--measured FILE]\n"
    "                      [--runtime eager|graph] -o CHART.png|CHART.svg\n"
    "\n"
    "Draws a roofline chart (log-log; x: arithmetic intensity [FLOP/byte], y: performance\n"
    "[TFLOP/s]): one roof per precision (datasheet dense peak, solid; achievable peak from the\n"
    "model's efficiency parameters, dashed) for the precisions the kernels use plus FP32 and the\n"
    "16-bit tensor peak; DRAM and L2 bandwidth diagonals; ridge points; each kernel of the\n"
    "workload at its predicted intensity and FLOP/s, coloured by what bounds it.\n"
    "\n"
    "Options:\n"
    "  --gpu ID             a built-in GPU (ridge gpus), ID:MIGPROFILE for a MIG slice\n"
    "  --gpu-file PATH      a GPU description file instead (docs/gpu-schema.md)\n"
    "  --workload FILE      an operator-list workload (docs/workloads.md)\n"
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
    "written and a note says how to render them. Ops without FLOPs (copies) are not drawn.\n";

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

int cmd_roofline(int argc, char **argv)
{
    static const struct option opts[] = {CLI_OPTIONS_GPU,
                                         CLI_OPTION_WORKLOAD,
                                         CLI_OPTION_RUNTIME,
                                         {"measured", required_argument, 0, 'm'},
                                         {"output", required_argument, 0, 'o'},
                                         CLI_OPTION_HELP,
                                         CLI_OPTION_END};
    const char *gpu_id = NULL, *gpu_file = NULL, *workload = NULL, *measured = NULL, *out = NULL;
    ridge_runtime runtime = RIDGE_RUNTIME_EAGER;
    ridge_plot_paths paths;
    ridge_oplist w = {0};
    point_list pl = {0};
    ridge_gpu gpu;
    ridge_err err = {{0}};
    ridge_roofline_options ropt = {NULL, NULL};
    size_t with_op = 0, without_op = 0;
    char note[RIDGE_PLOT_PATH_MAX + 128];
    int c, rc;

    cli_opts co = {CMD, help, NULL, NULL, 0, -1};
    while ((c = cli_getopt(&co, argc, argv, ":ho:", opts)) != -1) {
        switch (c) {
        case 'g': gpu_id = optarg; break;
        case 'G': gpu_file = optarg; break;
        case 'w': workload = optarg; break;
        case 'm': measured = optarg; break;
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
    (void)runtime; /* kernel points are GPU times: the launch path does not move them */
    if (optind < argc)
        return cli_extra_arg_error(CMD, argv);
    if (!gpu_id && !gpu_file)
        return cli_usage_error(CMD, "missing --gpu ID (or --gpu-file PATH)");
    if (gpu_id && gpu_file)
        return cli_usage_error(CMD, "give --gpu or --gpu-file, not both");
    if (!out)
        return cli_usage_error(CMD, "missing -o CHART.png|CHART.svg");
    if (ridge_plot_paths_from_chart(out, &paths, &err) != RIDGE_OK)
        return cli_usage_error(CMD, "-o: %s", err.msg);

    rc = cli_load_gpu(gpu_id, gpu_file, &gpu);
    if (rc)
        return rc;
    if (workload) {
        int st = ridge_oplist_load_file(workload, &w, &err);
        if (st != RIDGE_OK) {
            cli_error("%s", err.msg);
            return cli_exit_code(st);
        }
        rc = add_workload(&pl, &gpu, &w, workload);
        if (rc)
            goto done;
        ropt.workload_name = w.name[0] ? w.name : workload;
    }
    if (measured) {
        const char *base = strrchr(measured, '/');
        rc = add_measured(&pl, &gpu, measured, &with_op, &without_op);
        if (rc)
            goto done;
        base = base ? base + 1 : measured;
        if (without_op)
            snprintf(note, sizeof note, "measured: %zu kernel%s from %s (%zu other measurement%s skipped)", with_op,
                     with_op == 1 ? "" : "s", base, without_op, without_op == 1 ? "" : "s");
        else
            snprintf(note, sizeof note, "measured: %zu kernel%s from %s", with_op, with_op == 1 ? "" : "s", base);
        ropt.note = note;
        if (!ropt.workload_name)
            ropt.workload_name = base;
    }
    for (size_t i = 0; i < pl.n; i++)
        pl.pts[i].label = pl.labels[i];

    {
        int st = ridge_roofline_write(&gpu, pl.pts, pl.n, &ropt, &paths, &err);
        if (st != RIDGE_OK) {
            cli_error("%s", err.msg);
            rc = cli_exit_code(st);
            goto done;
        }
    }
    {
        int rendered = 0;
        rc = cli_chart_render(&paths, &rendered);
        if (rc == CLI_EXIT_OK && rendered)
            printf("wrote %s (data %s, script %s)\n", paths.chart, paths.dat, paths.gp);
    }
done:
    ridge_oplist_free(&w);
    points_free(&pl);
    return rc;
}
