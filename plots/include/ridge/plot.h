/* ridge — charts: each one is a data file (.dat) plus a gnuplot script (.gp) written beside the
 * chart path; gnuplot, when present, turns the script into the chart. Writing the .dat and .gp
 * never needs gnuplot.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Files are written atomically (a new temporary file PATH.XXXXXX from mkstemp beside PATH, then
 * rename), so a failure never leaves half-written files, and the chart too is rendered into one
 * and renamed over the old chart. The script refers to its .dat and chart by bare file name, resolved against the
 * script's own directory, so `gnuplot dir/chart.gp` works from any working directory and the
 * three files can be moved together. */
#ifndef RIDGE_PLOT_H
#define RIDGE_PLOT_H

#include <stddef.h>

#include "ridge/error.h"
#include "ridge/gpu.h"
#include "ridge/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { RIDGE_PLOT_PNG = 0, RIDGE_PLOT_SVG } ridge_plot_format;

#define RIDGE_PLOT_PATH_MAX 4096

/* The paths of a chart and its companions: "out/chart.png" -> "out/chart.dat", "out/chart.gp". */
typedef struct {
    char chart[RIDGE_PLOT_PATH_MAX];
    char dat[RIDGE_PLOT_PATH_MAX];
    char gp[RIDGE_PLOT_PATH_MAX];
    ridge_plot_format format;
} ridge_plot_paths;

/* The colour of a bound ("#rrggbb"), the same on every chart: the roofline's points and the plan
 * breakdown's bars. Compute red, DRAM blue, L2 green, latency orange, host grey; NULL for a value
 * that is no bound. */
const char *ridge_plot_bound_color(ridge_bound bound);

/* Split a chart path. The extension (.png or .svg, any case) picks the format; anything else is
 * RIDGE_EINVAL, as is an empty or overlong path or one with a control byte (a line break, say). */
int ridge_plot_paths_from_chart(const char *chart_path, ridge_plot_paths *out, ridge_err *err);

/* Write `size` bytes to `path` atomically: into a new temporary file beside it (mkstemp
 * "PATH.XXXXXX": never an existing file or a link's target, never another run's), flushed to the
 * disk, then renamed over `path`. The file gets the mode fopen would give it (0666 less the
 * umask). A path that is there and is neither a plain file nor a directory (/dev/null, a FIFO,
 * /dev/stdout), or a link to a file descriptor (ridge_plot_in_place), is written in place
 * instead, never replaced (the chart of ridge_gnuplot_run too).
 * RIDGE_EIO names the path; nothing is left behind. */
int ridge_plot_write_file(const char *path, const char *data, size_t size, ridge_err *err);

/* Whether ridge_plot_write_file writes path in place: it is there and is neither a plain file nor
 * a directory, or it is a link to an open file descriptor (/dev/stdout, /dev/fd/N, whatever
 * standard output is redirected to). */
int ridge_plot_in_place(const char *path);

/* ---- gnuplot ---- */

/* Find gnuplot: $RIDGE_GNUPLOT when set (a path, or a name looked up on PATH; set it to an
 * empty string to disable rendering), else "gnuplot" on PATH. Returns 1 and fills path (if not
 * NULL) when found, 0 otherwise. */
int ridge_gnuplot_find(char *path, size_t cap);

/* Render paths->gp into paths->chart with gnuplot under the C locale (LC_ALL=C), capturing its
 * messages: `gnuplot -c GP -` writes the chart to its standard output, a new temporary file beside
 * the chart (as ridge_plot_write_file's), renamed over the chart when gnuplot succeeds, so a
 * gnuplot that fails or is killed leaves the old chart as it was. RIDGE_ENOTFOUND when gnuplot is
 * absent; RIDGE_EEXTERNAL with gnuplot's last error line when it fails or writes nothing;
 * RIDGE_EIO when the chart cannot be written. */
int ridge_gnuplot_run(const ridge_plot_paths *paths, ridge_err *err);

/* ---- roofline ---- */

