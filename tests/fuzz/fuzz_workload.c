/* libFuzzer target: operator-list parsing (ridge_oplist_parse) and the work of every op that
 * parses (ridge_op_flops, ridge_op_min_bytes). See tests/fuzz/README.md.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Besides crashes and sanitizer reports, it aborts when a contract of ridge/workload.h or
 * ridge/op.h breaks: a failure must return a known negative status, one non-empty line in err
 * and an empty list; a success must give at least one op, each passing ridge_op_check, with
 * finite, non-negative FLOPs and bytes. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_contract.h"
#include "ridge/error.h"
#include "ridge/op.h"
#include "ridge/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(int rc, const ridge_err *err, const ridge_oplist *w)
{
    fuzz_check_error(rc, err);
    REQUIRE(w->n == 0 && w->ops == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The input buffer is exactly `size` bytes, not NUL-terminated: ASan catches any read past it. */
    ridge_oplist w;
    ridge_err err;
    int rc;
    memset(&err, 0, sizeof err);
    rc = ridge_oplist_parse((const char *)data, size, "fuzz.json", &w, &err);
    if (rc != RIDGE_OK) {
        check_error(rc, &err, &w);
        ridge_oplist_free(&w);
        return 0;
    }
    REQUIRE(w.n >= 1 && w.n <= RIDGE_OPLIST_MAX_OPS && w.ops != NULL);
    REQUIRE(memchr(w.name, '\0', sizeof w.name) != NULL && w.name[0] != '\0');
    for (size_t i = 0; i < w.n; i++) {
        double f = ridge_op_flops(&w.ops[i]);
        double b = ridge_op_min_bytes(&w.ops[i]);
        REQUIRE(isfinite(f) && f >= 0);
        REQUIRE(isfinite(b) && b >= 0);
        REQUIRE(ridge_op_check(&w.ops[i], "fuzz.json", &err) == RIDGE_OK);
    }
    ridge_oplist_free(&w);
    REQUIRE(w.n == 0 && w.ops == NULL);
    return 0;
}
