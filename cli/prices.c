/* --price ID=USD_PER_HOUR and --prices FILE: parsed once for every command that costs a run, and
 * the rule for which price each GPU gets (cli/prices.h, docs/cli.md "Prices").
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "prices.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"

/* The entry for id, or NULL. */
static cli_price *find(cli_prices *ps, const char *id)
{
    for (size_t k = 0; k < ps->n; k++)
        if (strcmp(ps->p[k].id, id) == 0)
            return &ps->p[k];
    return NULL;
}

/* ID=VALUE into *p; errors name label, and the id too where with_id is set (a label that does
 * not name it already); 0 or -1 after printing. */
static int parse_pair(const char *arg, const char *label, int with_id, cli_price *p)
{
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : 0;
    char lab[192];
    if (!eq || len == 0 || len >= sizeof p->id || !eq[1]) {
        cli_error("%s: '%s' is not ID=USD_PER_HOUR", label, arg);
        return -1;
    }
    memcpy(p->id, arg, len);
    p->id[len] = '\0';
    snprintf(lab, sizeof lab, with_id ? "%s: %s" : "%s", label, p->id);
    return cli_parse_double(lab, eq + 1, CLI_PRICE_MIN_USD, CLI_PRICE_MAX_USD, &p->usd_per_hour);
}

/* Add *p, replacing an earlier price for its id. */
static int store(cli_prices *ps, const cli_price *p, const char *label)
{
    cli_price *old = find(ps, p->id);
    if (!old && ps->n >= CLI_PRICES_MAX) {
        cli_error("%s: more than %d prices", label, CLI_PRICES_MAX);
        return -1;
    }
    *(old ? old : &ps->p[ps->n++]) = *p;
    return 0;
}

int cli_prices_add(cli_prices *ps, const char *arg, const char *label)
{
    cli_price p = {.strict = 1};
    int flag = !label;
    if (flag)
        label = "--price";
    if (parse_pair(arg, label, flag, &p))
        return -1;
    if (flag)
        snprintf(p.origin, sizeof p.origin, "--price %.100s", arg);
    else
        snprintf(p.origin, sizeof p.origin, "%s", label);
    return store(ps, &p, label);
}

/* The key=value fields after ID=VALUE on a prices-file line (loc "FILE:N"). */
static int parse_fields(char *s, const char *loc, cli_price *p)
{
    while (*s) {
        char *key = s, *eq, *val;
        size_t klen;
        while (*s && !isspace((unsigned char)*s))
            s++;
        eq = memchr(key, '=', (size_t)(s - key));
        if (!eq) {
            cli_error("%s: '%.*s' is not KEY=VALUE (keys: kind, date, source)", loc, (int)(s - key), key);
            return -1;
        }
        klen = (size_t)(eq - key);
        val = eq + 1;
        if (klen == 6 && strncmp(key, "source", 6) == 0) {
            snprintf(p->source, sizeof p->source, "%s", val); /* the rest of the line */
            if (!p->source[0]) {
                cli_error("%s: source: empty", loc);
                return -1;
            }
            return 0;
        }
        if (*s)
            *s++ = '\0';
        if (klen == 4 && strncmp(key, "kind", 4) == 0) {
            if (strcmp(val, "on_demand") && strcmp(val, "spot")) {
                cli_error("%s: kind: '%s' is not one of on_demand, spot", loc, val);
                return -1;
            }
            snprintf(p->kind, sizeof p->kind, "%s", val);
        } else if (klen == 4 && strncmp(key, "date", 4) == 0) {
            if (!ridge_price_date_valid(val)) { /* as a GPU file's price.date */
                cli_error("%s: date: '%s' is not a date YYYY, YYYY-MM or YYYY-MM-DD", loc, val);
                return -1;
            }
            snprintf(p->date, sizeof p->date, "%s", val);
        } else {
            cli_error("%s: unknown key '%.*s' (keys: kind, date, source)", loc, (int)klen, key);
            return -1;
        }
        while (isspace((unsigned char)*s))
            s++;
    }
    return 0;
}

/* One line of a prices file, cut at '#' and trimmed by the caller (non-empty). */
static int load_line(cli_prices *ps, char *line, const char *path, size_t lineno)
{
    char loc[160], *rest = line;
    cli_price p = {0};
    ridge_gpu g;
    ridge_err err;
    snprintf(loc, sizeof loc, "%.140s:%zu", path, lineno);
    while (*rest && !isspace((unsigned char)*rest))
        rest++;
    if (*rest)
        *rest++ = '\0';
    while (isspace((unsigned char)*rest))
        rest++;
    if (parse_pair(line, loc, 1, &p) || parse_fields(rest, loc, &p))
        return -1;
    /* A price sheet may list GPUs a command does not use, but each must be a GPU. */
    if (ridge_catalog_load(p.id, &g, &err) != RIDGE_OK) {
        cli_error("%s: %s", loc, err.msg);
        return -1;
    }
    snprintf(p.origin, sizeof p.origin, "%s", loc);
    return store(ps, &p, loc);
}

