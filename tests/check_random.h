/* ridge tests: random cases for the property tests (header only; GSL).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One gsl_rng for the whole test, seeded with a fixed seed so that a failure reproduces, and the
 * command line of every property test: `test_X [SCALE [SEED]]` explores SCALE times as many
 * cases from another seed; RIDGE_TEST_VERBOSE=1 in the environment lists the cases a documented
 * mechanism or a known defect excuses. check_random_begin() reads them; check_random_end() frees
 * the generator. Failure messages name their case through ctx: set_ctx() formats it and makes it
 * the check context (check.h). */
#ifndef RIDGE_TEST_CHECK_RANDOM_H
#define RIDGE_TEST_CHECK_RANDOM_H

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

static gsl_rng *rng;
static int scale = 1, verbose;
static char ctx[1024]; /* the current case, for failure messages */

/* ctx from a printf format, made the check context. */
static inline void set_ctx(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx, sizeof ctx, fmt, ap);
    va_end(ap);
    check_context(ctx);
}

/* The scale and seed from argv (default_seed without one), the verbosity from the environment. */
static inline void check_random_begin(int argc, char **argv, unsigned long default_seed)
{
    unsigned long seed = default_seed;
    if (argc > 1 && atoi(argv[1]) > 0)
        scale = atoi(argv[1]);
    if (argc > 2)
        seed = strtoul(argv[2], NULL, 10);
    verbose = getenv("RIDGE_TEST_VERBOSE") != NULL;
    rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
}

static inline void check_random_end(void)
{
    gsl_rng_free(rng);
    rng = NULL;
}

/* An integer drawn log-uniformly from [lo, hi]; with `mult` > 1, rounded up to a multiple of it. */
static inline double rdim(double lo, double hi, double mult)
{
    double x = floor(exp(log(lo) + gsl_rng_uniform(rng) * (log(hi + 1) - log(lo))));
    if (x < lo)
        x = lo;
    if (x > hi)
        x = hi;
    if (mult > 1)
        x = ceil(x / mult) * mult;
    return x;
}

static inline int rint_in(int lo, int hi) /* uniform integer in [lo, hi] */
{
    return lo + (int)gsl_rng_uniform_int(rng, (unsigned long)(hi - lo + 1));
}

#endif
