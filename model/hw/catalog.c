/* The built-in GPU catalogue: model/gpus/ID.json, embedded at build time.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "nearest.h"
#include "ridge/gpu.h"

size_t ridge_catalog_count(void)
{
    return ridge_catalog_count_;
}

const char *ridge_catalog_id(size_t i)
{
    return i < ridge_catalog_count_ ? ridge_catalog_files[i].name : NULL;
}

const char *ridge_catalog_json(const char *id, size_t *len)
{
    for (size_t i = 0; i < ridge_catalog_count_; i++) {
        if (strcmp(ridge_catalog_files[i].name, id) == 0) {
            if (len)
                *len = ridge_catalog_files[i].len;
            return ridge_catalog_files[i].data;
        }
    }
    return NULL;
}

const char *ridge_catalog_find_device(const char *device_name)
{
    const char *found = NULL;
    ridge_gpu_provenance *prov;
    if (!device_name || !device_name[0] || !(prov = malloc(sizeof *prov)))
        return NULL;
    /* Each file through its loader, which reads and checks `device_names` (parse_device_names);
     * this runs once per measurement file. */
    for (size_t i = 0; i < ridge_catalog_count_ && !found; i++) {
        ridge_gpu g;
        if (ridge_catalog_load_prov(ridge_catalog_files[i].name, &g, prov, NULL) != RIDGE_OK)
            continue;
        for (int k = 0; k < prov->device_name_count && !found; k++)
            if (strcmp(prov->device_names[k], device_name) == 0)
                found = ridge_catalog_files[i].name;
    }
    free(prov);
    return found;
}

int ridge_catalog_device_id(const char *device_name, char *out, size_t cap)
{
    const char *hit = ridge_catalog_find_device(device_name), *mig;
    if (!out || cap == 0)
        return 0;
    out[0] = '\0';
    if (hit) {
        if (strlen(hit) >= cap)
            return 0;
        strcpy(out, hit);
        return 1;
    }
    mig = device_name ? strstr(device_name, " MIG ") : NULL;
    if (mig && mig > device_name && mig[5]) {
        char base[RIDGE_GPU_DEVICE_NAME_MAX], id[128];
        size_t n = (size_t)(mig - device_name);
        ridge_gpu g;
        if (n >= sizeof base)
            return 0;
        memcpy(base, device_name, n);
        base[n] = '\0';
        hit = ridge_catalog_find_device(base);
        if (!hit || snprintf(id, sizeof id, "%s:%s", hit, mig + 5) >= (int)sizeof id || strlen(id) >= cap)
            return 0;
        if (ridge_catalog_load(id, &g, NULL) != RIDGE_OK)
            return 0;
        strcpy(out, id);
        return 1;
    }
    return 0;
}

size_t ridge_edit_distance(const char *a, const char *b)
{
    /* Levenshtein distance over two rows; ids are short. */
    size_t la = strlen(a), lb = strlen(b);
    size_t row0[64], row1[64];
    if (la > 63)
        la = 63;
    if (lb > 63)
        lb = 63;
    for (size_t j = 0; j <= lb; j++)
        row0[j] = j;
    for (size_t i = 1; i <= la; i++) {
        row1[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t del = row0[j] + 1, ins = row1[j - 1] + 1, sub = row0[j - 1] + (a[i - 1] != b[j - 1]);
            size_t m = del < ins ? del : ins;
            row1[j] = m < sub ? m : sub;
        }
        memcpy(row0, row1, (lb + 1) * sizeof row0[0]);
    }
    return row0[lb];
}

void ridge_nearest_names(const char *query, const char *(*name_at)(size_t i), size_t n, char *out, size_t cap)
{
    size_t best[3] = {(size_t)-1, (size_t)-1, (size_t)-1};
    size_t bd[3] = {(size_t)-1, (size_t)-1, (size_t)-1};
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        const char *name = name_at(i);
        size_t d = ridge_edit_distance(query, name);
        if (strstr(name, query) || strstr(query, name))
            d = d < 2 ? d : 2; /* a substring is a strong hint ("a100" -> a100-*) */
        for (int k = 0; k < 3; k++) {
            if (d < bd[k]) {
                for (int m = 2; m > k; m--) {
                    bd[m] = bd[m - 1];
                    best[m] = best[m - 1];
                }
                bd[k] = d;
                best[k] = i;
                break;
            }
        }
    }
    for (int k = 0; k < 3 && best[k] != (size_t)-1; k++) {
        if (out[0])
            strncat(out, ", ", cap - strlen(out) - 1);
        strncat(out, name_at(best[k]), cap - strlen(out) - 1);
    }
}

int ridge_catalog_load_prov(const char *id, ridge_gpu *gpu, ridge_gpu_provenance *prov, ridge_err *err)
{
    char base[64], origin[96];
    const char *colon;
    const char *json;
    size_t len = 0;
    int rc;
    if (!id || !*id)
        return ridge_err_set(err, RIDGE_EINVAL, "empty GPU id");
    colon = strchr(id, ':');
    if (colon) {
        size_t n = (size_t)(colon - id);
        if (n >= sizeof base)
            n = sizeof base - 1;
        memcpy(base, id, n);
        base[n] = '\0';
    } else {
        snprintf(base, sizeof base, "%s", id);
    }
    json = ridge_catalog_json(base, &len);
    if (!json) {
        char near[160];
        ridge_nearest_names(base, ridge_catalog_id, ridge_catalog_count_, near, sizeof near);
        return ridge_err_set(err, RIDGE_ENOTFOUND, "unknown GPU id '%s' (nearest: %s; 'ridge gpus' lists all)", base,
                             near);
    }
    snprintf(origin, sizeof origin, "builtin:%s", base);
    rc = ridge_gpu_parse_prov(json, len, origin, gpu, prov, err);
    if (rc != RIDGE_OK)
        return rc;
    if (colon)
        rc = ridge_gpu_mig_slice(gpu, colon + 1, err);
    return rc;
}

int ridge_catalog_load(const char *id, ridge_gpu *gpu, ridge_err *err)
{
    return ridge_catalog_load_prov(id, gpu, NULL, err);
}
