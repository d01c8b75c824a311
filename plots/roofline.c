/* Roofline charts: the .dat (roofs, bandwidth diagonals, ridge points, kernels) and the gnuplot
 * script that draws them on log-log axes, in the manner of the Empirical Roofline Toolkit.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ridge/plot.h"
#include "textbuf.h"
#include "ridge/version.h"

#define TERA 1e12

/* ---- a growable text buffer (the files are built in memory, then written atomically) ---- */

/* ---- text that goes into the files ---- */

/* A label for a double-quoted string in the .dat: no quotes, backslashes or control bytes. */
static void dat_label(const char *in, char *out, size_t cap)
{
    size_t k = 0;
    for (; in && *in && k + 1 < cap; in++) {
        unsigned char c = (unsigned char)*in;
        out[k++] = c == '"' ? '\'' : c == '\\' ? '/' : c < 0x20 || c == 0x7f ? ' ' : (char)c;
    }
    out[k] = '\0';
}

/* ---- roofs ---- */

/* Short names for roof and ridge labels ("BF16 ridge 206 FLOP/B"). */
static const char *const short_names[RIDGE_PEAK_COUNT] = {
    "FP64", "FP64 tensor", "FP32", "FP16 vector", "TF32", "FP16", "FP16", "BF16", "FP8", "INT8", "INT4",
};

typedef struct {
    char name[48]; /* "BF16/FP16" */
    double peak_flops_per_s;
    double achievable_flops_per_s;
    int tensor, integer;
    ridge_peak peak; /* the first precision of the roof: its colour */
} roof;

/* The roofs to draw: the 16-bit tensor peak and FP32 always, then the peaks the kernels use, most
 * used first; equal peaks on the same unit share one roof; at most RIDGE_ROOFLINE_MAX_ROOFS.
 * Returned sorted by peak, highest first. */
