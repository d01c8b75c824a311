/* ridge gpu show ID: every field of one GPU, derived figures, sources, MIG profiles and the
 * model's efficiency parameters.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "figure_fmt.h"
#include "json_emit.h"
#include "prices.h"
#include "ridge/figures.h"

static const char help[] =
    "usage: ridge gpu show ID [--format text|json|csv]\n"
    "       ridge gpu show --gpu-file PATH [--format ...]\n"
    "\n"
    "Prints every field of a GPU with its source, and derived figures: ridge point (FLOP per byte)\n"
    "per precision, FLOP/s per watt, bandwidth per tensor TFLOP/s, memory per SM, performance per\n"
    "dollar where a price is known. ID may name a MIG slice: a100-sxm4-80gb:3g.40gb.\n"
    "Also prints the model's efficiency parameters (from the file or the documented defaults).\n";

static int show_json(const ridge_gpu *g, const ridge_gpu_provenance *prov)
{
    cJSON *root = cJSON_CreateObject(), *figs, *mig, *eff, *src;
    cJSON_AddNumberToObject(root, "schema_version", CLI_SCHEMA_VERSION);
    cJSON_AddStringToObject(root, "id", g->id);
    if (g->mig_of[0])
        cJSON_AddStringToObject(root, "mig_of", g->mig_of);
    figs = cJSON_AddObjectToObject(root, "figures");
    for (size_t i = 0; i < ridge_figure_count(); i++) {
        cli_figure_val v;
        cli_figure_eval(g, i, &v);
        cJSON_AddItemToObject(figs, ridge_figure(i)->key, cli_figure_json(&v));
    }
    mig = cJSON_AddArrayToObject(root, "mig");
    for (int i = 0; i < g->mig_count; i++) {
        const ridge_mig_profile *mp = &g->mig[i];
        const cli_json_field f[] = {
            CLI_JSTR("profile", mp->profile), CLI_JNUM("compute_slices", mp->compute_slices),
            CLI_JNUM("memory_slices", mp->memory_slices), CLI_JNUM("sm_count", mp->sm_count),
            CLI_JNUM("memory_bytes", mp->memory_bytes), CLI_JNUM("max_instances", mp->max_instances)};
        cJSON_AddItemToArray(mig, CLI_JSON_ADD(cJSON_CreateObject(), f));
    }
    eff = cJSON_AddObjectToObject(root, "efficiency");
    for (int i = 0; i < RIDGE_EFF_FIELD_COUNT; i++)
        cJSON_AddNumberToObject(eff, ridge_efficiency_field_name(i), ridge_efficiency_get(&g->eff, i));
    {
        cJSON *fb = cJSON_AddObjectToObject(eff, "fraction_by_peak");
        for (int p = 0; p < RIDGE_PEAK_COUNT; p++)
            if (g->eff.fraction_by_peak[p] > 0)
                cJSON_AddNumberToObject(fb, ridge_peak_key((ridge_peak)p), g->eff.fraction_by_peak[p]);
    }
    cJSON_AddStringToObject(eff, "source", g->eff.from_file_mask ? g->eff.source : "defaults (docs/model.md)");
    src = cJSON_AddObjectToObject(root, "sources");
    for (int i = 0; i < prov->source_count; i++)
        cJSON_AddStringToObject(src, prov->sources[i].key, prov->sources[i].value);
    if (g->price_source[0])
        cJSON_AddStringToObject(root, "price_source", g->price_source);
    cJSON_AddItemToObject(root, "price", cli_price_json(g));
    {
        cJSON *dn = cJSON_AddArrayToObject(root, "device_names");
        for (int i = 0; i < prov->device_name_count; i++)
            cJSON_AddItemToArray(dn, cJSON_CreateString(prov->device_names[i]));
    }
    cJSON_AddStringToObject(root, "notes", prov->notes);
    return cli_print_json(root);
}

/* Sources too long for the table's column are numbered "[n]" there and printed below it. */
#define SOURCE_COLUMN 24
#define MAX_NOTES 64
typedef struct {
    const char *text[MAX_NOTES];
    char mark[MAX_NOTES][12];
    int n;
} source_notes;

/* What the source column shows for src: src itself when it is short, else its note mark (the
 * same mark for the same text). */
static const char *footnote(source_notes *s, const char *src)
{
    if (strlen(src) <= SOURCE_COLUMN)
        return src;
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->text[i], src) == 0)
            return s->mark[i];
    if (s->n == MAX_NOTES)
        return "(see notes)";
    s->text[s->n] = src;
    snprintf(s->mark[s->n], sizeof s->mark[0], "[%d]", (s->n + 1) % 100);
    return s->mark[s->n++];
}

