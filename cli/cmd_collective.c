/* ridge collective: time, algorithm bandwidth and bus bandwidth of one collective (or a sweep
 * of sizes, like nccl-tests) on a cluster; ridge clusters: the built-in clusters.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_emit.h"
#include "listing.h"
#include "ridge/comm.h"

static const char help[] =
    "usage: ridge collective --cluster ID|FILE --op OP --bytes SIZE --gpus N [--nodes N]\n"
    "                        [--algo ring|tree|hierarchical|direct|auto] [--proto ll|ll128|simple|auto]\n"
    "                        [--sweep[=FACTOR]] [--format text|json|csv]\n"
    "\n"
    "Time of one NCCL-style collective from an alpha-beta model per tier (docs/comm.md).\n"
    "OP: allreduce, allgather, reducescatter, alltoall, broadcast, sendrecv. SIZE is the nccl-tests\n"
    "size in bytes, with an optional suffix B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB,\n"
    "rounded to a whole number of bytes (1.5 is 2 B).\n"
    "--nodes N scales the cluster out; --gpus N uses the first N GPUs (a multiple of the GPUs per node\n"
    "once it spans nodes). algbw = bytes / time; busbw = algbw x 2(n-1)/n (allreduce), (n-1)/n\n"
    "(allgather, reducescatter, alltoall) or 1 (broadcast, sendrecv), as nccl-tests prints them.\n"
    "--sweep prints sizes 8 B .. 8 GiB, each FACTOR (2 or 4, default 2) times the last\n"
    "(not with --bytes).\n"
    "Built-in clusters: 'ridge clusters'.\n";

static int parse_size(const char *s, double *out)
{
    static const struct {
        const char *suffix;
        double mult;
    } units[] = {{"", 1},       {"B", 1},       {"KB", 1e3},          {"MB", 1e6},          {"GB", 1e9},
                 {"TB", 1e12},  {"KiB", 1024.0}, {"MiB", 1048576.0},   {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}};
    char *end = NULL;
    double v;
    if (!s || !*s || !((*s >= '0' && *s <= '9') || *s == '.') || !cli_plain_number(s))
        goto bad;
    v = strtod(s, &end);
    if (end == s || !isfinite(v))
        goto bad;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].suffix) == 0) {
            v *= units[i].mult;
            if (!(v >= 1 && v <= 1e15)) {
                cli_error("--bytes: '%s' is out of range 1 B .. 1e15 B", s);
                return -1;
            }
            *out = floor(v + 0.5);
            return 0;
        }
    }
bad:
    cli_error("--bytes: '%s' is not a size (a number with B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)", s ? s : "");
    return -1;
}

/* "--algo: algorithm 'x' is not one of auto, ring, ...", the choices from the library's table. */
static int bad_name(const char *opt, const char *what, const char *s, const ridge_names *names)
{
    char list[160];
    return cli_usage_error("collective", "%s: %s '%s' is not one of %s", opt, what, s,
                           ridge_name_list(names, list, sizeof list));
}

static void describe(const ridge_cluster *cl)
{
    char name[CLI_NAME_TEXT_CAP];
    printf("%s  %s\n", cl->id, cli_text(cl->name, name, sizeof name));
    printf("  %d node%s x %d %s, intra %s", cl->nodes, cl->nodes == 1 ? "" : "s", cl->gpus_per_node, cl->gpu_id,
           ridge_intra_kind_name(cl->intra_kind));
    if (cl->has_inter)
        printf(", inter %s %.4g GB/s per node", ridge_inter_kind_name(cl->inter_kind),
               cl->inter_bw_bytes_per_s_per_node / 1e9);
    printf("\n");
}

/* One row per size. JSON and CSV share their keys, order and SI values (docs/cli.md, "Keys and
 * units"); text, in human units, leads with the figures, so algorithm and protocol stand twice: JSON-and-CSV, text-only.
 * Width 1: right-aligned. */
