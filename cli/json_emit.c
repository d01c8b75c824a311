/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "json_emit.h"

cJSON *cli_json_add(cJSON *o, const cli_json_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (f[i].kind) {
        case CLI_JSON_NUMBER: cJSON_AddNumberToObject(o, f[i].key, f[i].num); break;
        case CLI_JSON_STRING: cJSON_AddStringToObject(o, f[i].key, f[i].str); break;
        case CLI_JSON_BOOL: cJSON_AddBoolToObject(o, f[i].key, f[i].num != 0); break;
        case CLI_JSON_NULL: cJSON_AddNullToObject(o, f[i].key); break;
        default: break;
        }
    }
    return o;
}
