/* Tests for the capacity-planning charts (plots/scatter.c, plots/bars.c, docs/planning.md): the
 * .dat and .gp of a tiny hand-made space. Never needs gnuplot.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "check_tmpdir.h"
#include "ridge/plan.h"
#include "ridge/plot.h"

static char tmpdir[64];

/* A feasible configuration; the fields not named are zero. */
static ridge_plan_result point(size_t index, int gpu, double time_s, double cost_usd)
{
    return (ridge_plan_result){
        .index = index, .gpu = gpu, .time_s = time_s, .cost_usd = cost_usd, .reason = RIDGE_PLAN_FEASIBLE};
}

/* The .dat and .gp a chart wrote, read (free both); 1 when both could be. */
static int read_chart(const ridge_plot_paths *paths, char **dat, char **gp)
{
    *dat = check_read_file(paths->dat);
    *gp = check_read_file(paths->gp);
    return CHECK(*dat != NULL) && CHECK(*gp != NULL);
}

/* Occurrences of needle in hay. */
static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; hay && (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* The labels' anchors ("set label ... at graph X, graph Y"): no two at the same spot. */
static void check_labels_apart(const char *gp)
{
    double x[64], y[64];
    int n = 0;
    for (const char *p = gp; (p = strstr(p, "' at graph ")) && n < 64; p++)
        if (sscanf(p, "' at graph %lf, graph %lf", &x[n], &y[n]) == 2)
            n++;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            CHECK(fabs(x[i] - x[j]) > 1e-3 || fabs(y[i] - y[j]) > 1e-3);
}

/* Twelve labelled points (more than RIDGE_SCATTER_MAX_INLINE): a number beside each, a numbered key. */
static void test_numbered_labels(void)
{
    double x[12], y[12];
    char text[12][32];
    const char *labs[12];
    ridge_scatter_series ser;
    ridge_scatter_options so = {0};
    ridge_plot_paths paths;
    ridge_err err;
    char chart[128], *dat, *gp;
    check_context("numbered labels");
    for (int i = 0; i < 12; i++) {
        x[i] = 0.125 * (1 << (i / 2)) * (1 + 0.03 * i); /* pairs close together */
        y[i] = 30.5 - 0.25 * i;
        snprintf(text[i], sizeof text[i], "g ×%d, batch %d", 1 << i, 32 + i);
        labs[i] = text[i];
    }
    ser = (ridge_scatter_series){"front", x, y, 12, 0, 1, labs};
    so.log_x = 1;
    snprintf(chart, sizeof chart, "%s/numbered.svg", tmpdir);
    CHECK(ridge_plot_paths_from_chart(chart, &paths, &err) == RIDGE_OK);
    CHECK(ridge_scatter_write(&ser, 1, &so, &paths, &err) == RIDGE_OK);
    if (read_chart(&paths, &dat, &gp)) {
        /* the key: "N  label" for each point, right of the plot; the numbers beside the points */
        CHECK_INT(count_of(gp, " at graph 1.03, graph "), 12);
        CHECK_STR_HAS(gp, "set label '1  ' . 'g ×1, batch 32' at graph 1.03");
        CHECK_STR_HAS(gp, "set label '12  ' . 'g ×2048, batch 43' at graph 1.03");
        CHECK_STR_HAS(gp, "set label '12' at graph ");
        CHECK_INT(count_of(gp, "set label '"), 24);
        check_labels_apart(gp);
        CHECK_STR_HAS(dat, "\"g ×2048, batch 43\"\n");
    }
    free(dat);
    free(gp);
    check_context(NULL);
}

/* Five configurations on two GPUs; the (time, cost) front is 0, 2 and 4. Drawn as `ridge plan
 * --chart pareto` draws them: one set per GPU, then the front joined. */
static void test_pareto_chart(void)
{
    ridge_plan_result r[5];
    size_t scratch[5], nfront;
    double x[2][5], y[2][5], fx[5], fy[5];
    size_t n[2] = {0, 0}, nf = 0;
    ridge_scatter_series ser[3];
    ridge_scatter_options so = {0};
    ridge_plot_paths paths;
    ridge_err err;
    char chart[128], *dat, *gp;
    r[0] = point(0, 0, 3600 * 1.25, 40.5);
    r[1] = point(1, 0, 3600 * 2.75, 41.0); /* dominated by 2 */
    r[2] = point(2, 1, 3600 * 2.5, 22.75);
    r[3] = point(3, 1, 3600 * 9.5, 30.25); /* dominated by 2 */
    r[4] = point(4, 1, 3600 * 12.5, 17.125);
    check_context("pareto chart");
    nfront = ridge_plan_pareto(r, 5, 0, scratch);
    CHECK_INT(nfront, 3);
    for (size_t i = 0; i < 5; i++) {
        x[r[i].gpu][n[r[i].gpu]] = r[i].time_s / 3600;
        y[r[i].gpu][n[r[i].gpu]++] = r[i].cost_usd;
        if (r[i].pareto) {
            fx[nf] = r[i].time_s / 3600;
            fy[nf++] = r[i].cost_usd;
        }
    }
    ser[0] = (ridge_scatter_series){"gpu-a", x[0], y[0], n[0], 0, 0, NULL};
    ser[1] = (ridge_scatter_series){"gpu-b", x[1], y[1], n[1], 1, 0, NULL};
    ser[2] = (ridge_scatter_series){"Pareto front", fx, fy, nf, 0, 1, NULL};
    so.title = "tiny space";
    so.xlabel = "Time to finish [h]";
    so.ylabel = "Cost [USD]";
    so.log_x = 1;
    snprintf(chart, sizeof chart, "%s/pareto.png", tmpdir);
    CHECK(ridge_plot_paths_from_chart(chart, &paths, &err) == RIDGE_OK);
    CHECK(ridge_scatter_write(ser, 3, &so, &paths, &err) == RIDGE_OK);
    if (read_chart(&paths, &dat, &gp)) {
        CHECK_STR_HAS(dat, "# [index 2] Pareto front (joined, highlighted)\n1.25 40.5\n2.5 22.75\n12.5 17.125\n");
        CHECK_STR_HAS(dat, "# [index 0] gpu-a\n1.25 40.5\n2.75 41\n");
        CHECK_STR_HAS(dat, "Columns: x (Time to finish [h]) y (Cost [USD])");
        CHECK_STR_HAS(gp, "dat = dir . 'pareto.dat'");
        CHECK_STR_HAS(gp, "set output dir . 'pareto.png'");
        CHECK_STR_HAS(gp, "set xlabel 'Time to finish [h]'");
        CHECK_STR_HAS(gp, "set ylabel 'Cost [USD]'");
        CHECK_STR_HAS(gp, "set logscale x 10");
        CHECK(strstr(gp, "set logscale y") == NULL);
        CHECK_STR_HAS(gp, "dat index 2 using 1:2 with linespoints lw 3");
        CHECK_STR_HAS(gp, "title 'Pareto front'");
    }
    free(dat);
    free(gp);
    /* The front labelled (as plan --chart pareto does): one label per front point, placed clear of
     * the markers and of each other, in the graph's frame of explicit ranges. */
    static const char *const labs[3] = {"gpu-a ×1, batch 32", "gpu-b ×2, batch 64", "gpu-b ×\"8\", batch 96"};
    ser[2].labels = labs;
    CHECK(ridge_scatter_write(ser, 3, &so, &paths, &err) == RIDGE_OK);
    if (read_chart(&paths, &dat, &gp)) {
        CHECK_STR_HAS(dat, "# [index 2] Pareto front (joined, highlighted) (labelled)\n1.25 40.5 \"gpu-a ×1, batch 32\"\n");
        CHECK_STR_HAS(dat, "12.5 17.125 \"gpu-b × 8 , batch 96\"\n"); /* quotes blanked in the .dat */
        CHECK_INT(count_of(gp, "set label '"), 3);
        CHECK_STR_HAS(gp, "set label 'gpu-a ×1, batch 32' at graph ");
        CHECK_STR_HAS(gp, "set label 'gpu-b ×2, batch 64' at graph ");
        CHECK_STR_HAS(gp, "set xrange [");
        CHECK(strstr(gp, "set autoscale fix") == NULL);
        check_labels_apart(gp);
    }
    free(dat);
    free(gp);
    ser[2].labels = NULL;
    /* Errors: no sets, a negative group. */
    CHECK(ridge_scatter_write(ser, 0, &so, &paths, &err) == RIDGE_EINVAL);
    ser[0].group = -1;
    CHECK(ridge_scatter_write(ser, 3, &so, &paths, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "group -1");
    /* No point at all (a sweep with nothing feasible, or no cost: NaN): gnuplot cannot draw it
     * ("x range is invalid"), so nothing is written. */
    {
        static const double nan_y[1] = {NAN}, one[1] = {1};
        ridge_scatter_series none[2] = {{"empty", NULL, NULL, 0, 0, 0, NULL}, {"no cost", one, nan_y, 1, 0, 1, NULL}};
        snprintf(chart, sizeof chart, "%s/nothing.png", tmpdir);
        CHECK(ridge_plot_paths_from_chart(chart, &paths, &err) == RIDGE_OK);
        CHECK(ridge_scatter_write(none, 2, &so, &paths, &err) == RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "no point to draw");
        CHECK(access(paths.dat, F_OK) != 0 && access(paths.gp, F_OK) != 0);
    }
    check_context(NULL);
}

static void test_bars_chart(void)
{
    static const char *const cats[] = {"a40 (fp16, b=256)", "a100-sxm4-80gb (fp16, b=256)"};
    const double thr[] = {1, 2.548}, per_w[] = {1, 1.592}, per_usd[] = {1, NAN};
    ridge_bar_series ser[3] = {{"throughput", thr}, {"throughput per watt", per_w}, {"throughput per USD", per_usd}};
    ridge_bars_options bo = {"GPUs relative to a40 (= 1)", NULL, "Relative to the first GPU [ratio]", 0, 1};
    ridge_plot_paths paths;
    ridge_err err;
    char chart[128], *dat, *gp;
    check_context("bars chart");
    snprintf(chart, sizeof chart, "%s/gpus.svg", tmpdir);
    CHECK(ridge_plot_paths_from_chart(chart, &paths, &err) == RIDGE_OK);
    CHECK(ridge_bars_write(cats, 2, ser, 3, &bo, &paths, &err) == RIDGE_OK);
    if (read_chart(&paths, &dat, &gp)) {
        CHECK_STR_HAS(dat, "\"category\" \"throughput\" \"throughput per watt\" \"throughput per USD\"\n");
        CHECK_STR_HAS(dat, "\"a100-sxm4-80gb (fp16, b=256)\" 2.548 1.592 NaN\n");
        CHECK_STR_HAS(gp, "dat = dir . 'gpus.dat'");
        CHECK_STR_HAS(gp, "set terminal svg");
        CHECK_STR_HAS(gp, "set ylabel 'Relative to the first GPU [ratio]'");
        CHECK_STR_HAS(gp, "set style histogram clustered gap 1");
        CHECK_STR_HAS(gp, "dat using 2:xtic(1)");
        CHECK_STR_HAS(gp, "with labels");
    }
    free(dat);
    free(gp);
    bo.stacked = 1;
    CHECK(ridge_bars_write(cats, 2, ser, 3, &bo, &paths, &err) == RIDGE_OK);
    gp = check_read_file(paths.gp);
    if (CHECK(gp != NULL))
        CHECK_STR_HAS(gp, "set style histogram rowstacked");
    free(gp);
    {
        const double none[] = {NAN, NAN};
        ridge_bar_series empty = {"no prices", none};
        CHECK(ridge_bars_write(cats, 2, &empty, 1, &bo, &paths, &err) == RIDGE_EINVAL);
        CHECK_STR_HAS(err.msg, "no finite value");
    }
    /* A series with no finite value is not drawn (gnuplot would reject the column). */
    bo.stacked = 0;
    CHECK(ridge_bars_write(cats, 2, ser, 3, &bo, &paths, &err) == RIDGE_OK);
    gp = check_read_file(paths.gp);
    if (CHECK(gp != NULL)) {
        CHECK_STR_HAS(gp, "dat using 3 lc rgb");
        CHECK_STR_HAS(gp, "dat using 4 lc rgb"); /* per USD has one finite value: drawn */
    }
    free(gp);
    CHECK(ridge_bars_write(cats, 0, ser, 3, &bo, &paths, &err) == RIDGE_EINVAL);
    CHECK(ridge_bars_write(cats, 2, ser, 0, &bo, &paths, &err) == RIDGE_EINVAL);
    check_context(NULL);
}

/* The plan breakdown's stacked layers, each bound in its fixed colour (the roofline's). */
static void test_bars_colors(void)
{
    static const char *const cats[] = {"a40 (bf16, b=256)", "h100-sxm5-80gb (bf16, b=256)"};
    const double comp[] = {0.2, 0.02}, dram[] = {0.7, 0.15}, other[] = {0.01, 0.03};
    ridge_bar_series ser[3] = {{"compute-bound", comp}, {"DRAM-bound", dram}, {"other", other}};
    const char *colors[3] = {ridge_plot_bound_color(RIDGE_BOUND_COMPUTE), ridge_plot_bound_color(RIDGE_BOUND_MEMORY),
                             NULL};
    ridge_bars_options bo = {.title = "breakdown", .ylabel = "Step time per sample [ms]", .stacked = 1};
    ridge_plot_paths paths;
    ridge_err err;
    char chart[128], want[128], *gp, *plain;
    check_context("bars in given colours");
    snprintf(chart, sizeof chart, "%s/breakdown.svg", tmpdir);
    CHECK(ridge_plot_paths_from_chart(chart, &paths, &err) == RIDGE_OK);
    CHECK(ridge_bars_write(cats, 2, ser, 3, &bo, &paths, &err) == RIDGE_OK);
    plain = check_read_file(paths.gp);
    CHECK(ridge_bars_write_colored(cats, 2, ser, 3, colors, &bo, &paths, &err) == RIDGE_OK);
    gp = check_read_file(paths.gp);
    if (CHECK(gp != NULL) && CHECK(plain != NULL)) {
        snprintf(want, sizeof want, "dat using 2:xtic(1) lc rgb '%s' title columnheader", colors[0]);
        CHECK_STR_HAS(gp, want);
        snprintf(want, sizeof want, "dat using 3 lc rgb '%s' title columnheader", colors[1]);
        CHECK_STR_HAS(gp, want);
        CHECK(!strstr(plain, colors[0]) && !strstr(plain, colors[1])); /* not the general palette's */
        /* a NULL entry keeps the general palette's colour for that series */
        const char *p = strstr(plain, "dat using 4 lc rgb '"), *q = strstr(gp, "dat using 4 lc rgb '");
        CHECK(p && q && strncmp(p, q, 28) == 0);
    }
    free(gp);
    free(plain);
    colors[2] = "red'; system('x"; /* would break out of the script's string */
    CHECK(ridge_bars_write_colored(cats, 2, ser, 3, colors, &bo, &paths, &err) == RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "series 2 colour is not #rrggbb");
    colors[2] = "#12345";
    CHECK(ridge_bars_write_colored(cats, 2, ser, 3, colors, &bo, &paths, &err) == RIDGE_EINVAL);
    check_context(NULL);
}

int main(void)
{
    if (!check_tmpdir(tmpdir, sizeof tmpdir, "ridge-test-plan-plots"))
        return 1;
    test_pareto_chart();
    test_numbered_labels();
    test_bars_chart();
    test_bars_colors();
    {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", tmpdir);
    }
    return check_report();
}
