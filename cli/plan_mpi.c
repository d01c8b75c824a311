/* ridge plan under MPI, the module ridge-mpi.so: ranks split each chunk of the space; rank 0
 * gathers it in space order (jsonl, csv) or merges the ranks' selections (text). The ridge binary
 * loads it under mpirun only (plan_mpi.h; docs/planning.md, "Running under MPI").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdlib.h>

#include <mpi.h>

#include "cli.h"
#include "plan_mpi.h"

/* Process state of the CLI, not of the library: MPI is one per process. */
static int mpi_inited_here, mpi_rank, mpi_size = 1;
static void (*report)(const char *fmt, ...); /* the binary's cli_error */

static int mpi_init(void (*error)(const char *fmt, ...), int *rank, int *size)
{
    int inited = 0;
    report = error;
    MPI_Initialized(&inited);
    if (!inited) {
        if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
            return -1;
        mpi_inited_here = 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
    *rank = mpi_rank;
    *size = mpi_size;
    return 0;
}

static void mpi_finalize(void)
{
    int finalized = 0;
    if (!mpi_inited_here)
        return;
    MPI_Finalized(&finalized);
    if (!finalized)
        MPI_Finalize();
    mpi_inited_here = 0;
}

static void mpi_abort(int code)
{
    MPI_Abort(MPI_COMM_WORLD, code);
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
        report("rank %d: %s", mpi_rank, err.msg);
        mpi_abort(CLI_EXIT_FAILURE);
    }
    for (int q = 0; q < mpi_size; q++) {
        counts[q] = (int)(share_lo(n, q + 1) - share_lo(n, q));
        displs[q] = (int)share_lo(n, q);
    }
    if (MPI_Gatherv(mpi_rank == 0 ? MPI_IN_PLACE : mine, (int)(hi - lo), type, r, counts, displs, type, 0,
                    MPI_COMM_WORLD) != MPI_SUCCESS) {
        report("rank %d: MPI_Gatherv failed", mpi_rank);
        mpi_abort(CLI_EXIT_FAILURE);
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
        report("rank %d: out of memory", mpi_rank);
        mpi_abort(CLI_EXIT_FAILURE);
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

static int mpi_eval_range(const ridge_plan *p, size_t first, size_t n, int threads, ridge_plan_result *r,
                          ridge_err *err)
{
    (void)err; /* failures abort the job */
    /* One chunk of the caller's loop is one collective: the workers loop over the same chunks. */
    return run_chunks(p, first, n, n ? n : 1, threads, r) == CLI_EXIT_OK ? RIDGE_OK : RIDGE_ENOMEM;
}

static int mpi_worker(const ridge_plan *p, size_t chunk, int threads)
{
    return run_chunks(p, 0, ridge_plan_size(p), chunk, threads, NULL);
}

/* Rank 0's gather layout of one field of the heads (rows or front points): q's count and
 * displacement. -1 when the total does not fit an int. */
static int gather_layout(const unsigned long long *heads, int field, int *counts, int *displs)
{
    unsigned long long at = 0;
    for (int q = 0; q < mpi_size; q++) {
        unsigned long long c = heads[3 * q + field];
        if (c > (unsigned long long)INT_MAX - at)
            return -1;
        counts[q] = (int)c;
        displs[q] = (int)at;
        at += c;
    }
    return 0;
}

/* Every rank's top-K rows, front points and feasible count to rank 0 (heads: per rank, rows,
 * front points, feasible), which merges them in rank order, and the reasons' counts summed. */
static int mpi_reduce(ridge_plan_select *sel, size_t *counts, size_t ncounts)
{
    enum { MAXC = 64 };
    unsigned long long mine[MAXC], sum[MAXC], head[3], *heads = NULL;
    size_t nrows, nfront = ridge_plan_select_front(sel), totrows = 0, totfront = 0;
    const ridge_plan_result *rows = ridge_plan_select_rows(sel, &nrows);
    ridge_plan_front_point *front = malloc((nfront ? nfront : 1) * sizeof *front), *allfront = NULL;
    ridge_plan_result *allrows = NULL;
    int *rc = malloc(2 * (size_t)mpi_size * sizeof *rc), *rd = malloc(2 * (size_t)mpi_size * sizeof *rd);
    MPI_Datatype trow, tfront;
    ridge_err err = {{0}};
    if (ncounts > MAXC || !front || !rc || !rd) {
        report("rank %d: out of memory", mpi_rank);
        mpi_abort(CLI_EXIT_FAILURE);
    }
    ridge_plan_select_front_points(sel, front, nfront);
    for (size_t i = 0; i < ncounts; i++)
        mine[i] = counts[i];
    head[0] = nrows;
    head[1] = nfront;
    head[2] = ridge_plan_select_feasible(sel);
    if (mpi_rank == 0 && !(heads = malloc(3 * (size_t)mpi_size * sizeof *heads))) {
        report("rank 0: out of memory");
        mpi_abort(CLI_EXIT_FAILURE);
    }
    if (MPI_Reduce(mine, sum, (int)ncounts, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD) != MPI_SUCCESS ||
        MPI_Gather(head, 3, MPI_UNSIGNED_LONG_LONG, heads, 3, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD) !=
            MPI_SUCCESS) {
        report("rank %d: MPI_Reduce failed", mpi_rank);
        mpi_abort(CLI_EXIT_FAILURE);
    }
    if (mpi_rank == 0) {
        heads[0] = heads[1] = 0; /* rank 0's own are in sel already */
        if (gather_layout(heads, 0, rc, rd) || gather_layout(heads, 1, rc + mpi_size, rd + mpi_size)) {
            report("rank 0: the ranks' selections are too large to gather");
            mpi_abort(CLI_EXIT_FAILURE);
        }
        totrows = (size_t)rd[mpi_size - 1] + (size_t)rc[mpi_size - 1];
        totfront = (size_t)rd[2 * mpi_size - 1] + (size_t)rc[2 * mpi_size - 1];
        allrows = malloc((totrows ? totrows : 1) * sizeof *allrows);
        allfront = malloc((totfront ? totfront : 1) * sizeof *allfront);
        if (!allrows || !allfront) {
            report("rank 0: out of memory");
            mpi_abort(CLI_EXIT_FAILURE);
        }
    }
    /* plain data (no pointers), sent as bytes between copies of the same binary */
    MPI_Type_contiguous((int)sizeof *allrows, MPI_BYTE, &trow);
    MPI_Type_commit(&trow);
    MPI_Type_contiguous((int)sizeof *allfront, MPI_BYTE, &tfront);
    MPI_Type_commit(&tfront);
    if (MPI_Gatherv(rows, mpi_rank ? (int)nrows : 0, trow, allrows, rc, rd, trow, 0, MPI_COMM_WORLD) !=
            MPI_SUCCESS ||
        MPI_Gatherv(front, mpi_rank ? (int)nfront : 0, tfront, allfront, rc + mpi_size, rd + mpi_size, tfront, 0,
                    MPI_COMM_WORLD) != MPI_SUCCESS) {
        report("rank %d: MPI_Gatherv failed", mpi_rank);
        mpi_abort(CLI_EXIT_FAILURE);
    }
    MPI_Type_free(&tfront);
    MPI_Type_free(&trow);
    for (int q = 1; mpi_rank == 0 && q < mpi_size; q++)
        if (ridge_plan_select_merge(sel, allrows + rd[q], (size_t)rc[q], allfront + rd[mpi_size + q],
                                    (size_t)rc[mpi_size + q], (size_t)heads[3 * q + 2], &err) != RIDGE_OK) {
            report("%s", err.msg);
            mpi_abort(CLI_EXIT_FAILURE);
        }
    for (size_t i = 0; mpi_rank == 0 && i < ncounts; i++)
        counts[i] = (size_t)sum[i];
    free(allfront);
    free(allrows);
    free(heads);
    free(rd);
    free(rc);
    free(front);
    return CLI_EXIT_OK;
}

const plan_mpi_ops ridge_plan_mpi_ops = {PLAN_MPI_ABI,  sizeof(ridge_plan_result), mpi_init,   mpi_finalize,
                                         mpi_abort,     mpi_eval_range,            mpi_worker, mpi_reduce};