int cli_prices_load(cli_prices *ps, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    int rc = cli_read_file(path, &text, &len);
    if (rc != CLI_EXIT_OK)
        return rc == CLI_EXIT_IO ? -3 : -1;
    rc = cli_prices_parse(ps, text, len, path);
    free(text);
    return rc;
}

int cli_prices_parse(cli_prices *ps, char *text, size_t len, const char *path)
{
    char *line, *next;
    size_t lineno = 0, nprices = 0;
    int rc = 0;
    /* A NUL byte would end the text there: the lines after it were dropped without a word. */
    if ((next = memchr(text, '\0', len)) != NULL) {
        for (line = text; line < next; line++)
            lineno += *line == '\n';
        cli_error("%s:%zu: a NUL byte: not a text file", path, lineno + 1);
        return -1;
    }
    for (line = text; rc == 0 && line && *line; line = next) {
        char *hash, *end;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        if ((hash = strchr(line, '#')))
            *hash = '\0';
        while (isspace((unsigned char)*line))
            line++;
        end = line + strlen(line);
        while (end > line && isspace((unsigned char)end[-1]))
            *--end = '\0';
        if (*line) {
            rc = load_line(ps, line, path, lineno);
            nprices++;
        }
    }
    /* A sheet without a price (empty, blank or comments only: the wrong file, or one cut short)
     * would leave every GPU at the catalogue's price without a word. */
    if (rc == 0 && nprices == 0) {
        cli_error("%s: no price in the file (a line ID=USD_PER_HOUR, e.g. a40=0.44)", path);
        rc = -1;
    }
    return rc;
}

int cli_prices_option(cli_prices *ps, int code, const char *arg)
{
    if (code == CLI_OPT_PRICE)
        return cli_prices_add(ps, arg, NULL);
    return cli_prices_load(ps, arg);
}

/* Put p on g, the price of g itself (share 0) or of its parent (g gets its share). */
static void set_price(ridge_gpu *g, const cli_price *p, int share)
{
    double f = share ? (double)g->mig_compute_slices / g->mig_compute_total : 1;
    g->price_usd_per_hour = p->usd_per_hour * f;
    /* The catalogue's spot and list prices were the replaced entry's: they go with it. */
    g->price_spot_usd_per_hour = 0;
    g->price_usd_list = 0;
    snprintf(g->price_kind, sizeof g->price_kind, "%s", p->kind);
    snprintf(g->price_date, sizeof g->price_date, "%s", p->date);
    snprintf(g->price_source, sizeof g->price_source, "%.100s%s%.50s", p->origin, p->source[0] ? ": " : "",
             p->source);
    if (!share)
        g->mig_compute_slices = g->mig_compute_total = 0; /* priced on its own */
}

int cli_prices_apply(const cli_prices *ps, ridge_gpu *g, size_t n, const char *cmd)
{
    for (size_t i = 0; i < n; i++) {
        const cli_price *own = NULL, *parent = NULL;
        for (size_t k = 0; k < ps->n; k++) {
            if (strcmp(ps->p[k].id, g[i].id) == 0)
                own = &ps->p[k];
            else if (g[i].mig_of[0] && g[i].mig_compute_total > 0 && strcmp(ps->p[k].id, g[i].mig_of) == 0)
                parent = &ps->p[k];
        }
        if (own)
            set_price(&g[i], own, 0);
        else if (parent)
            set_price(&g[i], parent, 1);
    }
    for (size_t k = 0; k < ps->n; k++) {
        const cli_price *p = &ps->p[k];
        char ids[256] = "";
        ridge_gpu probe;
        ridge_err err;
        int used = 0;
        if (!p->strict)
            continue;
        for (size_t i = 0; i < n && !used; i++)
            used = strcmp(p->id, g[i].id) == 0 || (g[i].mig_of[0] && strcmp(p->id, g[i].mig_of) == 0);
        if (used)
            continue;
        if (ridge_catalog_load(p->id, &probe, &err) != RIDGE_OK)
            return cli_usage_error(cmd, "%s: %s", p->origin, err.msg);
        for (size_t i = 0; i < n; i++)
            snprintf(ids + strlen(ids), sizeof ids - strlen(ids), "%s%s", i ? ", " : "", g[i].id);
        return cli_usage_error(cmd, "%s: '%s' is not among the GPUs given (%s)", p->origin, p->id, ids);
    }
    return CLI_EXIT_OK;
}

