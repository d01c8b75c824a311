/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "figure_fmt.h"

#include <string.h>

#include "cli.h"

int cli_figure_unknown_when_absent(const ridge_figure_info *f)
{
    const char *k = f->source_key;
    return k && !f->derived &&
           (strncmp(k, "die.", 4) == 0 || strcmp(k, "rt_cores") == 0 || strcmp(k, "chip") == 0 ||
            strcmp(k, "memory.ecc") == 0);
}

void cli_figure_eval(const ridge_gpu *g, size_t i, cli_figure_val *v)
{
    const ridge_figure_info *f = ridge_figure(i);
    v->num = 0;
    v->text[0] = '\0';
    v->kind = ridge_figure_value(g, i, &v->num, v->text, sizeof v->text);
    if (v->kind == RIDGE_FIGURE_NUMBER)
        cli_num(v->num / f->scale, v->text, sizeof v->text);
    else if (v->kind == RIDGE_FIGURE_ABSENT)
        snprintf(v->text, sizeof v->text, "%s", cli_figure_unknown_when_absent(f) ? "unknown" : "-");
}

cJSON *cli_figure_json(const cli_figure_val *v)
{
    switch (v->kind) {
    case RIDGE_FIGURE_NUMBER: return cJSON_CreateNumber(v->num);
    case RIDGE_FIGURE_TEXT: return cJSON_CreateString(v->text);
    default: return cJSON_CreateNull();
    }
}