static const cli_emit_col coll_cols[] = {
    CLI_EMIT_STR_COL("op", "op", NULL),
    {"size_bytes", NULL, "size_bytes", "size", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_bytes, cli_emit_fmt_whole},
    {"gpus", NULL, "gpus", NULL, 0, 1, CLI_EMIT_NUM, 0, NULL, cli_emit_fmt_whole},
    {"nodes", NULL, "nodes", NULL, 0, 1, CLI_EMIT_NUM, 0, NULL, cli_emit_fmt_whole},
    CLI_EMIT_STR_COL("algorithm", "algorithm", NULL),
    CLI_EMIT_STR_COL("protocol", "protocol", NULL),
    {"time_s", NULL, "time_s", "time", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_time, NULL},
    {"latency_part_s", NULL, "latency_part_s", NULL, 0, 1, CLI_EMIT_NUM, 0, NULL, NULL},
    {"bandwidth_part_s", NULL, "bandwidth_part_s", NULL, 0, 1, CLI_EMIT_NUM, 0, NULL, NULL},
    {"algbw_bytes_per_s", NULL, "algbw_bytes_per_s", "algbw [GB/s]", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_giga, NULL},
    {"busbw_bytes_per_s", NULL, "busbw_bytes_per_s", "busbw [GB/s]", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_giga, NULL},
    CLI_EMIT_STR_COL(NULL, NULL, "algorithm"),
    CLI_EMIT_STR_COL(NULL, NULL, "protocol"),
    CLI_EMIT_STR_COL("bound", "bound", "bound"),
};

static int result_row(const cli_emit_table *e, const ridge_coll_result *r)
{
    const char *algo = ridge_coll_algo_name(r->algo), *proto = ridge_coll_proto_name(r->proto);
    const cli_emit_val v[] = {{ridge_coll_op_name(r->op), 0, 0},
                              {NULL, r->bytes, 0},
                              {NULL, r->gpus, 0},
                              {NULL, r->nodes, 0},
                              {algo, 0, 0},
                              {proto, 0, 0},
                              {NULL, r->time_s, 0},
                              {NULL, r->latency_s, 0},
                              {NULL, r->bandwidth_s, 0},
                              {NULL, r->alg_bw_bytes_per_s, 0},
                              {NULL, r->bus_bw_bytes_per_s, 0},
                              {algo, 0, 0},
                              {proto, 0, 0},
                              {r->bound, 0, 0}};
    return cli_emit_row(e, v, 1);
}

static int run(const ridge_cluster *cl, ridge_coll_op op, double bytes, int gpus, ridge_coll_algo algo,
               ridge_coll_proto proto, int sweep, cli_format fmt)
{
    ridge_coll_result r;
    ridge_err err = {{0}};
    cli_table t;
    cli_emit_table e;
    int rc;
    double lo = sweep ? 8 : bytes, hi = sweep ? 8589934592.0 : bytes;
    cJSON *root = NULL;
    if (cli_emit_open(&e, coll_cols, sizeof coll_cols / sizeof coll_cols[0], fmt, &t))
        return CLI_EXIT_FAILURE;
    if (fmt == CLI_FMT_JSON) {
        root = cJSON_CreateObject();
        const cli_json_field f[] = {CLI_JNUM("schema_version", CLI_SCHEMA_VERSION), CLI_JSTR("cluster", cl->id),
                                    CLI_JSTR("gpu", cl->gpu_id), CLI_JNUM("cluster_nodes", cl->nodes),
                                    CLI_JNUM("gpus_per_node", cl->gpus_per_node)};
        CLI_JSON_ADD(root, f);
        e.rows = cJSON_AddArrayToObject(root, "results");
    }
    for (double s = lo; s <= hi; s *= sweep > 1 ? sweep : 2) {
        rc = ridge_collective(cl, op, s, gpus, algo, proto, &r, &err);
        if (rc != RIDGE_OK) {
            cli_error("%s", err.msg);
            cli_table_free(&t);
            cJSON_Delete(root);
            return cli_exit_code(rc);
        }
        if (result_row(&e, &r)) {
            cli_table_free(&t);
            cJSON_Delete(root);
            return CLI_EXIT_FAILURE;
        }
    }
    if (fmt == CLI_FMT_JSON) {
        cli_table_free(&t);
        return cli_print_json(root);
    }
    if (fmt == CLI_FMT_CSV) {
        cli_emit_end(&e);
        return CLI_EXIT_OK;
    }
    describe(cl);
    printf("%s on %d GPUs (%d node%s x %d)\n\n", ridge_coll_op_name(op), gpus, r.nodes, r.nodes == 1 ? "" : "s",
           r.gpus_per_node);
    cli_emit_end(&e);
    if (!sweep) {
        char b1[32], b2[32];
        printf("\nlatency part %s, bandwidth part %s\n", cli_num_time(r.latency_s, b1, sizeof b1),
               cli_num_time(r.bandwidth_s, b2, sizeof b2));
        if (algo == RIDGE_ALGO_AUTO) {
            printf("candidates:");
            for (int a = RIDGE_ALGO_RING; a < RIDGE_ALGO_COUNT; a++) {
                ridge_coll_result c;
                if (!ridge_coll_supports(op, (ridge_coll_algo)a) ||
                    ridge_collective(cl, op, bytes, gpus, (ridge_coll_algo)a, proto, &c, &err) != RIDGE_OK)
                    continue;
                printf(" %s %s (%s);", ridge_coll_algo_name(c.algo), cli_num_time(c.time_s, b1, sizeof b1),
                       ridge_coll_proto_name(c.proto));
            }
            printf("\n");
        }
    }
    return CLI_EXIT_OK;
}