/* One kernel on a roofline chart. `pred` is the model's prediction (ridge_kernel_predict); the
 * point sits at x = pred.flops / pred.dram_bytes (when dram_bytes is 0: l2_bytes, else
 * min_bytes) and y = pred.achieved_flops_per_s (flops / time_s when that is 0). A measured
 * point, when given, is drawn hollow with the same label and joined to the predicted one. Ops
 * with no FLOPs (copies) cannot sit on a FLOP/s chart; they are listed in a comment of the .dat
 * and counted in a note on the chart. */
typedef struct {
    const char *label;  /* op name; NULL or "" -> "#index" */
    double min_bytes;   /* the op's compulsory bytes (ridge_op_min_bytes); 0 = unknown */
    ridge_kernel_result pred;
    int has_measured;
    double measured_intensity_flops_per_byte;
    double measured_flops_per_s;
    /* The op's share of the step's time, all its instances (0..1): when > 0 the marker's area is
     * proportional to it (with a minimum size, so that small kernels stay visible); 0 draws the
     * marker at the plain size. */
    double share;
} ridge_roofline_point;

/* At most this many precision roofs are drawn (those the points use, FP32 and the 16-bit
 * tensor peak; equal peaks share one roof). */
#define RIDGE_ROOFLINE_MAX_ROOFS 5

/* At most this many GPUs share one chart (ridge_roofline_write_gpus). */
#define RIDGE_ROOFLINE_MAX_GPUS 2

typedef struct {
    const char *workload_name; /* in the title; NULL or "" for none */
    const char *note;          /* a second title line ("3 measurements without an op skipped"); NULL for none */
    /* 0: every kernel may get its name as a label (up to 40). N > 0: only the N kernels of
     * largest share (time when no share is given) are labelled, each with a number beside its
     * marker that a numbered key on the chart names (with its share); on a chart of two GPUs a
     * kernel of the same label gets the same number on both. */
    int key_top;
} ridge_roofline_options;

/* The kernels of one GPU, for a chart of several. */
typedef struct {
    const ridge_gpu *gpu;
    const ridge_roofline_point *pts;
    size_t n;
} ridge_roofline_series;

/* Write paths->dat and paths->gp for a roofline chart of `gpu` with n points (n may be 0: roofs
 * only; opt may be NULL). Labels are placed by the writer, away from markers, lines and each
 * other; kernels on the same spot share a label, and past 40 labels only the slowest kernels keep
 * one (the chart says so). RIDGE_EINVAL for a GPU without DRAM bandwidth or FP32 peak; RIDGE_EIO
 * when a file cannot be written (nothing is left behind); RIDGE_ENOMEM. */
int ridge_roofline_write(const ridge_gpu *gpu, const ridge_roofline_point *pts, size_t n,
                         const ridge_roofline_options *opt, const ridge_plot_paths *paths, ridge_err *err);

/* The same for 1..RIDGE_ROOFLINE_MAX_GPUS GPUs on one chart. Each GPU's roofs share a colour
 * with the other's roof of the same precision (one palette, the same on every chart) and differ
 * by their dash (the first GPU solid, the second dash-dot); each GPU's kernels have their own
 * marker shape (filled circles, then triangles), coloured by bound. With two GPUs the achievable
 * roofs and the L2 diagonal are left out, so that the chart stays readable, and the ridge labels
 * and the key name each roof's GPU. The .dat has the same blocks as with one GPU, with every
 * GPU's rows in order (a gpu_index column in the kernel rows). RIDGE_EINVAL for no series or
 * more than RIDGE_ROOFLINE_MAX_GPUS, and as ridge_roofline_write. */
int ridge_roofline_write_gpus(const ridge_roofline_series *series, size_t nseries, const ridge_roofline_options *opt,
                              const ridge_plot_paths *paths, ridge_err *err);

/* ---- curves: y against x, several named series (plots/curves.c) ---- */

/* One line of points. Series with the same `group` share a colour (one per GPU, say) and those
 * with the same `dash` share a dash pattern (one per statistic: 1 solid, 2 dashed, 3 dotted, ...).
 * Points whose x or y is not finite (an unstable queue) are left out of the line. */
typedef struct {
    const char *name;   /* key title; NULL or "" -> "series N" */
    const double *x;    /* n values (borrowed) */
    const double *y;
    size_t n;
    int group;          /* >= 0 */
    int dash;           /* >= 1 */
    int panel;          /* with the options' npanels > 1: the panel it is drawn in (0 = top) */
} ridge_curve_series;

