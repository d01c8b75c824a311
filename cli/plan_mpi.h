/* ridge plan under MPI: ranks split the space, rank 0 gathers and prints (docs/planning.md,
 * "Running under MPI"). Built only with RIDGE_MPI (RIDGE_HAVE_MPI defined).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * MPI is initialised on first use, and only when the process was started by mpirun/mpiexec (its
 * environment has OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_SIZE); a plain `ridge plan` never
 * touches MPI and behaves as a build without it. The space is evaluated chunk by chunk, in the
 * same chunks as the one-process loop: rank r evaluates [first + r n / N, first + (r + 1) n / N)
 * of a chunk [first, first + n), and MPI_Gatherv puts the chunk together on rank 0 in space order.
 * ridge_plan_eval is a pure function of the index, so rank 0 sees exactly the results a single
 * process computes. */
#ifndef RIDGE_CLI_PLAN_MPI_H
#define RIDGE_CLI_PLAN_MPI_H

#include <stddef.h>

#include "ridge/plan.h"

/* This process's rank (0 without mpirun); initialises MPI on the first call under mpirun. */
int plan_mpi_rank(void);
/* Ranks in the job (1 without mpirun). */
int plan_mpi_size(void);
/* Rank 0's evaluation of chunk [first, first + n): its own share, then the gather into r[0..n).
 * Collective: every other rank runs plan_mpi_worker over the same chunks. Without mpirun, or with
 * one rank, exactly ridge_plan_eval_range. Returns its status; a failure on another rank aborts
 * the job (MPI_Abort), as a collective cannot be left half done. */
int plan_mpi_eval_range(const ridge_plan *p, size_t first, size_t n, int threads, ridge_plan_result *r,
                        ridge_err *err);
/* Ranks > 0: evaluate this rank's share of every chunk of `chunk` configurations of the space and
 * send it to rank 0. Prints nothing but errors. Returns a CLI exit code. */
int plan_mpi_worker(const ridge_plan *p, size_t chunk, int threads);
/* MPI_Finalize when MPI was initialised here; otherwise nothing. Registered with atexit. */
void plan_mpi_finalize(void);

#endif
