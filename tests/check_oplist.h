/* ridge tests: looking an op up by name in a built graph (header only).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_TEST_CHECK_OPLIST_H
#define RIDGE_TEST_CHECK_OPLIST_H

#include <string.h>

#include "ridge/workload.h"

/* The first op named `name`, or NULL. */
static inline const ridge_op *check_find_op(const ridge_oplist *ol, const char *name)
{
    for (size_t i = 0; i < ol->n; i++)
        if (strcmp(ol->ops[i].name, name) == 0)
            return &ol->ops[i];
    return NULL;
}

#endif
