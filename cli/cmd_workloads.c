/* ridge workloads: the built-in model presets.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "cli.h"
#include "listing.h"
#include "ridge/workload.h"

static const char help[] =
    "usage: ridge workloads [--format text|json|csv]\n"
    "\n"
    "Lists the built-in model presets (workloads/*.json): id, family, parameters, and where the\n"
    "hyper-parameters come from. Use an id with --workload in predict and compare, or pass your own\n"
    "model file (docs/workloads.md).\n";

/* Parameters: millions in text, the count in CSV and JSON. */
static const cli_emit_col cols[] = {
    CLI_EMIT_STR_COL("id", "id", "id"),
    CLI_EMIT_STR_COL("family", "family", "family"),
    {"params", NULL, "params", "params [M]", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_mega, cli_emit_fmt_whole},
};

int cmd_workloads(int argc, char **argv)
{
    cli_listing l;
    int rc = cli_listing_open(&l, argc, argv, "workloads", help, cols, sizeof cols / sizeof cols[0], "workloads");
    if (rc >= 0)
        return rc;
    rc = CLI_EXIT_OK;
    for (size_t i = 0; i < ridge_model_builtin_count(); i++) {
        ridge_model *m = NULL;
        ridge_err err;
        if (ridge_model_load_builtin(ridge_model_builtin_id(i), &m, &err) != RIDGE_OK) {
            cli_error("%s", err.msg);
            rc = CLI_EXIT_USAGE;
            break;
        }
        const cli_emit_val v[] = {
            {ridge_model_builtin_id(i), 0, 0}, {ridge_model_family(m), 0, 0}, {NULL, ridge_model_params(m), 0}};
        if (cli_emit_row(&l.e, v, 1))
            rc = CLI_EXIT_FAILURE;
        ridge_model_free(m);
    }
    return cli_listing_end(&l, rc);
}
