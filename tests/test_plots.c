/* Tests for ridge_plots: chart paths, atomic writes, the roofline .dat/.gp, the gnuplot runner.
 * Never needs gnuplot; when one is on PATH the script is also rendered once as a syntax check.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "check_tmpdir.h"
#include "ridge/plot.h"

static char tmpdir[64];

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Entries in the test directory: what a write leaves behind. */
static int entries(void)
{
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    int n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static double *v_dummy(void)
{
    static double v[8];
    return v;
}

static void join(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", tmpdir, name);
}

/* A GPU filled by hand: high-entropy figures, three equal 16-bit tensor peaks. */
static void make_gpu(ridge_gpu *g)
{
    memset(g, 0, sizeof *g);
    snprintf(g->id, sizeof g->id, "testa-x1");
    snprintf(g->name, sizeof g->name, "Testa X1 'quoted'");
    g->peak_flops_per_s[RIDGE_PEAK_FP64] = 9.71e12;
    g->peak_flops_per_s[RIDGE_PEAK_FP32] = 61.27e12;
    g->peak_flops_per_s[RIDGE_PEAK_FP16_VECTOR] = 122.54e12;
    g->peak_flops_per_s[RIDGE_PEAK_TF32] = 411.85e12;
    g->peak_flops_per_s[RIDGE_PEAK_FP16] = 823.7e12;
    g->peak_flops_per_s[RIDGE_PEAK_FP16_FP32ACC] = 823.7e12;
    g->peak_flops_per_s[RIDGE_PEAK_BF16] = 823.7e12;
    g->peak_flops_per_s[RIDGE_PEAK_FP8] = 1647.4e12;
    g->peak_flops_per_s[RIDGE_PEAK_INT8] = 1647.4e12;
    g->memory_bw_bytes_per_s = 3.35e12;
    g->l2_bytes = 52428800;
    g->eff.tensor_fraction = 0.785;
    g->eff.vector_fraction = 0.9;
    g->eff.dram_fraction = 0.883;
    g->eff.l2_bandwidth_bytes_per_s = 11.37e12;
    snprintf(g->eff.source, sizeof g->eff.source, "hand-made");
}

static ridge_kernel_result result(double flops, double dram, double l2, double time_s, ridge_bound bound,
                                  ridge_peak peak)
{
    /* The op's compulsory bytes: here those the model sends to DRAM, else to L2. */
    double min_bytes = dram > 0 ? dram : l2;
    return (ridge_kernel_result){.flops = flops,
                                 .dram_bytes = dram,
                                 .l2_bytes = l2,
                                 .time_s = time_s,
                                 .bound = bound,
                                 .peak = peak,
                                 .tensor = ridge_peak_is_tensor(peak),
                                 .achieved_flops_per_s = time_s > 0 ? flops / time_s : 0,
                                 .min_bytes = min_bytes,
                                 .intensity_flops_per_byte = min_bytes > 0 ? flops / min_bytes : 0};
}

/* The .dat row of block `index` whose first field is `"name"`, parsed as numbers after it. */
static int dat_row(const char *dat, int index, const char *name, double *v, int nv)
{
    char head[32], key[80];
    const char *p;
    snprintf(head, sizeof head, "# [index %d]", index);
    p = strstr(dat, head);
    if (!p)
        return 0;
    snprintf(key, sizeof key, "\n\"%s\" ", name);
    p = strstr(p, key);
    if (!p)
        return 0;
    p += strlen(key);
    for (int i = 0; i < nv; i++) {
        char *end;
        v[i] = strtod(p, &end);
        if (end == p)
            return 0;
        p = end;
    }
    return 1;
}

static void test_paths(void)
{
    static const struct {
        const char *chart, *dat, *gp;
        int status;
        ridge_plot_format fmt;
    } rows[] = {
        {"chart.png", "chart.dat", "chart.gp", RIDGE_OK, RIDGE_PLOT_PNG},
        {"out/dir/roof.line.SVG", "out/dir/roof.line.dat", "out/dir/roof.line.gp", RIDGE_OK, RIDGE_PLOT_SVG},
        {"a.Png", "a.dat", "a.gp", RIDGE_OK, RIDGE_PLOT_PNG},
        {"chart.pdf", NULL, NULL, RIDGE_EINVAL, RIDGE_PLOT_PNG},
        {"chart", NULL, NULL, RIDGE_EINVAL, RIDGE_PLOT_PNG},
        {"", NULL, NULL, RIDGE_EINVAL, RIDGE_PLOT_PNG},
        {".png", NULL, NULL, RIDGE_EINVAL, RIDGE_PLOT_PNG},
        {"dir/.svg", NULL, NULL, RIDGE_EINVAL, RIDGE_PLOT_PNG},
        /* a control byte: the script could not name its files (nor its comment hold the path) */
        {"a\nsystem 'x'\n.png", NULL, NULL, RIDGE_EINVAL, RIDGE_PLOT_PNG},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_plot_paths p;
        ridge_err err = {{0}};
        int rc = ridge_plot_paths_from_chart(rows[i].chart, &p, &err);
        check_context(rows[i].chart[0] ? rows[i].chart : "(empty)");
        CHECK_INT(rc, rows[i].status);
        if (rc == RIDGE_OK) {
            CHECK_STR_EQ(p.chart, rows[i].chart);
            CHECK_STR_EQ(p.dat, rows[i].dat);
            CHECK_STR_EQ(p.gp, rows[i].gp);
            CHECK_INT(p.format, rows[i].fmt);
        } else {
            CHECK(err.msg[0] != '\0');
        }
    }
    check_context(NULL);
}

static void test_write_file(void)
{
    char path[128], tmp[160], victim[128], nodir[128];
    ridge_err err = {{0}};
    struct stat st;
    mode_t mask;
    char *s;
    join(path, sizeof path, "atomic.txt");
    CHECK_INT(ridge_plot_write_file(path, "first version\n", 14, &err), RIDGE_OK);
    CHECK_INT(ridge_plot_write_file(path, "second\n", 7, &err), RIDGE_OK);
    s = check_read_file(path);
    CHECK_STR_EQ(s, "second\n");
    free(s);
    CHECK_INT(entries(), 1); /* no temporary file left */
    remove(path);

    /* The temporary name is not fixed: a link at PATH.tmp is not followed (it was: the write
     * went to the link's target), a directory there is no obstacle. */
    join(victim, sizeof victim, "victim.txt");
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    CHECK_INT(ridge_plot_write_file(victim, "victim\n", 7, &err), RIDGE_OK);
    CHECK(symlink(victim, tmp) == 0);
    CHECK_INT(ridge_plot_write_file(path, "through a link?\n", 16, &err), RIDGE_OK);
    s = check_read_file(victim);
    CHECK_STR_EQ(s, "victim\n");
    free(s);
    s = check_read_file(path);
    CHECK_STR_EQ(s, "through a link?\n");
    free(s);
    remove(tmp);
    CHECK(mkdir(tmp, 0700) == 0);
    CHECK_INT(ridge_plot_write_file(path, "past a directory\n", 17, &err), RIDGE_OK);
    CHECK_INT(entries(), 3); /* the file, the victim, the directory */
    rmdir(tmp);
    remove(victim);
    remove(path);

    /* The mode a plain fopen gives: 0666 less the umask (mkstemp alone makes 0600). */
    mask = umask(027);
    CHECK_INT(ridge_plot_write_file(path, "x", 1, &err), RIDGE_OK);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0640);
    umask(mask);
    remove(path);

    join(nodir, sizeof nodir, "no/such/dir/x.dat");
    CHECK_INT(ridge_plot_write_file(nodir, "x", 1, &err), RIDGE_EIO);
    CHECK_STR_HAS(err.msg, nodir);
    CHECK_INT(entries(), 0);

    /* A link to a file descriptor (/dev/stdout -> /proc/self/fd/1 with standard output redirected
     * to a file) is written in place: through the descriptor, the link left a link and no
     * temporary file beside it (run as root, /dev/stdout was replaced by a plain file). */
    check_context("a link to a file descriptor");
    {
        char fdpath[64], link[128];
        int fd;
        join(victim, sizeof victim, "redirected.txt");
        join(link, sizeof link, "stdout-link");
        fd = open(victim, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
        if (fd >= 0 && stat(fdpath, &st) == 0 && CHECK(symlink(fdpath, link) == 0)) {
            CHECK(ridge_plot_in_place(link));
            CHECK(!ridge_plot_in_place(victim));
            CHECK_INT(ridge_plot_write_file(link, "in place\n", 9, &err), RIDGE_OK);
            CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
            s = check_read_file(victim);
            CHECK_STR_EQ(s, "in place\n");
            free(s);
            CHECK_INT(entries(), 2); /* the file and the link */
        } else
            printf("no /proc/self/fd: links to descriptors not checked\n");
        if (fd >= 0)
            close(fd);
        remove(link);
        remove(victim);
    }
    check_context(NULL);
}

/* The example workload: one op per interesting case (fills pts[0..7], returns how many are used). */
static size_t make_points(ridge_roofline_point *pts)
{
    const ridge_roofline_point rows[] = {
        /* A big BF16 GEMM: compute-bound, far right. */
        {.label = "qkv_proj",
         .pred = result(2.0 * 8192 * 3072 * 4096, 113246208.0, 4.1e8, 3.217e-4, RIDGE_BOUND_COMPUTE, RIDGE_PEAK_BF16),
         .min_bytes = 113246208.0,
         .has_measured = 1,
         .measured_intensity_flops_per_byte = 2.0 * 8192 * 3072 * 4096 / 113246208.0,
         .measured_flops_per_s = 587.3e12},
        /* An FP16 (FP32 acc) GEMM: shares the BF16 roof. */
        {.label = "lm head", .pred = result(3.3e12, 1.2e9, 0, 6.1e-3, RIDGE_BOUND_COMPUTE, RIDGE_PEAK_FP16_FP32ACC)},
        /* A DRAM-bound elementwise op on the vector path. */
        {.label = "residual_add",
         .pred = result(3.355e7, 2.013e8, 0, 7.12e-5, RIDGE_BOUND_MEMORY, RIDGE_PEAK_FP16_VECTOR)},
        /* Working set in L2: no DRAM bytes, the L2 bytes give its x. */
        {.label = "rmsnorm \"small\"", .pred = result(1.2e6, 0, 2.4e6, 4.4e-6, RIDGE_BOUND_L2, RIDGE_PEAK_FP32)},
        /* A copy: no FLOPs, not on the chart. */
        {.label = "kv_copy", .pred = result(0, 6.7e7, 0, 2.1e-5, RIDGE_BOUND_MEMORY, RIDGE_PEAK_FP32)},
        /* No label: named by index; no bytes at all in the result: the compulsory bytes give its x. */
        {.pred = result(5.5e5, 0, 0, 2.9e-6, RIDGE_BOUND_LATENCY, RIDGE_PEAK_FP32), .min_bytes = 1.1e6},
    };
    size_t n = sizeof rows / sizeof rows[0];
    memset(pts, 0, 8 * sizeof *pts);
    memcpy(pts, rows, sizeof rows);
    return n;
}

/* One colour per bound, "#rrggbb", each its own; none for a value that is no bound. */
static void test_bound_colors(void)
{
    check_context("bound colours");
    for (int b = 0; b < RIDGE_BOUND_COUNT; b++) {
        const char *c = ridge_plot_bound_color((ridge_bound)b);
        if (!CHECK(c != NULL))
            continue;
        CHECK(strlen(c) == 7 && c[0] == '#' && strspn(c + 1, "0123456789abcdefABCDEF") == 6);
        for (int a = 0; a < b; a++)
            CHECK(strcmp(c, ridge_plot_bound_color((ridge_bound)a)) != 0);
    }
    CHECK(ridge_plot_bound_color(RIDGE_BOUND_COUNT) == NULL);
    check_context(NULL);
}

static void test_roofline(void)
{
    ridge_gpu g;
    ridge_roofline_point pts[8];
    size_t n = make_points(pts);
    ridge_roofline_options opt = {"llama layer", "3 measurements without an op skipped", 0};
    ridge_plot_paths paths;
    ridge_err err = {{0}};
    char chart[128], tmp[RIDGE_PLOT_PATH_MAX + 8];
    char *dat, *gp;
    double v[6];

    make_gpu(&g);
    join(chart, sizeof chart, "roof.png");
    CHECK_INT(ridge_plot_paths_from_chart(chart, &paths, &err), RIDGE_OK);
    CHECK_INT(ridge_roofline_write(&g, pts, n, &opt, &paths, &err), RIDGE_OK);
    dat = check_read_file(paths.dat);
    gp = check_read_file(paths.gp);
    if (!CHECK(dat && gp)) {
        free(dat);
        free(gp);
        return;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp", paths.dat);
    CHECK(!exists(tmp));
    CHECK(!exists(paths.chart)); /* writing never renders */

    /* Roofs: BF16, FP16 (FP32 acc) share one roof; FP32 is always there; FP16 vector is used. */
    check_context("roofs");
    if (CHECK(dat_row(dat, 0, "BF16/FP16", v, 5))) {
        CHECK_NEAR(v[0], 823.7, 1e-6);
        CHECK_NEAR(v[1], 823.7 * 0.785, 1e-6);
        CHECK_NEAR(v[2], 823.7e12 / 3.35e12, 1e-5); /* the BF16 ridge point, 245.881 FLOP/B */
        CHECK_NEAR(v[3], 823.7e12 * 0.785 / (3.35e12 * 0.883), 1e-5);
    }
    if (CHECK(dat_row(dat, 0, "FP32", v, 3))) {
        CHECK_NEAR(v[0], 61.27, 1e-6);
        CHECK_NEAR(v[1], 61.27 * 0.9, 1e-6);
        CHECK_NEAR(v[2], 61.27 / 3.35, 1e-5);
    }
    CHECK(dat_row(dat, 0, "FP16 vector", v, 1));
    CHECK(!strstr(dat, "\"FP8\"")); /* no op uses it */
    CHECK(!strstr(dat, "\"TF32\""));
    CHECK_STR_HAS(dat, "BF16/FP16 ridge 246 FLOP/B");
    CHECK_STR_HAS(dat, "FP32 ridge 18.3 FLOP/B");

    check_context("memory diagonals");
    if (CHECK(dat_row(dat, 1, "DRAM", v, 1)))
        CHECK_NEAR(v[0], 3.35, 1e-9);
    if (CHECK(dat_row(dat, 1, "DRAM achievable", v, 1)))
        CHECK_NEAR(v[0], 3.35 * 0.883, 1e-6);
    if (CHECK(dat_row(dat, 1, "L2", v, 1)))
        CHECK_NEAR(v[0], 11.37, 1e-9);

    check_context("kernels");
    {
        char row[256];
        /* x = flops / compulsory bytes, y = achieved TFLOP/s */
        snprintf(row, sizeof row, "%.6g %.6g 0 compute \"qkv_proj\"", 2.0 * 8192 * 3072 * 4096 / 113246208.0,
                 2.0 * 8192 * 3072 * 4096 / 3.217e-4 / 1e12);
        CHECK_STR_HAS(dat, row);
        snprintf(row, sizeof row, "%.6g %.6g 2 l2 \"rmsnorm 'small'\"", 1.2e6 / 2.4e6, 1.2e6 / 4.4e-6 / 1e12);
        CHECK_STR_HAS(dat, row);
        snprintf(row, sizeof row, "%.6g %.6g 3 latency \"#5\"", 5.5e5 / 1.1e6, 5.5e5 / 2.9e-6 / 1e12);
        CHECK_STR_HAS(dat, row);
        CHECK_STR_HAS(dat, "# not plotted");
        CHECK_STR_HAS(dat, "kv_copy");
        snprintf(row, sizeof row, "%.6g %.6g", 2.0 * 8192 * 3072 * 4096 / 113246208.0, 587.3);
        CHECK_STR_HAS(strstr(dat, "# [index 5]"), row);
    }

    check_context("script");
    CHECK_STR_HAS(gp, "set locale \"C\"");
    CHECK_STR_HAS(gp, "set logscale xy");
    CHECK_STR_HAS(gp, "'roof.dat'");
    CHECK_STR_HAS(gp, "'roof.png'");
    CHECK_STR_HAS(gp, "[FLOP/byte]");
    CHECK_STR_HAS(gp, "[TFLOP/s]");
    CHECK_STR_HAS(gp, "pngcairo size 1200,800");
    CHECK_STR_HAS(gp, "set terminal png size 1200,800");
    CHECK_STR_HAS(gp, "Testa X1 ''quoted'' - llama layer");
    CHECK_STR_HAS(gp, "3 measurements without an op skipped");
    CHECK_STR_HAS(gp, "set key outside below");
    CHECK_STR_HAS(gp, "1 op without FLOPs");
    CHECK_STR_HAS(gp, "predicted, compute-bound");
    CHECK_STR_HAS(gp, "predicted, L2-bound");
    { /* each bound in its fixed colour (ridge_plot_bound_color, the breakdown bars' too) */
        char key[128];
        snprintf(key, sizeof key, "lc rgb '%s' title 'predicted, compute-bound'",
                 ridge_plot_bound_color(RIDGE_BOUND_COMPUTE));
        CHECK_STR_HAS(gp, key);
        snprintf(key, sizeof key, "lc rgb '%s' title 'predicted, L2-bound'", ridge_plot_bound_color(RIDGE_BOUND_L2));
        CHECK_STR_HAS(gp, key);
    }
    CHECK(!strstr(gp, "host-bound")); /* no point is host-bound */
    CHECK_STR_HAS(gp, "measured");
    check_context(NULL);

    /* Rendered once when gnuplot is around: the script must be valid gnuplot. */
    if (ridge_gnuplot_find(NULL, 0)) {
        char *png;
        CHECK_INT(ridge_gnuplot_run(&paths, &err), RIDGE_OK);
        png = check_read_file(paths.chart);
        CHECK(png && memcmp(png, "\x89PNG", 4) == 0);
        free(png);
        remove(paths.chart);
    } else {
        printf("gnuplot not found: rendering not checked\n");
    }
    remove(paths.dat);
    remove(paths.gp);
    free(dat);
    free(gp);
}

static void test_roofline_svg_and_limits(void)
{
    ridge_gpu g;
    ridge_roofline_point pts[5];
    /* INT8 used twice ranks first among the used peaks; the cap then drops TF32. */
    static const ridge_peak used[5] = {RIDGE_PEAK_INT8, RIDGE_PEAK_TF32, RIDGE_PEAK_INT8, RIDGE_PEAK_FP64,
                                       RIDGE_PEAK_FP16_VECTOR};
    ridge_plot_paths paths;
    ridge_err err = {{0}};
    char chart[128];
    char *dat, *gp;
    int roofs = 0;

    make_gpu(&g);
    memset(pts, 0, sizeof pts);
    for (int i = 0; i < 5; i++)
        pts[i].pred = result(1e12 * (i + 1), 1e9, 0, 1e-2, RIDGE_BOUND_COMPUTE, used[i]);
    join(chart, sizeof chart, "limits.svg");
    CHECK_INT(ridge_plot_paths_from_chart(chart, &paths, &err), RIDGE_OK);
    CHECK_INT(ridge_roofline_write(&g, pts, 5, NULL, &paths, &err), RIDGE_OK);
    dat = check_read_file(paths.dat);
    gp = check_read_file(paths.gp);
    if (CHECK(dat && gp)) {
        const char *p = strstr(dat, "# [index 0]"), *end = strstr(dat, "# [index 1]");
        for (; p && (p = strstr(p, "\n\"")) != NULL && p < end; p++)
            roofs++;
        CHECK_INT(roofs, RIDGE_ROOFLINE_MAX_ROOFS);
        CHECK(dat_row(dat, 0, "BF16", v_dummy(), 1));
        CHECK(dat_row(dat, 0, "FP32", v_dummy(), 1));
        CHECK(dat_row(dat, 0, "INT8", v_dummy(), 1));
        CHECK(dat_row(dat, 0, "FP64", v_dummy(), 1));
        CHECK(dat_row(dat, 0, "FP16 vector", v_dummy(), 1));
        CHECK(!strstr(dat, "\"TF32\""));
        CHECK_STR_HAS(dat, "INT8 ridge 492 OP/B");
        CHECK_STR_HAS(gp, "INT8 tensor: 1647 TOP/s");
        CHECK_STR_HAS(gp, "set terminal svg size 1200,800");
        CHECK_STR_HAS(gp, "'limits.svg'");
        CHECK(!strstr(gp, "pngcairo"));
        CHECK(!strstr(gp, "measured"));
    }
    free(dat);
    free(gp);
    remove(paths.dat);
    remove(paths.gp);

    /* Roofs only (no kernels) is a valid chart. */
    CHECK_INT(ridge_roofline_write(&g, NULL, 0, NULL, &paths, &err), RIDGE_OK);
    CHECK(exists(paths.dat) && exists(paths.gp));
    remove(paths.dat);
    remove(paths.gp);

    /* A GPU without bandwidth cannot have a roofline. */
    g.memory_bw_bytes_per_s = 0;
    CHECK_INT(ridge_roofline_write(&g, NULL, 0, NULL, &paths, &err), RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "testa-x1");
    CHECK(!exists(paths.dat) && !exists(paths.gp));
}

/* Kernels on one spot share a label; a crowd keeps labels on its slowest kernels only. */
static void test_labels(void)
{
    ridge_gpu g;
    ridge_roofline_point pts[60];
    char names[60][16];
    ridge_plot_paths paths;
    ridge_err err = {{0}};
    char chart[128];
    char *dat, *gp;

    make_gpu(&g);
    memset(pts, 0, sizeof pts);
    for (int i = 0; i < 60; i++) {
        /* Spread over three decades of intensity; time grows with i, so #59 is the slowest. */
        double x = pow(10.0, 3.0 * i / 59.0), t = 1e-4 * (1 + i);
        snprintf(names[i], sizeof names[i], "k%02d", i);
        pts[i].label = names[i];
        pts[i].pred = result(x * 1e9, 1e9, 0, t, RIDGE_BOUND_MEMORY, RIDGE_PEAK_BF16);
    }
    join(chart, sizeof chart, "labels.png");
    CHECK_INT(ridge_plot_paths_from_chart(chart, &paths, &err), RIDGE_OK);

    /* Two kernels on the same spot. */
    pts[1].pred = pts[0].pred;
    CHECK_INT(ridge_roofline_write(&g, pts, 3, NULL, &paths, &err), RIDGE_OK);
    dat = check_read_file(paths.dat);
    CHECK_STR_HAS(dat ? strstr(dat, "# [index 4]") : NULL, "\"k00, k01\"");
    free(dat);

    CHECK_INT(ridge_roofline_write(&g, pts, 60, NULL, &paths, &err), RIDGE_OK);
    dat = check_read_file(paths.dat);
    gp = check_read_file(paths.gp);
    if (CHECK(dat && gp)) {
        const char *labels = strstr(dat, "# [index 4]");
        CHECK_STR_HAS(gp, "labels on the 40 slowest of 60 kernels");
        CHECK_STR_HAS(labels, "\"k59\"");
        CHECK_STR_HAS(labels, "\"k20\"");
        CHECK(labels && !strstr(labels, "\"k19\""));
        CHECK(labels && !strstr(labels, "\"k02\""));
    }
    free(dat);
    free(gp);
    remove(paths.dat);
    remove(paths.gp);
}

/* The colour of the roof named `name` (the first roof line whose title starts with it). */
static int roof_color(const char *gp, const char *name, char *out, size_t cap)
{
    char key[64];
    const char *t, *c;
    snprintf(key, sizeof key, "title '%s", name);
    t = gp ? strstr(gp, key) : NULL;
    if (!t)
        return 0;
    for (c = t; c > gp && strncmp(c, "lc rgb '", 8) != 0; c--)
        ;
    if (c == gp)
        return 0;
    snprintf(out, cap, "%.7s", c + 8);
    return 1;
}

/* Kernels sized by share with a numbered key; two GPUs on one chart; colours fixed per roof. */
static void test_roofline_sized_and_two_gpus(void)
{
    ridge_gpu g[3];
    ridge_roofline_point pts[8];
    size_t n = make_points(pts);
    /* Shares of a step: kv_copy (no FLOPs) holds 0.0625 of it. */
    static const double share[6] = {0.4375, 0.25, 0.125, 0.09375, 0.0625, 0.03125};
    ridge_roofline_options opt = {"llama step", NULL, 3};
    ridge_roofline_series s[3];
    ridge_plot_paths paths;
    ridge_err err = {{0}};
    char chart[128], c1[16], c2[16];
    char *dat, *gp;

    make_gpu(&g[0]);
    make_gpu(&g[1]);
    snprintf(g[1].id, sizeof g[1].id, "testb-y2");
    g[1].memory_bw_bytes_per_s = 1.237e12;
    g[1].peak_flops_per_s[RIDGE_PEAK_BF16] = g[1].peak_flops_per_s[RIDGE_PEAK_FP16] =
        g[1].peak_flops_per_s[RIDGE_PEAK_FP16_FP32ACC] = 312.4e12;
    g[2] = g[1];
    for (size_t i = 0; i < n; i++)
        pts[i].share = share[i];
    join(chart, sizeof chart, "sized.svg");
    CHECK_INT(ridge_plot_paths_from_chart(chart, &paths, &err), RIDGE_OK);
    CHECK_INT(ridge_roofline_write(&g[0], pts, n, &opt, &paths, &err), RIDGE_OK);
    dat = check_read_file(paths.dat);
    gp = check_read_file(paths.gp);
    if (CHECK(dat && gp)) {
        check_context("sized, one GPU");
        /* Five kernels drawn, 1 - 0.0625 of the step; the copy's share in the note. */
        CHECK_STR_HAS(dat, "# Drawn: 5 kernels with FLOPs, 0.9375 of the step's time; 1 op without FLOPs, 0.0625");
        CHECK_STR_HAS(gp, "1 op without FLOPs (6.25 % of the step) not shown");
        /* The largest share at the largest size, the area of the others in proportion. */
        CHECK_STR_HAS(dat, "\"qkv_proj\" 0 0.4375 4.5\n");
        CHECK_STR_HAS(dat, "\"lm head\" 0 0.25 3.402\n"); /* 4.5 sqrt(0.25 / 0.4375) */
        CHECK_STR_HAS(dat, "\"#5\" 0 0.03125 1.203\n");
        CHECK_STR_HAS(gp, "ps variable");
        /* The key: three kernels by share, numbered beside their markers. */
        CHECK_STR_HAS(gp, "'1  qkv_proj: 43.8 % compute'");
        CHECK_STR_HAS(gp, "'2  lm head: 25 % compute'");
        CHECK_STR_HAS(gp, "'3  residual_add: 12.5 % dram'");
        CHECK(!strstr(gp, "'4  "));
        CHECK_STR_HAS(strstr(dat, "# [index 4]"), " \"3\" ");
        CHECK(!strstr(strstr(dat, "# [index 4]"), "\"residual_add\""));
        CHECK(roof_color(gp, "FP32", c1, sizeof c1));
    }
    free(dat);
    free(gp);

    s[0] = (ridge_roofline_series){&g[0], pts, n};
    s[1] = (ridge_roofline_series){&g[1], pts, 2};
    s[2] = (ridge_roofline_series){&g[2], pts, 2};
    CHECK_INT(ridge_roofline_write_gpus(s, 2, &opt, &paths, &err), RIDGE_OK);
    dat = check_read_file(paths.dat);
    gp = check_read_file(paths.gp);
    if (CHECK(dat && gp)) {
        check_context("two GPUs");
        CHECK(dat_row(dat, 0, "testa-x1 BF16/FP16", v_dummy(), 1));
        CHECK(dat_row(dat, 0, "testb-y2 BF16/FP16", v_dummy(), 1));
        if (CHECK(dat_row(dat, 1, "testb-y2 DRAM", v_dummy(), 1)))
            CHECK_NEAR(v_dummy()[0], 1.237, 1e-9);
        CHECK_STR_HAS(dat, "\"qkv_proj\" 1 0.4375");
        CHECK_STR_HAS(gp, "testb-y2: roofs dash-dot, kernels triangles");
        CHECK_STR_HAS(gp, "testa-x1 BF16/FP16 tensor: 824 TFLOP/s");
        CHECK_STR_HAS(gp, "testb-y2 BF16/FP16 tensor: 312 TFLOP/s");
        CHECK(!strstr(gp, "achievable")); /* two GPUs: peaks only */
        CHECK_STR_HAS(gp, "'1  qkv_proj: 43.8 % compute | 43.8 % compute'");
        CHECK_STR_HAS(gp, "'3  residual_add: 12.5 % dram | -'"); /* not in the second series */
        /* One colour per precision, whatever else is on the chart. */
        CHECK(roof_color(gp, "testb-y2 FP32", c2, sizeof c2));
        CHECK_STR_EQ(c1, c2);
        CHECK(roof_color(gp, "testa-x1 FP32", c2, sizeof c2));
        CHECK_STR_EQ(c1, c2);
    }
    if (ridge_gnuplot_find(NULL, 0))
        CHECK_INT(ridge_gnuplot_run(&paths, &err), RIDGE_OK);
    free(dat);
    free(gp);
    remove(paths.dat);
    remove(paths.gp);
    remove(paths.chart);

    /* At most two GPUs. */
    CHECK_INT(ridge_roofline_write_gpus(s, 3, &opt, &paths, &err), RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "3 GPUs");
    CHECK(!exists(paths.dat) && !exists(paths.gp));
    check_context(NULL);
}

static void test_roofline_unwritable(void)
{
    ridge_gpu g;
    ridge_roofline_point pts[8];
    size_t n = make_points(pts);
    ridge_plot_paths paths;
    ridge_err err = {{0}};
    char chart[128], tmp[RIDGE_PLOT_PATH_MAX + 8];
    make_gpu(&g);
    join(chart, sizeof chart, "missing-dir/roof.png");
    CHECK_INT(ridge_plot_paths_from_chart(chart, &paths, &err), RIDGE_OK);
    CHECK_INT(ridge_roofline_write(&g, pts, n, NULL, &paths, &err), RIDGE_EIO);
    CHECK_STR_HAS(err.msg, paths.dat);
    CHECK(!exists(paths.dat));
    CHECK(!exists(paths.gp));
    snprintf(tmp, sizeof tmp, "%s.tmp", paths.dat);
    CHECK(!exists(tmp));
}

/* The validation chart in both styles: the same .dat, log-log diagonal bands or ratio lines. */
static void test_validation_chart(void)
{
    static const double num[] = {1, 2, 3}, meas[] = {100, 0.01, 5e4}, pred[] = {110, 0.0075, -1};
    static const char *const ids[] = {"a", "b\"quoted\"", "c"};
    ridge_validation_set set = {"images/s (3)", num, meas, pred, ids, 3, 0, 0};
    ridge_validation_options o = {"t", "n", RIDGE_VALIDATION_SCATTER, 0, NULL, NULL};
    ridge_plot_paths paths;
    ridge_err err = {{0}};
    char chart[160], *dat1, *dat2, *gp;
    join(chart, sizeof chart, "val.svg");
    CHECK_INT(ridge_plot_paths_from_chart(chart, &paths, &err), RIDGE_OK);
    CHECK_INT(ridge_validation_write(&set, 1, &o, &paths, &err), RIDGE_OK);
    dat1 = check_read_file(paths.dat);
    gp = check_read_file(paths.gp);
    if (CHECK(dat1 && gp)) {
        /* the ratio (column 4) against the measured value (column 2), log-log, one panel */
        CHECK_STR_HAS(gp, "set logscale xy 10");
        CHECK_STR_HAS(gp, "using 2:4 with points");
        CHECK_STR_HAS(gp, "set multiplot layout 1,1");
        CHECK_STR_HAS(gp, "    1.25 with lines");
        CHECK_STR_HAS(gp, "rect from graph 0, first 0.9 to graph 1, first 1.1"); /* the ±10 % band */
        /* the measured span 0.01 .. 100 with 6 % of it (in decades) each side; ratios 0.75 .. 1.1
         * inside the bands' room 0.6 .. 1.6 */
        CHECK_STR_HAS(gp, "set xrange [0.0057544:173.78]\nset yrange [0.6:1.6]");
        CHECK_STR_HAS(dat1, "1 100 110 1.1 \"a\"");
        /* a non-positive prediction is left out; a quote inside an id is blanked */
        CHECK(strstr(dat1, "5e4") == NULL && strstr(dat1, "50000") == NULL);
        CHECK_STR_HAS(dat1, "\"b quoted \"");
    }
    free(gp);
    o.style = RIDGE_VALIDATION_RATIO;
    CHECK_INT(ridge_validation_write(&set, 1, &o, &paths, &err), RIDGE_OK);
    dat2 = check_read_file(paths.dat);
    gp = check_read_file(paths.gp);
    if (CHECK(dat2 && gp && dat1)) {
        CHECK_STR_EQ(dat2, dat1);
        CHECK_STR_HAS(gp, "set logscale y 10");
        CHECK_STR_HAS(gp, "using 1:4 with points");
        CHECK(strstr(gp, "logscale xy") == NULL);
    }
    free(dat1);
    free(dat2);
    free(gp);
    remove(paths.dat);
    remove(paths.gp);
}

/* Occurrences of needle in hay. */
static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; hay && (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* SCATTER with panels: three sets (two groups) in two units, a panel per unit, a colour per group. */
static void test_validation_panels(void)
{
    static const double num[] = {1, 2, 3, 4}, meas[] = {2.385, 0.0173, 4.1e3, 812.5},
                        pred[] = {2.7, 0.0161, 3.3e3, 1017.25};
    static const char *const titles[] = {"s (time): 2 cases", "images/s: 2 cases"}, *const units[] = {"s", "images/s"};
    ridge_validation_set sets[3] = {{"gemm (1)", num, meas, pred, NULL, 1, 0, 0},
                                    {"attention (1)", num + 1, meas + 1, pred + 1, NULL, 1, 0, 1},
                                    {"gemm (2)", num + 2, meas + 2, pred + 2, NULL, 2, 1, 0}};
    ridge_validation_options o = {"t", "n", RIDGE_VALIDATION_SCATTER, 2, titles, units};
    ridge_plot_paths paths;
    ridge_err err = {{0}};
    char chart[160], *dat, *gp;
    check_context("validation panels");
    join(chart, sizeof chart, "valp.png");
    CHECK_INT(ridge_plot_paths_from_chart(chart, &paths, &err), RIDGE_OK);
    CHECK_INT(ridge_validation_write(sets, 3, &o, &paths, &err), RIDGE_OK);
    dat = check_read_file(paths.dat);
    gp = check_read_file(paths.gp);
    if (CHECK(dat && gp)) {
        CHECK_STR_HAS(gp, "set multiplot layout 1,2");
        CHECK_INT(count_of(gp, "# ---- panel "), 2);
        CHECK_STR_HAS(gp, "set xlabel 'Measured [' . 'images/s' . ']'");
        /* set 2 in the second panel only; gemm's colour (set 0's) on both panels, attention's another */
        CHECK_STR_HAS(strstr(gp, "# ---- panel 1"), "dat index 2 using 2:4");
        CHECK(strstr(strstr(gp, "# ---- panel 1"), "dat index 0 ") == NULL);
        CHECK_STR_HAS(gp, "dat index 0 using 2:4 with points pt 7 ps 0.9 lc rgb '#0072B2'");
        CHECK_STR_HAS(gp, "dat index 2 using 2:4 with points pt 7 ps 0.9 lc rgb '#0072B2'");
        CHECK_STR_HAS(gp, "dat index 1 using 2:4 with points pt 5 ps 0.9 lc rgb '#D55E00'");
        /* blocks name their panel; the ratio column is predicted / measured */
        CHECK_STR_HAS(dat, "# [index 2] gemm (2) (panel 1: images/s: 2 cases)\n3 4100 3300 0.804878049 \"-\"\n");
        CHECK_STR_HAS(dat, "4 812.5 1017.25 1.252 \"-\"");
    }
    free(dat);
    free(gp);
    sets[2].panel = 2; /* outside the two panels */
    CHECK_INT(ridge_validation_write(sets, 3, &o, &paths, &err), RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "panel 2 of 2");
    remove(paths.dat);
    remove(paths.gp);
    check_context(NULL);
}

/* Curves in three panels (end-to-end, TTFT, TPOT) with objective lines, as serve --sweep-rate
 * draws an LLM. */
static void test_curves_panels(void)
{
    static const double x[] = {0.5, 2.25, 4.125}, e2e[] = {2375, 3120, 5230}, ttft[] = {71.5, 83.25, 120.5},
                        tpot[] = {12.25, 13.5, 19.75};
    static const char *const ylab[] = {"End-to-end latency [ms]", "TTFT [ms]", "TPOT [ms]"},
                             *const hlab[] = {"objective: TTFT p99 1000 ms", "objective: TPOT p99 60 ms"};
    static const double hy[] = {1000, 60}, vx[] = {10.31};
    static const int hp[] = {1, 2}, vg[] = {0};
    static const char *const vlab[] = {"saturation"};
    ridge_curve_series ser[3] = {{"a p99", x, e2e, 3, 0, 1, 0}, {"a TTFT p99", x, ttft, 3, 0, 1, 1},
                                 {"a TPOT p99", x, tpot, 3, 0, 1, 2}};
    ridge_curve_options co = {0};
    ridge_plot_paths paths;
    ridge_err err = {{0}};
    char chart[160], *dat, *gp;
    check_context("curve panels");
    co.title = "t";
    co.xlabel = "Offered load [requests/s]";
    co.log_y = 1;
    co.npanels = 3;
    co.panel_ylabel = ylab;
    co.nhlines = 2;
    co.hline_y = hy;
    co.hline_panel = hp;
    co.hline_label = hlab;
    co.nvlines = 1;
    co.vline_x = vx;
    co.vline_group = vg;
    co.vline_label = vlab;
    join(chart, sizeof chart, "curves.svg");
    CHECK_INT(ridge_plot_paths_from_chart(chart, &paths, &err), RIDGE_OK);
    CHECK_INT(ridge_curves_write(ser, 3, &co, &paths, &err), RIDGE_OK);
    dat = check_read_file(paths.dat);
    gp = check_read_file(paths.gp);
    if (CHECK(dat && gp)) {
        CHECK_STR_HAS(gp, "set multiplot layout 3,1");
        CHECK_INT(count_of(gp, "# ---- panel "), 3);
        CHECK_INT(count_of(gp, "\nplot "), 3);
        CHECK_STR_HAS(strstr(gp, "# ---- panel 1"), "set ylabel 'TTFT [ms]'");
        CHECK_STR_HAS(strstr(gp, "# ---- panel 2"), "dat index 2 using 1:2");
        CHECK_STR_HAS(strstr(gp, "# ---- panel 2"), "first 60 nohead");
        CHECK(strstr(strstr(gp, "# ---- panel 2"), "first 1000 ") == NULL);
        /* the saturation line in each panel, labelled once */
        CHECK_INT(count_of(gp, "set arrow from 10.31, graph 0"), 3);
        CHECK_INT(count_of(gp, "'saturation'"), 1);
        /* the TTFT panel's range takes in its objective line */
        CHECK_STR_HAS(strstr(gp, "# ---- panel 1"), "set yrange [50:2000]");
        CHECK_STR_HAS(dat, "# [index 1] a TTFT p99 (panel 1: TTFT [ms])\n0.5 71.5\n");
        CHECK_STR_HAS(dat, "# horizontal line: y = 60 (panel 2), objective: TPOT p99 60 ms");
    }
    free(dat);
    free(gp);
    ser[2].panel = 3;
    CHECK_INT(ridge_curves_write(ser, 3, &co, &paths, &err), RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "panel 3 of 3");
    remove(paths.dat);
    remove(paths.gp);
    check_context(NULL);
}

/* 1 when no line of text is a command made of a name: a line that starts with `system`, or a
 * comment line ending in a backslash (gnuplot would run the next line on into it). */
static int no_line_from_names(const char *text)
{
    for (const char *l = text; l && *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        if (strncmp(l, "system", 6) == 0 || (l[0] == '#' && len && l[len - 1] == '\\'))
            return 0;
        l = e ? e + 1 : l + len;
    }
    return 1;
}

/* Check the .dat and .gp of paths for lines made of names; when gnuplot is around, render the
 * chart and check that the command in the names did not run. */
static void check_names_inert(const ridge_plot_paths *paths, const char *pwned)
{
    char *dat = check_read_file(paths->dat), *gp = check_read_file(paths->gp);
    ridge_err err = {{0}};
    if (CHECK(dat && gp)) {
        CHECK(no_line_from_names(gp));
        CHECK(no_line_from_names(dat));
        CHECK(strstr(gp, "\nsystem") == NULL);
    }
    if (ridge_gnuplot_find(NULL, 0)) {
        CHECK_INT(ridge_gnuplot_run(paths, &err), RIDGE_OK);
        CHECK(!exists(pwned));
        remove(paths->chart);
    }
    remove(pwned);
    free(dat);
    free(gp);
    remove(paths->dat);
    remove(paths->gp);
}

/* Names from files (a model, a GPU, a series, a label) reach every chart's .dat and .gp: a line
 * break, quotes or a trailing backslash in one never make a gnuplot command (fuzz9: a model
 * named "x\nsystem(\"touch PWNED\")" ran the command on rendering). */
static void test_names_cannot_inject(void)
{
    static const double x[] = {1, 2, 3}, y[] = {2, 4, 8};
    char pwned[160], name[400], title[400], chart[160], bs[200];
    ridge_gpu g[2];
    ridge_roofline_point pts[8];
    size_t n = make_points(pts);
    ridge_roofline_series rs[2];
    ridge_plot_paths paths;
    ridge_err err = {{0}};
    join(pwned, sizeof pwned, "PWNED");
    snprintf(name, sizeof name, "x\nsystem \"touch %s\"\n# '\nsystem 'touch %s'\n\"", pwned, pwned);
    snprintf(title, sizeof title, "t\\\nsystem \"touch %s\"\\", pwned); /* backslashes before the breaks */
    snprintf(bs, sizeof bs, "ends in a backslash \\");
    make_gpu(&g[0]);
    make_gpu(&g[1]);
    /* GPU names are short: each with one command of its own. */
    snprintf(g[0].name, sizeof g[0].name, "g\\\nsystem \"touch %.40s\"", pwned);
    snprintf(g[1].id, sizeof g[1].id, "testb-y2");
    snprintf(g[1].name, sizeof g[1].name, "g'\nsystem 'touch %.40s'\n#", pwned);
    snprintf(g[0].eff.source, sizeof g[0].eff.source, "s\nsystem \"touch %.40s\"", pwned);
    pts[0].label = name;

    check_context("roofline, one GPU, named by a file");
    join(chart, sizeof chart, "inj-roof.png");
    CHECK_INT(ridge_plot_paths_from_chart(chart, &paths, &err), RIDGE_OK);
    CHECK_INT(ridge_roofline_write(&g[0], pts, n, &(ridge_roofline_options){name, title, 0}, &paths, &err), RIDGE_OK);
    {
        char *gp = check_read_file(paths.gp);
        /* the first line names the GPU and the workload, on one line */
        CHECK(gp && strncmp(gp, "# ridge ", 8) == 0 && strstr(gp, "touch") < strchr(gp, '\n'));
        free(gp);
    }
    check_names_inert(&paths, pwned);

    check_context("roofline, two GPUs, a key");
    rs[0] = (ridge_roofline_series){&g[0], pts, n};
    rs[1] = (ridge_roofline_series){&g[1], pts, n};
    CHECK_INT(ridge_roofline_write_gpus(rs, 2, &(ridge_roofline_options){bs, name, 3}, &paths, &err), RIDGE_OK);
    check_names_inert(&paths, pwned);

    check_context("curves");
    {
        ridge_curve_series cs = {name, x, y, 3, 0, 1, 0};
        ridge_curve_options co = {0};
        co.title = name;
        co.xlabel = title;
        co.ylabel = bs;
        CHECK_INT(ridge_curves_write(&cs, 1, &co, &paths, &err), RIDGE_OK);
        check_names_inert(&paths, pwned);
    }
    check_context("scatter");
    {
        const char *labels[3] = {name, title, bs};
        ridge_scatter_series ss = {name, x, y, 3, 0, 1, labels};
        ridge_scatter_options so = {0};
        so.title = title;
        so.note = name;
        so.xlabel = bs;
        CHECK_INT(ridge_scatter_write(&ss, 1, &so, &paths, &err), RIDGE_OK);
        check_names_inert(&paths, pwned);
    }
    check_context("bars");
    {
        const char *cats[2] = {name, title};
        ridge_bar_series bser = {name, y};
        CHECK_INT(ridge_bars_write(cats, 2, &bser, 1, &(ridge_bars_options){title, name, bs, 0, 1}, &paths, &err),
                  RIDGE_OK);
        check_names_inert(&paths, pwned);
    }
    check_context("validation");
    {
        const char *ids[3] = {name, title, bs};
        ridge_validation_set vs = {name, x, y, y, ids, 3, 0, 0};
        ridge_validation_options vo = {title, name, RIDGE_VALIDATION_RATIO, 0, NULL, NULL};
        CHECK_INT(ridge_validation_write(&vs, 1, &vo, &paths, &err), RIDGE_OK);
        check_names_inert(&paths, pwned);
    }
    check_context(NULL);
}

/* A chart file's contents (check_read_file), compared and freed. */
static int chart_is(const char *path, const char *want)
{
    char *s = check_read_file(path);
    int same = s && strcmp(s, want) == 0;
    free(s);
    return same;
}

static void test_gnuplot_runner(void)
{
    ridge_err err = {{0}};
    char found[256], fake[128], chart[128];
    ridge_plot_paths fail, ok, empty;
    FILE *f;
    const char *saved = getenv("RIDGE_GNUPLOT");
    char *keep = saved ? strdup(saved) : NULL;

    join(chart, sizeof chart, "s.png");
    CHECK_INT(ridge_plot_paths_from_chart(chart, &fail, &err), RIDGE_OK);
    join(chart, sizeof chart, "ok.png");
    CHECK_INT(ridge_plot_paths_from_chart(chart, &ok, &err), RIDGE_OK);
    join(chart, sizeof chart, "empty.png");
    CHECK_INT(ridge_plot_paths_from_chart(chart, &empty, &err), RIDGE_OK);

    setenv("RIDGE_GNUPLOT", "", 1);
    CHECK_INT(ridge_gnuplot_find(found, sizeof found), 0);
    CHECK_INT(ridge_gnuplot_run(&fail, &err), RIDGE_ENOTFOUND);
    CHECK_STR_HAS(err.msg, "gnuplot not found");

    setenv("RIDGE_GNUPLOT", "/no/such/gnuplot", 1);
    CHECK_INT(ridge_gnuplot_find(found, sizeof found), 0);

    /* A stand-in that runs as gnuplot does: called `-c SCRIPT -`, it writes the chart to stdout
     * (ok.gp), nothing (empty.gp), or fails with a message on stderr and exit status 1 after
     * writing part of a chart; it also checks it runs under the C locale. */
    join(fake, sizeof fake, "fake-gnuplot");
    f = fopen(fake, "w");
    if (CHECK(f != NULL)) {
        fputs("#!/bin/sh\n"
              "[ \"$LC_ALL\" = C ] || { echo \"locale is '$LC_ALL'\" >&2; exit 3; }\n"
              "[ -z \"$LANG\" ] || { echo \"LANG is '$LANG'\" >&2; exit 3; }\n"
              "[ \"$1\" = -c ] && [ \"$3\" = - ] || { echo \"called as $*\" >&2; exit 3; }\n"
              "case \"$2\" in *ok.gp) echo 'new chart'; exit 0;; *empty.gp) exit 0;; esac\n"
              "echo 'part of a ch'\n"
              "echo 'gnuplot> plot sin(' >&2\n"
              "echo \"\\\"$2\\\" line 7: unexpected end of expression\" >&2\n"
              "exit 1\n",
              f);
        fclose(f);
        chmod(fake, 0755);
    }
    setenv("RIDGE_GNUPLOT", fake, 1);
    setenv("LANG", "de_DE.UTF-8", 1);
    CHECK_INT(ridge_gnuplot_find(found, sizeof found), 1);
    CHECK_STR_EQ(found, fake);
    /* A gnuplot that fails, or writes nothing, leaves the old chart as it was, and no
     * temporary file; one that succeeds replaces it. */
    CHECK_INT(ridge_plot_write_file(fail.chart, "old chart\n", 10, &err), RIDGE_OK);
    CHECK_INT(ridge_plot_write_file(empty.chart, "old chart\n", 10, &err), RIDGE_OK);
    CHECK_INT(ridge_plot_write_file(ok.chart, "old chart\n", 10, &err), RIDGE_OK);
    CHECK_INT(ridge_gnuplot_run(&fail, &err), RIDGE_EEXTERNAL);
    CHECK_STR_HAS(err.msg, "line 7: unexpected end of expression");
    CHECK_STR_HAS(err.msg, "exit status 1");
    CHECK(chart_is(fail.chart, "old chart\n"));
    CHECK_INT(ridge_gnuplot_run(&empty, &err), RIDGE_EEXTERNAL);
    CHECK_STR_HAS(err.msg, "gnuplot wrote no chart from");
    CHECK(chart_is(empty.chart, "old chart\n"));
    CHECK_INT(ridge_gnuplot_run(&ok, &err), RIDGE_OK);
    CHECK(chart_is(ok.chart, "new chart\n"));
    CHECK_INT(entries(), 4); /* the three charts and the stand-in */
    unsetenv("LANG");
    remove(fail.chart);
    remove(empty.chart);
    remove(ok.chart);
    remove(fake);

    if (keep) {
        setenv("RIDGE_GNUPLOT", keep, 1);
        free(keep);
    } else {
        unsetenv("RIDGE_GNUPLOT");
    }
}

int main(void)
{
    if (!check_tmpdir(tmpdir, sizeof tmpdir, "ridge-test-plots"))
        return 1;
    test_paths();
    test_write_file();
    test_bound_colors();
    test_roofline();
    test_roofline_svg_and_limits();
    test_labels();
    test_roofline_sized_and_two_gpus();
    test_roofline_unwritable();
    test_validation_chart();
    test_validation_panels();
    test_curves_panels();
    test_names_cannot_inject();
    test_gnuplot_runner();
    rmdir(tmpdir);
    return check_report();
}
