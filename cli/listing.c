/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "listing.h"

#include <getopt.h>

int cli_listing_args(int argc, char **argv, const char *cmd, const char *help, cli_format *fmt)
{
    static const struct option opts[] = {
        {"format", required_argument, 0, 'f'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0; /* one line of our own instead of getopt's */
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (cli_parse_format(optarg, fmt))
                return CLI_EXIT_USAGE;
            break;
        case 'h': fputs(help, stdout); return CLI_EXIT_OK;
        case ':':
        default: return cli_getopt_error(cmd, c, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    return -1;
}

int cli_listing_init(cli_listing *l, cli_format fmt, int ncols, const char *array_key)
{
    l->fmt = fmt;
    l->root = l->arr = NULL;
    if (cli_table_init(&l->t, ncols))
        return CLI_EXIT_FAILURE;
    if (fmt == CLI_FMT_JSON) {
        l->root = cJSON_CreateObject();
        cJSON_AddNumberToObject(l->root, "schema_version", CLI_SCHEMA_VERSION);
        l->arr = cJSON_AddArrayToObject(l->root, array_key);
    }
    return CLI_EXIT_OK;
}

int cli_listing_open(cli_listing *l, int argc, char **argv, const char *cmd, const char *help, int ncols,
                     const char *array_key)
{
    cli_format fmt = CLI_FMT_TEXT;
    int rc = cli_listing_args(argc, argv, cmd, help, &fmt);
    if (rc >= 0)
        return rc;
    return cli_listing_init(l, fmt, ncols, array_key) ? CLI_EXIT_FAILURE : -1;
}

int cli_listing_end(cli_listing *l, int rc)
{
    if (rc == CLI_EXIT_OK) {
        if (l->fmt == CLI_FMT_JSON) {
            rc = cli_print_json(l->root);
            l->root = NULL;
        } else if (l->fmt == CLI_FMT_CSV) {
            cli_table_print_csv(&l->t, stdout);
        } else {
            cli_table_print_text(&l->t, stdout);
        }
    }
    cJSON_Delete(l->root);
    cli_table_free(&l->t);
    return rc;
}