/* At most this many panels on one curve chart. */
#define RIDGE_CURVES_MAX_PANELS 4

typedef struct {
    const char *title;  /* NULL for none */
    const char *xlabel; /* with the unit: "Offered load [requests/s]" */
    const char *ylabel;
    int log_y;          /* logarithmic y axis */
    /* Optional vertical lines (a saturation rate, say), dotted in their group's colour with a
     * label at the top: nvlines entries in each array (borrowed). */
    size_t nvlines;
    const double *vline_x;
    const int *vline_group;
    const char *const *vline_label;
    /* npanels > 1: that many panels stacked top to bottom, sharing the x axis (multiplot), each
     * with its own y axis (panel_ylabel[p], log or not as log_y) and key; the vertical lines are
     * drawn in every panel, labelled in the top one. 0 or 1: one panel, ylabel. */
    size_t npanels;
    const char *const *panel_ylabel;
    /* Optional horizontal lines (an objective, say), dashed red with a label at the right end:
     * nhlines entries (borrowed), each in panel hline_panel[i] (0 on a one-panel chart). */
    size_t nhlines;
    const double *hline_y;
    const int *hline_panel;
    const char *const *hline_label;
} ridge_curve_options;

/* Write paths->dat (one block per series: x y, selected with `index N`; with panels the block's
 * comment names its panel) and paths->gp (lines and points, the key inside top left).
 * RIDGE_EINVAL for no series, a negative group or dash < 1, more than RIDGE_CURVES_MAX_PANELS
 * panels, a series or horizontal line outside the panels;
 * RIDGE_EIO when a file cannot be written (nothing is left behind); RIDGE_ENOMEM. */
int ridge_curves_write(const ridge_curve_series *series, size_t nseries, const ridge_curve_options *opt,
                       const ridge_plot_paths *paths, ridge_err *err);

/* ---- scatter: points per group, optional joined lines (plots/scatter.c) ---- */

/* A set of points. Sets with the same `group` share a colour (one per GPU, say). A set with
 * `line` = 1 is joined in the order given and drawn thick and dark over the points (a Pareto
 * front), with large hollow markers around its points; `line` = 2 joins a set in its colour.
 * Points with a non-finite coordinate, or
 * one <= 0 on a log axis, are left out. */
typedef struct {
    const char *name;   /* key title; NULL or "" -> "set N" */
    const double *x;    /* n values (borrowed) */
    const double *y;
    size_t n;
    int group;          /* >= 0 */
    int line;           /* 0: points; 1: joined, highlighted; 2: joined in the group's colour */
    /* n point labels (borrowed; "a100 x8, batch 64"), or NULL for none. Up to
     * RIDGE_SCATTER_MAX_INLINE labelled points on the chart are labelled beside their markers,
     * alternately above right and below left; more are numbered 1, 2, ... in order, with a
     * numbered key right of the plot naming them. */
    const char *const *labels;
} ridge_scatter_series;

#define RIDGE_SCATTER_MAX_INLINE 8

typedef struct {
    const char *title;  /* NULL for none */
    const char *note;   /* a second title line; NULL for none */
    const char *xlabel; /* with the unit: "Time to finish [h]" */
    const char *ylabel;
    int log_x, log_y;   /* logarithmic axes */
    int key_outside;    /* 1: the key right of the plot (default: inside, bottom left) */
    int y_from_zero;    /* 1: a linear y axis starts at 0 */
} ridge_scatter_options;

/* Write paths->dat (one block per set: x y, `index N`; a labelled set adds a third column, its
 * label in double quotes) and paths->gp. RIDGE_EINVAL for no sets, a negative group, or no point
 * to draw at all (every set empty or left out); RIDGE_EIO when a file cannot be written (nothing
 * is left behind). */
int ridge_scatter_write(const ridge_scatter_series *series, size_t nseries, const ridge_scatter_options *opt,
                        const ridge_plot_paths *paths, ridge_err *err);

/* ---- bars: grouped or stacked bars over named categories (plots/bars.c) ---- */

typedef struct {
    const char *name;      /* key title (a bar within a group, or a layer of a stack) */
    const double *values;  /* one per category (borrowed); a non-finite value draws no bar */
} ridge_bar_series;