const char *cli_price_text(const ridge_gpu *g, char *buf, size_t cap)
{
    char b[2][48], src[CLI_TEXT_CAP(sizeof g->price_source)], kind[24] = "";
    if (!(g->price_usd_per_hour > 0)) {
        /* A slice takes its share of its parent's price: name the parent. */
        snprintf(buf, cap, "no price (give --price %s=USD_PER_HOUR or --prices FILE)", g->mig_of[0] ? g->mig_of : g->id);
        return buf;
    }
    if (g->price_kind[0])
        snprintf(kind, sizeof kind, " %s", strcmp(g->price_kind, "on_demand") == 0 ? "on demand" : g->price_kind);
    cli_text(g->price_source, src, sizeof src);
    if (g->mig_of[0] && g->mig_compute_total > 0)
        snprintf(buf, cap, "%s USD/h = %d/%d of %s's %s USD/h%s, %s: %s", cli_num(g->price_usd_per_hour, b[0], 48),
                 g->mig_compute_slices, g->mig_compute_total, g->mig_of,
                 cli_num(g->price_usd_per_hour * g->mig_compute_total / g->mig_compute_slices, b[1], 48), kind,
                 g->price_date[0] ? g->price_date : "no date given", src);
    else
        snprintf(buf, cap, "%s USD/h%s, %s: %s", cli_num(g->price_usd_per_hour, b[0], 48), kind,
                 g->price_date[0] ? g->price_date : "no date given", src);
    return buf;
}

void cli_print_wrapped(FILE *out, const char *text, int first, int indent)
{
    int col = first, words = 0; /* words on the current line */
    const char *p = text;
    while (*p == ' ')
        p++;
    while (*p) {
        int w = (int)strcspn(p, " ");
        if (words && col + 1 + w > CLI_TEXT_COLUMNS) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
            words = 0;
        } else if (words) {
            fputc(' ', out);
            col++;
        }
        fprintf(out, "%.*s", w, p);
        col += w;
        words++;
        p += w;
        while (*p == ' ')
            p++;
    }
    fputc('\n', out);
}

void cli_prices_print(const ridge_gpu *g, size_t n, FILE *out)
{
    char line[1024];
    fprintf(out, "Prices per GPU-hour:\n");
    for (size_t i = 0; i < n; i++) {
        int w = fprintf(out, "  %s: ", g[i].id);
        cli_print_wrapped(out, cli_price_text(&g[i], line, sizeof line), w, 6);
    }
}

cJSON *cli_price_json(const ridge_gpu *g)
{
    cJSON *o = cJSON_CreateObject();
    if (!(g->price_usd_per_hour > 0)) {
        cJSON_AddNullToObject(o, "usd_per_hour");
        char why[160];
        cJSON_AddStringToObject(o, "missing", cli_price_text(g, why, sizeof why));
        return o;
    }
    cJSON_AddNumberToObject(o, "usd_per_hour", g->price_usd_per_hour);
    if (g->price_kind[0])
        cJSON_AddStringToObject(o, "kind", g->price_kind);
    if (g->price_date[0])
        cJSON_AddStringToObject(o, "date", g->price_date);
    cJSON_AddStringToObject(o, "source", g->price_source);
    if (g->mig_of[0] && g->mig_compute_total > 0) {
        cJSON *sh = cJSON_AddObjectToObject(o, "share_of_parent");
        cJSON_AddStringToObject(sh, "gpu", g->mig_of);
        cJSON_AddNumberToObject(sh, "compute_slices", g->mig_compute_slices);
        cJSON_AddNumberToObject(sh, "of_compute_slices", g->mig_compute_total);
    }
    return o;
}

/* A JSON string of s, escaped. */
static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

/* The price behind a cost, last in a CSV or JSONL row (docs/cli.md, "Prices"): price_usd_per_hour,
 * price_kind, price_date, price_source (cli_prices.c's phrase: the catalogue's source, "--price",
 * or "FILE line N[: source]") and price_share, a MIG slice's share of its parent's price (the
 * parent is the id before the ':'). A figure not known is null (JSON) or an empty cell (CSV). */
void cli_price_cells(const ridge_gpu *g, int json)
{
    int priced = g->price_usd_per_hour > 0, share = priced && g->mig_of[0] && g->mig_compute_total > 0;
    const char *text[3] = {g->price_kind, g->price_date, g->price_source};
    static const char *const key[3] = {"price_kind", "price_date", "price_source"};
    if (json && priced)
        printf(",\"price_usd_per_hour\":%.17g", g->price_usd_per_hour);
    else if (json)
        printf(",\"price_usd_per_hour\":null");
    else if (priced)
        printf(",%.9g", g->price_usd_per_hour);
    else
        putchar(',');
    for (int k = 0; k < 3; k++) {
        int known = priced && text[k][0];
        if (json) {
            printf(",\"%s\":", key[k]);
            if (known)
                json_str(text[k]);
            else
                printf("null");
        } else {
            putchar(',');
            if (known)
                cli_csv_cell(text[k], stdout);
        }
    }
    if (share)
        printf(json ? ",\"price_share\":%.17g" : ",%.9g", (double)g->mig_compute_slices / g->mig_compute_total);
    else
        printf(json ? ",\"price_share\":null" : ",");
}
