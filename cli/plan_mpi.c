/* ridge plan under MPI: ranks split each chunk of the space, rank 0 gathers it in space order
 * (plan_mpi.h; docs/planning.md, "Running under MPI").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "cli.h"
#include "plan_mpi.h"

/* Process state of the CLI, not of the library: MPI is one per process. */
static int mpi_state = -1; /* -1 not checked, 0 not under mpirun, 1 initialised here */
static int mpi_rank, mpi_size = 1;

/* Set by mpirun/mpiexec (Open MPI: OMPI_COMM_WORLD_SIZE; PMIx and Hydra/Slurm: PMIX_RANK, PMI_SIZE).
 * Without them MPI_Init would try a singleton start, which a plain `ridge plan` does not need. */
static int started_by_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE");
}

static void mpi_setup(void)
{
    int inited = 0;
    if (mpi_state >= 0)
        return;
    mpi_state = 0;
    if (!started_by_mpirun())
        return;
    MPI_Initialized(&inited);
    if (!inited) {
        if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
            cli_error("MPI_Init failed; running as one process");
            return;
        }
        atexit(plan_mpi_finalize);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
    mpi_state = 1;
}

int plan_mpi_rank(void)
{
    mpi_setup();
    return mpi_rank;
}

int plan_mpi_size(void)
{
    mpi_setup();
    return mpi_size;
}

void plan_mpi_finalize(void)
{
    int finalized = 0;
    if (mpi_state != 1)
        return;
    MPI_Finalized(&finalized);
    if (!finalized)
        MPI_Finalize();
    mpi_state = 0;
}

/* Rank q's share of a chunk of n: [n q / N, n (q + 1) / N). */
static size_t share_lo(size_t n, int q)
{
    return n * (size_t)q / (size_t)mpi_size;
}

/* Evaluate this rank's share of [first, first + n) into mine, then gather the chunk into r on
 * rank 0 (r unused elsewhere). Any failure aborts the whole job: the other ranks are waiting in
 * the same collective. */
static void chunk_eval_gather(const ridge_plan *p, size_t first, size_t n, int threads, ridge_plan_result *mine,
                              ridge_plan_result *r, MPI_Datatype type, int *counts, int *displs)
{
    ridge_err err = {{0}};
    size_t lo = share_lo(n, mpi_rank), hi = share_lo(n, mpi_rank + 1);
    if (ridge_plan_eval_range(p, first + lo, hi - lo, threads, mpi_rank == 0 ? r + lo : mine, &err) != RIDGE_OK) {
        cli_error("rank %d: %s", mpi_rank, err.msg);
        MPI_Abort(MPI_COMM_WORLD, CLI_EXIT_FAILURE);
    }
    for (int q = 0; q < mpi_size; q++) {
        counts[q] = (int)(share_lo(n, q + 1) - share_lo(n, q));
        displs[q] = (int)share_lo(n, q);
    }
    if (MPI_Gatherv(mpi_rank == 0 ? MPI_IN_PLACE : mine, (int)(hi - lo), type, r, counts, displs, type, 0,
                    MPI_COMM_WORLD) != MPI_SUCCESS) {
        cli_error("rank %d: MPI_Gatherv failed", mpi_rank);
        MPI_Abort(MPI_COMM_WORLD, CLI_EXIT_FAILURE);
    }
}

/* The gather's element: ridge_plan_result is plain data (no pointers), sent as bytes between
 * copies of the same binary. */
static int run_chunks(const ridge_plan *p, size_t first, size_t n, size_t chunk, int threads,
                      ridge_plan_result *r)
{
    MPI_Datatype type;
    int *counts = malloc((size_t)mpi_size * sizeof *counts), *displs = malloc((size_t)mpi_size * sizeof *displs);
    ridge_plan_result *mine = mpi_rank ? malloc((chunk / (size_t)mpi_size + 1) * sizeof *mine) : NULL;
    if (!counts || !displs || (mpi_rank && !mine) || chunk > INT_MAX) {
        cli_error("rank %d: out of memory", mpi_rank);
        MPI_Abort(MPI_COMM_WORLD, CLI_EXIT_FAILURE);
        return CLI_EXIT_FAILURE; /* not reached */
    }
    MPI_Type_contiguous((int)sizeof(ridge_plan_result), MPI_BYTE, &type);
    MPI_Type_commit(&type);
    for (size_t end = first + n; first < end; first += chunk) {
        size_t k = end - first < chunk ? end - first : chunk;
        chunk_eval_gather(p, first, k, threads, mine, r, type, counts, displs);
    }
    MPI_Type_free(&type);
    free(mine);
    free(displs);
    free(counts);
    return CLI_EXIT_OK;
}

int plan_mpi_eval_range(const ridge_plan *p, size_t first, size_t n, int threads, ridge_plan_result *r,
                        ridge_err *err)
{
    if (plan_mpi_size() <= 1)
        return ridge_plan_eval_range(p, first, n, threads, r, err);
    /* One chunk of the caller's loop is one collective: the workers loop over the same chunks. */
    return run_chunks(p, first, n, n ? n : 1, threads, r) == CLI_EXIT_OK ? RIDGE_OK : RIDGE_ENOMEM;
}

int plan_mpi_worker(const ridge_plan *p, size_t chunk, int threads)
{
    return run_chunks(p, 0, ridge_plan_size(p), chunk, threads, NULL);
}
