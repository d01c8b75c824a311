/* The CLI's tables: rows of cells printed as aligned text or CSV (cli.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_table_init(cli_table *t, int ncols)
{
    memset(t, 0, sizeof *t);
    t->ncols = ncols;
    t->nkey = 1;
    t->right = calloc((size_t)ncols, 1);
    return t->right ? 0 : -1;
}

void cli_table_free(cli_table *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t->right);
    memset(t, 0, sizeof *t);
}

static char *dupstr(const char *s)
{
    size_t n = strlen(s ? s : "");
    char *d = malloc(n + 1);
    if (d)
        memcpy(d, s ? s : "", n + 1);
    return d;
}

int cli_table_add(cli_table *t, const char *const *row)
{
    if (t->nrows == t->cap) {
        int ncap = t->cap ? t->cap * 2 : 32;
        char **nc = realloc(t->cells, (size_t)ncap * (size_t)t->ncols * sizeof *nc);
        if (!nc)
            return -1;
        t->cells = nc;
        t->cap = ncap;
    }
    for (int c = 0; c < t->ncols; c++) {
        t->cells[t->nrows * t->ncols + c] = dupstr(row[c]);
        if (!t->cells[t->nrows * t->ncols + c])
            return -1;
    }
    t->nrows++;
    return 0;
}

int cli_text_width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    return w;
}

/* Print one line without its trailing blanks (padding of empty last cells). */
static void put_trimmed(const char *line, size_t n, FILE *out)
{
    while (n > 0 && line[n - 1] == ' ')
        n--;
    fwrite(line, 1, n, out);
    fputc('\n', out);
}

/* The cells as text output shows them: control characters escaped (cli_text_escape). */
static char **escaped_cells(const cli_table *t)
{
    size_t ncells = (size_t)t->nrows * (size_t)t->ncols;
    char **e = calloc(ncells ? ncells : 1, sizeof *e);
    for (size_t i = 0; e && i < ncells; i++) {
        size_t n = cli_text_escape(t->cells[i], NULL, 0);
        e[i] = malloc(n + 1);
        if (!e[i]) {
            while (i > 0)
                free(e[--i]);
            free(e);
            return NULL;
        }
        cli_text_escape(t->cells[i], e[i], n + 1);
    }
    return e;
}

/* The columns sel[0..ns) of every row, aligned to the widths w, with the dashed rule under the
 * heading. line has room for a whole row. */
static void print_cols(const cli_table *t, char **cells, const int *w, const int *sel, int ns, char *line, FILE *out)
{
    for (int r = 0; r < t->nrows; r++) {
        size_t n = 0;
        for (int k = 0; k < ns; k++) {
            int c = sel[k];
            const char *s = cells[r * t->ncols + c];
            int pad = w[c] - cli_text_width(s);
            size_t len = strlen(s);
            if (t->right[c] && r > 0) {
                memset(line + n, ' ', (size_t)pad);
                n += (size_t)pad;
                memcpy(line + n, s, len);
                n += len;
            } else {
                memcpy(line + n, s, len);
                n += len;
                memset(line + n, ' ', (size_t)pad);
                n += (size_t)pad;
            }
            if (k != ns - 1) {
                memcpy(line + n, "  ", 2);
                n += 2;
            }
        }
        put_trimmed(line, n, out);
        if (r == 0) {
            n = 0;
            for (int k = 0; k < ns; k++) {
                memset(line + n, '-', (size_t)w[sel[k]]);
                n += (size_t)w[sel[k]];
                if (k != ns - 1) {
                    memcpy(line + n, "  ", 2);
                    n += 2;
                }
            }
            put_trimmed(line, n, out);
        }
    }
}

void cli_table_print_text(const cli_table *t, FILE *out)
{
    int *w = calloc((size_t)t->ncols, sizeof *w), *sel = calloc((size_t)t->ncols, sizeof *sel);
    char **cells = escaped_cells(t);
    char *line = NULL;
    size_t cap = 0;
    int nkey = t->nkey < t->ncols ? t->nkey : t->ncols, keyw = 0, c = nkey;
    if (!w || !sel || !cells)
        goto done;
    for (int r = 0; r < t->nrows; r++)
        for (int k = 0; k < t->ncols; k++) {
            int cw = cli_text_width(cells[r * t->ncols + k]);
            if (cw > w[k])
                w[k] = cw;
        }
    for (int k = 0; k < t->ncols; k++)
        cap += (size_t)w[k] * 4 + 2; /* UTF-8 cells may take up to 4 bytes per column */
    line = malloc(cap + 1);
    if (!line)
        goto done;
    for (int k = 0; k < nkey; k++) {
        sel[k] = k;
        keyw += w[k] + 2;
    }
    /* Wider than CLI_TEXT_COLUMNS: the other columns in as many tables as it takes, each with the key
     * columns first; a column that alone is too wide still gets a table of its own. */
    do {
        int ns = nkey, lw = keyw;
        if (c > nkey)
            fputc('\n', out);
        while (c < t->ncols && (ns == nkey || lw + w[c] <= CLI_TEXT_COLUMNS)) {
            lw += w[c] + 2;
            sel[ns++] = c++;
        }
        print_cols(t, cells, w, sel, ns, line, out);
    } while (c < t->ncols);
done:
    for (int i = 0; cells && i < t->nrows * t->ncols; i++)
        free(cells[i]);
    free(cells);
    free(line);
    free(sel);
    free(w);
}

void cli_csv_cell(const char *s, FILE *out)
{
    if (strpbrk(s, ",\"\n\r")) {
        fputc('"', out);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', out);
            fputc(*s, out);
        }
        fputc('"', out);
    } else {
        fputs(s, out);
    }
}

void cli_table_print_csv(const cli_table *t, FILE *out)
{
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            if (c)
                fputc(',', out);
            cli_csv_cell(t->cells[r * t->ncols + c], out);
        }
        fputc('\n', out);
    }
}
