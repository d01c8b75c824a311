/* The measurement and calibration library in the CLI's words: collecting the files a command
 * names, and the skip reasons and fit refusals that the library words by its arguments, named
 * here by the flags that set them (cli.h).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "cli.h"
#include "ridge/calibrate.h"

int cli_meas_collect(char *const *paths, int n, const char *gpu_opt, const ridge_gpu *gpu_file, ridge_meas_set *s)
{
    ridge_err err = {{0}};
    int rc = ridge_meas_collect_files((const char *const *)paths, n, gpu_opt, gpu_file, s, &err);
    if (rc != RIDGE_OK) {
        cli_error("%s", err.msg);
        return cli_exit_code(rc);
    }
    return CLI_EXIT_OK;
}

/* The library's words and the CLI's, pairwise. */
static const char *const flag_words[][2] = {
    {RIDGE_MEAS_SKIP_NO_GPU, "GPU not mapped (use --gpu)"},
    {RIDGE_MEAS_SKIP_NOT_KERNEL, "not a kernel (--only kernels)"},
    {RIDGE_MEAS_SKIP_NOT_MODEL, "not a model (--only models)"},
    {RIDGE_MEAS_SKIP_BELOW_MIN_TIME, "measured below --min-time"},
    {RIDGE_CAL_WHY_ONLY_UNINFORMED, "no training measurement depends on the parameters given with --fit"},
    {RIDGE_CAL_WHY_UNDERDETERMINED,
     "fewer training measurements than parameters they inform (use --fit or more --train)"},
};

const char *cli_flag_words(const char *why)
{
    for (size_t i = 0; i < sizeof flag_words / sizeof flag_words[0]; i++)
        if (strcmp(why, flag_words[i][0]) == 0)
            return flag_words[i][1];
    return why;
}
