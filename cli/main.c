/* ridge — command-line entry point: dispatches to one file per command.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "progress.h"
#include "ridge/version.h"

static const char usage[] =
    "usage: ridge COMMAND [OPTIONS]\n"
    "\n"
    "ridge predicts deep-learning performance on GPUs from an analytical model.\n"
    "\n"
    "Commands:\n"
    "  gpus                 list the built-in GPU catalogue\n"
    "  gpu show ID          every field of one GPU, with derived figures and sources\n"
    "  compare ID ID...     GPUs side by side (specs, or a workload's predictions with --workload)\n"
    "  workloads            list the built-in model presets (resnet50, bert-large, llama2-7b...)\n"
    "  predict              step time, throughput, MFU, memory of a model; per-kernel time and\n"
    "                       bound for an operator list\n"
    "  roofline             draw a roofline chart (gnuplot) with a workload's kernels\n"
    "  serve                latency percentiles, SLO and cost of serving a model at a request rate\n"
    "  plan                 rank GPUs, counts, batches and precisions by cost, time or energy\n"
    "  bench                predictions per second of the kernel model\n"
    "  collective           time and nccl-tests bandwidths of a collective on a cluster\n"
    "  clusters             list the built-in clusters\n"
    "  report GPU... -o OUT.html|OUT.md\n"
    "                       one self-contained page: which GPU for deep learning, with the numbers\n"
    "  validate FILE...     compare predictions with measurement files (per case, group, GPU)\n"
    "  calibrate --gpu ID FILE... -o OUT.json\n"
    "                       fit the GPU's efficiency parameters to measurements; held-out error\n"
    "\n"
    "Common options: --format text|json|csv, --gpu-file PATH (a GPU JSON file instead of an id).\n"
    "Run 'ridge COMMAND --help' for a command's options. Exit codes: 0 ok, 1 internal error,\n"
    "2 usage or input error, 3 file not readable or writable, 4 external program failed,\n"
    "5 a check failed (validate --baseline: an error grew beyond its baseline).\n"
    "\n"
    "Options:\n"
    "  -h, --help           this help\n"
    "  -V, --version        versions of ridge, GSL and cJSON\n"
    "  -q, --quiet          no progress line on stderr (shown on a terminal for runs over ~1 s);\n"
    "                       --quiet may also follow the command\n";

/* --quiet (-q before the command) turns off the progress line (cli/progress.h); it may stand
 * anywhere before a "--", so it is taken out of argv here and no command sees it. */
static int take_quiet(int argc, char **argv)
{
    int n = 1, quiet = 0, end = 0;
    for (int i = 1; i < argc; i++) {
        if (!end && strcmp(argv[i], "--") == 0)
            end = 1;
        if (!end && (strcmp(argv[i], "--quiet") == 0 || (n == 1 && strcmp(argv[i], "-q") == 0))) {
            quiet = 1;
            continue;
        }
        argv[n++] = argv[i];
    }
    argv[n] = NULL;
    cli_progress_set_quiet(quiet);
    return n;
}

static int run(int argc, char **argv)
{
    const char *cmd;
    argc = take_quiet(argc, argv);
    if (argc < 2) {
        fputs(usage, stderr);
        return CLI_EXIT_USAGE;
    }
    cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("ridge %s (GSL %s, cJSON %s)\n", ridge_version(), ridge_gsl_version(), ridge_cjson_version());
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "gpus") == 0)
        return cmd_gpus(argc - 1, argv + 1);
    if (strcmp(cmd, "gpu") == 0)
        return cmd_gpu(argc - 1, argv + 1);
    if (strcmp(cmd, "compare") == 0)
        return cmd_compare(argc - 1, argv + 1);
    if (strcmp(cmd, "workloads") == 0)
        return cmd_workloads(argc - 1, argv + 1);
    if (strcmp(cmd, "predict") == 0)
        return cmd_predict(argc - 1, argv + 1);
    if (strcmp(cmd, "roofline") == 0)
        return cmd_roofline(argc - 1, argv + 1);
    if (strcmp(cmd, "serve") == 0)
        return cmd_serve(argc - 1, argv + 1);
    if (strcmp(cmd, "plan") == 0)
        return cmd_plan(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0)
        return cmd_bench(argc - 1, argv + 1);
    if (strcmp(cmd, "collective") == 0)
        return cmd_collective(argc - 1, argv + 1);
    if (strcmp(cmd, "clusters") == 0)
        return cmd_clusters(argc - 1, argv + 1);
    if (strcmp(cmd, "report") == 0)
        return cmd_report(argc - 1, argv + 1);
    if (strcmp(cmd, "validate") == 0)
        return cmd_validate(argc - 1, argv + 1);
    if (strcmp(cmd, "calibrate") == 0)
        return cmd_calibrate(argc - 1, argv + 1);
    fprintf(stderr, "ridge: unknown command '%s' (see 'ridge --help')\n", cmd);
    return CLI_EXIT_USAGE;
}

/* Every command prints to stdout through stdio's buffer, so a full disk or a closed file shows
 * only in the stream's error flag or when the buffer is flushed: check both, and the close,
 * once for all commands. A command that failed keeps its own exit code. */
int main(int argc, char **argv)
{
    /* A reader that closes the pipe early (`ridge ... | head`) makes the next write fail with
     * EPIPE, reported below as a write error (exit 3), instead of killing ridge with SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    int rc = run(argc, argv), e = 0;
    if (fflush(stdout) != 0)
        e = errno;
    if (ferror(stdout) && !e)
        e = EIO; /* an earlier write failed; its errno is gone */
    if (fclose(stdout) != 0 && !e)
        e = errno;
    if (e) {
        cli_error("standard output: write error (%s)", strerror(e));
        if (rc == CLI_EXIT_OK)
            rc = CLI_EXIT_IO;
    }
    return rc;
}