typedef struct {
    const char *title;    /* NULL for none */
    const char *note;     /* a second title line; NULL for none */
    const char *ylabel;   /* with the unit */
    int stacked;          /* 1: one stacked bar per category; 0: grouped bars, one per series */
    int value_labels;     /* 1: print each bar's value above it (grouped) or the total (stacked) */
} ridge_bars_options;

/* Write paths->dat (a header row of series names, then one row per category: the category in
 * double quotes and its values, NaN for no bar) and paths->gp (gnuplot histograms).
 * A series without any finite value is listed in the .dat but not drawn. RIDGE_EINVAL for no
 * categories or series, or no finite value at all; RIDGE_EIO; RIDGE_ENOMEM. */
int ridge_bars_write(const char *const *categories, size_t ncategories, const ridge_bar_series *series,
                     size_t nseries, const ridge_bars_options *opt, const ridge_plot_paths *paths, ridge_err *err);

/* The same with a colour per series: colors[j] ("#rrggbb", borrowed) for series j, a bound's
 * ridge_plot_bound_color, say; NULL, or a NULL entry, takes the general palette's. Another
 * colour string is RIDGE_EINVAL. */
int ridge_bars_write_colored(const char *const *categories, size_t ncategories, const ridge_bar_series *series,
                             size_t nseries, const char *const *colors, const ridge_bars_options *opt,
                             const ridge_plot_paths *paths, ridge_err *err);

/* ---- validation: predicted / measured per case (plots/validation.c, ridge validate --chart) ---- */

/* A set of cases in one unit ("images/s", "s", ...), drawn in one colour and marker. Cases with
 * a measured or predicted value that is not finite and positive are left out. */
typedef struct {
    const char *name;             /* key title ("images/s (18)"); NULL or "" -> "set N" */
    const double *number;         /* n case numbers for the x axis (borrowed) */
    const double *measured;       /* n values in the set's unit */
    const double *predicted;
    const char *const *ids;       /* n case ids for the .dat, or NULL */
    size_t n;
    /* SCATTER with the options' npanels > 0: the panel (its unit) the set is drawn in, and its
     * colour and marker (one per group or family: the same on every panel). */
    int panel;
    int color;
} ridge_validation_set;

typedef enum {
    RIDGE_VALIDATION_SCATTER = 0, /* predicted / measured against measured, a panel per unit */
    RIDGE_VALIDATION_RATIO        /* predicted / measured (log) against the case number */
} ridge_validation_style;

/* At most this many panels on a SCATTER chart. */
#define RIDGE_VALIDATION_MAX_PANELS 8

typedef struct {
    const char *title; /* NULL: "Predicted / measured" */
    const char *note;  /* a second title line (the error summary); NULL for none */
    ridge_validation_style style;
    /* SCATTER: npanels panels (1..RIDGE_VALIDATION_MAX_PANELS), panel_titles[p] naming each (its
     * unit and error summary; borrowed), each set in its `panel` with its `color`. 0: one
     * panel, a colour per set in order. */
    size_t npanels;
    const char *const *panel_titles;
    const char *const *panel_units; /* npanels units for the x labels ("images/s"); NULL: none */
} ridge_validation_options;

/* Write paths->dat (one block per set: number measured predicted ratio "id"; with panels the
 * block's comment names its panel) and paths->gp. SCATTER: in each panel (gnuplot multiplot,
 * two columns), the ratio predicted / measured on a log axis against the measured value on a
 * log axis in the panel's unit, with the exact line (1), the ±10 % band shaded and dashed and
 * the ±25 % lines dotted; small markers, translucent for a set of many cases, and each panel's
 * key right of it. RATIO: the ratio on a log axis against the case number, with the same bands
 * as horizontal lines; the ratio is unit-free, so files mixing units share one axis.
 * RIDGE_EINVAL for no sets, too many panels or a set outside them; RIDGE_EIO when a file cannot
 * be written (nothing is left behind); RIDGE_ENOMEM. */
int ridge_validation_write(const ridge_validation_set *sets, size_t nsets, const ridge_validation_options *opt,
                           const ridge_plot_paths *paths, ridge_err *err);

#ifdef __cplusplus
}
#endif
#endif
