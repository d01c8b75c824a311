/* ridge compare: where the answer depends on the part, the catalogue's parts (SKUs) of each
 * compared product on one chip and the figures that differ between them (compare_workload.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "compare_workload.h"

#define SKU_MAX 16

/* One product of the catalogue: its parts and the range of the figures that differ. */
typedef struct {
    char stem[16], chip[24];
    ridge_gpu parts[SKU_MAX];
    int n;
    double lo[3], hi[3]; /* tdp_w, memory bandwidth, capacity */
    int types_differ;
} sku_family;

/* The id stem of a GPU ("a100" of a100-pcie-40gb and of a100-sxm4-80gb:1g.10gb). */
static void id_stem(const ridge_gpu *g, char *out, size_t cap)
{
    const char *id = g->mig_of[0] ? g->mig_of : g->id;
    size_t k = strcspn(id, "-:");
    snprintf(out, cap, "%.*s", (int)(k < cap ? k : cap - 1), id);
}

/* The catalogue's parts with g's stem and chip into *f; 1 when there are several and they differ. */
static int sku_family_of(const ridge_gpu *g, sku_family *f)
{
    memset(f, 0, sizeof *f);
    if (!g->chip[0])
        return 0;
    id_stem(g, f->stem, sizeof f->stem);
    snprintf(f->chip, sizeof f->chip, "%s", g->chip);
    for (size_t i = 0; i < ridge_catalog_count() && f->n < SKU_MAX; i++) {
        ridge_gpu *c = &f->parts[f->n];
        char stem[16];
        ridge_err err;
        if (ridge_catalog_load(ridge_catalog_id(i), c, &err) != RIDGE_OK || strcmp(c->chip, g->chip) != 0)
            continue;
        id_stem(c, stem, sizeof stem);
        if (strcmp(stem, f->stem) != 0)
            continue;
        const double v[3] = {c->tdp_w, c->memory_bw_bytes_per_s, c->memory_bytes};
        for (int k = 0; k < 3; k++) {
            f->lo[k] = f->n == 0 || v[k] < f->lo[k] ? v[k] : f->lo[k];
            f->hi[k] = f->n == 0 || v[k] > f->hi[k] ? v[k] : f->hi[k];
        }
        f->types_differ |= f->n > 0 && strcmp(c->memory_type, f->parts[0].memory_type) != 0;
        f->n++;
    }
    return f->n > 1 && (f->types_differ || f->lo[0] != f->hi[0] || f->lo[1] != f->hi[1] || f->lo[2] != f->hi[2]);
}

/* Whether an earlier GPU of g[0..i) is of the same product (its family is already written). */
static int family_seen(const ridge_gpu *g, int i)
{
    char a[16], b[16];
    id_stem(&g[i], a, sizeof a);
    for (int j = 0; j < i; j++) {
        id_stem(&g[j], b, sizeof b);
        if (strcmp(a, b) == 0 && strcmp(g[i].chip, g[j].chip) == 0)
            return 1;
    }
    return 0;
}

/* Whether part is one of g[0..n) (a MIG slice counts for its parent). */
static int compared(const ridge_gpu *g, int n, const char *part)
{
    for (int i = 0; i < n; i++)
        if (strcmp(g[i].mig_of[0] ? g[i].mig_of : g[i].id, part) == 0)
            return 1;
    return 0;
}

void cli_compare_sku_text(const ridge_gpu *g, int n)
{
    sku_family *f = malloc(sizeof *f);
    int head = 0;
    if (!f)
        return;
    for (int i = 0; i < n; i++) {
        char upper[16];
        cli_table t;
        if (family_seen(g, i) || !sku_family_of(&g[i], f) || cli_table_init(&t, 5))
            continue;
        if (!head++)
            printf("\nThe answer depends on the part (SKU) where a product has several (* compared here):\n");
        for (size_t k = 0; k <= strlen(f->stem); k++)
            upper[k] = (char)toupper((unsigned char)f->stem[k]);
        printf("%s on %s:\n", upper, f->chip);
        const char *h[5] = {"part", "memory", "capacity [GiB]", "bandwidth [GB/s]", "board power [W]"};
        cli_table_add(&t, h);
        for (int k = 2; k < 5; k++)
            t.right[k] = 1;
        for (int k = 0; k < f->n; k++) {
            const ridge_gpu *p = &f->parts[k];
            char id[64], b[3][48];
            snprintf(id, sizeof id, "%s%s", p->id, compared(g, n, p->id) ? " *" : "");
            const char *row[5] = {id, p->memory_type, cli_num(p->memory_bytes / 1073741824.0, b[0], 48),
                                  cli_num(p->memory_bw_bytes_per_s / 1e9, b[1], 48), cli_num(p->tdp_w, b[2], 48)};
            cli_table_add(&t, row);
        }
        cli_table_print_text(&t, stdout);
        cli_table_free(&t);
    }
    free(f);
}

cJSON *cli_compare_sku_json(const ridge_gpu *g, int n)
{
    cJSON *arr = cJSON_CreateArray();
    sku_family *f = malloc(sizeof *f);
    static const char *const keys[3] = {"tdp_w", "memory_bandwidth_bytes_per_s", "memory_bytes"};
    if (!f)
        return arr;
    for (int i = 0; i < n; i++) {
        cJSON *o, *ids, *types, *rng;
        if (family_seen(g, i) || !sku_family_of(&g[i], f))
            continue;
        o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "stem", f->stem);
        cJSON_AddStringToObject(o, "chip", f->chip);
        ids = cJSON_AddArrayToObject(o, "gpus");
        types = cJSON_AddArrayToObject(o, "memory_types");
        for (int k = 0; k < f->n; k++) {
            cJSON_AddItemToArray(ids, cJSON_CreateString(f->parts[k].id));
            cJSON_AddItemToArray(types, cJSON_CreateString(f->parts[k].memory_type));
        }
        rng = cJSON_AddObjectToObject(o, "ranges");
        for (int k = 0; k < 3; k++) {
            cJSON *lh = cJSON_AddArrayToObject(rng, keys[k]);
            cJSON_AddItemToArray(lh, cJSON_CreateNumber(f->lo[k]));
            cJSON_AddItemToArray(lh, cJSON_CreateNumber(f->hi[k]));
        }
        cJSON_AddItemToArray(arr, o);
    }
    free(f);
    return arr;
}
