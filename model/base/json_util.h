/* Private: the one place cJSON details live. Every getter checks type and range, and reports
 * "ORIGIN: $.path.key: problem" through ridge_err.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_JSON_UTIL_H
#define RIDGE_JSON_UTIL_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "ridge/error.h"
#include "ridge/names.h"

typedef struct {
    const char *origin; /* file path or "builtin:ID" */
    ridge_err *err;
} rj_ctx;

#define RJ_PATH_MAX 160

/* Return from the calling parser when a getter or check below fails (a negative status). */
#define RJ_TRY(expr)      \
    do {                  \
        int rc_ = (expr); \
        if (rc_ < 0)      \
            return rc_;   \
    } while (0)

/* Parse with a line:column on error; the root must be an object, and every name and string in it
 * valid UTF-8 (an error names the JSON path). */
int rj_parse_object(const char *text, size_t len, const rj_ctx *c, cJSON **root);
/* 1 when s is valid UTF-8 (RFC 3629: no overlong forms, surrogates or code points past U+10FFFF). */
int rj_utf8_valid(const char *s);
/* Every member name and string under v valid UTF-8, else the error names the first bad path. */
int rj_check_utf8(const cJSON *v, const char *path, const rj_ctx *c);
/* Drop the incomplete UTF-8 sequence a byte-count cut (snprintf into a fixed buffer) may leave at
 * the end of s, so that a copy is never invalid UTF-8. */
void rj_utf8_trim(char *s);
/* Fails on any key of obj not in `allowed` (NULL-terminated), and on duplicate keys. */
int rj_check_keys(const cJSON *obj, const char *path, const char *const *allowed, const rj_ctx *c);
/* What a JSON value is, for messages: "null", "a boolean", "a number", "a string", "an array",
 * "an object". */
const char *rj_type_name(const cJSON *v);
/* Getters: return 1 when present and valid, 0 when absent and optional, negative on error. */
int rj_number(const cJSON *obj, const char *path, const char *key, int required, double lo, double hi,
              double *out, const rj_ctx *c);
int rj_int(const cJSON *obj, const char *path, const char *key, int required, long lo, long hi, long *out,
           const rj_ctx *c);
int rj_string(const cJSON *obj, const char *path, const char *key, int required, char *buf, size_t cap,
              const rj_ctx *c);
/* A string naming a row of `names` (at most 31 characters), its value into *out; an unknown name
 * fails with "'NAME' is not one of: a, b, c". */
int rj_enum(const cJSON *obj, const char *path, const char *key, int required, const ridge_names *names, int *out,
            const rj_ctx *c);
int rj_bool(const cJSON *obj, const char *path, const char *key, int required, int *out, const rj_ctx *c);
/* Object or array member: returns 1 with *out set, 0 absent (optional), negative on error. */
int rj_object(const cJSON *obj, const char *path, const char *key, int required, const cJSON **out,
              const rj_ctx *c);
int rj_array(const cJSON *obj, const char *path, const char *key, int required, const cJSON **out,
             const rj_ctx *c);
/* The string member `key` of o, or NULL when absent or not a string: for documents whose absent
 * or mistyped members read as "not there" (measurement files), the caller deciding what that means. */
static inline const char *rj_str_or_null(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}
/* path + "." + key into buf. */
void rj_join(char *buf, size_t cap, const char *path, const char *key);
/* An error at path.key (key may be NULL). */
int rj_fail(const rj_ctx *c, int status, const char *path, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

#endif
