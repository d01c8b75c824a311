/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "json_util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ridge/file.h"

void rj_join(char *buf, size_t cap, const char *path, const char *key)
{
    if (key)
        snprintf(buf, cap, "%s.%s", path, key);
    else
        snprintf(buf, cap, "%s", path);
}

int rj_fail(const rj_ctx *c, int status, const char *path, const char *key, const char *fmt, ...)
{
    char where[RJ_PATH_MAX];
    char what[RIDGE_ERR_MSG_MAX];
    va_list ap;
    rj_join(where, sizeof where, path, key);
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return ridge_err_set(c->err, status, "%s: %s: %s", c->origin, where, what);
}

/* Bytes of the UTF-8 sequence at s (1 to 4), or 0 when it is not one: RFC 3629, so no overlong
 * forms, no surrogates (U+D800..U+DFFF) and nothing above U+10FFFF. */
static size_t utf8_seq_len(const unsigned char *s)
{
    size_t n;
    unsigned lo = 0x80, hi = 0xbf; /* the range of the second byte */
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        n = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        n = 3;
        if (s[0] == 0xe0)
            lo = 0xa0; /* overlong below U+0800 */
        else if (s[0] == 0xed)
            hi = 0x9f; /* surrogates */
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        n = 4;
        if (s[0] == 0xf0)
            lo = 0x90; /* overlong below U+10000 */
        else if (s[0] == 0xf4)
            hi = 0x8f; /* above U+10FFFF */
    } else
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

int rj_utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = utf8_seq_len(p);
        if (n == 0)
            return 0;
        p += n;
    }
    return 1;
}

/* JSON text is UTF-8 (RFC 8259, section 8.1), and names and strings are copied into reports and
 * JSON output: every member name and string value under v must be valid; the error names the
 * path (never the bytes). */
int rj_check_utf8(const cJSON *v, const char *path, const rj_ctx *c)
{
    int i = 0;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        char sub[RJ_PATH_MAX];
        if (cJSON_IsArray(v)) {
            snprintf(sub, sizeof sub, "%s[%d]", path, i);
        } else {
            if (it->string && !rj_utf8_valid(it->string))
                return rj_fail(c, RIDGE_EPARSE, path, NULL, "a member name is not valid UTF-8");
            rj_join(sub, sizeof sub, path, it->string);
        }
        if (cJSON_IsString(it) && it->valuestring && !rj_utf8_valid(it->valuestring))
            return rj_fail(c, RIDGE_EPARSE, sub, NULL, "not valid UTF-8");
        if (it->child) {
            int rc = rj_check_utf8(it, sub, c);
            if (rc != RIDGE_OK)
                return rc;
        }
    }
    return RIDGE_OK;
}

void rj_utf8_trim(char *s)
{
    size_t n = strlen(s), i = n, lead;
    /* back over at most three continuation bytes to the sequence's lead byte */
    while (i > 0 && n - i < 3 && ((unsigned char)s[i - 1] & 0xc0) == 0x80)
        i--;
    if (i == 0)
        return;
    lead = i - 1;
    if ((unsigned char)s[lead] >= 0x80 && utf8_seq_len((const unsigned char *)s + lead) == 0)
        s[lead] = '\0'; /* a sequence cut short (or not one at all): drop it */
}

int rj_parse_object(const char *text, size_t len, const rj_ctx *c, cJSON **root)
{
    int rc;
    const char *end = NULL;
    cJSON *j;
    if (memchr(text, '\0', len))
        return ridge_err_set(c->err, RIDGE_EPARSE, "%s: malformed JSON (a NUL byte in the text)", c->origin);
    if (ridge_json_refuse_nul_escape(text, len, c->origin, c->err) != RIDGE_OK)
        return RIDGE_EPARSE;
    j = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!j) {
        size_t off = end && end >= text ? (size_t)(end - text) : 0;
        int line = 1, col = 1;
        for (size_t i = 0; i < off && i < len; i++) {
            if (text[i] == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        return ridge_err_set(c->err, RIDGE_EPARSE, "%s: line %d, column %d: malformed JSON", c->origin, line,
                             col);
    }
    /* Trailing non-space text after the value is malformed too. */
    if (end) {
        while ((size_t)(end - text) < len && (*end == ' ' || *end == '\n' || *end == '\r' || *end == '\t'))
            end++;
        if ((size_t)(end - text) < len && *end != '\0') {
            cJSON_Delete(j);
            return ridge_err_set(c->err, RIDGE_EPARSE, "%s: trailing characters after the JSON value",
                                 c->origin);
        }
    }
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return ridge_err_set(c->err, RIDGE_EPARSE, "%s: $: expected a JSON object", c->origin);
    }
    if ((rc = rj_check_utf8(j, "$", c)) != RIDGE_OK) {
        cJSON_Delete(j);
        return rc;
    }
    *root = j;
    return RIDGE_OK;
}

int rj_check_keys(const cJSON *obj, const char *path, const char *const *allowed, const rj_ctx *c)
{
    const cJSON *it;
    for (it = obj->child; it; it = it->next) {
        int ok = 0;
        if (!it->string)
            return rj_fail(c, RIDGE_EPARSE, path, NULL, "member without a name");
        for (const char *const *a = allowed; *a; a++) {
            if (strcmp(*a, it->string) == 0) {
                ok = 1;
                break;
            }
        }
        if (!ok)
            return rj_fail(c, RIDGE_EINVAL, path, it->string, "unknown key");
        for (const cJSON *o = obj->child; o != it; o = o->next) {
            if (o->string && strcmp(o->string, it->string) == 0)
                return rj_fail(c, RIDGE_EINVAL, path, it->string, "duplicate key");
        }
    }
    return RIDGE_OK;
}

