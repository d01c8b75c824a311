/* ridge — workloads: operator lists loaded from JSON (docs/workloads.md).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Ownership: ridge_oplist_parse/load allocate `ops`; ridge_oplist_free releases them and is
 * harmless on a zeroed or already-freed list. */
#ifndef RIDGE_WORKLOAD_H
#define RIDGE_WORKLOAD_H

#include <stddef.h>

#include "ridge/error.h"
#include "ridge/op.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RIDGE_OPLIST_MAX_OPS 1000000

typedef struct {
    char name[96];
    size_t n;
    ridge_op *ops;
} ridge_oplist;

/* Parse an operator-list workload {"schema_version":1,"name":...,"ops":[...]}. Unknown kinds,
 * unknown keys, missing keys, non-positive, non-integer or non-finite sizes are errors naming
 * origin and the JSON path ("w.json: $.ops[2].k: ..."). */
int ridge_oplist_parse(const char *json, size_t len, const char *origin, ridge_oplist *out, ridge_err *err);
int ridge_oplist_load_file(const char *path, ridge_oplist *out, ridge_err *err);
void ridge_oplist_free(ridge_oplist *w);

#ifdef __cplusplus
}
#endif
#endif
