/* ridge plan: plan files, the long option names as JSON keys (docs/planning.md, "The plan file").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "json_util.h" /* the library's JSON reader, as GPU, cluster and host files read */
#include "cli.h"
#include "plan_cli.h"
#include "ridge/file.h"

/* The keys a plan file may hold: every option plan_file_key_code knows, '-' written '_', and
 * schema_version; NULL-terminated, for rj_check_keys. */
static const char *const *plan_file_keys(void)
{
    static char names[128][32];
    static const char *keys[130];
    size_t n = 0;
    keys[n++] = "schema_version";
    for (const struct option *op = plan_long_opts; op->name && n < 128; op++) {
        if (!plan_file_key_code(op->name) || strlen(op->name) >= sizeof names[0])
            continue;
        snprintf(names[n], sizeof names[0], "%s", op->name);
        for (char *q = names[n]; *q; q++)
            if (*q == '-')
                *q = '_';
        keys[n] = names[n];
        n++;
    }
    keys[n] = NULL;
    return keys;
}

static int has_arg(int code)
{
    for (const struct option *op = plan_long_opts; op->name; op++)
        if (op->val == code)
            return op->has_arg != no_argument;
    return 1;
}

/* Keys whose value is a file (or an id or a file): a JSON string, taken from the plan file's
 * directory when relative. */
static int path_key(int code)
{
    return code == O_WORKLOAD || code == O_CLUSTER || code == CLI_RUN_OPT_BASE + 19 /* --host */ ||
           code == CLI_OPT_PRICES || code == 'o';
}

/* Keys whose value is a list: a JSON array or a comma string (or one number). */
static int list_key(int code)
{
    return code == O_GPUS || code == O_COUNTS || code == O_BATCHES || code == O_PRECISIONS || code == O_TP ||
           code == O_PP || code == O_ZERO || code == CLI_RUN_OPT_BASE + 9 /* --recompute */ || code == O_SP ||
           code == O_VSTAGES || code == O_GLOBAL;
}

/* A plan-file value as option text, of any length (caller frees): a string as it is, a number
 * with 17 digits, a list of those joined with commas. NULL after printing an error. */
static char *plan_value(const cJSON *it, const char *path)
{
    /* A single value is walked as a list of one: `it`, then nothing. */
    const cJSON *first = cJSON_IsArray(it) ? it->child : it, *e;
    size_t cap = 1, used = 0;
    char *val;
    if (cJSON_IsArray(it) && !first) {
        cli_error("%s: $.%s: an empty list", path, it->string);
        return NULL;
    }
    for (e = first; e; e = e == it ? NULL : e->next) {
        if (!cJSON_IsString(e) && !cJSON_IsNumber(e)) {
            cli_error("%s: $.%s: list entries must be strings or numbers", path, it->string);
            return NULL;
        }
        cap += 1 + (cJSON_IsString(e) ? strlen(e->valuestring) : 32); /* "%.17g" takes at most 24 */
    }
    if (!(val = malloc(cap))) {
        cli_error("out of memory");
        return NULL;
    }
    val[0] = '\0';
    for (e = first; e; e = e == it ? NULL : e->next) {
        const char *sep = used ? "," : "";
        int w = cJSON_IsString(e) ? snprintf(val + used, cap - used, "%s%s", sep, e->valuestring)
                                  : snprintf(val + used, cap - used, "%s%.17g", sep, e->valuedouble);
        used += (size_t)w;
    }
    return val;
}

/* The value of `it` as option text (plan_value) after checking its JSON type against what its key
 * takes; a relative path from the plan file's directory ("DIR/VALUE"). NULL after printing. */
static char *key_value(const cJSON *it, int code, const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dir;
    char *val;
    if (path_key(code) ? !cJSON_IsString(it)
                       : !cJSON_IsString(it) && !cJSON_IsNumber(it) && !cJSON_IsArray(it)) {
        cli_error("%s: $.%s: expected %s, got %s", path, it->string,
                  code == CLI_OPT_PRICES ? "an object of GPU id: USD per GPU-hour, or a prices file"
                  : path_key(code)       ? "a string"
                  : list_key(code)       ? "an array or a comma-separated string"
                                         : "a string or a number",
                  rj_type_name(it));
        return NULL;
    }
    if (!path_key(code))
        return plan_value(it, path);
    /* A file (an id stays as it is): relative to the plan file, as its reader meant it. */
    dir = slash && it->valuestring[0] && it->valuestring[0] != '/' &&
                  (code == CLI_OPT_PRICES || code == 'o' || ridge_file_is_path(it->valuestring))
              ? (size_t)(slash - path) + 1
              : 0;
    if (!(val = malloc(dir + strlen(it->valuestring) + 1))) {
        cli_error("out of memory");
        return NULL;
    }
    memcpy(val, path, dir);
    strcpy(val + dir, it->valuestring);
    return val;
}

