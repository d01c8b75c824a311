/* ridge plan: plan files, the long option names as JSON keys (docs/planning.md, "The plan file").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plan_cli.h"
#include "ridge/file.h"

/* A plan-file value as option text, of any length (caller frees): a string as it is, a number
 * with 17 digits, a list of those joined with commas. NULL after printing an error. */
static char *plan_value(const cJSON *it, const char *path)
{
    /* A single value is walked as a list of one: `it`, then nothing. */
    const cJSON *first = cJSON_IsArray(it) ? it->child : it, *e;
    size_t cap = 1, used = 0;
    char *val;
    if (!cJSON_IsArray(it) && !cJSON_IsString(it) && !cJSON_IsNumber(it)) {
        cli_error("%s: $.%s: unsupported value type", path, it->string);
        return NULL;
    }
    if (cJSON_IsArray(it) && !first) { /* it was the empty string: "--prices ''", "ridge: : cannot open" */
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

int plan_file_load(plan_opts *o, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    cJSON *root = NULL, *it;
    int rc = cli_read_file(path, &text, &len);
    if (rc != CLI_EXIT_OK)
        return rc == CLI_EXIT_IO ? -3 : -1;
    rc = -1;
    ridge_err err = {{0}};
    if (ridge_json_refuse_nul_escape(text, len, path, &err) != RIDGE_OK) {
        cli_error("%s", err.msg);
        goto done;
    }
    root = cJSON_ParseWithLengthOpts(text, len, NULL, 0);
    if (!cJSON_IsObject(root)) {
        cli_error("%s: not a JSON object", path);
        goto done;
    }
    cJSON_ArrayForEach(it, root)
    {
        char name[64], *val, label[RIDGE_ERR_MSG_MAX];
        int code = 0, bad;
        if (strcmp(it->string, "schema_version") == 0)
            continue;
        snprintf(name, sizeof name, "%s", it->string);
        for (char *q = name; *q; q++)
            if (*q == '_')
                *q = '-';
        if (strcmp(name, "prices") == 0 && cJSON_IsObject(it)) {
            cJSON *pi;
            cJSON_ArrayForEach(pi, it)
            {
                char price[48];
                if (!cJSON_IsNumber(pi)) {
                    cli_error("%s: $.prices.%s: not a number", path, pi->string);
                    goto done;
                }
                snprintf(price, sizeof price, "%.17g", pi->valuedouble);
                if (!(val = malloc(strlen(pi->string) + strlen(price) + 2))) {
                    cli_error("out of memory");
                    goto done;
                }
                sprintf(val, "%s=%s", pi->string, price);
                snprintf(label, sizeof label, "%s: $.prices.%s", path, pi->string);
                bad = plan_set_price(o, val, label);
                free(val);
                if (bad)
                    goto done;
            }
            continue;
        }
        if (!(code = plan_file_key_code(name))) {
            cli_error("%s: $.%s: unknown key", path, it->string);
            goto done;
        }
        if (cJSON_IsBool(it)) {
            if (!cJSON_IsTrue(it))
                continue;
            val = NULL; /* a flag */
        } else if (!(val = plan_value(it, path))) {
            goto done;
        }
        snprintf(label, sizeof label, "%s: $.%s", path, it->string);
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
