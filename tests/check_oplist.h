/* ridge tests: making an op, and looking one up by name in a built graph (header only).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_TEST_CHECK_OPLIST_H
#define RIDGE_TEST_CHECK_OPLIST_H

#include <string.h>

#include "ridge/workload.h"

/* An op of one kind and dtype, run once, every other field zero: the test fills in its shape. */
static inline ridge_op check_blank_op(ridge_op_kind kind, ridge_dtype dt)
{
    ridge_op op;
    memset(&op, 0, sizeof op);
    op.kind = kind;
    op.dtype = dt;
    op.count = 1;
    return op;
}

/* The first op named `name`, or NULL. */
static inline const ridge_op *check_find_op(const ridge_oplist *ol, const char *name)
{
    for (size_t i = 0; i < ol->n; i++)
        if (strcmp(ol->ops[i].name, name) == 0)
            return &ol->ops[i];
    return NULL;
}

#endif
