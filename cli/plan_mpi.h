/* ridge plan under MPI (docs/planning.md, "Running under MPI"). Built only with RIDGE_MPI
 * (RIDGE_HAVE_MPI defined). SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Two halves. The MPI code (plan_mpi.c) is a module of its own, ridge-mpi.so, linked against
 * libmpi; the ridge binary does not link libmpi, and loads the module (plan_mpi_load.c, with
 * dlopen) only when the process was started by mpirun/mpiexec (its environment has
 * OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_SIZE). A plain `ridge plan` never loads it and behaves
 * as a build without MPI.
 *
 * Under mpirun the space is evaluated chunk by chunk, in the same chunks as the one-process loop:
 * rank r of N evaluates [first + r n / N, first + (r + 1) n / N) of a chunk [first, first + n).
 * jsonl and csv: MPI_Gatherv puts the chunk together on rank 0 in space order, which prints it.
 * Text: each rank feeds its shares to a selection of its own and counts the infeasible ones by
 * reason; at the end rank 0 merges the ranks' top K, fronts and counts (ridge_plan_select_merge),
 * so the traffic is bounded by K and the fronts. ridge_plan_eval is a pure function of the index
 * and the selection does not depend on the order of its input, so rank 0 prints exactly what
 * one process prints. */
#ifndef RIDGE_CLI_PLAN_MPI_H
#define RIDGE_CLI_PLAN_MPI_H

#include <stddef.h>

#include "ridge/plan.h"

/* ---- the module's side: its one exported symbol, a table of its entry points ---- */

#define PLAN_MPI_ABI 1
#define PLAN_MPI_OPS_SYMBOL "ridge_plan_mpi_ops"

typedef struct {
    int abi;            /* PLAN_MPI_ABI */
    size_t result_size; /* sizeof(ridge_plan_result) where the module was built */
    /* MPI_Init (unless already done) and the rank and size; messages go through error (the
     * binary's cli_error). 0, or -1 when MPI cannot be initialised. */
    int (*init)(void (*error)(const char *fmt, ...), int *rank, int *size);
    void (*finalize)(void);        /* MPI_Finalize when init did MPI_Init */
    void (*abort_job)(int code);   /* MPI_Abort(MPI_COMM_WORLD, code) */
    /* Rank 0: its share of chunk [first, first + n), then the gather into r[0..n). Collective:
     * every other rank runs worker over the same chunks. Failures abort the job. */
    int (*eval_range)(const ridge_plan *p, size_t first, size_t n, int threads, ridge_plan_result *r,
                      ridge_err *err);
    /* Ranks > 0: their shares of every chunk of `chunk` configurations, sent to rank 0. */
    int (*worker)(const ridge_plan *p, size_t chunk, int threads);
    /* Every rank, after feeding its own shares to sel and counting its own reasons into
     * counts[0..ncounts): rank 0 merges the other ranks' rows, fronts and counts into sel and
     * counts. Collective; failures abort the job. Returns a CLI exit code. */
    int (*reduce)(ridge_plan_select *sel, size_t *counts, size_t ncounts);
} plan_mpi_ops;

extern const plan_mpi_ops ridge_plan_mpi_ops; /* in ridge-mpi.so */

/* ---- the binary's side (plan_mpi_load.c) ---- */

/* Under mpirun: load the module (beside the executable, then at the installed place,
 * RIDGE_MPI_MODULE_INSTALLED relative to the executable's directory) and initialise MPI. Returns
 * a CLI exit code: CLI_EXIT_IO, after a one-line message naming the module and dlerror(), when
 * the module cannot be loaded. Without mpirun nothing is loaded: one process. Once per process. */
int plan_mpi_setup(void);
/* This process's rank (0 without mpirun) and the ranks in the job (1 without mpirun). */
int plan_mpi_rank(void);
int plan_mpi_size(void);
/* The module's eval_range, or exactly ridge_plan_eval_range with one rank. */
int plan_mpi_eval_range(const ridge_plan *p, size_t first, size_t n, int threads, ridge_plan_result *r,
                        ridge_err *err);
/* The module's worker (ranks > 0, jsonl and csv). Returns a CLI exit code. */
int plan_mpi_worker(const ridge_plan *p, size_t chunk, int threads);
/* The module's reduce (text); CLI_EXIT_OK with one rank. */
int plan_mpi_reduce(ridge_plan_select *sel, size_t *counts, size_t ncounts);
/* A failure on one rank while the others wait in a collective: end the job with code. */
void plan_mpi_abort(int code);

#endif