/* "prices": {"ID": USD, ...}, each id once. 0, or -1 after printing. */
static int plan_prices(plan_opts *o, const cJSON *prices, const char *path)
{
    const cJSON *pi;
    cJSON_ArrayForEach(pi, prices)
    {
        char price[48], *val, label[RIDGE_ERR_MSG_MAX];
        int bad;
        for (const cJSON *q = prices->child; q != pi; q = q->next)
            if (strcmp(q->string, pi->string) == 0) {
                cli_error("%s: $.prices.%s: duplicate key", path, pi->string);
                return -1;
            }
        if (!cJSON_IsNumber(pi)) {
            cli_error("%s: $.prices.%s: expected a number, got %s", path, pi->string, rj_type_name(pi));
            return -1;
        }
        snprintf(price, sizeof price, "%.17g", pi->valuedouble);
        if (!(val = malloc(strlen(pi->string) + strlen(price) + 2))) {
            cli_error("out of memory");
            return -1;
        }
        sprintf(val, "%s=%s", pi->string, price);
        snprintf(label, sizeof label, "%s: $.prices.%s", path, pi->string);
        bad = plan_set_price(o, val, label);
        free(val);
        if (bad)
            return -1;
    }
    return 0;
}

/* A prices file the plan names, read once, here, so that one that cannot be read names the plan's
 * key (cli_prices_load names only the file), and parsed from that text. 0, or -1 / -3 after
 * printing. */
static int plan_prices_file(plan_opts *o, const char *file, const char *label)
{
    char *text = NULL;
    size_t len = 0;
    ridge_err err = {{0}};
    int st = ridge_file_read(file, &text, &len, &err);
    if (st != RIDGE_OK) {
        cli_error("%s: %s", label, err.msg);
        return st == RIDGE_EIO ? -3 : -1;
    }
    st = cli_prices_parse(&o->prices, text, len, file);
    free(text);
    return st;
}

int plan_file_load(plan_opts *o, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    cJSON *root = NULL, *it;
    ridge_err err = {{0}};
    rj_ctx c = {path, &err};
    int rc = cli_read_file(path, &text, &len);
    if (rc != CLI_EXIT_OK)
        return rc == CLI_EXIT_IO ? -3 : -1;
    rc = -1;
    /* malformed JSON (line, column), not UTF-8, not an object, an unknown or duplicate key */
    if (rj_parse_object(text, len, &c, &root) != RIDGE_OK ||
        rj_check_keys(root, "$", plan_file_keys(), &c) != RIDGE_OK) {
        cli_error("%s", err.msg);
        goto done;
    }
    cJSON_ArrayForEach(it, root)
    {
        char name[64], *val = NULL, label[RIDGE_ERR_MSG_MAX];
        int code, bad, on = 1;
        if (strcmp(it->string, "schema_version") == 0)
            continue;
        snprintf(name, sizeof name, "%s", it->string);
        for (char *q = name; *q; q++)
            if (*q == '_')
                *q = '-';
        code = plan_file_key_code(name); /* a key rj_check_keys let through */
        snprintf(label, sizeof label, "%s: $.%s", path, it->string);
        if (code == CLI_OPT_PRICES && cJSON_IsObject(it)) {
            if (plan_prices(o, it, path))
                goto done;
            continue;
        }
        if (!has_arg(code)) { /* a flag: true, or false for not given */
            if (rj_bool(root, "$", it->string, 1, &on, &c) < 0) {
                cli_error("%s", err.msg);
                goto done;
            }
            if (!on)
                continue;
        } else if (!(val = key_value(it, code, path))) {
            goto done;
        }
        if (code == CLI_OPT_PRICES)
            bad = plan_prices_file(o, val, label);
        else
            bad = plan_set_opt(o, code, val ? val : "", label);
        free(val);
        if (bad) {
            rc = bad == -3 ? -3 : -1; /* a file it names that cannot be read (prices, host): exit 3 */
            goto done;
        }
    }
    rc = 0;
done:
    cJSON_Delete(root);
    free(text);
    return rc;
}
