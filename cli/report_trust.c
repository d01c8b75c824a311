/* ridge report: the model's measured error, from the validation baseline embedded at build time
 * (cli/CMakeLists.txt embeds validation/baseline.json, written by `ridge validate
 * --write-baseline`; docs/validation.md).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include <cjson/cJSON.h>

#include "embedded.h"
#include "report.h"

#ifndef RIDGE_BASELINE_STAMP
#define RIDGE_BASELINE_STAMP "unknown commit"
#endif

extern const ridge_embedded_file ridge_baseline_files[];
extern const size_t ridge_baseline_count_;

static cJSON *baseline(void)
{
    if (ridge_baseline_count_ < 1)
        return NULL;
    return cJSON_ParseWithLength(ridge_baseline_files[0].data, ridge_baseline_files[0].len);
}

int report_trust(const char *by, const char *name, double *mape_percent, int *cases)
{
    cJSON *root = baseline(), *s;
    int found = 0;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(root, "summaries"))
    {
        const char *b = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "by"));
        const char *n = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "name"));
        const cJSON *mp = cJSON_GetObjectItemCaseSensitive(s, "mape_percent");
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(s, "cases");
        if (b && n && cJSON_IsNumber(mp) && cJSON_IsNumber(c) && strcmp(b, by) == 0 && strcmp(n, name) == 0) {
            *mape_percent = mp->valuedouble;
            *cases = (int)c->valuedouble;
            found = 1;
            break;
        }
    }
    cJSON_Delete(root);
    return found;
}

const char *report_trust_stamp(void)
{
    return RIDGE_BASELINE_STAMP;
}

const char *report_trust_files(char *buf, size_t cap)
{
    cJSON *root = baseline(), *f;
    size_t n = 0;
    buf[0] = '\0';
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(root, "files"))
    {
        const char *s = cJSON_GetStringValue(f);
        if (s && n < cap)
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", s);
    }
    cJSON_Delete(root);
    return buf;
}
