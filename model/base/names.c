/* Enum <-> name tables (ridge/names.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "ridge/names.h"

#include <string.h>

const char *ridge_name_of(const ridge_names *t, int value)
{
    /* Most tables list an enumeration in its own order: row `value` is the one. */
    if (value >= 0 && value < t->count && t->rows[value].value == value)
        return t->rows[value].name;
    for (int i = 0; i < t->count; i++)
        if (t->rows[i].value == value)
            return t->rows[i].name;
    return t->unknown;
}

int ridge_name_parse(const ridge_names *t, const char *text, int *value)
{
    for (int i = 0; text && i < t->count; i++)
        if (strcmp(text, t->rows[i].name) == 0) {
            *value = t->rows[i].value;
            return RIDGE_OK;
        }
    return RIDGE_EINVAL;
}

const char *ridge_name_list(const ridge_names *t, char *buf, size_t cap)
{
    if (!cap)
        return buf;
    buf[0] = '\0';
    for (int i = 0; i < t->count; i++) {
        if (i)
            strncat(buf, ", ", cap - strlen(buf) - 1);
        strncat(buf, t->rows[i].name, cap - strlen(buf) - 1);
    }
    return buf;
}