static int pick_roofs(const ridge_gpu *gpu, const ridge_roofline_point *pts, size_t n, roof *out)
{
    size_t used[RIDGE_PEAK_COUNT] = {0};
    int cand[2 + RIDGE_PEAK_COUNT], ncand = 0, nroof = 0;
    int sixteen = -1;
    const ridge_peak tensor16[3] = {RIDGE_PEAK_BF16, RIDGE_PEAK_FP16_FP32ACC, RIDGE_PEAK_FP16};

    for (size_t i = 0; i < n; i++)
        if ((unsigned)pts[i].pred.peak < RIDGE_PEAK_COUNT && pts[i].pred.flops > 0)
            used[pts[i].pred.peak]++;
    for (int i = 0; i < 3 && sixteen < 0; i++)
        if (gpu->peak_flops_per_s[tensor16[i]] > 0)
            sixteen = (int)tensor16[i];
    if (sixteen >= 0)
        cand[ncand++] = sixteen;
    cand[ncand++] = RIDGE_PEAK_FP32;
    for (;;) { /* used peaks by decreasing use; ties in enum order */
        int best = -1;
        for (int p = 0; p < RIDGE_PEAK_COUNT; p++)
            if (used[p] && (best < 0 || used[p] > used[best]))
                best = p;
        if (best < 0)
            break;
        cand[ncand++] = best;
        used[best] = 0;
    }
    for (int c = 0; c < ncand; c++) {
        ridge_peak p = (ridge_peak)cand[c];
        double peak = gpu->peak_flops_per_s[p];
        int tensor = ridge_peak_is_tensor(p), merged = 0;
        if (peak <= 0)
            continue;
        for (int r = 0; r < nroof && !merged; r++) {
            if (out[r].tensor == tensor && out[r].integer == ridge_peak_is_integer(p) &&
                fabs(out[r].peak_flops_per_s - peak) <= 1e-9 * peak &&
                fabs(out[r].achievable_flops_per_s - peak * ridge_efficiency_fraction(&gpu->eff, p)) <= 1e-9 * peak) {
                /* Name each precision once ("FP16" stands for both FP16 accumulators). */
                const char *sn = short_names[p];
                size_t len = strlen(out[r].name);
                char padded[sizeof out[r].name + 2], needle[24];
                snprintf(padded, sizeof padded, "/%s/", out[r].name);
                snprintf(needle, sizeof needle, "/%s/", sn);
                if (!strstr(padded, needle) && len + strlen(sn) + 2 <= sizeof out[r].name)
                    snprintf(out[r].name + len, sizeof out[r].name - len, "/%s", sn);
                merged = 1;
            }
        }
        if (merged || nroof == RIDGE_ROOFLINE_MAX_ROOFS)
            continue;
        snprintf(out[nroof].name, sizeof out[nroof].name, "%s", short_names[p]);
        out[nroof].peak_flops_per_s = peak;
        out[nroof].achievable_flops_per_s = peak * ridge_efficiency_fraction(&gpu->eff, p);
        if (!(out[nroof].achievable_flops_per_s > 0) || out[nroof].achievable_flops_per_s > peak)
            out[nroof].achievable_flops_per_s = peak;
        out[nroof].tensor = tensor;
        out[nroof].integer = ridge_peak_is_integer(p);
        out[nroof].peak = p;
        nroof++;
    }
    for (int i = 1; i < nroof; i++) /* insertion sort, highest peak first */
        for (int j = i; j > 0 && out[j].peak_flops_per_s > out[j - 1].peak_flops_per_s; j--) {
            roof t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return nroof;
}

/* ---- kernels ---- */

typedef struct {
    double x, y;   /* FLOP/byte, FLOP/s */
    double mx, my; /* measured, when has_measured */
    double time_s;
    int candidate; /* may get a label */
    int has_measured;
    int bound;
    int gpu;       /* the series it belongs to */
    double share;  /* of the step's time; 0: not given */
    char label[RIDGE_OP_NAME_MAX + 8];
} kpoint;

enum { NBOUNDS = RIDGE_BOUND_COUNT };
static const char *const bound_titles[NBOUNDS] = {"compute-bound", "DRAM-bound", "L2-bound", "latency-bound",
                                                  "host-bound"};
static const char *const bound_keys[NBOUNDS] = {"compute", "dram", "l2", "latency", "host"};
/* One colour per precision, the same on every chart: a roof takes its first precision's (the
 * 16-bit tensor roof is black, FP32 brown, ...), whatever else the chart draws. */
static const char *const roof_colors[RIDGE_PEAK_COUNT] = {
    "#6b6ecf", /* FP64 */
    "#393b79", /* FP64 tensor */
    "#8c564b", /* FP32 */
    "#e377c2", /* FP16 vector */
    "#9467bd", /* TF32 */
    "#222222", /* FP16 */
    "#222222", /* FP16, FP32 accumulate */
    "#222222", /* BF16 */
    "#17becf", /* FP8 */
    "#bcbd22", /* INT8 */
    "#637939", /* INT4 */
};
#define DRAM_COLOR ridge_plot_bound_color(RIDGE_BOUND_MEMORY)
#define L2_COLOR ridge_plot_bound_color(RIDGE_BOUND_L2)
#define BOUND_COLOR(b) ridge_plot_bound_color((ridge_bound)(b))

static int usable(double v)
{
    return isfinite(v) && v > 0;
}

static double decade_floor(double v)
{
    return pow(10.0, floor(log10(v) + 1e-9));
}

static double decade_ceil(double v)
{
    return pow(10.0, ceil(log10(v) - 1e-9));
}

/* "206" / "13.9" / "0.25": three significant digits, no exponent for chart-sized numbers. */
static const char *num3(double v, char *buf, size_t cap)
{
    if (fabs(v) >= 100 && fabs(v) < 1e15)
        snprintf(buf, cap, "%.0f", v);
    else
        snprintf(buf, cap, "%.3g", v);
    return buf;
}

/* "4.8 TB/s", "300 GB/s". */
static const char *bandwidth(double bytes_per_s, char *buf, size_t cap)
{
    char n[32];
    if (bytes_per_s >= TERA)
        snprintf(buf, cap, "%.24s TB/s", num3(bytes_per_s / TERA, n, sizeof n));
    else
        snprintf(buf, cap, "%.24s GB/s", num3(bytes_per_s / 1e9, n, sizeof n));
    return buf;
}

/* The x of a kernel: its operational intensity, FLOPs over the op's compulsory bytes, the same x
 * as its measured point (where the bytes are actually served from is the model's business). */
static double kernel_bytes(const ridge_roofline_point *p)
{
    return p->min_bytes > 0 ? p->min_bytes : p->pred.min_bytes;
}

static int plottable(const ridge_roofline_point *p)
{
    return usable(p->pred.flops) && usable(kernel_bytes(p)) &&
           (usable(p->pred.achieved_flops_per_s) || usable(p->pred.time_s));
}

static void point_label(const ridge_roofline_point *p, size_t i, char *out, size_t cap)
{
    if (p->label && p->label[0])
        dat_label(p->label, out, cap);
    else
        snprintf(out, cap, "#%zu", i);
}

/* ---- where things land on the canvas, for label placement ---- */

/* The script pins the plot area to these fractions of the 1200x800 canvas, so the writer knows
 * the pixel position of every point and can put labels where they collide least. */
#define CANVAS_W_PX 1200.0
#define CANVAS_H_PX 800.0
#define PLOT_LEFT 0.075
#define PLOT_RIGHT 0.975
#define PLOT_BOTTOM 0.20
#define PLOT_TOP 0.90
/* Text metrics of the label fonts as cairo draws them at this size (slightly generous). */
#define KERNEL_FONT_PT 8
#define KERNEL_CHAR_PX 6.2
#define RIDGE_FONT_PT 9
#define RIDGE_CHAR_PX 6.9
#define LINE_PX 12.0
#define MARKER_PX 5.0 /* half the width of a point marker */
/* Points closer than this share one label ("residual_1, residual_2"). */
#define SAME_SPOT_PX 4.0
/* A measured point this close to its prediction needs no label of its own. */
#define OWN_LABEL_PX 14.0
#define LABEL_TEXT_MAX 72
#define MERGED_LABEL_MAX 60 /* "a, b, c +2 more" stops growing here */
#define LABELS_MAX 40
#define LABEL_CANDIDATES 2000 /* the slowest kernels considered for labels */

typedef struct {
    double xlo, xhi, ylo, yhi; /* FLOP/byte, FLOP/s */
    double w_px, h_px;
} frame;

typedef struct {
    double x0, y0, x1, y1;
    double weight; /* cost per square pixel of overlap */
} box;

typedef struct {
    double px, py; /* the point */
    double lx, ly; /* the label anchor (pixels), once placed */
    char align;    /* 'l', 'r' or 'c' */
    int leader;    /* 1: placed far enough to need a line from the point */
    size_t spot;   /* index of the chosen spot */
    double weight; /* the slowest kernel's time: who keeps a label in a crowd */
    double fx, fy, tx, ty; /* the leader line (pixels) */
    char text[LABEL_TEXT_MAX];
} label;

static double px_x(const frame *f, double x)
{
    return f->w_px * log10(x / f->xlo) / log10(f->xhi / f->xlo);
}

static double px_y(const frame *f, double y)
{
    return f->h_px * log10(y / f->ylo) / log10(f->yhi / f->ylo);
}

static double data_x(const frame *f, double px)
{
    return f->xlo * pow(f->xhi / f->xlo, px / f->w_px);
}

static double data_y(const frame *f, double py)
{
    return f->ylo * pow(f->yhi / f->ylo, py / f->h_px);
}

static box around(double x, double y, double half)
{
    box b = {x - half, y - half, x + half, y + half, 1.0};
    return b;
}

/* The box of `chars` characters anchored at (x, y), vertically centred as gnuplot draws labels. */
static box text_box(double x, double y, char align, size_t chars, double char_px)
{
    double w = (double)chars * char_px;
    double x0 = align == 'l' ? x : align == 'r' ? x - w : x - w / 2;
    box b = {x0, y - LINE_PX / 2, x0 + w, y + LINE_PX / 2, 1.0};
    return b;
}

static double overlap(box a, box b)
{
    double w = fmin(a.x1, b.x1) - fmax(a.x0, b.x0), h = fmin(a.y1, b.y1) - fmax(a.y0, b.y0);
    return w > 0 && h > 0 ? w * h : 0;
}

/* A drawn line as a chain of small boxes, so labels keep off roofs and diagonals. */
#define LINE_STEP_PX 8.0
#define LINE_HALF_PX 1.5
#define LINE_BOXES_MAX 200 /* per line: the canvas diagonal over the step, rounded up */
#define LINE_WEIGHT 0.3    /* text across a thin line stays readable; across text or a marker it does not */

static size_t line_obstacles(box *out, double x0, double y0, double x1, double y1, const frame *f)
{
    double len = hypot(x1 - x0, y1 - y0);
    size_t steps = (size_t)ceil(len / LINE_STEP_PX), k = 0;
    if (steps >= LINE_BOXES_MAX)
        steps = LINE_BOXES_MAX - 1;
    for (size_t i = 0; i <= steps; i++) {
        double t = steps ? (double)i / (double)steps : 0, x = x0 + t * (x1 - x0), y = y0 + t * (y1 - y0);
        if (x >= 0 && x <= f->w_px && y >= 0 && y <= f->h_px) {
            out[k] = around(x, y, LINE_HALF_PX);
            out[k++].weight = LINE_WEIGHT;
        }
    }
    return k;
}

typedef struct {
    double dx, dy; /* from the point to the label anchor, pixels (y up) */
    char align;
} spot;

/* Kernel labels: beside the point first, then above or below, then farther with a leader. */
static const spot kernel_spots[] = {
    {8, 0, 'l'},   {7, 8, 'l'},    {7, -8, 'l'},   {-8, 0, 'r'},    {-7, 8, 'r'},   {-7, -8, 'r'},
    {0, 13, 'c'},  {0, -13, 'c'}, /* nearer than this needs no leader line */
    {12, 20, 'l'}, {12, -20, 'l'}, {-12, 20, 'r'}, {-12, -20, 'r'}, {0, 27, 'c'},  {0, -27, 'c'},
    {16, 34, 'l'}, {16, -34, 'l'}, {-16, 34, 'r'}, {-16, -34, 'r'}, {0, 42, 'c'},  {0, -42, 'c'},
};
#define KERNEL_NEAR_SPOTS 8
/* Ridge labels: above the roof right of the ridge, else below it, clear of the diagonals. */
static const spot ridge_spots[] = {
    {6, 10, 'l'}, {8, -11, 'l'}, {-6, 10, 'r'}, {10, -19, 'l'}, {10, 19, 'l'}, {-6, -11, 'r'},
};

/* Placement costs, in square pixels of overlap. */
#define OUTSIDE_WEIGHT 4.0  /* text outside the plot area */
#define SPOT_PENALTY 12.0   /* per step down the spot list, so near spots win small overlaps */
#define AMBIGUITY_COST 200.0 /* a label nearer to another marker than to its own reads as that one's */
#define REFINE_PASSES 3
#define REFINE_MAX_LABELS 400 /* beyond this only the greedy pass runs (the chart is a cloud anyway) */

/* What a label is placed against. The scratch lists hold, for the label at hand, the obstacles
 * and markers near enough to matter, so a chart with many kernels stays fast. */
typedef struct {
    const box *obst;
    const double *marks; /* marker centres, x y pairs */
    size_t nmarks;
    box area;
    size_t *near_obst, *near_marks; /* scratch */
} scene;

#define AMBIGUITY_REACH_PX 60.0 /* farther than any spot: a marker beyond cannot be nearer than its own */

static double box_distance(box b, double x, double y)
{
    return hypot(fmax(fmax(b.x0 - x, x - b.x1), 0), fmax(fmax(b.y0 - y, y - b.y1), 0));
}

static double spot_cost(box b, const label *l, const scene *sc, size_t nnear_obst, size_t nnear_marks)
{
    double cost = OUTSIDE_WEIGHT * ((b.x1 - b.x0) * (b.y1 - b.y0) - overlap(b, sc->area));
    double own = box_distance(b, l->px, l->py);
    for (size_t i = 0; i < nnear_obst; i++)
        cost += sc->obst[sc->near_obst[i]].weight * overlap(b, sc->obst[sc->near_obst[i]]);
    for (size_t i = 0; i < nnear_marks; i++) {
        size_t m = sc->near_marks[i];
        if (box_distance(b, sc->marks[2 * m], sc->marks[2 * m + 1]) < own + 2)
            cost += AMBIGUITY_COST;
    }
    return cost;
}

/* The best spot for label l against the first nobst obstacles (skipping its own box at `skip`).
 * Greedy mode stops at the first spot without overlap. */
static size_t best_spot(const label *l, const scene *sc, size_t nobst, size_t skip, const spot *spots,
                        size_t nspots, double char_px, int greedy, box *chosen)
{
    size_t len = strlen(l->text), best = 0, no = 0, nm = 0;
    double best_cost = INFINITY;
    box reach = {l->px, l->py, l->px, l->py, 1.0};
    for (size_t s = 0; s < nspots; s++) {
        box b = text_box(l->px + spots[s].dx, l->py + spots[s].dy, spots[s].align, len, char_px);
        reach.x0 = fmin(reach.x0, b.x0);
        reach.y0 = fmin(reach.y0, b.y0);
        reach.x1 = fmax(reach.x1, b.x1);
        reach.y1 = fmax(reach.y1, b.y1);
    }
    for (size_t k = 0; k < nobst; k++)
        if (k != skip && sc->obst[k].x0 <= reach.x1 && sc->obst[k].x1 >= reach.x0 && sc->obst[k].y0 <= reach.y1 &&
            sc->obst[k].y1 >= reach.y0)
            sc->near_obst[no++] = k;
    for (size_t m = 0; m < sc->nmarks; m++) {
        double mx = sc->marks[2 * m], my = sc->marks[2 * m + 1];
        if (fabs(mx - l->px) < SAME_SPOT_PX && fabs(my - l->py) < SAME_SPOT_PX)
            continue; /* its own point, or one sharing the label */
        if (box_distance(reach, mx, my) < AMBIGUITY_REACH_PX)
            sc->near_marks[nm++] = m;
    }
    for (size_t s = 0; s < nspots; s++) {
        box b = text_box(l->px + spots[s].dx, l->py + spots[s].dy, spots[s].align, len, char_px);
        double overlap_cost = spot_cost(b, l, sc, no, nm), cost = overlap_cost + SPOT_PENALTY * (double)s;
        if (cost < best_cost) {
            best_cost = cost;
            best = s;
            *chosen = b;
        }
        if (greedy && overlap_cost == 0)
            break;
    }
    return best;
}

/* Label placement: a greedy pass (each label at the first spot around its point that collides
 * with nothing placed so far: markers, lines, labels), then a few passes moving each label to its
 * best spot given all the others, which undoes the greedy pass's dependence on order.
 * Deterministic. The placed boxes are appended to obst (it has room for them). Spots from index
 * `near` on get a leader line. */
static int place_labels(label *lab, size_t nlab, box *obst, size_t *nobst, const double *marks, size_t nmarks,
                        const frame *f, const spot *spots, size_t nspots, size_t near, double char_px)
{
    const size_t base = *nobst;
    scene sc = {obst, marks, nmarks, {2, 2, f->w_px - 2, f->h_px - 2, 1.0}, NULL, NULL};
    sc.near_obst = malloc((base + nlab + 1) * sizeof *sc.near_obst);
    sc.near_marks = malloc((nmarks + 1) * sizeof *sc.near_marks);
    if (!sc.near_obst || !sc.near_marks) {
        free(sc.near_obst);
        free(sc.near_marks);
        return -1;
    }
    for (size_t i = 0; i < nlab; i++)
        lab[i].spot = best_spot(&lab[i], &sc, base + i, (size_t)-1, spots, nspots, char_px, 1, &obst[base + i]);
    for (int pass = 0; pass < REFINE_PASSES && nlab <= REFINE_MAX_LABELS; pass++)
        for (size_t i = 0; i < nlab; i++)
            lab[i].spot = best_spot(&lab[i], &sc, base + nlab, base + i, spots, nspots, char_px, 0, &obst[base + i]);
    for (size_t i = 0; i < nlab; i++) {
        const box *b = &obst[base + i];
        lab[i].lx = lab[i].px + spots[lab[i].spot].dx;
        lab[i].ly = lab[i].py + spots[lab[i].spot].dy;
        lab[i].align = spots[lab[i].spot].align;
        lab[i].leader = lab[i].spot >= near;
        if (lab[i].leader) {
            /* From the marker's edge to the nearest point of the text. */
            double tx = fmin(fmax(lab[i].px, b->x0), b->x1), ty = fmin(fmax(lab[i].py, b->y0), b->y1);
            double d = hypot(tx - lab[i].px, ty - lab[i].py);
            lab[i].fx = lab[i].px + (tx - lab[i].px) * (MARKER_PX + 1) / d;
            lab[i].fy = lab[i].py + (ty - lab[i].py) * (MARKER_PX + 1) / d;
            lab[i].tx = tx;
            lab[i].ty = ty;
        }
    }
    *nobst = base + nlab;
    free(sc.near_obst);
    free(sc.near_marks);
    return 0;
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Keep the `keep` labels of largest weight (ties: the earlier), in their original order. */
static size_t keep_slowest(label *lab, size_t nlab, size_t keep)
{
    size_t k = 0;
    for (size_t i = 0; i < nlab; i++) {
        size_t heavier = 0;
        for (size_t j = 0; j < nlab && heavier < keep; j++)
            if (lab[j].weight > lab[i].weight || (lab[j].weight == lab[i].weight && j < i))
                heavier++;
        if (heavier < keep)
            lab[k++] = lab[i];
    }
    return k;
}

/* ---- the writer ---- */

/* One GPU's roofs and bandwidths. */
typedef struct {
    const ridge_gpu *gpu;
    roof roofs[RIDGE_ROOFLINE_MAX_ROOFS];
    int nroof;
    double bw, adram, l2bw, maxach;
} gpu_roofs;

/* Marker shapes, one per GPU: filled circle, filled triangle. */
static const int gpu_marker[RIDGE_ROOFLINE_MAX_GPUS] = {7, 9};
static const char *const gpu_marker_words[RIDGE_ROOFLINE_MAX_GPUS] = {"circles", "triangles"};
/* Roof dashes, one per GPU (achievable roofs are dashed, 2, and drawn for one GPU only). */
static const int gpu_dash[RIDGE_ROOFLINE_MAX_GPUS] = {1, 4};

/* Marker sizes (gnuplot `ps`): a kernel's area is proportional to its share of the step, above
 * a minimum that keeps the smallest visible, the largest kernel of the chart at SHARE_PS_MAX;
 * unsized kernels take the plain size. */
#define POINT_PS 1.2
#define SHARE_PS_MAX 4.5
#define SHARE_PS_MIN 0.55
/* Sized markers are drawn with this transparency ('#AARRGGBB'), so that overlapping ones show. */
#define SHARE_ALPHA "50"
#define KEY_FONT_PT 9
#define KEY_CHAR_PX 6.9
#define KEY_LINE_PX 14.0
#define KEY_TOP_MAX 20
#define KEY_LINE_MAX 160
/* Two GPUs' legend is twice as long: the canvas grows below the plot area, which keeps its size. */
#define MULTI_CANVAS_H_PX 850.0

/* ps_scale: SHARE_PS_MAX / sqrt(the largest share on the chart). */
static double marker_ps(double share, double ps_scale)
{
    return share > 0 ? fmax(SHARE_PS_MIN, ps_scale * sqrt(share)) : POINT_PS;
}

static int gpu_roofs_init(gpu_roofs *g, const ridge_roofline_series *s, ridge_err *err)
{
    const ridge_gpu *gpu = s->gpu;
    if (!gpu || (s->n > 0 && !s->pts))
        return ridge_err_set(err, RIDGE_EINVAL, "roofline: missing GPU, points or paths");
    g->gpu = gpu;
    g->bw = gpu->memory_bw_bytes_per_s;
    if (!usable(g->bw) || !usable(gpu->peak_flops_per_s[RIDGE_PEAK_FP32]))
        return ridge_err_set(err, RIDGE_EINVAL, "%s: roofline needs the DRAM bandwidth and the FP32 peak", gpu->id);
    g->adram = g->bw * (usable(gpu->eff.dram_fraction) && gpu->eff.dram_fraction <= 1 ? gpu->eff.dram_fraction : 1.0);
    g->l2bw = usable(gpu->eff.l2_bandwidth_bytes_per_s) ? gpu->eff.l2_bandwidth_bytes_per_s : 0;
    g->nroof = pick_roofs(gpu, s->pts, s->n, g->roofs);
    g->maxach = 0;
    for (int r = 0; r < g->nroof; r++)
        g->maxach = fmax(g->maxach, g->roofs[r].achievable_flops_per_s);
    return RIDGE_OK;
}

/* "1.23 %" of a share, else the kernel's time ("312 us"). */
static const char *share_text(double share, double time_s, char *buf, size_t cap)
{
    char n[32];
    if (share > 0)
        snprintf(buf, cap, "%.24s %%", num3(100 * share, n, sizeof n));
    else if (time_s >= 1e-3)
        snprintf(buf, cap, "%.24s ms", num3(time_s * 1e3, n, sizeof n));
    else
        snprintf(buf, cap, "%.24s us", num3(time_s * 1e6, n, sizeof n));
    return buf;
}

/* The keyed kernels: the key_top distinct labels of largest weight (share, else time), in that
 * order. Returns how many. */
static size_t pick_keyed(const kpoint *kp, size_t nk, size_t top, size_t *keyed)
{
    size_t nkey = 0;
    while (nkey < top) {
        size_t best = (size_t)-1;
        for (size_t i = 0; i < nk; i++) {
            int taken = 0;
            double w = kp[i].share > 0 ? kp[i].share : kp[i].time_s;
            for (size_t k = 0; k < nkey && !taken; k++)
                taken = strcmp(kp[keyed[k]].label, kp[i].label) == 0;
            if (!taken && (best == (size_t)-1 ||
                           w > (kp[best].share > 0 ? kp[best].share : kp[best].time_s)))
                best = i;
        }
        if (best == (size_t)-1)
            break;
        keyed[nkey++] = best;
    }
    return nkey;
}

/* The label already at pixel (x, y), or a new one there with text and weight (*added set to 1):
 * its index. */
static size_t label_for_spot(label *lab, size_t *nlab, double x, double y, const char *text, double weight,
                             int *added)
{
    size_t j;
    for (j = 0; j < *nlab; j++)
        if (fabs(lab[j].px - x) < SAME_SPOT_PX && fabs(lab[j].py - y) < SAME_SPOT_PX)
            return j;
    lab[j].px = x;
    lab[j].py = y;
    snprintf(lab[j].text, sizeof lab[j].text, "%s", text);
    lab[j].weight = weight;
    *added = 1;
    (*nlab)++;
    return j;
}

/* The number (1-based) of kernel i's label in the key, or 0. */
static int key_number(const kpoint *kp, size_t i, const size_t *keyed, size_t nkey)
{
    for (size_t k = 0; k < nkey; k++)
        if (strcmp(kp[keyed[k]].label, kp[i].label) == 0)
            return (int)k + 1;
    return 0;
}

int ridge_roofline_write(const ridge_gpu *gpu, const ridge_roofline_point *pts, size_t n,
                         const ridge_roofline_options *opt, const ridge_plot_paths *paths, ridge_err *err)
{
    ridge_roofline_series s = {gpu, pts, n};
    if (!gpu)
        return ridge_err_set(err, RIDGE_EINVAL, "roofline: missing GPU, points or paths");
    return ridge_roofline_write_gpus(&s, 1, opt, paths, err);
}

int ridge_roofline_write_gpus(const ridge_roofline_series *series, size_t ns, const ridge_roofline_options *opt,
                              const ridge_plot_paths *paths, ridge_err *err)
{
    gpu_roofs gr[RIDGE_ROOFLINE_MAX_GPUS];
    kpoint *kp = NULL;
    label *lab = NULL, rlab[RIDGE_ROOFLINE_MAX_GPUS * RIDGE_ROOFLINE_MAX_ROOFS];
    box *obst = NULL;
    double *marks = NULL;
    size_t keyed[KEY_TOP_MAX];
    size_t n = 0, nmarks = 0, nrlab = 0, nkey = 0, key_top;
    size_t nk = 0, nskipped = 0, nmeasured = 0, nlab = 0, ngroups = 0, nobst = 0, nleaders = 0;
    int ngroups_extra = 0; /* 1: not every kernel was a label candidate */
    int bound_used[RIDGE_ROOFLINE_MAX_GPUS][NBOUNDS] = {{0}}, any_bound[NBOUNDS] = {0};
    int align_used[3] = {0}, ridge_align_used[3] = {0}, rc = RIDGE_OK, multi = ns > 1, sized = 0;
    double minx = INFINITY, maxx = 0, miny = INFINITY, skipped_share = 0, drawn_share = 0;
    double key_lx = 0, key_ty = 0; /* the key's top left corner, pixels */
    double max_share = 0, ps_scale = 0, canvas_h = ns > 1 ? MULTI_CANVAS_H_PX : CANVAS_H_PX;
    double plot_bottom = 1 - (1 - PLOT_BOTTOM) * CANVAS_H_PX / canvas_h, plot_top = 1 - (1 - PLOT_TOP) * CANVAS_H_PX / canvas_h;
    char (*key_lines)[KEY_LINE_MAX] = NULL;
    const char *wname = opt && opt->workload_name && opt->workload_name[0] ? opt->workload_name : NULL;
    const char *note = opt && opt->note && opt->note[0] ? opt->note : NULL;
    frame fr;
    rp_buf dat = {0}, gp = {0};
    char a[32], b[32], corner_note[256] = "";

    if (!series || !paths || ns < 1 || ns > RIDGE_ROOFLINE_MAX_GPUS)
        return ridge_err_set(err, RIDGE_EINVAL, "roofline: %zu GPUs (1 to %d on a chart)", ns,
                             RIDGE_ROOFLINE_MAX_GPUS);
    key_top = opt && opt->key_top > 0 ? (size_t)opt->key_top : 0;
    if (key_top > KEY_TOP_MAX)
        key_top = KEY_TOP_MAX;
    for (size_t g = 0; g < ns; g++) {
        rc = gpu_roofs_init(&gr[g], &series[g], err);
        if (rc != RIDGE_OK)
            return rc;
        n += series[g].n;
        for (int r = 0; r < gr[g].nroof; r++)
            maxx = fmax(maxx, gr[g].roofs[r].peak_flops_per_s / gr[g].bw);
    }

    /* Labels: at most one per kernel and one per measurement; obstacles: those plus the markers,
     * the ridge points and labels, the note and the key. */
    kp = calloc(n + 1, sizeof *kp);
    lab = calloc(2 * n + 1, sizeof *lab);
    obst = calloc(4 * n + ns * (2 * RIDGE_ROOFLINE_MAX_ROOFS + (2 * RIDGE_ROOFLINE_MAX_ROOFS + 3) * LINE_BOXES_MAX) + 4,
                  sizeof *obst);
    marks = calloc(2 * (2 * n + ns * RIDGE_ROOFLINE_MAX_ROOFS) + 2, sizeof *marks);
    if (!kp || !lab || !obst || !marks) {
        rc = ridge_err_set(err, RIDGE_ENOMEM, "out of memory");
        goto done;
    }

    for (size_t g = 0; g < ns; g++)
        for (size_t i = 0; i < series[g].n; i++) {
            const ridge_roofline_point *pt = &series[g].pts[i];
            const ridge_kernel_result *p = &pt->pred;
            kpoint *k = &kp[nk];
            double share = isfinite(pt->share) && pt->share > 0 ? pt->share : 0;
            sized |= share > 0;
            if (!plottable(pt)) {
                nskipped++;
                skipped_share += g == 0 ? share : 0;
                continue;
            }
            point_label(pt, i, k->label, sizeof k->label);
            k->x = p->flops / kernel_bytes(pt);
            k->y = usable(p->achieved_flops_per_s) ? p->achieved_flops_per_s : p->flops / p->time_s;
            k->time_s = p->time_s;
            k->share = share;
            k->gpu = (int)g;
            drawn_share += g == 0 ? share : 0;
            max_share = fmax(max_share, share);
            k->bound = (unsigned)p->bound < NBOUNDS ? (int)p->bound : RIDGE_BOUND_LATENCY;
            k->has_measured = pt->has_measured && usable(pt->measured_intensity_flops_per_byte) &&
                              usable(pt->measured_flops_per_s);
            if (k->has_measured) {
                k->mx = pt->measured_intensity_flops_per_byte;
                k->my = pt->measured_flops_per_s;
                minx = fmin(minx, k->mx);
                maxx = fmax(maxx, k->mx);
                miny = fmin(miny, k->my);
                nmeasured++;
            }
            minx = fmin(minx, k->x);
            maxx = fmax(maxx, k->x);
            miny = fmin(miny, k->y);
            bound_used[g][k->bound] = 1;
            any_bound[k->bound] = 1;
            nk++;
        }

    /* Axis ranges: whole decades in x, from below the lowest intensity to well past the ridges;
     * y from a decade below the slowest kernel (or the DRAM diagonal at the left edge) to a little
     * above the highest roof, with room for its label. */
    fr.xlo = decade_floor(fmin(isfinite(minx) ? minx / 1.5 : 0.5, 0.5));
    fr.xhi = decade_ceil(fmax(maxx * 4, 10 * fr.xlo));
    fr.yhi = 0;
    fr.ylo = isfinite(miny) ? miny / 2 : INFINITY;
    for (size_t g = 0; g < ns; g++) {
        fr.yhi = fmax(fr.yhi, gr[g].roofs[0].peak_flops_per_s * 2.5);
        fr.ylo = fmin(fr.ylo, gr[g].bw * fr.xlo);
    }
    fr.ylo = decade_floor(fr.ylo);
    fr.w_px = CANVAS_W_PX * (PLOT_RIGHT - PLOT_LEFT);
    fr.h_px = CANVAS_H_PX * (PLOT_TOP - PLOT_BOTTOM); /* the same on the taller canvas of two GPUs */
    ps_scale = max_share > 0 ? SHARE_PS_MAX / sqrt(max_share) : 0;

    if (key_top) {
        /* A numbered key: the largest kernels get their number beside the marker, once per spot. */
        nkey = pick_keyed(kp, nk, key_top, keyed);
        for (size_t i = 0; i < nk; i++) {
            double x = px_x(&fr, kp[i].x), y = px_y(&fr, kp[i].y);
            int num = key_number(kp, i, keyed, nkey), added = 0;
            char text[16];
            size_t j;
            if (!num)
                continue;
            snprintf(text, sizeof text, "%d", num);
            j = label_for_spot(lab, &nlab, x, y, text, kp[i].time_s, &added);
            if (!added) {
                /* Each number once per spot (a kernel on two GPUs may land on one spot). */
                char padded[LABEL_TEXT_MAX + 2], needle[16];
                size_t len = strlen(lab[j].text);
                snprintf(padded, sizeof padded, ",%s,", lab[j].text);
                snprintf(needle, sizeof needle, ",%d,", num);
                if (!strstr(padded, needle))
                    snprintf(lab[j].text + len, sizeof lab[j].text - len, ",%d", num);
            }
        }
    } else {
        /* One label per spot: kernels drawn on top of each other share it. Only the slowest
         * LABEL_CANDIDATES kernels are considered, which keeps this quadratic step small. */
        if (nk > LABEL_CANDIDATES) {
            double *t = malloc(nk * sizeof *t);
            double cut;
            if (!t) {
                rc = ridge_err_set(err, RIDGE_ENOMEM, "out of memory");
                goto done;
            }
            for (size_t i = 0; i < nk; i++)
                t[i] = kp[i].time_s;
            qsort(t, nk, sizeof *t, cmp_desc);
            cut = t[LABEL_CANDIDATES - 1];
            free(t);
            for (size_t i = 0, kept = 0; i < nk; i++) {
                kp[i].candidate = kp[i].time_s > cut || (kp[i].time_s == cut && kept < LABEL_CANDIDATES);
                kept += (size_t)kp[i].candidate;
            }
            ngroups_extra = 1;
        } else {
            for (size_t i = 0; i < nk; i++)
                kp[i].candidate = 1;
        }
        for (size_t i = 0; i < nk; i++) {
            double x = px_x(&fr, kp[i].x), y = px_y(&fr, kp[i].y);
            size_t j = 0, extra = 0;
            int added = 0;
            if (!kp[i].candidate)
                continue;
            j = label_for_spot(lab, &nlab, x, y, kp[i].label, kp[i].time_s, &added);
            if (!added) {
                lab[j].weight = fmax(lab[j].weight, kp[i].time_s);
                size_t len = strlen(lab[j].text);
                char *more = strstr(lab[j].text, " +");
                if (more && sscanf(more, " +%zu more", &extra) == 1)
                    snprintf(more, sizeof lab[j].text - (size_t)(more - lab[j].text), " +%zu more", extra + 1);
                else if (len + 2 + strlen(kp[i].label) + 9 < MERGED_LABEL_MAX)
                    snprintf(lab[j].text + len, sizeof lab[j].text - len, ", %s", kp[i].label);
                else
                    snprintf(lab[j].text + len, sizeof lab[j].text - len, " +1 more");
            }
        }
        /* A crowd of labels is unreadable: beyond LABELS_MAX only the slowest kernels keep theirs. */
        ngroups = ngroups_extra ? nk : nlab;
        if (nlab > LABELS_MAX)
            nlab = keep_slowest(lab, nlab, LABELS_MAX);
        for (size_t i = 0; i < nk && ngroups <= LABELS_MAX; i++) {
            double x, y;
            if (!kp[i].has_measured)
                continue;
            x = px_x(&fr, kp[i].mx);
            y = px_y(&fr, kp[i].my);
            if (hypot(x - px_x(&fr, kp[i].x), y - px_y(&fr, kp[i].y)) < OWN_LABEL_PX)
                continue;
            lab[nlab].px = x;
            lab[nlab].py = y;
            snprintf(lab[nlab].text, sizeof lab[nlab].text, "%s", kp[i].label);
            lab[nlab].weight = kp[i].time_s;
            nlab++;
        }
    }
    if (nskipped) {
        size_t per_gpu = nskipped / ns;
        if (sized)
            snprintf(corner_note, sizeof corner_note, "%zu op%s without FLOPs (%.24s of the step) not shown; listed in %.80s",
                     per_gpu, per_gpu == 1 ? "" : "s", share_text(skipped_share, 0, a, sizeof a),
                     rp_base_name(paths->dat));
        else
            snprintf(corner_note, sizeof corner_note, "%zu op%s without FLOPs (copies) not shown; listed in %.80s",
                     per_gpu, per_gpu == 1 ? "" : "s", rp_base_name(paths->dat));
    }
    if (ngroups > LABELS_MAX) {
        size_t len = strlen(corner_note);
        snprintf(corner_note + len, sizeof corner_note - len, "%slabels on the %d slowest of %zu kernels",
                 len ? "; " : "", LABELS_MAX, nk);
    }

    /* Obstacles first: ridge markers, the roofs and diagonals, the note in the lower right
     * corner, every kernel marker. Then the ridge labels are placed, then the key, then the
     * kernel labels. */
    for (size_t g = 0; g < ns; g++)
        for (int r = 0; r < gr[g].nroof; r++) {
            const roof *rf = &gr[g].roofs[r];
            label *l = &rlab[nrlab++];
            l->px = px_x(&fr, rf->peak_flops_per_s / gr[g].bw);
            l->py = px_y(&fr, rf->peak_flops_per_s);
            snprintf(l->text, sizeof l->text, "%.16s%s%.28s ridge %.10s %s", multi ? gr[g].gpu->id : "",
                     multi ? " " : "", rf->name, num3(rf->peak_flops_per_s / gr[g].bw, a, sizeof a),
                     rf->integer ? "OP/B" : "FLOP/B");
            obst[nobst++] = around(l->px, l->py, MARKER_PX);
            marks[2 * nmarks] = l->px;
            marks[2 * nmarks++ + 1] = l->py;
        }
    for (size_t g = 0; g < ns; g++) {
        const gpu_roofs *G = &gr[g];
        for (int r = 0; r < G->nroof; r++) {
            double y = px_y(&fr, G->roofs[r].peak_flops_per_s), ya = px_y(&fr, G->roofs[r].achievable_flops_per_s);
            nobst += line_obstacles(obst + nobst, px_x(&fr, G->roofs[r].peak_flops_per_s / G->bw), y, fr.w_px, y, &fr);
            if (!multi)
                nobst += line_obstacles(obst + nobst, px_x(&fr, G->roofs[r].achievable_flops_per_s / G->adram), ya,
                                        fr.w_px, ya, &fr);
        }
        nobst += line_obstacles(obst + nobst, 0, px_y(&fr, G->bw * fr.xlo), px_x(&fr, G->roofs[0].peak_flops_per_s / G->bw),
                                px_y(&fr, G->roofs[0].peak_flops_per_s), &fr);
        if (!multi)
            nobst += line_obstacles(obst + nobst, 0, px_y(&fr, G->adram * fr.xlo), px_x(&fr, G->maxach / G->adram),
                                    px_y(&fr, G->maxach), &fr);
        if (G->l2bw > 0 && !multi)
            nobst += line_obstacles(obst + nobst, 0, px_y(&fr, G->l2bw * fr.xlo),
                                    px_x(&fr, G->roofs[0].peak_flops_per_s / G->l2bw),
                                    px_y(&fr, G->roofs[0].peak_flops_per_s), &fr);
    }
    if (corner_note[0])
        obst[nobst++] = text_box(0.99 * fr.w_px, 0.03 * fr.h_px, 'r', strlen(corner_note), RIDGE_CHAR_PX);
    for (size_t i = 0; i < nk; i++) {
        double half = MARKER_PX * marker_ps(kp[i].share, ps_scale) / POINT_PS;
        marks[2 * nmarks] = px_x(&fr, kp[i].x);
        marks[2 * nmarks + 1] = px_y(&fr, kp[i].y);
        obst[nobst++] = around(marks[2 * nmarks], marks[2 * nmarks + 1], half);
        nmarks++;
        if (kp[i].has_measured) {
            marks[2 * nmarks] = px_x(&fr, kp[i].mx);
            marks[2 * nmarks + 1] = px_y(&fr, kp[i].my);
            obst[nobst++] = around(marks[2 * nmarks], marks[2 * nmarks + 1], MARKER_PX);
            nmarks++;
        }
    }
    if (place_labels(rlab, nrlab, obst, &nobst, marks, nmarks, &fr, ridge_spots,
                     sizeof ridge_spots / sizeof ridge_spots[0], sizeof ridge_spots / sizeof ridge_spots[0],
                     RIDGE_CHAR_PX)) {
        rc = ridge_err_set(err, RIDGE_ENOMEM, "out of memory");
        goto done;
    }
    if (nkey) {
        /* The key: a header and one line per keyed kernel, in the corner where it covers least. */
        static const double corners[4][2] = {{0.012, 0.975}, {0.988, 0.975}, {0.012, 0.09}, {0.988, 0.09}};
        size_t width = 0;
        double best_cost = INFINITY, h = KEY_LINE_PX * (double)(nkey + 1);
        box kb = {0, 0, 0, 0, 1.0};
        key_lines = calloc(nkey + 1, sizeof *key_lines);
        if (!key_lines) {
            rc = ridge_err_set(err, RIDGE_ENOMEM, "out of memory");
            goto done;
        }
        if (multi)
            snprintf(key_lines[0], sizeof key_lines[0], "Largest kernels, %s: %.40s | %.40s",
                     sized ? "share of the step (marker area)" : "GPU time", gr[0].gpu->id, gr[1].gpu->id);
        else
            snprintf(key_lines[0], sizeof key_lines[0], "Largest kernels, %s",
                     sized ? "share of the step (marker area)" : "GPU time");
        for (size_t k = 1; k <= nkey; k++) {
            const kpoint *kk = &kp[keyed[k - 1]];
            char *line = key_lines[k];
            size_t len = (size_t)snprintf(line, KEY_LINE_MAX, "%zu  %.60s:", k, kk->label);
            for (size_t g = 0; g < ns && len < KEY_LINE_MAX; g++) {
                size_t i;
                for (i = 0; i < nk; i++)
                    if (kp[i].gpu == (int)g && strcmp(kp[i].label, kk->label) == 0)
                        break;
                if (i == nk)
                    len += (size_t)snprintf(line + len, KEY_LINE_MAX - len, "%s -", g ? " |" : "");
                else
                    len += (size_t)snprintf(line + len, KEY_LINE_MAX - len, "%s %s %s", g ? " |" : "",
                                            share_text(kp[i].share, kp[i].time_s, a, sizeof a),
                                            bound_keys[kp[i].bound]);
            }
        }
        for (size_t k = 0; k <= nkey; k++)
            width = strlen(key_lines[k]) > width ? strlen(key_lines[k]) : width;
        for (int c = 0; c < 4; c++) {
            /* Top corners hang from their y, bottom ones stand on it. */
            double w = (double)width * KEY_CHAR_PX, x0 = corners[c][0] * fr.w_px - (corners[c][0] > 0.5 ? w : 0);
            double y1 = corners[c][1] > 0.5 ? corners[c][1] * fr.h_px : corners[c][1] * fr.h_px + h;
            box cand = {x0, y1 - h, x0 + w, y1, 1.0};
            double cost = 0;
            for (size_t o = 0; o < nobst; o++)
                cost += obst[o].weight * overlap(cand, obst[o]);
            if (cost < best_cost) {
                best_cost = cost;
                kb = cand;
            }
        }
        key_lx = kb.x0;
        key_ty = kb.y1;
        obst[nobst++] = kb;
    }
    if (place_labels(lab, nlab, obst, &nobst, marks, nmarks, &fr, kernel_spots,
                     sizeof kernel_spots / sizeof kernel_spots[0], KERNEL_NEAR_SPOTS, KERNEL_CHAR_PX)) {
        rc = ridge_err_set(err, RIDGE_ENOMEM, "out of memory");
        goto done;
    }

    /* ---- the .dat ---- */
    /* Names come from files: through rp_commentf, so that none can end the comment line. */
    rp_printf(&dat, "# ");
    if (multi)
        rp_commentf(&dat, "ridge %s roofline data: %s (%s) and %s (%s)%s%s", ridge_version(), gr[0].gpu->name,
                    gr[0].gpu->id, gr[1].gpu->name, gr[1].gpu->id, wname ? ", workload " : "", wname ? wname : "");
    else
        rp_commentf(&dat, "ridge %s roofline data: %s (%s)%s%s", ridge_version(), gr[0].gpu->name, gr[0].gpu->id,
                    wname ? ", workload " : "", wname ? wname : "");
    rp_printf(&dat, "\n");
    rp_printf(&dat, "# ");
    rp_commentf(&dat, "Drawn by %s. Blocks are separated by two blank lines and selected with `index N`.",
                rp_base_name(paths->gp));
    rp_printf(&dat, "\n");
    rp_printf(&dat, "# Units: intensity in FLOP/byte; performance in TFLOP/s (TOP/s for integer kinds); "
                    "bandwidth in TB/s.\n");
    for (size_t g = 0; g < ns; g++) {
        const ridge_gpu *gpu = gr[g].gpu;
        rp_printf(&dat, "# ");
        rp_commentf(&dat, "Model efficiency%s%s (%s): tensor_fraction %.6g, vector_fraction %.6g, dram_fraction %.6g",
                    multi ? " of " : "", multi ? gpu->id : "",
                    gpu->eff.source[0] ? gpu->eff.source : "defaults, docs/model.md", gpu->eff.tensor_fraction,
                    gpu->eff.vector_fraction, gpu->eff.dram_fraction);
        rp_printf(&dat, "\n");
    }
    if (sized)
        rp_printf(&dat, "# Drawn: %zu kernel%s with FLOPs, %.6g of the step's time%s; %zu op%s without FLOPs, %.6g "
                        "(shares of the first GPU's step)\n",
                  nk / ns, nk / ns == 1 ? "" : "s", drawn_share, multi ? " per GPU" : "", nskipped / ns,
                  nskipped / ns == 1 ? "" : "s", skipped_share);

    rp_printf(&dat, "\n# [index 0] roofs: one row per precision (datasheet dense peak; achievable = peak x "
                    "the peak's efficiency fraction: fraction_by_peak, else tensor_fraction or vector_fraction)%s\n",
              multi ? ", each GPU's in turn" : "");
    rp_printf(&dat, "# name peak_tflops_per_s achievable_tflops_per_s ridge_flops_per_byte "
                    "achievable_ridge_flops_per_byte x_end_flops_per_byte unit\n");
    for (size_t g = 0; g < ns; g++)
        for (int r = 0; r < gr[g].nroof; r++) {
            const roof *rf = &gr[g].roofs[r];
            rp_printf(&dat, "\"%s%s%s\" %.6g %.6g %.6g %.6g %.6g %s\n", multi ? gr[g].gpu->id : "", multi ? " " : "",
                      rf->name, rf->peak_flops_per_s / TERA, rf->achievable_flops_per_s / TERA,
                      rf->peak_flops_per_s / gr[g].bw, rf->achievable_flops_per_s / gr[g].adram, fr.xhi,
                      rf->tensor ? "tensor" : "vector");
        }

    /* Diagonals run from the left edge up to the highest roof they meet. */
    rp_printf(&dat, "\n\n# [index 1] memory: bandwidth diagonals y = bandwidth x intensity%s\n",
              multi ? ", each GPU's in turn" : "");
    rp_printf(&dat, "# name bandwidth_tb_per_s x_start_flops_per_byte x_end_flops_per_byte y_start_tflops_per_s "
                    "y_end_tflops_per_s\n");
    for (size_t g = 0; g < ns; g++) {
        const gpu_roofs *G = &gr[g];
        const char *id = multi ? G->gpu->id : "", *sp = multi ? " " : "";
        double top = G->roofs[0].peak_flops_per_s;
        rp_printf(&dat, "\"%s%sDRAM\" %.6g %.6g %.6g %.6g %.6g\n", id, sp, G->bw / TERA, fr.xlo, top / G->bw,
                  G->bw * fr.xlo / TERA, top / TERA);
        rp_printf(&dat, "\"%s%sDRAM achievable\" %.6g %.6g %.6g %.6g %.6g\n", id, sp, G->adram / TERA, fr.xlo,
                  G->maxach / G->adram, G->adram * fr.xlo / TERA, G->maxach / TERA);
        if (G->l2bw > 0)
            rp_printf(&dat, "\"%s%sL2\" %.6g %.6g %.6g %.6g %.6g\n", id, sp, G->l2bw / TERA, fr.xlo, top / G->l2bw,
                      G->l2bw * fr.xlo / TERA, top / TERA);
    }

    rp_printf(&dat, "\n\n# [index 2] ridge points (datasheet peak / datasheet DRAM bandwidth) and their labels\n"
                    "# x_flops_per_byte y_tflops_per_s label_x label_y align(l/r/c) label\n");
    {
        size_t r = 0;
        for (size_t g = 0; g < ns; g++)
            for (int q = 0; q < gr[g].nroof; q++, r++) {
                int ai = rlab[r].align == 'l' ? 0 : rlab[r].align == 'r' ? 1 : 2;
                ridge_align_used[ai] = 1;
                rp_printf(&dat, "%.6g %.6g %.6g %.6g %c \"%s\"\n", gr[g].roofs[q].peak_flops_per_s / gr[g].bw,
                          gr[g].roofs[q].peak_flops_per_s / TERA, data_x(&fr, rlab[r].lx),
                          data_y(&fr, rlab[r].ly) / TERA, rlab[r].align, rlab[r].text);
            }
    }

    rp_printf(&dat, "\n\n# [index 3] kernels, predicted: x = FLOPs / compulsory bytes (the bytes the model reads "
                    "when it has none), y = achieved FLOP/s over the kernel's GPU time\n");
    rp_printf(&dat, "# intensity_flops_per_byte performance_tflops_per_s bound_index bound label gpu_index "
                    "share_of_step marker_size (share 0: not given; marker area ~ share above a minimum)\n");
    for (size_t i = 0; i < nk; i++)
        rp_printf(&dat, "%.6g %.6g %d %s \"%s\" %d %.6g %.4g\n", kp[i].x, kp[i].y / TERA, kp[i].bound,
                  bound_keys[kp[i].bound], kp[i].label, kp[i].gpu, kp[i].share, marker_ps(kp[i].share, ps_scale));
    if (nskipped) {
        rp_printf(&dat, "# not plotted (no FLOPs, e.g. copies; or no bytes or time):\n");
        for (size_t g = 0; g < ns; g++)
            for (size_t i = 0; i < series[g].n; i++) {
                const ridge_roofline_point *pt = &series[g].pts[i];
                char l[RIDGE_OP_NAME_MAX + 8];
                if (plottable(pt))
                    continue;
                point_label(pt, i, l, sizeof l);
                rp_printf(&dat, "#   %s%s%s: %.6g FLOP, %.6g bytes (DRAM + L2), %.6g s", multi ? gr[g].gpu->id : "",
                          multi ? " " : "", l, pt->pred.flops, pt->pred.dram_bytes + pt->pred.l2_bytes,
                          pt->pred.time_s);
                if (pt->share > 0)
                    rp_printf(&dat, ", share %.6g", pt->share);
                rp_printf(&dat, "\n");
            }
    }

    /* Blocks that may be empty come last: gnuplot does not count a block without data. */
    rp_printf(&dat, "\n\n# [index 4] kernel labels, placed to avoid each other, and leader lines to labels "
                    "set apart (NaN: none)\n"
                    "# x_flops_per_byte y_tflops_per_s align(l/r/c) text x_from y_from x_to y_to\n");
    for (size_t i = 0; i < nlab; i++) {
        int ai = lab[i].align == 'l' ? 0 : lab[i].align == 'r' ? 1 : 2;
        align_used[ai] = 1;
        rp_printf(&dat, "%.6g %.6g %c \"%s\"", data_x(&fr, lab[i].lx), data_y(&fr, lab[i].ly) / TERA, lab[i].align,
                  lab[i].text);
        if (lab[i].leader) {
            nleaders++;
            rp_printf(&dat, " %.6g %.6g %.6g %.6g\n", data_x(&fr, lab[i].fx), data_y(&fr, lab[i].fy) / TERA,
                      data_x(&fr, lab[i].tx), data_y(&fr, lab[i].ty) / TERA);
        } else {
            rp_printf(&dat, " NaN NaN NaN NaN\n");
        }
    }

    rp_printf(&dat, "\n\n# [index 5] kernels, measured: x_measured_flops_per_byte y_measured_tflops_per_s "
                    "x_predicted_flops_per_byte y_predicted_tflops_per_s label\n");
    for (size_t i = 0; i < nk; i++)
        if (kp[i].has_measured)
            rp_printf(&dat, "%.6g %.6g %.6g %.6g \"%s\"\n", kp[i].mx, kp[i].my / TERA, kp[i].x, kp[i].y / TERA,
                      kp[i].label);


    /* ---- the .gp ---- */
    {
        char gpus[200], title[400];
        if (multi)
            snprintf(gpus, sizeof gpus, "%.90s vs %.90s", gr[0].gpu->name, gr[1].gpu->name);
        else
            snprintf(gpus, sizeof gpus, "%.190s", gr[0].gpu->name);
        rp_printf(&gp, "# ");
        rp_commentf(&gp, "ridge %s roofline chart: %s%s%s", ridge_version(), gpus, wname ? ", " : "",
                    wname ? wname : "");
        rp_printf(&gp, "\n");
        rp_gp_preamble(&gp, paths->gp, paths->dat, paths->chart);
        rp_gp_terminal(&gp, paths, CANVAS_W_PX, canvas_h, 11);
        snprintf(title, sizeof title, "Roofline: %s%s%.180s", gpus, wname ? " - " : "", wname ? wname : "");
        rp_gp_title(&gp, title, note);
    }
    rp_printf(&gp, "# The plot area is pinned so that the label positions in the .dat fit it.\n"
                   "set lmargin at screen %g\nset rmargin at screen %g\n"
                   "set bmargin at screen %g\nset tmargin at screen %g\n",
              PLOT_LEFT, PLOT_RIGHT, plot_bottom, plot_top);
    rp_printf(&gp, "set xlabel 'Arithmetic intensity [FLOP/byte]'\n"
                   "set ylabel 'Performance [TFLOP/s]'\n"
                   "set logscale xy 10\n");
    rp_printf(&gp, "set xrange [%.6g:%.6g]\nset yrange [%.6g:%.6g]\n", fr.xlo, fr.xhi, fr.ylo / TERA, fr.yhi / TERA);
    rp_printf(&gp, "set format x '%%g'\nset format y '%%g'\n"
                   "set mxtics 10\nset mytics 10\n"
                   "set grid xtics ytics mxtics mytics lc rgb '#d8d8d8' lw 1, lc rgb '#f0f0f0' lw 1\n"
                   "set border lw 1.2\n"
                   "set style textbox opaque noborder margins 0.5,0.5\n"
                   "set key outside below center horizontal maxcols 3 samplen 3 spacing 1.1 font ',10'\n");
    if (corner_note[0]) {
        rp_printf(&gp, "set label 1 ");
        rp_gp_string(&gp, corner_note);
        rp_printf(&gp, " at graph 0.99, graph 0.03 right font ',%d' tc rgb '#555555'\n", RIDGE_FONT_PT);
    }
    if (nkey) {
        /* One label per line, from the key's top left corner down. */
        rp_printf(&gp, "# The key: the largest kernels, numbered as beside their markers.\n");
        for (size_t k = 0; k <= nkey; k++) {
            double y = (key_ty - KEY_LINE_PX * ((double)k + 0.5)) / fr.h_px;
            rp_printf(&gp, "set label %zu ", k + 2);
            rp_gp_string(&gp, key_lines[k]);
            rp_printf(&gp, " at graph %.4f, graph %.4f left font ',%d' tc rgb '#222222' boxed front\n",
                      key_lx / fr.w_px, y, KEY_FONT_PT);
        }
    }
    rp_printf(&gp, "\nplot \\\n");
    for (size_t g = 0; g < ns; g++) {
        const gpu_roofs *G = &gr[g];
        size_t row0 = 0, drow = 0;
        for (size_t h = 0; h < g; h++) {
            row0 += (size_t)gr[h].nroof;
            drow += gr[h].l2bw > 0 ? 3 : 2;
        }
        for (int r = 0; r < G->nroof; r++) {
            const roof *rf = &G->roofs[r];
            size_t row = row0 + (size_t)r;
            char ach[48] = "";
            rp_printf(&gp,
                      "    dat index 0 every ::%zu::%zu using 4:2:($6-$4):(0) with vectors nohead lw 2.5 dt %d "
                      "lc rgb '%s' title ",
                      row, row, gpu_dash[g], roof_colors[rf->peak]);
            if (!multi)
                snprintf(ach, sizeof ach, " (achievable %s)", num3(rf->achievable_flops_per_s / TERA, b, sizeof b));
            rp_gp_stringf(&gp, "%s%s%s%s: %s %s%s", multi ? G->gpu->id : "", multi ? " " : "", rf->name,
                          strstr(rf->name, "tensor") || strstr(rf->name, "vector") ? ""
                          : rf->tensor                                             ? " tensor"
                                                                                   : " vector",
                          num3(rf->peak_flops_per_s / TERA, a, sizeof a), rf->integer ? "TOP/s" : "TFLOP/s", ach);
            rp_printf(&gp, ", \\\n");
            if (multi)
                continue;
            rp_printf(&gp,
                      "    dat index 0 every ::%zu::%zu using 5:3:($6-$5):(0) with vectors nohead lw 1.5 dt 2 "
                      "lc rgb '%s' notitle, \\\n",
                      row, row, roof_colors[rf->peak]);
        }
        if (multi) {
            rp_printf(&gp,
                      "    dat index 1 every ::%zu::%zu using 3:5:($4-$3):($6-$5) with vectors nohead lw 2.5 dt %d "
                      "lc rgb '%s' title ",
                      drow, drow, gpu_dash[g], DRAM_COLOR);
            rp_gp_stringf(&gp, "%s DRAM %s", G->gpu->id, bandwidth(G->bw, a, sizeof a));
            rp_printf(&gp, ", \\\n");
            continue;
        }
        rp_printf(&gp,
                  "    dat index 1 every ::0::0 using 3:5:($4-$3):($6-$5) with vectors nohead lw 2.5 lc rgb '%s' "
                  "title 'DRAM %s (achievable %s)', \\\n",
                  DRAM_COLOR, bandwidth(G->bw, a, sizeof a), bandwidth(G->adram, b, sizeof b));
        rp_printf(&gp,
                  "    dat index 1 every ::1::1 using 3:5:($4-$3):($6-$5) with vectors nohead lw 1.5 dt 2 "
                  "lc rgb '%s' notitle, \\\n",
                  DRAM_COLOR);
        if (G->l2bw > 0)
            rp_printf(&gp,
                      "    dat index 1 every ::2::2 using 3:5:($4-$3):($6-$5) with vectors nohead lw 1.5 dt 4 "
                      "lc rgb '%s' title 'L2 %s (model)', \\\n",
                      L2_COLOR, bandwidth(G->l2bw, a, sizeof a));
        rp_printf(&gp,
                  "    NaN with lines lw 1.5 dt 2 lc rgb '#555555' title 'dashed: achievable (model efficiency)', \\\n");
    }
    if (multi)
        for (size_t g = 0; g < ns; g++) {
            rp_printf(&gp, "    NaN with linespoints lw 2 dt %d pt %d ps 1.2 lc rgb '#555555' title ", gpu_dash[g],
                      gpu_marker[g]);
            rp_gp_stringf(&gp, "%s: roofs %s, kernels %s", gr[g].gpu->id, g ? "dash-dot" : "solid",
                          gpu_marker_words[g]);
            rp_printf(&gp, ", \\\n");
        }
    rp_printf(&gp, "    dat index 2 using 1:2 with points pt 7 ps 0.8 lc rgb '#222222' notitle");
    for (int ai = 0; ai < 3; ai++)
        if (ridge_align_used[ai])
            rp_printf(&gp,
                      ", \\\n    dat index 2 using 3:(strcol(5) eq '%c' ? $4 : NaN):6 with labels %s boxed "
                      "font ',%d' tc rgb '#222222' notitle",
                      "lrc"[ai], ai == 0 ? "left" : ai == 1 ? "right" : "center", RIDGE_FONT_PT);
    if (nmeasured)
        rp_printf(&gp,
                  ", \\\n    dat index 5 using 3:4:($1-$3):($2-$4) with vectors nohead lw 1 lc rgb '#888888' "
                  "notitle");
    for (size_t g = 0; g < ns; g++)
        for (int bnd = 0; bnd < NBOUNDS; bnd++) {
            if (!bound_used[g][bnd])
                continue;
            if (!sized && !multi) {
                rp_printf(&gp,
                          ", \\\n    dat index 3 using 1:($3 == %d ? $2 : NaN) with points pt 7 ps %g "
                          "lc rgb '%s' title 'predicted, %s'",
                          bnd, POINT_PS, BOUND_COLOR(bnd), bound_titles[bnd]);
                continue;
            }
            /* Sized markers are see-through with a solid rim, so that overlapping ones show. */
            rp_printf(&gp,
                      ", \\\n    dat index 3 using 1:($3 == %d && $6 == %zu ? $2 : NaN):8 with points pt %d "
                      "ps variable lc rgb '#%s%s' notitle",
                      bnd, g, gpu_marker[g], sized ? SHARE_ALPHA : "00", BOUND_COLOR(bnd) + 1);
            rp_printf(&gp,
                      ", \\\n    dat index 3 using 1:($3 == %d && $6 == %zu ? $2 : NaN):8 with points pt %d "
                      "ps variable lw 1 lc rgb '%s' notitle",
                      bnd, g, gpu_marker[g] - 1, BOUND_COLOR(bnd));
        }
    if (sized || multi)
        for (int bnd = 0; bnd < NBOUNDS; bnd++)
            if (any_bound[bnd])
                rp_printf(&gp, ", \\\n    NaN with points pt 7 ps %g lc rgb '%s' title 'predicted, %s'", POINT_PS,
                          BOUND_COLOR(bnd), bound_titles[bnd]);
    if (nmeasured)
        rp_printf(&gp, ", \\\n    dat index 5 using 1:2 with points pt 4 ps 1.3 lw 1.5 lc rgb '#000000' "
                       "title 'measured (hollow), joined to its prediction'");
    if (nleaders)
        rp_printf(&gp, ", \\\n    dat index 4 using 5:6:($7-$5):($8-$6) with vectors nohead lw 0.8 lc rgb '#999999' "
                       "notitle");
    for (int ai = 0; ai < 3; ai++)
        if (align_used[ai])
            rp_printf(&gp,
                      ", \\\n    dat index 4 using 1:(strcol(3) eq '%c' ? $2 : NaN):4 with labels %s boxed font ',%d' "
                      "tc rgb '#333333' notitle",
                      "lrc"[ai], ai == 0 ? "left" : ai == 1 ? "right" : "center", nkey ? KEY_FONT_PT : KERNEL_FONT_PT);
    rp_printf(&gp, "\n");

    rc = rp_write_pair(paths, &dat, &gp, err);
done:
    free(dat.s);
    free(gp.s);
    free(kp);
    free(lab);
    free(obst);
    free(marks);
    free(key_lines);
    return rc;
}
