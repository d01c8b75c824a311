/* A progress line on stderr (cli/progress.h). SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"

/* Process-wide, set once from the command line before any command runs. */
static int quiet;

enum { BAR_COLS = 30 };
static const double DELAY_S = 1.0, PERIOD_S = 0.1;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void cli_progress_set_quiet(int q) { quiet = q; }

void cli_progress_begin(cli_progress *p, const char *what)
{
    p->what = what;
    p->on = !quiet && isatty(STDERR_FILENO);
    p->start_s = p->on ? now_s() : 0;
    p->last_s = 0;
    p->drawn = 0;
}

void cli_progress_update(cli_progress *p, double done, double total)
{
    double t, f;
    char n1[32], n2[32];
    if (!p->on)
        return;
    t = now_s();
    if (t - p->start_s < DELAY_S || (p->drawn && t - p->last_s < PERIOD_S))
        return;
    p->last_s = t;
    p->drawn = 1;
    if (total <= 0) {
        fprintf(stderr, "\r%s: %s\033[K", p->what, cli_num_si(done, n1, sizeof n1));
        return;
    }
    f = done / total;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    {
        char bar[BAR_COLS + 1];
        int full = (int)(f * BAR_COLS + 0.5);
        for (int i = 0; i < BAR_COLS; i++)
            bar[i] = i < full ? '#' : '.';
        bar[BAR_COLS] = '\0';
        fprintf(stderr, "\r%s [%s] %3.0f %% (%s of %s, %.0f s)\033[K", p->what, bar, 100 * f,
                cli_num_si(done, n1, sizeof n1), cli_num_si(total, n2, sizeof n2), t - p->start_s);
    }
}

void cli_progress_cb(void *arg, size_t done, size_t total) { cli_progress_update(arg, (double)done, (double)total); }

void cli_progress_end(cli_progress *p)
{
    if (p->drawn)
        fputs("\r\033[K", stderr);
    p->drawn = 0;
}
