/* ridge tests: a tiny check library (header only).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each CHECK* counts one check; a failing one prints "file:line: [context] what" to stderr and
 * the run goes on, so one pass shows every broken row. main() ends with `return check_report();`,
 * which prints a summary and returns non-zero when anything failed (CTest reads the exit code).
 *
 * Table rows name themselves with check_context("row description"); the context is printed
 * with every failure until it is changed (check_context(NULL) clears it).
 *
 * check_xfail(reason) marks the next CHECK as an expected failure of a known bug: if it fails,
 * "XFAIL" is printed and the run stays green; if it passes, "XPASS" is printed so whoever fixed
 * the bug can drop the mark. Use it only with a bug report naming file:line. */
#ifndef RIDGE_TEST_CHECK_H
#define RIDGE_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int checks;
    int failures;
    int xfails;
    int xpasses;
    const char *context;
    const char *xfail_reason; /* applies to the next check only */
} check_state_t;

static check_state_t check_state_;

static inline void check_context(const char *ctx)
{
    check_state_.context = ctx;
}

static inline void check_xfail(const char *reason)
{
    check_state_.xfail_reason = reason;
}

/* Records one check. Returns ok so callers can skip dependent checks. */
static inline int check_record_(int ok, const char *file, int line, const char *what)
{
    const char *xf = check_state_.xfail_reason;
    const char *ctx = check_state_.context;
    check_state_.xfail_reason = NULL;
    check_state_.checks++;
    if (xf) {
        if (ok) {
            check_state_.xpasses++;
            fprintf(stderr, "%s:%d: XPASS%s%s%s: %s (known bug fixed? drop the xfail mark: %s)\n", file, line,
                    ctx ? " [" : "", ctx ? ctx : "", ctx ? "]" : "", what, xf);
        } else {
            check_state_.xfails++;
            fprintf(stderr, "%s:%d: XFAIL%s%s%s: %s (known bug: %s)\n", file, line, ctx ? " [" : "",
                    ctx ? ctx : "", ctx ? "]" : "", what, xf);
        }
        return ok;
    }
    if (!ok) {
        check_state_.failures++;
        fprintf(stderr, "%s:%d: FAIL%s%s%s: %s\n", file, line, ctx ? " [" : "", ctx ? ctx : "", ctx ? "]" : "",
                what);
    }
    return ok;
}

static inline int check_near_(double a, double b, double rel, const char *file, int line, const char *ea,
                              const char *eb)
{
    char what[512];
    /* Relative to the larger magnitude; exact equality covers a == b == 0. */
    double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    int ok = a == b || (isfinite(a) && isfinite(b) && fabs(a - b) <= rel * scale);
    snprintf(what, sizeof what, "%s = %.17g, %s = %.17g, relative tolerance %g", ea, a, eb, b, rel);
    return check_record_(ok, file, line, what);
}

static inline int check_int_(long long a, long long b, const char *file, int line, const char *ea, const char *eb)
{
    char what[512];
    snprintf(what, sizeof what, "%s == %s (%lld vs %lld)", ea, eb, a, b);
    return check_record_(a == b, file, line, what);
}

static inline int check_str_eq_(const char *a, const char *b, const char *file, int line, const char *ea,
                                const char *eb)
{
    char what[768];
    int ok = a && b && strcmp(a, b) == 0;
    snprintf(what, sizeof what, "%s == %s (\"%.300s\" vs \"%.300s\")", ea, eb, a ? a : "(null)", b ? b : "(null)");
    return check_record_(ok, file, line, what);
}

static inline int check_str_has_(const char *hay, const char *needle, const char *file, int line, const char *eh,
                                 const char *en)
{
    char what[1024];
    int ok = hay && needle && strstr(hay, needle) != NULL;
    snprintf(what, sizeof what, "%s contains %s (\"%.520s\" lacks \"%.200s\")", eh, en, hay ? hay : "(null)",
             needle ? needle : "(null)");
    return check_record_(ok, file, line, what);
}

#define CHECK(cond) check_record_((cond) != 0, __FILE__, __LINE__, #cond)
#define CHECK_INT(a, b) check_int_((long long)(a), (long long)(b), __FILE__, __LINE__, #a, #b)
#define CHECK_NEAR(a, b, rel) check_near_((double)(a), (double)(b), (rel), __FILE__, __LINE__, #a, #b)
#define CHECK_STR_EQ(a, b) check_str_eq_((a), (b), __FILE__, __LINE__, #a, #b)
#define CHECK_STR_HAS(hay, needle) check_str_has_((hay), (needle), __FILE__, __LINE__, #hay, #needle)

/* A whole file as a NUL-terminated string (free it), or NULL when it cannot be read. */
static inline char *check_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Summary line on stdout; the exit status for main(). */
static inline int check_report(void)
{
    printf("%d checks, %d failed", check_state_.checks, check_state_.failures);
    if (check_state_.xfails || check_state_.xpasses)
        printf(", %d expected failures (known bugs), %d unexpected passes", check_state_.xfails,
               check_state_.xpasses);
    printf("\n");
    return check_state_.failures ? 1 : 0;
}

#endif
