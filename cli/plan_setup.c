/* ridge plan: the candidates, prices, workload and plan that sweeps, charts and serving plans
 * start from (plan_cli.h). SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plan_cli.h"

/* The library's messages name spec fields; these name what the user typed instead. */
static const char *plan_message(const char *msg)
{
    static const struct {
        const char *lib, *cli;
    } map[] = {
        {"plan: run.grad_accum is not swept; give the batch per step in batches",
         "plan: --grad-accum is not swept; give the batch per step in --batches"},
        {"plan: tps, pps and zeros ranges need run.mode \"train\"",
         "plan: tp, pp and zero ranges need training (--mode train)"},
        {"plan: sps, vstages and global_batches need run.mode \"train\"",
         "plan: --sp, --virtual-stages and --global-batches need training (--mode train)"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(msg, map[i].lib) == 0)
            return map[i].cli;
    return msg;
}

size_t plan_candidate_gpus(const plan_opts *o)
{
    return o->cluster[0] ? 1 : o->ngpus;
}

/* plan_setup with the cluster of --cluster (NULL without): then the one GPU is the cluster's. */
static int setup_on(const plan_opts *o, const ridge_cluster *cl, const int *counts, size_t ncounts, double target,
                    ridge_gpu **gpus, double **prices, ridge_model **m, ridge_plan **p)
{
    ridge_plan_spec sp;
    cli_workload wl;
    ridge_err err = {{0}};
    size_t ngpus = plan_candidate_gpus(o); /* 1 with cl */
    int rc;
    *gpus = calloc(ngpus, sizeof **gpus);
    *prices = calloc(ngpus, sizeof **prices);
    if (!*gpus || !*prices) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    if (cl)
        (*gpus)[0] = cl->gpu;
    for (size_t i = 0; i < ngpus && !cl; i++)
        if ((rc = ridge_catalog_load(o->gpus[i], &(*gpus)[i], &err)) != RIDGE_OK) {
            cli_error("%s%s%s", o->gpus_from, o->gpus_from[0] ? ": " : "", err.msg); /* names its option or key */
            return cli_exit_code(rc);
        }
    /* Each GPU carries the price it is costed at (and its source, for the output). */
    if ((rc = cli_prices_apply(&o->prices, *gpus, ngpus, "plan")) != CLI_EXIT_OK)
        return rc;
    for (size_t i = 0; i < ngpus; i++)
        (*prices)[i] = (*gpus)[i].price_usd_per_hour;
    cli_workload_init(&wl, o->workload);
    if (cli_workload_is_oplist(&wl))
        rc = cli_usage_error("plan",
                             "%s is an operator list; plan needs a model (built-in id or model file); "
                             "'ridge predict --gpu ID --workload FILE' predicts an operator list",
                             o->workload);
    else if ((rc = cli_workload_model(&wl, m, &err)) != RIDGE_OK) {
        cli_error("%s: %s", o->workload_from, err.msg); /* names its option or key */
        rc = cli_exit_code(rc);
    }
    cli_workload_free(&wl);
    if (rc != CLI_EXIT_OK)
        return rc;
    ridge_plan_spec_init(&sp);
    sp.model = *m;
    sp.run = o->run;
    if (o->run.host[0])
        return cli_usage_error("plan",
                               "--host %s: plan schedules every configuration on the GPU's own launch figures, "
                               "without a host profile (as the multi-GPU model does); check a host-bound "
                               "candidate with 'ridge predict --host' or 'ridge serve --host'",
                               o->run.host);
    sp.gpus = *gpus;
    sp.price_usd_per_hour = *prices;
    sp.ngpus = ngpus;
    sp.precisions = o->precisions;
    sp.nprecisions = o->nprecisions;
    sp.counts = counts;
    sp.ncounts = ncounts;
    sp.batches = o->batches;
    sp.nbatches = o->nbatches;
    sp.target_kind = o->target_kind;
    sp.target = target;
    sp.deadline_s = o->deadline_s;
    sp.budget_usd = o->budget_usd;
    sp.power_cap_w = o->power_cap_w;
    sp.objective = o->objective;
    sp.no_comm = o->no_comm;
    sp.threads = (int)o->threads;
    sp.tps = o->tps; /* none for charts and serving plans (refused before) */
    sp.ntps = o->ntps;
    sp.pps = o->pps;
    sp.npps = o->npps;
    sp.zeros = o->zeros;
    sp.nzeros = o->nzeros;
    /* the searched dimensions and the fabric */
    sp.recomputes = o->recomputes;
    sp.nrecomputes = o->nrecomputes;
    sp.sps = o->sps;
    sp.nsps = o->nsps;
    sp.vstages = o->vstages;
    sp.nvstages = o->nvstages;
    sp.global_batches = o->global_batches;
    sp.nglobal_batches = o->nglobal_batches;
    sp.cluster = cl;
    if ((rc = ridge_plan_alloc(&sp, p, &err)) != RIDGE_OK) {
        cli_error("%s", plan_message(err.msg));
        return cli_exit_code(rc);
    }
    return CLI_EXIT_OK;
}

int plan_setup(const plan_opts *o, const int *counts, size_t ncounts, double target, ridge_gpu **gpus,
               double **prices, ridge_model **m, ridge_plan **p)
{
    ridge_cluster *cl;
    ridge_err err = {{0}};
    int rc;
    if (!o->cluster[0])
        return setup_on(o, NULL, counts, ncounts, target, gpus, prices, m, p);
    if (!(cl = malloc(sizeof *cl))) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    /* --cluster: its GPU, alone; --gpus may only name it again. */
    if ((rc = ridge_cluster_load(o->cluster, 0, cl, &err)) != RIDGE_OK) {
        cli_error("%s: %s", o->cluster_from, err.msg); /* names its option or key */
        rc = cli_exit_code(rc);
    } else if (o->ngpus > 1 || (o->ngpus == 1 && strcmp(o->gpus[0], cl->gpu_id) != 0))
        rc = cli_usage_error("plan", "%s: cluster %s has %s GPUs; name that GPU alone or leave --gpus out",
                             o->gpus_from, cl->id, cl->gpu_id);
    else
        rc = setup_on(o, cl, counts, ncounts, target, gpus, prices, m, p);
    free(cl);
    return rc;
}