static void print_footnotes(const source_notes *s)
{
    char text[CLI_TEXT_CAP(sizeof ((ridge_gpu_source *)0)->value)];
    if (s->n)
        printf("\nSources:\n");
    for (int i = 0; i < s->n; i++) {
        int w = printf("  %-5s", s->mark[i]);
        cli_print_wrapped(stdout, cli_text(s->text[i], text, sizeof text), w + 1, 8);
    }
}

/* Long (about 125 lines) on purpose: one pass over the figure table (ridge_figure_*) that prints
 * every field with its source in CSV or text, then the text-only blocks in the order a reader
 * meets them (source notes, price, MIG, efficiency parameters, provenance notes). */
static int show_table(const ridge_gpu *g, const ridge_gpu_provenance *prov, cli_format fmt)
{
    cli_table t;
    char b[64];
    source_notes notes = {0};
    if (cli_table_init(&t, 5))
        return CLI_EXIT_FAILURE;
    if (fmt == CLI_FMT_CSV) {
        const char *h[5] = {"group", "key", "value", "display_unit", "source"};
        cli_table_add(&t, h);
    } else {
        const char *h[5] = {"group", "figure", "value", "unit", "source"};
        cli_table_add(&t, h);
        t.right[2] = 1;
    }
    for (size_t i = 0; i < ridge_figure_count(); i++) {
        const ridge_figure_info *f = ridge_figure(i);
        cli_figure_val v;
        const char *src;
        char si[64];
        cli_figure_eval(g, i, &v);
        if (v.kind == RIDGE_FIGURE_ABSENT && fmt == CLI_FMT_TEXT && f->derived)
            continue;
        /* The title line gives the name, the MIG table below the profiles, one per row. */
        if (fmt == CLI_FMT_TEXT &&
            (strcmp(f->key, "name") == 0 || (strcmp(f->key, "mig_profile_names") == 0 && g->mig_count > 0)))
            continue;
        src = f->derived ? "derived" : ridge_gpu_source_for(prov, f->source_key);
        if (f->source_key && strcmp(f->source_key, "price") == 0 && g->price_source[0])
            src = g->price_source;
        if (fmt == CLI_FMT_CSV) {
            const char *val = v.text;
            if (v.kind == RIDGE_FIGURE_NUMBER)
            {
                snprintf(si, sizeof si, "%.9g", v.num);
                val = si;
            }
            else if (v.kind == RIDGE_FIGURE_ABSENT)
                val = "";
            const char *row[5] = {f->group, f->key, val, f->unit, src ? src : ""};
            cli_table_add(&t, row);
        } else {
            int unknown = v.kind == RIDGE_FIGURE_ABSENT && cli_figure_unknown_when_absent(f);
            const char *shown = src && !unknown ? footnote(&notes, src) : "";
            const char *row[5] = {f->group, f->label, v.text, unknown ? "" : f->unit, shown};
            cli_table_add(&t, row);
        }
    }
    if (fmt == CLI_FMT_CSV) {
        for (int i = 0; i < RIDGE_EFF_FIELD_COUNT; i++) {
            char val[64];
            snprintf(val, sizeof val, "%.9g", ridge_efficiency_get(&g->eff, i));
            const char *row[5] = {"efficiency", ridge_efficiency_field_name(i), val, "SI",
                                  (g->eff.from_file_mask >> i) & 1u ? g->eff.source : "default"};
            cli_table_add(&t, row);
        }
        for (int p = 0; p < RIDGE_PEAK_COUNT; p++) {
            char key[48], val[64];
            if (!(g->eff.fraction_by_peak[p] > 0))
                continue;
            snprintf(key, sizeof key, "fraction_by_peak.%s", ridge_peak_key((ridge_peak)p));
            snprintf(val, sizeof val, "%.9g", g->eff.fraction_by_peak[p]);
            const char *row[5] = {"efficiency", key, val, "SI", g->eff.source};
            cli_table_add(&t, row);
        }
        cli_table_print_csv(&t, stdout);
        cli_table_free(&t);
        return CLI_EXIT_OK;
    }
    char text[CLI_TEXT_CAP(sizeof prov->notes)];
    printf("%s  %s", g->id, cli_text(g->name, text, sizeof text));
    if (g->mig_of[0])
        printf("  (MIG slice of %s)", g->mig_of);
    printf("\n\n");
    cli_table_print_text(&t, stdout);
    cli_table_free(&t);
    print_footnotes(&notes);
    if (prov->device_name_count > 0) {
        /* the names measurement files are mapped by (docs/gpu-schema.md, device_names) */
        printf("\nDriver names:");
        for (int i = 0; i < prov->device_name_count; i++)
            printf("%s \"%s\"", i ? "," : "", cli_text(prov->device_names[i], text, sizeof text));
        printf("\n");
    }
    printf("\nPrice per GPU-hour: ");
    cli_print_wrapped(stdout, cli_price_text(g, text, sizeof text), 20, 4);
    if (g->mig_count > 0) {
        printf("\nMIG profiles (use ID:PROFILE as a GPU id)\n");
        if (cli_table_init(&t, 6))
            return CLI_EXIT_FAILURE;
        const char *h[6] = {"profile", "compute slices", "memory slices", "SMs", "memory [GiB]", "max instances"};
        cli_table_add(&t, h);
        for (int k = 1; k < 6; k++)
            t.right[k] = 1;
        for (int i = 0; i < g->mig_count; i++) {
            char a[4][16], m[32];
            snprintf(a[0], 16, "%d/%d", g->mig[i].compute_slices, g->mig_total_compute_slices);
            snprintf(a[1], 16, "%d/%d", g->mig[i].memory_slices, g->mig_total_memory_slices);
            snprintf(a[2], 16, "%d", g->mig[i].sm_count);
            snprintf(a[3], 16, "%d", g->mig[i].max_instances);
            const char *row[6] = {g->mig[i].profile, a[0], a[1], a[2],
                                  cli_num(g->mig[i].memory_bytes / 1073741824.0, m, sizeof m), a[3]};
            cli_table_add(&t, row);
        }
        cli_table_print_text(&t, stdout);
        cli_table_free(&t);
    }
    printf("\nModel efficiency parameters (docs/model.md)\n");
    {
        /* one label and scale per field of ridge_efficiency_field (a missing entry fails to build,
         * where a sized array printed "(null)") */
        static const char *const labels[] = {
            "tensor fraction",   "vector fraction",         "DRAM fraction",
            "L2 bandwidth [GB/s]", "kernel floor [us]",     "DRAM latency [ns]",
            "host launch, eager [us]", "host launch, graph [us]", "framework per op [us]",
            "kernel floor, graph [us]"};
        static const double scale[] = {1, 1, 1, 1e9, 1e-6, 1e-9, 1e-6, 1e-6, 1e-6, 1e-6};
        _Static_assert(sizeof labels / sizeof labels[0] == RIDGE_EFF_FIELD_COUNT &&
                           sizeof scale / sizeof scale[0] == RIDGE_EFF_FIELD_COUNT,
                       "gpu show: a label and a scale for every efficiency field");
        for (int i = 0; i < RIDGE_EFF_FIELD_COUNT; i++)
            printf("  %-26s %10s  %s\n", labels[i], cli_num(ridge_efficiency_get(&g->eff, i) / scale[i], b, sizeof b),
                   (g->eff.from_file_mask >> i) & 1u ? cli_text(g->eff.source, text, sizeof text) : "default");
        for (int p = 0; p < RIDGE_PEAK_COUNT; p++) {
            char label[48];
            if (!(g->eff.fraction_by_peak[p] > 0))
                continue;
            snprintf(label, sizeof label, "fraction of %s peak", ridge_peak_key((ridge_peak)p));
            printf("  %-26s %10s  %s\n", label, cli_num(g->eff.fraction_by_peak[p], b, sizeof b),
                   cli_text(g->eff.source, text, sizeof text));
        }
    }
    if (prov->notes[0]) {
        printf("\nNotes: ");
        cli_print_wrapped(stdout, cli_text(prov->notes, text, sizeof text), 7, 2);
    }
    return CLI_EXIT_OK;
}