const char *rj_type_name(const cJSON *v)
{
    return cJSON_IsNull(v)     ? "null"
           : cJSON_IsBool(v)   ? "a boolean"
           : cJSON_IsNumber(v) ? "a number"
           : cJSON_IsString(v) ? "a string"
           : cJSON_IsArray(v)  ? "an array"
                               : "an object";
}

static const cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static const char *type_name(const cJSON *v)
{
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsBool(v)) return "a boolean";
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsArray(v)) return "an array";
    if (cJSON_IsObject(v)) return "an object";
    return "an invalid value";
}

/* Member `key` of obj as *v when `is` says it has the wanted type: 1; 0 when absent and optional;
 * else the error, "missing required NOUN" or "expected EXPECTED, got TYPE". */
static int typed_member(const cJSON *obj, const char *path, const char *key, int required,
                        cJSON_bool (*is)(const cJSON *), const char *noun, const char *expected, const cJSON **v,
                        const rj_ctx *c)
{
    *v = member(obj, key);
    if (!*v) {
        if (required)
            return rj_fail(c, RIDGE_EINVAL, path, key, "missing required %s", noun);
        return 0;
    }
    if (!is(*v))
        return rj_fail(c, RIDGE_EINVAL, path, key, "expected %s, got %s", expected, type_name(*v));
    return 1;
}

static cJSON_bool is_number(const cJSON *v)
{
    return cJSON_IsNumber(v);
}
static cJSON_bool is_string(const cJSON *v)
{
    return cJSON_IsString(v) && v->valuestring;
}
static cJSON_bool is_bool(const cJSON *v)
{
    return cJSON_IsBool(v);
}
static cJSON_bool is_object(const cJSON *v)
{
    return cJSON_IsObject(v);
}
static cJSON_bool is_array(const cJSON *v)
{
    return cJSON_IsArray(v);
}

int rj_number(const cJSON *obj, const char *path, const char *key, int required, double lo, double hi,
              double *out, const rj_ctx *c)
{
    const cJSON *v;
    double x;
    int rc = typed_member(obj, path, key, required, is_number, "number", "a number", &v, c);
    if (rc <= 0)
        return rc;
    x = v->valuedouble;
    if (!isfinite(x))
        return rj_fail(c, RIDGE_EINVAL, path, key, "not a finite number");
    if (x < lo || x > hi)
        return rj_fail(c, RIDGE_EINVAL, path, key, "%g is out of range [%g, %g]", x, lo, hi);
    *out = x;
    return 1;
}

int rj_int(const cJSON *obj, const char *path, const char *key, int required, long lo, long hi, long *out,
           const rj_ctx *c)
{
    double x = 0;
    int rc = rj_number(obj, path, key, required, (double)lo, (double)hi, &x, c);
    if (rc <= 0)
        return rc;
    if (x != floor(x))
        return rj_fail(c, RIDGE_EINVAL, path, key, "%g is not an integer", x);
    *out = (long)x;
    return 1;
}

int rj_string(const cJSON *obj, const char *path, const char *key, int required, char *buf, size_t cap,
              const rj_ctx *c)
{
    const cJSON *v;
    size_t n;
    int rc = typed_member(obj, path, key, required, is_string, "string", "a string", &v, c);
    if (rc <= 0)
        return rc;
    n = strlen(v->valuestring);
    if (n == 0)
        return rj_fail(c, RIDGE_EINVAL, path, key, "empty string");
    if (n >= cap)
        return rj_fail(c, RIDGE_EINVAL, path, key, "string longer than %zu bytes (UTF-8)", cap - 1);
    memcpy(buf, v->valuestring, n + 1);
    return 1;
}

int rj_enum(const cJSON *obj, const char *path, const char *key, int required, const ridge_names *names, int *out,
            const rj_ctx *c)
{
    char v[32], list[RIDGE_ERR_MSG_MAX / 2];
    int rc = rj_string(obj, path, key, required, v, sizeof v, c);
    if (rc != 1 || ridge_name_parse(names, v, out) == RIDGE_OK)
        return rc;
    return rj_fail(c, RIDGE_EINVAL, path, key, "'%s' is not one of: %s", v, ridge_name_list(names, list, sizeof list));
}

int rj_bool(const cJSON *obj, const char *path, const char *key, int required, int *out, const rj_ctx *c)
{
    const cJSON *v;
    int rc = typed_member(obj, path, key, required, is_bool, "boolean", "true or false", &v, c);
    if (rc <= 0)
        return rc;
    *out = cJSON_IsTrue(v) ? 1 : 0;
    return 1;
}

int rj_object(const cJSON *obj, const char *path, const char *key, int required, const cJSON **out,
              const rj_ctx *c)
{
    const cJSON *v;
    int rc = typed_member(obj, path, key, required, is_object, "object", "an object", &v, c);
    if (rc <= 0)
        return rc;
    *out = v;
    return 1;
}

int rj_array(const cJSON *obj, const char *path, const char *key, int required, const cJSON **out,
             const rj_ctx *c)
{
    const cJSON *v;
    int rc = typed_member(obj, path, key, required, is_array, "array", "an array", &v, c);
    if (rc <= 0)
        return rc;
    *out = v;
    return 1;
}