int cmd_collective(int argc, char **argv)
{
    static const struct option opts[] = {{"cluster", required_argument, 0, 'c'}, {"nodes", required_argument, 0, 'n'},
                                         {"op", required_argument, 0, 'o'},      {"bytes", required_argument, 0, 'b'},
                                         {"gpus", required_argument, 0, 'g'},    {"algo", required_argument, 0, 'a'},
                                         {"proto", required_argument, 0, 'p'},   {"sweep", optional_argument, 0, 's'},
                                         CLI_OPTION_FORMAT,                      CLI_OPTION_HELP,
                                         CLI_OPTION_END};
    const char *cluster_id = NULL, *op_s = NULL;
    cli_format fmt = CLI_FMT_TEXT;
    ridge_coll_op op = RIDGE_COLL_ALLREDUCE;
    ridge_coll_algo algo = RIDGE_ALGO_AUTO;
    ridge_coll_proto proto = RIDGE_PROTO_AUTO;
    ridge_err err = {{0}};
    ridge_cluster *cl;
    double bytes = 0;
    long nodes = 0, gpus = 0, sweep = 0;
    int c, rc;
    cli_opts co = {"collective", help, NULL, &fmt, 0, -1, NULL};
    while ((c = cli_getopt(&co, argc, argv, ":h", opts)) != -1) {
        switch (c) {
        case 'c': cluster_id = optarg; break;
        case 'n':
            if (cli_parse_long("--nodes", optarg, 1, 1000000, &nodes))
                return CLI_EXIT_USAGE;
            break;
        case 'o': op_s = optarg; break;
        case 'b':
            if (parse_size(optarg, &bytes))
                return CLI_EXIT_USAGE;
            break;
        case 'g':
            if (cli_parse_long("--gpus", optarg, 2, 100000000, &gpus))
                return CLI_EXIT_USAGE;
            break;
        case 'a':
            if (ridge_coll_algo_parse(optarg, &algo) != RIDGE_OK)
                return bad_name("--algo", "algorithm", optarg, &ridge_coll_algo_names);
            break;
        case 'p':
            if (ridge_coll_proto_parse(optarg, &proto) != RIDGE_OK)
                return bad_name("--proto", "protocol", optarg, &ridge_coll_proto_names);
            break;
        case 's':
            sweep = 2;
            if (optarg && (cli_parse_long("--sweep", optarg, 2, 4, &sweep) || sweep == 3)) {
                if (sweep == 3)
                    cli_error("--sweep: the factor is 2 or 4");
                return CLI_EXIT_USAGE;
            }
            break;
        }
    }
    if (co.exit >= 0)
        return co.exit;
    if (optind < argc)
        return cli_extra_arg_error("collective", argv);
    if (!cluster_id)
        return cli_usage_error("collective", "missing --cluster ID|FILE");
    if (!op_s)
        return cli_usage_error("collective", "missing --op");
    if (ridge_coll_op_parse(op_s, &op) != RIDGE_OK)
        return bad_name("--op", "operation", op_s, &ridge_coll_op_names);
    if (!gpus)
        return cli_usage_error("collective", "missing --gpus N");
    if (!sweep && bytes <= 0)
        return cli_usage_error("collective", "missing --bytes SIZE (or --sweep)");
    if (sweep && bytes > 0) /* the sweep's sizes are its own: a --bytes would be dropped */
        return cli_usage_error("collective", "--bytes: not with --sweep, which runs the sizes 8 B .. 8 GiB");
    if (algo != RIDGE_ALGO_AUTO && !ridge_coll_supports(op, algo))
        return cli_usage_error("collective", "--algo: %s has no '%s' algorithm", ridge_coll_op_name(op),
                               ridge_coll_algo_name(algo));
    cl = malloc(sizeof *cl);
    if (!cl) {
        cli_error("out of memory");
        return CLI_EXIT_FAILURE;
    }
    rc = ridge_cluster_load(cluster_id, (int)nodes, cl, &err);
    if (rc != RIDGE_OK) {
        cli_error("%s", err.msg);
        free(cl);
        return cli_exit_code(rc);
    }
    rc = run(cl, op, bytes, (int)gpus, algo, proto, (int)sweep, fmt);
    free(cl);
    return rc;
}

