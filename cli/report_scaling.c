/* ridge report: the sections on MIG slices for inference and on data-parallel scaling over each
 * GPU's built-in cluster, NVLink or PCIe (docs/cli.md, "report").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "model_run.h"
#include "report.h"
#include "ridge/cluster.h"
#include "ridge/parallel.h"

int report_section_mig(report_doc *d, report_run *r)
{
    char h[16][96], b[48];
    report_h(d, 2, "MIG slices for inference");
    report_p(d, "Multi-Instance GPU splits one GPU into isolated slices, each with its own SMs and memory. "
                "Here: ResNet-50 inference at batch 32 on one slice, and the whole GPU filled with slices "
                "of that profile.");
    for (int i = 0; i < r->n; i++) {
        const ridge_gpu *g = &r->g[i];
        cli_table t;
        ridge_model *m = NULL;
        ridge_err err;
        ridge_run_config rc = r->given;
        int st;
        if (!g->mig_count) {
            report_p(d, "%s has no MIG: it runs one workload at a time, or several sharing all its SMs.", g->id);
            continue;
        }
        report_progress(r, "MIG slices");
        const char *cols[] = {"slice", "SMs", "memory [GiB]", "instances", "one slice [images/s]",
                              "all slices [images/s]", "bound"};
        for (int k = 0; k < 7; k++)
            report_cell(h[k], "%s", cols[k]);
        report_table_start(&t, 7, h);
        rc.mode = RIDGE_MODE_INFER;
        rc.batch = 32;
        if ((st = ridge_model_load("resnet50", &m, &err)) != RIDGE_OK) {
            cli_error("%s", err.msg);
            cli_table_free(&t);
            return cli_exit_code(st);
        }
        for (int k = 0; k < g->mig_count; k++) {
            char id[96];
            ridge_gpu s;
            cli_model_prediction p;
            memset(&p, 0, sizeof p);
            snprintf(id, sizeof id, "%s:%s", g->id, g->mig[k].profile);
            if ((st = cli_load_gpu(id, NULL, &s)) != CLI_EXIT_OK ||
                (st = cli_model_predict(&s, m, &rc, r->rt, &p)) != CLI_EXIT_OK) {
                cli_model_prediction_free(&p);
                ridge_model_free(m);
                cli_table_free(&t);
                return st;
            }
            report_cell(h[0], "%s", id);
            report_cell(h[1], "%d", s.sm_count);
            report_num(s.memory_bytes / 1073741824.0, h[2], 96);
            report_cell(h[3], "%d", g->mig[k].max_instances);
            report_num(p.throughput, h[4], 96);
            report_num(p.throughput * g->mig[k].max_instances, h[5], 96);
            report_dominant_bound(&p.tot, h[6], 96);
            report_row(&t, h);
            cli_model_prediction_free(&p);
        }
        ridge_model_free(m);
        report_table(d, &t);
        cli_table_free(&t);
        (void)b;
    }
    return CLI_EXIT_OK;
}

/* The built-in cluster of g's GPUs, by catalogue id; 0 when there is none. */
static int cluster_of(const ridge_gpu *g, ridge_cluster *cl)
{
    ridge_err err;
    for (size_t k = 0; k < ridge_cluster_builtin_count(); k++)
        if (ridge_cluster_load(ridge_cluster_builtin_id(k), 0, cl, &err) == RIDGE_OK && strcmp(cl->gpu_id, g->id) == 0)
            return 1;
    return 0;
}