int cmd_gpu(int argc, char **argv)
{
    static const struct option opts[] = {{"gpu-file", required_argument, 0, 'g'}, CLI_OPTION_FORMAT,
                                         CLI_OPTION_HELP, CLI_OPTION_END};
    cli_format fmt = CLI_FMT_TEXT;
    const char *file = NULL, *id = NULL;
    ridge_gpu g;
    ridge_gpu_provenance prov;
    ridge_err err = {{0}};
    int c, rc;
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(help, stdout);
        return CLI_EXIT_OK;
    }
    if (argc < 2 || strcmp(argv[1], "show") != 0)
        return cli_usage_error("gpu", "expected 'show' (ridge gpu show ID)");
    argc--;
    argv++;
    cli_opts co = {"gpu show", help, NULL, &fmt, 0, -1, NULL};
    while ((c = cli_getopt(&co, argc, argv, ":h", opts)) != -1) {
        if (c == 'g')
            file = optarg;
    }
    if (co.exit >= 0)
        return co.exit;
    if (optind < argc)
        id = argv[optind++];
    if (optind < argc)
        return cli_extra_arg_error("gpu show", argv);
    if (!id && !file)
        return cli_usage_error("gpu show", "missing GPU id (or --gpu-file PATH)");
    if (id && file)
        return cli_usage_error("gpu show", "give an id or --gpu-file, not both");
    /* As cli_load_gpu, keeping the notes and sources that only this command prints. */
    rc = file ? ridge_gpu_load_file_prov(file, &g, &prov, &err) : ridge_catalog_load_prov(id, &g, &prov, &err);
    if (rc != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(rc);
    }
    return fmt == CLI_FMT_JSON ? show_json(&g, &prov) : show_table(&g, &prov, fmt);
}