/* The JSON keys come in another order than the text and CSV columns, and JSON names the
 * inter-node link even where there is none: name and inter are listed twice, JSON-only (no
 * heading) and text-and-CSV-only (no key). */
static const cli_emit_col cluster_cols[] = {
    CLI_EMIT_STR_COL("id", "id", "id"),
    CLI_EMIT_STR_COL("name", NULL, NULL),
    CLI_EMIT_STR_COL("gpu", "gpu", "gpu"),
    {"gpus_per_node", NULL, "gpus_per_node", "GPUs/node", 1, 1, CLI_EMIT_NUM, 0, cli_emit_fmt_whole, cli_emit_fmt_whole},
    CLI_EMIT_STR_COL("intra", "intra", "intra"),
    {"intra_bw_bytes_per_s", NULL, "intra_bw_bytes_per_s", NULL, 0, 1, CLI_EMIT_NUM, 0, NULL, NULL},
    CLI_EMIT_STR_COL("inter", NULL, NULL),
    CLI_EMIT_STR_COL(NULL, "inter", "inter"),
    {"inter_bw_bytes_per_s_per_node", NULL, "inter_bw_bytes_per_s_per_node", "inter [GB/s/node]", 1, 1, CLI_EMIT_NUM,
     0, cli_emit_fmt_giga, NULL},
    CLI_EMIT_STR_COL(NULL, "name", NULL), /* text: 120 columns; the id and the columns say it */
};

static const char clusters_help[] =
    "usage: ridge clusters [--format text|json|csv]\n\nThe built-in clusters for 'ridge collective'.\n";

int cmd_clusters(int argc, char **argv)
{
    ridge_cluster *cl;
    cli_listing l;
    int rc = cli_listing_open(&l, argc, argv, "clusters", clusters_help, cluster_cols,
                              sizeof cluster_cols / sizeof cluster_cols[0], "clusters");
    if (rc >= 0)
        return rc;
    cl = malloc(sizeof *cl);
    if (!cl) {
        cli_error("out of memory");
        return cli_listing_end(&l, CLI_EXIT_FAILURE);
    }
    rc = CLI_EXIT_OK;
    for (size_t k = 0; k < ridge_cluster_builtin_count(); k++) {
        ridge_err err = {{0}};
        int st = ridge_cluster_load(ridge_cluster_builtin_id(k), 0, cl, &err);
        if (st != RIDGE_OK) {
            /* a built-in that does not load is a bug: said, and the listing not printed half */
            cli_error("%s", err.msg);
            rc = cli_exit_code(st);
            break;
        }
        const char *intra = ridge_intra_kind_name(cl->intra_kind), *inter = ridge_inter_kind_name(cl->inter_kind);
        const cli_emit_val v[] = {{cl->id, 0, 0},
                                  {cl->name, 0, 0},
                                  {cl->gpu_id, 0, 0},
                                  {NULL, cl->gpus_per_node, 0},
                                  {intra, 0, 0},
                                  {NULL, cl->intra_bw_bytes_per_s, 0},
                                  {inter, 0, 0},
                                  {cl->has_inter ? inter : "", 0, 0},
                                  {NULL, cl->inter_bw_bytes_per_s_per_node, 0},
                                  {cl->name, 0, 0}};
        if (cli_emit_row(&l.e, v, 1)) {
            rc = CLI_EXIT_FAILURE;
            break;
        }
    }
    free(cl);
    return cli_listing_end(&l, rc);
}
