/* ridge — enum <-> name tables: one table per enumeration gives its names, its parser and the
 * "one of ..." list its messages quote, so a name is written once (libuv's one-table habit, as
 * ridge/error.h does for status codes).
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A table is a static const array of {name, value} rows in the order messages list them, and a
 * ridge_names that points at it. The typed pairs (ridge_dtype_name / ridge_dtype_parse, ...) are
 * thin wrappers over the functions below and share their convention: a parser returns RIDGE_OK
 * with *out set, or RIDGE_EINVAL with *out untouched when the text names no row (or is NULL). */
#ifndef RIDGE_NAMES_H
#define RIDGE_NAMES_H

#include <stddef.h>

#include "ridge/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *name;
    int value;
} ridge_name;

typedef struct {
    const ridge_name *rows;
    int count;
    const char *unknown; /* what ridge_name_of gives for a value no row holds ("?") */
} ridge_names;

/* A ridge_names over a whole static array of rows. */
#define RIDGE_NAMES(rows, unknown) {(rows), (int)(sizeof(rows) / sizeof((rows)[0])), (unknown)}

/* The name of value, or t->unknown when no row holds it. */
const char *ridge_name_of(const ridge_names *t, int value);
/* RIDGE_OK and *value set when text is a row's name (exactly, case included); RIDGE_EINVAL,
 * *value untouched, otherwise. */
int ridge_name_parse(const ridge_names *t, const char *text, int *value);
/* The names in table order joined by ", " ("nn, nt, tn, tt") into buf, truncated to cap;
 * returns buf. */
const char *ridge_name_list(const ridge_names *t, char *buf, size_t cap);

/* For the file that owns an enumeration TYPE: defines its table TYPE_names over the static array
 * ROWS, and the typed pair TYPE_name(TYPE) and TYPE_parse(const char *, TYPE *) over it. */
#define RIDGE_NAMES_DEFINE(type, rows, unknown)                    \
    const ridge_names type##_names = RIDGE_NAMES(rows, unknown);   \
    const char *type##_name(type v)                                \
    {                                                              \
        return ridge_name_of(&type##_names, (int)v);               \
    }                                                              \
    int type##_parse(const char *s, type *out)                     \
    {                                                              \
        int v_ = 0, rc_ = ridge_name_parse(&type##_names, s, &v_); \
        if (rc_ == RIDGE_OK)                                       \
            *out = (type)v_;                                       \
        return rc_;                                                \
    }

#ifdef __cplusplus
}
#endif
#endif
