/* ridge plan under MPI, the binary's side: load ridge-mpi.so under mpirun only, so that the ridge
 * binary does not link libmpi (plan_mpi.h; docs/planning.md, "Running under MPI").
 * Built only with RIDGE_MPI (RIDGE_HAVE_MPI defined). SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "plan_mpi.h"

#ifndef RIDGE_MPI_MODULE_INSTALLED
#define RIDGE_MPI_MODULE_INSTALLED "../lib/ridge/ridge-mpi.so"
#endif

/* Process state of the CLI, not of the library: MPI is one per process. */
static const plan_mpi_ops *ops; /* NULL: one process */
static int setup_rc = -1, mpi_rank, mpi_size = 1;

/* Set by mpirun/mpiexec (Open MPI: OMPI_COMM_WORLD_SIZE; PMIx and Hydra/Slurm: PMIX_RANK, PMI_SIZE).
 * Without them MPI_Init would try a singleton start, which a plain `ridge plan` does not need. */
static int started_by_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE");
}

static void finalize_at_exit(void)
{
    ops->finalize();
}

/* dlopen the module: the first of the candidates (relative to the executable's directory) that
 * exists, else the last (the installed place), whose dlerror then says it is missing.
 * RTLD_GLOBAL: Open MPI's own plugins resolve libmpi's symbols through the global scope. */
static void *open_module(char *path, size_t cap)
{
    static const char *const rel[] = {"ridge-mpi.so", RIDGE_MPI_MODULE_INSTALLED};
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash;
    exe[n > 0 ? n : 0] = '\0';
    if ((slash = strrchr(exe, '/')) != NULL)
        *slash = '\0';
    else
        strcpy(exe, ".");
    snprintf(path, cap, "%s/%s", exe, rel[0]);
    for (size_t i = 1; i < sizeof rel / sizeof rel[0] && access(path, F_OK) != 0; i++)
        snprintf(path, cap, "%s/%s", exe, rel[i]);
    return dlopen(path, RTLD_NOW | RTLD_GLOBAL);
}

int plan_mpi_setup(void)
{
    char path[PATH_MAX + 64];
    const plan_mpi_ops *m;
    void *h;
    if (setup_rc >= 0)
        return setup_rc;
    setup_rc = CLI_EXIT_OK;
    if (!started_by_mpirun())
        return setup_rc;
    if (!(h = open_module(path, sizeof path))) {
        const char *why = dlerror();
        size_t n = strlen(path);
        if (!why)
            why = "cannot be loaded";
        else if (!strncmp(why, path, n) && why[n] == ':') /* glibc starts with the path: once is enough */
            why += n + (why[n + 1] == ' ' ? 2 : 1);
        cli_error("%s: %s (the MPI module, needed under mpirun)", path, why);
        return setup_rc = CLI_EXIT_IO;
    }
    m = (const plan_mpi_ops *)dlsym(h, PLAN_MPI_OPS_SYMBOL);
    if (!m || m->abi != PLAN_MPI_ABI || m->result_size != sizeof(ridge_plan_result)) {
        cli_error("under mpirun, but %s is not this ridge's MPI module (%s)", path,
                  m ? "another version" : "no " PLAN_MPI_OPS_SYMBOL);
        return setup_rc = CLI_EXIT_IO;
    }
    if (m->init(cli_error, &mpi_rank, &mpi_size) != 0) {
        cli_error("MPI_Init failed; running as one process");
        mpi_rank = 0;
        mpi_size = 1;
        return setup_rc;
    }
    ops = m;
    atexit(finalize_at_exit);
    return setup_rc;
}

int plan_mpi_rank(void)
{
    return mpi_rank;
}

int plan_mpi_size(void)
{
    return mpi_size;
}

int plan_mpi_eval_range(const ridge_plan *p, size_t first, size_t n, int threads, ridge_plan_result *r,
                        ridge_err *err)
{
    if (mpi_size <= 1)
        return ridge_plan_eval_range(p, first, n, threads, r, err);
    return ops->eval_range(p, first, n, threads, r, err);
}

int plan_mpi_worker(const ridge_plan *p, size_t chunk, int threads)
{
    return mpi_size > 1 ? ops->worker(p, chunk, threads) : CLI_EXIT_OK;
}

int plan_mpi_reduce(ridge_plan_select *sel, size_t *counts, size_t ncounts)
{
    return mpi_size > 1 ? ops->reduce(sel, counts, ncounts) : CLI_EXIT_OK;
}

void plan_mpi_abort(int code)
{
    if (mpi_size > 1)
        ops->abort_job(code);
}