int report_section_scaling(report_doc *d, report_run *r)
{
    static const int counts[] = {1, 2, 4, 8};
    static const struct { const char *id; double batch; } models[] = {{"resnet50", 256}, {"bert-large", 32}};
    double x[REPORT_MAX_GPUS * 2][4], y[REPORT_MAX_GPUS * 2][4];
    char names[REPORT_MAX_GPUS * 2][96], h[16][96], b[48];
    ridge_curve_series s[REPORT_MAX_GPUS * 2];
    double base[2] = {0, 0}; /* each model's throughput on one of the first GPU with a cluster */
    size_t ns = 0;
    cli_table t;
    ridge_cluster *cl = malloc(sizeof *cl);
    int rc = CLI_EXIT_OK;
    if (!cl)
        return CLI_EXIT_FAILURE;
    report_h(d, 2, "Multi-GPU scaling: NVLink or PCIe");
    report_p(d, "Data-parallel training in one server (the built-in cluster of each GPU), the per-GPU batch "
                "kept. Efficiency is the throughput of n GPUs over n times one GPU's; the bound is "
                "communication when the gradient reduction the backward pass cannot hide costs more than "
                "5 %% of the step.");
    const char *cols[] = {"cluster", "link", "model", "GPUs", "throughput", "efficiency", "exposed reduction",
                          "bound"};
    for (int k = 0; k < 8; k++)
        report_cell(h[k], "%s", cols[k]);
    report_table_start(&t, 8, h);
    for (int i = 0; i < r->n && rc == CLI_EXIT_OK; i++) {
        if (!cluster_of(&r->g[i], cl)) {
            report_p(d, "%s: no built-in cluster (ridge clusters lists them).", r->g[i].id);
            continue;
        }
        report_progress(r, "multi-GPU scaling");
        for (size_t k = 0; k < 2 && rc == CLI_EXIT_OK; k++) {
            ridge_model *m = NULL;
            ridge_err err;
            ridge_run_config run = r->given;
            double one = 0;
            int st = ridge_model_load(models[k].id, &m, &err);
            run.mode = RIDGE_MODE_TRAIN;
            for (size_t c = 0; c < 4 && st == RIDGE_OK; c++) {
                ridge_cluster sub = *cl;
                ridge_parallel_config pc;
                ridge_parallel_result pr;
                sub.gpus_per_node = counts[c];
                sub.nodes = 1;
                ridge_parallel_config_init(&pc);
                pc.dp = counts[c];
                pc.microbatch = models[k].batch;
                pc.global_batch = models[k].batch * counts[c];
                st = ridge_parallel_predict(&sub, m, &run, &pc, r->rt, &pr, &err);
                if (st != RIDGE_OK)
                    break;
                if (c == 0)
                    one = pr.throughput;
                if (c == 0 && base[k] <= 0)
                    base[k] = pr.throughput;
                double eff = pr.throughput / (counts[c] * one), exposed = pr.breakdown.dp_comm_exposed_s / pr.step_time_s;
                report_cell(h[0], "%s", cl->id);
                report_cell(h[1], "%s", ridge_intra_kind_name(cl->intra_kind));
                report_cell(h[2], "%s", models[k].id);
                report_cell(h[3], "%d", counts[c]);
                report_cell(h[4], "%s %s", report_num(pr.throughput, b, sizeof b), pr.throughput_unit);
                report_cell(h[5], "%.1f %%", 100 * eff);
                report_cell(h[6], "%.1f %%", 100 * exposed);
                report_cell(h[7], "%s", exposed > 0.05 ? "communication" : "compute (reduction hidden)");
                report_row(&t, h);
                x[ns][c] = counts[c];
                /* The chart: throughput over one first GPU's, so that it shows both the scaling and how
                 * many of one GPU match the other (efficiency alone sits near 100 % and says neither). */
                y[ns][c] = pr.throughput / base[k];
            }
            if (st != RIDGE_OK) {
                cli_error("%s", err.msg);
                rc = cli_exit_code(st);
            } else {
                snprintf(names[ns], sizeof names[ns], "%s, %s (%s)", models[k].id, r->g[i].id,
                         ridge_intra_kind_name(cl->intra_kind));
                s[ns] = (ridge_curve_series){names[ns], x[ns], y[ns], 4, i, (int)k + 1, 0};
                ns++;
            }
            ridge_model_free(m);
        }
    }
    free(cl);
    if (rc == CLI_EXIT_OK) {
        double mape;
        int n;
        report_table(d, &t);
        if (report_trust("group", "published-multi-gpu", &mape, &n))
            report_p(d, "How far to trust it: on %d published multi-GPU measurements the MAPE is %.3g %%.", n, mape);
    }
    cli_table_free(&t);
    if (rc == CLI_EXIT_OK && ns > 0) {
        ridge_plot_paths paths;
        ridge_err err;
        ridge_curve_options o = {0};
        o.title = "Data-parallel training throughput in one server";
        o.xlabel = "GPUs";
        o.ylabel = "throughput relative to one of the first GPU";
        if ((rc = report_chart_paths(d, "scaling", &paths)) == CLI_EXIT_OK) {
            int st = ridge_curves_write(s, ns, &o, &paths, &err);
            if (st != RIDGE_OK) {
                cli_error("%s", err.msg);
                rc = cli_exit_code(st);
            } else {
                rc = report_chart(d, &paths, "Data-parallel training throughput against the GPU count, relative to one GPU of the first kind (same model).");
            }
        }
    }
    return rc;
}
