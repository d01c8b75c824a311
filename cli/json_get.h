/* Reading members of measurement documents (cli/measure.c, cli/torch_map.c): absent or mistyped
 * members read as "not there", never as an error; callers decide what that means.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_JSON_GET_H
#define RIDGE_CLI_JSON_GET_H

#include <cjson/cJSON.h>

/* The string member `key` of o, or NULL when absent or not a string. */
static inline const char *cli_json_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

#endif
