/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "listing.h"

#include <getopt.h>

int cli_listing_args(int argc, char **argv, const char *cmd, const char *help, cli_format *fmt)
{
    static const struct option opts[] = {CLI_OPTION_FORMAT, CLI_OPTION_HELP, CLI_OPTION_END};
    cli_opts co = {cmd, help, NULL, fmt, 0, -1, NULL};
    /* --format and --help are all a listing has: cli_getopt reads them. */
    if (cli_getopt(&co, argc, argv, ":h", opts) != -1 || co.exit >= 0)
        return co.exit >= 0 ? co.exit : CLI_EXIT_USAGE;
    if (optind < argc)
        return cli_extra_arg_error(cmd, argv);
    return -1;
}

int cli_listing_init(cli_listing *l, cli_format fmt, const cli_emit_col *cols, size_t ncols, const char *array_key)
{
    l->fmt = fmt;
    l->root = NULL;
    if (cli_emit_open(&l->e, cols, ncols, fmt, &l->t))
        return CLI_EXIT_FAILURE;
    if (fmt == CLI_FMT_JSON) {
        l->root = cJSON_CreateObject();
        cJSON_AddNumberToObject(l->root, "schema_version", CLI_SCHEMA_VERSION);
        l->e.rows = cJSON_AddArrayToObject(l->root, array_key);
    }
    return CLI_EXIT_OK;
}

int cli_listing_open(cli_listing *l, int argc, char **argv, const char *cmd, const char *help,
                     const cli_emit_col *cols, size_t ncols, const char *array_key)
{
    cli_format fmt = CLI_FMT_TEXT;
    int rc = cli_listing_args(argc, argv, cmd, help, &fmt);
    if (rc >= 0)
        return rc;
    return cli_listing_init(l, fmt, cols, ncols, array_key) ? CLI_EXIT_FAILURE : -1;
}

int cli_listing_end(cli_listing *l, int rc)
{
    if (rc == CLI_EXIT_OK) {
        if (l->fmt == CLI_FMT_JSON) {
            rc = cli_print_json(l->root);
            l->root = NULL;
        } else {
            cli_emit_end(&l->e);
        }
    }
    cJSON_Delete(l->root);
    cli_table_free(&l->t);
    return rc;
}
