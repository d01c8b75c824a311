/* CNN family: a sequential layer list with shape inference (docs/workloads.md, "CNNs").
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The arch is parsed once into cnn_layer values. Every query (parameters, FLOPs, graph, memory)
 * expands them, for the run's image size, into primitive units (conv, bn, activation, pool, fc,
 * add, dropout, loss) that carry their per-image shapes, a repeat count and the tensors they save
 * for the backward pass. Identical repeated blocks (blocks 2..n of a stage) become one unit with
 * `count`, so graphs stay small. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"

#define CNN_MAX_LAYERS 10000
#define CNN_DIM_MAX 1000000    /* channels, features */
#define CNN_IMAGE_MAX RIDGE_RUN_IMAGE_MAX /* input side in pixels */
#define CNN_KERNEL_MAX 1024    /* filter side, stride, padding */
#define CNN_REPEAT_MAX 1000
#define CNN_MAX_MAPS 16        /* detection head: feature maps */

/* ------------------------------------------------------------ arch */

typedef enum {
    L_CONV = 0,
    L_BN,
    L_RELU,
    L_RELU6,
    L_SILU,
    L_MAXPOOL,
    L_AVGPOOL,
    L_ADAPTIVE,
    L_GAP,
    L_FC,
    L_ADD,
    L_DROPOUT,
    L_BOTTLENECK,
    L_INVRES,
    L_DETECT,
    L_KIND_COUNT
} cnn_kind;

static const char *const kind_names[L_KIND_COUNT] = {
    "conv",    "bn",         "relu",       "relu6",
    "silu",    "maxpool",    "avgpool",    "adaptive_avgpool",
    "gap",     "fc",         "add",        "dropout",
    "bottleneck", "inverted_residual", "detection_head",
};

static const char *const keys_conv[] = {"type", "k", "r", "s", "stride", "pad", "groups", "bias", NULL};
static const char *const keys_plain[] = {"type", NULL};
static const char *const keys_pool[] = {"type", "r", "stride", "pad", NULL};
static const char *const keys_adaptive[] = {"type", "size", NULL};
static const char *const keys_fc[] = {"type", "out", "bias", NULL};
static const char *const keys_add[] = {"type", "from", NULL};
static const char *const keys_bottleneck[] = {"type", "mid", "out", "stride", "repeat", NULL};
static const char *const keys_invres[] = {"type", "expand", "out", "stride", "repeat", NULL};
static const char *const keys_detect[] = {"type", "defaults", "extra", NULL};
static const char *const keys_extra[] = {"mid", "out", "stride", "pad", NULL};
static const char *const *const kind_keys[L_KIND_COUNT] = {
    keys_conv,  keys_plain, keys_plain, keys_plain,   keys_plain,      keys_pool,   keys_pool,
    keys_adaptive, keys_plain, keys_fc, keys_add, keys_plain, keys_bottleneck, keys_invres, keys_detect,
};

typedef struct {
    double mid, out, stride, pad;
} cnn_extra;

typedef struct {
    cnn_kind kind;
    double k, r, s, stride, pad, groups; /* conv; pools use r, stride, pad */
    double size;                         /* adaptive_avgpool: output side */
    int bias;                            /* conv, fc */
    double out, mid, expand, repeat;     /* fc, blocks */
    double from;                         /* add: index of the layer whose output is added */
    size_t n_extra;                      /* detection_head: extra feature layers */
    cnn_extra extra[CNN_MAX_MAPS - 1];
    double defaults[CNN_MAX_MAPS];       /* default boxes per location of each feature map */
} cnn_layer;

typedef struct {
    char id[64]; /* the model, for messages ("resnet50") */
    double image, channels, classes;
    size_t n;
    cnn_layer *layers;
} cnn_arch;

/* ------------------------------------------------------------ units */

typedef enum { U_CONV, U_BN, U_ACT, U_MAXPOOL, U_AVGPOOL, U_GAP, U_FC, U_ADD, U_DROPOUT, U_CONCAT, U_LOSS, U_DETLOSS } unit_kind;

typedef struct {
    unit_kind kind;
    char name[48];
    const char *group;
    double c, h, w;       /* input, per image */
    double k, p, q;       /* output channels (features), height, width */
    double r, s, stride, pad, groups;
    int bias;
    int first;            /* the first conv/fc: its input needs no gradient */
    double act_flops;     /* activation: FLOPs per element */
    double count;
    double save_el;       /* elements saved for backward per image, in the activation dtype */
    double save_bytes;    /* other bytes saved per image (int64 indices, bool masks, fp32 loss) */
    double held_el;       /* elements of another live tensor per image (a residual input) */
    double anchors;       /* detection loss: default boxes per image */
    int fused;            /* --bn-fusion fused: a batch norm that runs the ReLU after it (BN_ACT) or
                           * the residual add and the ReLU after that (BN_ADD_ACT); an activation or
                           * add it absorbed (ABSORBED). Set by mark_bn_fusion. */
} cnn_unit;

enum { BN_SEPARATE = 0, BN_ACT, BN_ADD_ACT, ABSORBED };

/* A fused batch norm's kernel name suffix: what it took in. */
static const char *fused_suffix(const cnn_unit *u)
{
    return u->fused == BN_ACT ? "+relu" : "+add+relu";
}

typedef struct {
    cnn_unit *u;
    size_t n, cap;
    /* the current tensor, per image, and whether a unit already saved it for backward */
    double c, h, w;
    int saved;
    int any_compute; /* a conv or fc was emitted */
    int detect;      /* the network ended with a detection head */
    double count;    /* repeat count of the units being emitted */
    double held;     /* elements of a residual input live meanwhile */
    double classes;
} cnn_walk;

static void walk_free(cnn_walk *w)
{
    free(w->u);
    memset(w, 0, sizeof *w);
}

static cnn_unit *walk_push(cnn_walk *w, unit_kind kind, const char *group, const char *name, const rj_ctx *c)
{
    cnn_unit *u;
    if (w->n == w->cap) {
        size_t ncap = w->cap ? 2 * w->cap : 64;
        cnn_unit *nu = realloc(w->u, ncap * sizeof *nu);
        if (!nu) {
            ridge_err_set(c->err, RIDGE_ENOMEM, "%s: out of memory expanding the layers", c->origin);
            return NULL;
        }
        w->u = nu;
        w->cap = ncap;
    }
    u = &w->u[w->n++];
    memset(u, 0, sizeof *u);
    u->kind = kind;
    u->group = group;
    {
        size_t len = strlen(name); /* truncated to fit, like op names */
        if (len >= sizeof u->name)
            len = sizeof u->name - 1;
        memcpy(u->name, name, len);
        u->name[len] = '\0';
    }
    u->c = u->k = w->c;
    u->h = u->p = w->h;
    u->w = u->q = w->w;
    u->count = w->count;
    u->held_el = w->held;
    u->groups = 1;
    return u;
}

static double out_side(double in, double pad, double filt, double stride)
{
    return floor((in + 2 * pad - filt) / stride) + 1;
}

static int w_conv(cnn_walk *w, const char *path, const char *name, double k, double r, double s, double stride,
                  double pad, double groups, int bias, const rj_ctx *c)
{
    cnn_unit *u;
    if (fmod(w->c, groups) != 0)
        return rj_fail(c, RIDGE_EINVAL, path, "groups", "%g does not divide the %g input channels", groups, w->c);
    if (fmod(k, groups) != 0)
        return rj_fail(c, RIDGE_EINVAL, path, "groups", "%g does not divide the %g output channels", groups, k);
    if (r > w->h + 2 * pad)
        return rj_fail(c, RIDGE_EINVAL, path, "r",
                       "filter height %g exceeds the padded input height %g + 2 x %g: output size would be %g",
                       r, w->h, pad, out_side(w->h, pad, r, stride));
    if (s > w->w + 2 * pad)
        return rj_fail(c, RIDGE_EINVAL, path, "s",
                       "filter width %g exceeds the padded input width %g + 2 x %g: output size would be %g", s,
                       w->w, pad, out_side(w->w, pad, s, stride));
    if (!(u = walk_push(w, U_CONV, "conv", name, c)))
        return RIDGE_ENOMEM;
    u->k = k;
    u->r = r;
    u->s = s;
    u->stride = stride;
    u->pad = pad;
    u->groups = groups;
    u->bias = bias;
    u->p = out_side(w->h, pad, r, stride);
    u->q = out_side(w->w, pad, s, stride);
    u->first = !w->any_compute;
    u->save_el = w->saved ? 0 : w->c * w->h * w->w; /* wgrad needs the input */
    w->any_compute = 1;
    w->c = u->k;
    w->h = u->p;
    w->w = u->q;
    w->saved = 0;
    return RIDGE_OK;
}

static int w_bn(cnn_walk *w, const char *name, const rj_ctx *c)
{
    cnn_unit *u = walk_push(w, U_BN, "bn", name, c);
    if (!u)
        return RIDGE_ENOMEM;
    u->save_el = w->saved ? 0 : w->c * w->h * w->w;
    w->saved = 0;
    return RIDGE_OK;
}

/* relu and relu6 save their output (in-place in PyTorch, so it is also the next layer's input);
 * silu saves its input. */
static int w_act(cnn_walk *w, cnn_kind kind, const char *name, const rj_ctx *c)
{
    cnn_unit *u = walk_push(w, U_ACT, "activation", name, c);
    double el = w->c * w->h * w->w;
    if (!u)
        return RIDGE_ENOMEM;
    /* FLOPs per element: max; two-sided clamp; x * sigmoid(x) = exp, add, divide, multiply. */
    u->act_flops = kind == L_RELU ? 1 : kind == L_RELU6 ? 2 : 4;
    if (kind == L_SILU) {
        u->save_el = w->saved ? 0 : el;
        w->saved = 0;
    } else {
        u->save_el = el;
        w->saved = 1;
    }
    return RIDGE_OK;
}

static int w_add(cnn_walk *w, const char *name, double skip_el, const rj_ctx *c)
{
    cnn_unit *u = walk_push(w, U_ADD, "other", name, c);
    if (!u)
        return RIDGE_ENOMEM;
    u->held_el = skip_el;
    w->saved = 0;
    return RIDGE_OK;
}

#define TRY_(e)                     \
    do {                            \
        if ((rc = (e)) != RIDGE_OK) \
            return rc;              \
    } while (0)

/* ResNet v1.5 bottleneck: 1x1 mid, 3x3 mid with the stride, 1x1 out; BN after each conv, ReLU
 * after the first two and after the residual add; a 1x1 projection (with BN) on the shortcut
 * when the shape changes. */
static int w_bottleneck_block(cnn_walk *w, const char *path, const char *prefix, double mid, double out,
                              double stride, const rj_ctx *c)
{
    char nm[128];
    double ic = w->c, ih = w->h, iw = w->w, held0 = w->held;
    int proj = stride != 1 || ic != out, rc;
    double mc, mh, mw;
    w->held = ic * ih * iw;
    snprintf(nm, sizeof nm, "%s.conv1", prefix);
    TRY_(w_conv(w, path, nm, mid, 1, 1, 1, 0, 1, 0, c));
    snprintf(nm, sizeof nm, "%s.bn1", prefix);
    TRY_(w_bn(w, nm, c));
    snprintf(nm, sizeof nm, "%s.relu1", prefix);
    TRY_(w_act(w, L_RELU, nm, c));
    snprintf(nm, sizeof nm, "%s.conv2", prefix);
    TRY_(w_conv(w, path, nm, mid, 3, 3, stride, 1, 1, 0, c));
    snprintf(nm, sizeof nm, "%s.bn2", prefix);
    TRY_(w_bn(w, nm, c));
    snprintf(nm, sizeof nm, "%s.relu2", prefix);
    TRY_(w_act(w, L_RELU, nm, c));
    snprintf(nm, sizeof nm, "%s.conv3", prefix);
    TRY_(w_conv(w, path, nm, out, 1, 1, 1, 0, 1, 0, c));
    snprintf(nm, sizeof nm, "%s.bn3", prefix);
    TRY_(w_bn(w, nm, c));
    mc = w->c;
    mh = w->h;
    mw = w->w;
    if (proj) {
        /* The shortcut reads the block input, which conv1 already saved. */
        w->c = ic;
        w->h = ih;
        w->w = iw;
        w->saved = 1;
        w->held = mc * mh * mw;
        snprintf(nm, sizeof nm, "%s.downsample", prefix);
        TRY_(w_conv(w, path, nm, out, 1, 1, stride, 0, 1, 0, c));
        snprintf(nm, sizeof nm, "%s.downsample_bn", prefix);
        TRY_(w_bn(w, nm, c));
    }
    w->held = 0;
    snprintf(nm, sizeof nm, "%s.add", prefix);
    TRY_(w_add(w, nm, mc * mh * mw, c));
    snprintf(nm, sizeof nm, "%s.relu3", prefix);
    TRY_(w_act(w, L_RELU, nm, c));
    w->held = held0;
    return RIDGE_OK;
}

/* MobileNet-V2 inverted residual: 1x1 expand (skipped when expand is 1), 3x3 depthwise with the
 * stride, 1x1 linear projection; BN after each conv, ReLU6 after the first two; the residual add
 * when the stride is 1 and the channels are unchanged. */
static int w_invres_block(cnn_walk *w, const char *path, const char *prefix, double expand, double out,
                          double stride, const rj_ctx *c)
{
    char nm[128];
    double ic = w->c, hid = w->c * expand, in_el = w->c * w->h * w->w, held0 = w->held;
    int res = stride == 1 && ic == out, rc;
    if (res)
        w->held = in_el;
    if (expand != 1) {
        snprintf(nm, sizeof nm, "%s.expand", prefix);
        TRY_(w_conv(w, path, nm, hid, 1, 1, 1, 0, 1, 0, c));
        snprintf(nm, sizeof nm, "%s.expand_bn", prefix);
        TRY_(w_bn(w, nm, c));
        snprintf(nm, sizeof nm, "%s.expand_relu6", prefix);
        TRY_(w_act(w, L_RELU6, nm, c));
    }
    snprintf(nm, sizeof nm, "%s.dw", prefix);
    TRY_(w_conv(w, path, nm, hid, 3, 3, stride, 1, hid, 0, c));
    snprintf(nm, sizeof nm, "%s.dw_bn", prefix);
    TRY_(w_bn(w, nm, c));
    snprintf(nm, sizeof nm, "%s.dw_relu6", prefix);
    TRY_(w_act(w, L_RELU6, nm, c));
    snprintf(nm, sizeof nm, "%s.project", prefix);
    TRY_(w_conv(w, path, nm, out, 1, 1, 1, 0, 1, 0, c));
    snprintf(nm, sizeof nm, "%s.project_bn", prefix);
    TRY_(w_bn(w, nm, c));
    w->held = held0;
    if (res) {
        snprintf(nm, sizeof nm, "%s.add", prefix);
        TRY_(w_add(w, nm, in_el, c));
    }
    return RIDGE_OK;
}

/* A block repeated `repeat` times: the first with the layer's stride, the others (identical:
 * stride 1, channels unchanged) as one set of units with count repeat - 1. */
static int w_repeated(cnn_walk *w, const cnn_layer *L, size_t idx, const char *path, const rj_ctx *c)
{
    char prefix[64];
    double count0 = w->count;
    int rc;
    snprintf(prefix, sizeof prefix, "l%zu[0]", idx);
    if (L->kind == L_BOTTLENECK)
        rc = w_bottleneck_block(w, path, prefix, L->mid, L->out, L->stride, c);
    else
        rc = w_invres_block(w, path, prefix, L->expand, L->out, L->stride, c);
    if (rc != RIDGE_OK || L->repeat <= 1)
        return rc;
    snprintf(prefix, sizeof prefix, "l%zu[1:%.0f]", idx, L->repeat);
    w->count = count0 * (L->repeat - 1);
    if (L->kind == L_BOTTLENECK)
        rc = w_bottleneck_block(w, path, prefix, L->mid, L->out, 1, c);
    else
        rc = w_invres_block(w, path, prefix, L->expand, L->out, 1, c);
    w->count = count0;
    return rc;
}

/* SSD detection head: extra feature layers (1x1 mid, BN, ReLU, 3x3 out with stride/pad, BN, ReLU)
 * after the backbone, then per feature map a 3x3 box conv (defaults x 4) and a 3x3 class conv
 * (defaults x classes), both with bias; the per-map outputs are concatenated. */
static int w_detect(cnn_walk *w, const cnn_layer *L, size_t idx, const char *path, const rj_ctx *c)
{
    char nm[128], ep[RJ_PATH_MAX];
    double mc[CNN_MAX_MAPS], mh[CNN_MAX_MAPS], mw[CNN_MAX_MAPS], live = 0, anchors = 0;
    size_t nmaps = L->n_extra + 1;
    int rc;
    cnn_unit *u;
    mc[0] = w->c;
    mh[0] = w->h;
    mw[0] = w->w;
    for (size_t e = 0; e < L->n_extra; e++) {
        const cnn_extra *x = &L->extra[e];
        live += mc[e] * mh[e] * mw[e]; /* every feature map stays live until the heads ran */
        w->held = live - mc[e] * mh[e] * mw[e];
        snprintf(ep, sizeof ep, "%.120s.extra[%zu]", path, e);
        snprintf(nm, sizeof nm, "l%zu.extra%zu.conv1", idx, e);
        TRY_(w_conv(w, ep, nm, x->mid, 1, 1, 1, 0, 1, 0, c));
        snprintf(nm, sizeof nm, "l%zu.extra%zu.bn1", idx, e);
        TRY_(w_bn(w, nm, c));
        snprintf(nm, sizeof nm, "l%zu.extra%zu.relu1", idx, e);
        TRY_(w_act(w, L_RELU, nm, c));
        if (3 > w->h + 2 * x->pad || 3 > w->w + 2 * x->pad)
            return rj_fail(c, RIDGE_EINVAL, ep, "pad",
                           "the 3x3 conv does not fit the %gx%g input with padding %g: output size would be %g",
                           w->h, w->w, x->pad, out_side(w->h, x->pad, 3, x->stride));
        snprintf(nm, sizeof nm, "l%zu.extra%zu.conv2", idx, e);
        TRY_(w_conv(w, ep, nm, x->out, 3, 3, x->stride, x->pad, 1, 0, c));
        snprintf(nm, sizeof nm, "l%zu.extra%zu.bn2", idx, e);
        TRY_(w_bn(w, nm, c));
        snprintf(nm, sizeof nm, "l%zu.extra%zu.relu2", idx, e);
        TRY_(w_act(w, L_RELU, nm, c));
        mc[e + 1] = w->c;
        mh[e + 1] = w->h;
        mw[e + 1] = w->w;
    }
    live += mc[nmaps - 1] * mh[nmaps - 1] * mw[nmaps - 1];
    for (size_t i = 0; i < nmaps; i++) {
        double d = L->defaults[i];
        /* Every map ends in a ReLU, which saved it: the heads save nothing new. */
        w->c = mc[i];
        w->h = mh[i];
        w->w = mw[i];
        w->saved = 1;
        w->held = live - mc[i] * mh[i] * mw[i];
        snprintf(nm, sizeof nm, "l%zu.loc%zu", idx, i);
        TRY_(w_conv(w, path, nm, d * 4, 3, 3, 1, 1, 1, 1, c));
        w->c = mc[i];
        w->h = mh[i];
        w->w = mw[i];
        w->saved = 1;
        snprintf(nm, sizeof nm, "l%zu.conf%zu", idx, i);
        TRY_(w_conv(w, path, nm, d * w->classes, 3, 3, 1, 1, 1, 1, c));
        anchors += mh[i] * mw[i] * d;
    }
    w->held = 0;
    w->c = anchors * (4 + w->classes);
    w->h = w->w = 1;
    w->saved = 0;
    snprintf(nm, sizeof nm, "l%zu.concat", idx);
    if (!(u = walk_push(w, U_CONCAT, "other", nm, c)))
        return RIDGE_ENOMEM;
    snprintf(nm, sizeof nm, "l%zu.loss", idx);
    if (!(u = walk_push(w, U_DETLOSS, "loss", nm, c)))
        return RIDGE_ENOMEM;
    u->anchors = anchors;
    u->k = w->classes;
    /* fp32 class probabilities (autocast runs the loss in fp32) and the box predictions. */
    u->save_bytes = anchors * (w->classes + 4) * 4;
    w->detect = 1;
    return RIDGE_OK;
}

/* Expand the arch for an image side. Errors name the layer's JSON path under c's origin. Over 120
 * lines on purpose: one switch over the layer kinds, each case a few lines of shape inference on
 * the walk's running shape (its own helper where a kind is longer: w_repeated, w_detect), so the
 * case list reads as the schema's layer table (docs/workloads.md, "CNNs"). */
static int cnn_walk_arch(const cnn_arch *a, double image, cnn_walk *w, const rj_ctx *c)
{
    char path[RJ_PATH_MAX], nm[128];
    double *sc = NULL, *sh = NULL, *sw = NULL;
    int rc = RIDGE_OK;
    memset(w, 0, sizeof *w);
    w->c = a->channels;
    w->h = w->w = image;
    w->count = 1;
    w->classes = a->classes;
    sc = malloc(3 * a->n * sizeof *sc);
    if (!sc)
        return ridge_err_set(c->err, RIDGE_ENOMEM, "%s: out of memory expanding the layers", c->origin);
    sh = sc + a->n;
    sw = sh + a->n;
    for (size_t i = 0; i < a->n && rc == RIDGE_OK; i++) {
        const cnn_layer *L = &a->layers[i];
        cnn_unit *u;
        snprintf(path, sizeof path, "$.arch.layers[%zu]", i);
        snprintf(nm, sizeof nm, "l%zu.%s", i, kind_names[L->kind]);
        if (w->detect) {
            rc = rj_fail(c, RIDGE_EINVAL, path, "type", "'%s' after the detection head, which must be the last layer",
                         kind_names[L->kind]);
            break;
        }
        switch (L->kind) {
        case L_CONV: rc = w_conv(w, path, nm, L->k, L->r, L->s, L->stride, L->pad, L->groups, L->bias, c); break;
        case L_BN: rc = w_bn(w, nm, c); break;
        case L_RELU:
        case L_RELU6:
        case L_SILU: rc = w_act(w, L->kind, nm, c); break;
        case L_MAXPOOL:
        case L_AVGPOOL:
            if (L->r > w->h + 2 * L->pad || L->r > w->w + 2 * L->pad) {
                rc = rj_fail(c, RIDGE_EINVAL, path, "r",
                             "window %g exceeds the padded input %gx%g (pad %g): output size would be %g", L->r,
                             w->h, w->w, L->pad, out_side(w->h < w->w ? w->h : w->w, L->pad, L->r, L->stride));
                break;
            }
            if (!(u = walk_push(w, L->kind == L_MAXPOOL ? U_MAXPOOL : U_AVGPOOL, "pool", nm, c))) {
                rc = RIDGE_ENOMEM;
                break;
            }
            u->r = u->s = L->r;
            u->stride = L->stride;
            u->pad = L->pad;
            u->p = out_side(w->h, L->pad, L->r, L->stride);
            u->q = out_side(w->w, L->pad, L->r, L->stride);
            if (L->kind == L_MAXPOOL) {
                /* Backward needs the input and the argmax (int64) of every output. */
                u->save_el = w->saved ? 0 : w->c * w->h * w->w;
                u->save_bytes = 8 * w->c * u->p * u->q;
            }
            w->h = u->p;
            w->w = u->q;
            w->saved = 0;
            break;
        case L_ADAPTIVE:
            /* torchvision's AdaptiveAvgPool2d: no kernel work when the input already has the size */
            if (w->h == L->size && w->w == L->size)
                break;
            if (!(u = walk_push(w, U_AVGPOOL, "pool", nm, c))) {
                rc = RIDGE_ENOMEM;
                break;
            }
            u->r = ceil(w->h / L->size);
            u->s = ceil(w->w / L->size);
            u->stride = 1;
            u->p = u->q = L->size;
            w->h = w->w = L->size;
            w->saved = 0;
            break;
        case L_GAP:
            if (!(u = walk_push(w, U_GAP, "pool", nm, c))) {
                rc = RIDGE_ENOMEM;
                break;
            }
            u->p = u->q = 1;
            w->h = w->w = 1;
            w->saved = 0;
            break;
        case L_FC: {
            double out = L->out > 0 ? L->out : a->classes;
            if (!(u = walk_push(w, U_FC, "fc", nm, c))) {
                rc = RIDGE_ENOMEM;
                break;
            }
            u->k = out;
            u->p = u->q = 1;
            u->bias = L->bias;
            u->first = !w->any_compute;
            u->save_el = w->saved ? 0 : w->c * w->h * w->w;
            w->any_compute = 1;
            w->c = out;
            w->h = w->w = 1;
            w->saved = 0;
            break;
        }
        case L_ADD: {
            size_t f = (size_t)L->from;
            if (L->from >= (double)i) {
                rc = rj_fail(c, RIDGE_EINVAL, path, "from", "%g is not an earlier layer (this is layer %zu)", L->from,
                             i);
                break;
            }
            if (sc[f] != w->c || sh[f] != w->h || sw[f] != w->w) {
                rc = rj_fail(c, RIDGE_EINVAL, path, "from",
                             "layer %zu outputs %gx%gx%g (channels x height x width) but the current tensor is "
                             "%gx%gx%g",
                             f, sc[f], sh[f], sw[f], w->c, w->h, w->w);
                break;
            }
            rc = w_add(w, nm, w->c * w->h * w->w, c);
            break;
        }
        case L_DROPOUT:
            if (!(u = walk_push(w, U_DROPOUT, "other", nm, c))) {
                rc = RIDGE_ENOMEM;
                break;
            }
            u->save_bytes = w->c * w->h * w->w; /* the bool mask */
            w->saved = 0;
            break;
        case L_BOTTLENECK:
        case L_INVRES: rc = w_repeated(w, L, i, path, c); break;
        case L_DETECT: rc = w_detect(w, L, i, path, c); break;
        default: rc = rj_fail(c, RIDGE_EINVAL, path, "type", "internal: unknown layer kind"); break;
        }
        sc[i] = w->c;
        sh[i] = w->h;
        sw[i] = w->w;
    }
    free(sc);
    if (rc == RIDGE_OK && !w->detect) {
        cnn_unit *u;
        if (w->h != 1 || w->w != 1 || w->c != a->classes)
            rc = rj_fail(c, RIDGE_EINVAL, "$.arch", "layers",
                         "the network ends with a %gx%gx%g tensor (channels x height x width); a classifier must "
                         "end with classes = %g features (end with gap and fc, or add a detection_head)",
                         w->c, w->h, w->w, a->classes);
        else if (!(u = walk_push(w, U_LOSS, "loss", "loss", c)))
            rc = RIDGE_ENOMEM;
        else
            u->save_bytes = 4 * a->classes; /* fp32 softmax output */
    }
    if (rc != RIDGE_OK)
        walk_free(w);
    return rc;
}

/* ------------------------------------------------------------ parse */

static int get_num(const cJSON *o, const char *path, const char *key, int required, long lo, long hi, double def,
                   double *out, const rj_ctx *c)
{
    long v = 0;
    int rc = rj_int(o, path, key, required, lo, hi, &v, c);
    if (rc < 0)
        return rc;
    *out = rc ? (double)v : def;
    return RIDGE_OK;
}

#define GET(o, p, key, req, lo, hi, def, out)                                        \
    do {                                                                            \
        if ((rc = get_num((o), (p), (key), (req), (lo), (hi), (def), (out), c)) < 0) \
            return rc;                                                              \
    } while (0)

static int parse_detect(const cJSON *j, const char *path, cnn_layer *L, const rj_ctx *c)
{
    const cJSON *defs = NULL, *extra = NULL, *it;
    char p[RJ_PATH_MAX];
    int rc, n;
    size_t i = 0;
    if ((rc = rj_array(j, path, "defaults", 1, &defs, c)) < 0)
        return rc;
    if ((rc = rj_array(j, path, "extra", 1, &extra, c)) < 0)
        return rc;
    n = cJSON_GetArraySize(extra);
    if (n > CNN_MAX_MAPS - 1)
        return rj_fail(c, RIDGE_EINVAL, path, "extra", "%d extra layers; at most %d", n, CNN_MAX_MAPS - 1);
    L->n_extra = (size_t)n;
    if (cJSON_GetArraySize(defs) != n + 1)
        return rj_fail(c, RIDGE_EINVAL, path, "defaults",
                       "%d entries; one per feature map is needed (the backbone output and %d extra layers: %d)",
                       cJSON_GetArraySize(defs), n, n + 1);
    cJSON_ArrayForEach(it, defs)
    {
        snprintf(p, sizeof p, "%.120s.defaults[%zu]", path, i);
        if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) || it->valuedouble != floor(it->valuedouble) ||
            it->valuedouble < 1 || it->valuedouble > 1000)
            return rj_fail(c, RIDGE_EINVAL, p, NULL, "expected an integer in [1, 1000] (default boxes per location)");
        L->defaults[i++] = it->valuedouble;
    }
    i = 0;
    cJSON_ArrayForEach(it, extra)
    {
        cnn_extra *x = &L->extra[i];
        snprintf(p, sizeof p, "%.120s.extra[%zu]", path, i);
        if (!cJSON_IsObject(it))
            return rj_fail(c, RIDGE_EINVAL, p, NULL, "expected an object {mid, out, stride, pad}");
        if ((rc = rj_check_keys(it, p, keys_extra, c)) < 0)
            return rc;
        GET(it, p, "mid", 1, 1, CNN_DIM_MAX, 0, &x->mid);
        GET(it, p, "out", 1, 1, CNN_DIM_MAX, 0, &x->out);
        GET(it, p, "stride", 0, 1, CNN_KERNEL_MAX, 1, &x->stride);
        GET(it, p, "pad", 0, 0, CNN_KERNEL_MAX, 0, &x->pad);
        i++;
    }
    return RIDGE_OK;
}

static int parse_layer(const cJSON *j, const char *path, cnn_layer *L, const rj_ctx *c)
{
    char type[32] = "";
    int rc, k = -1;
    if (!cJSON_IsObject(j))
        return rj_fail(c, RIDGE_EINVAL, path, NULL, "expected a layer object {\"type\": ...}");
    if ((rc = rj_string(j, path, "type", 1, type, sizeof type, c)) < 0)
        return rc;
    for (int i = 0; i < L_KIND_COUNT; i++)
        if (strcmp(type, kind_names[i]) == 0)
            k = i;
    if (k < 0)
        return rj_fail(c, RIDGE_EINVAL, path, "type",
                       "'%s' is not a layer type (conv, bn, relu, relu6, silu, maxpool, avgpool, "
                       "adaptive_avgpool, gap, fc, add, dropout, bottleneck, inverted_residual, detection_head)",
                       type);
    L->kind = (cnn_kind)k;
    if ((rc = rj_check_keys(j, path, kind_keys[k], c)) < 0)
        return rc;
    L->repeat = 1;
    L->groups = 1;
    switch (L->kind) {
    case L_CONV:
        GET(j, path, "k", 1, 1, CNN_DIM_MAX, 0, &L->k);
        GET(j, path, "r", 1, 1, CNN_KERNEL_MAX, 0, &L->r);
        GET(j, path, "s", 0, 1, CNN_KERNEL_MAX, L->r, &L->s);
        GET(j, path, "stride", 0, 1, CNN_KERNEL_MAX, 1, &L->stride);
        GET(j, path, "pad", 0, 0, CNN_KERNEL_MAX, 0, &L->pad);
        GET(j, path, "groups", 0, 1, CNN_DIM_MAX, 1, &L->groups);
        if ((rc = rj_bool(j, path, "bias", 0, &L->bias, c)) < 0)
            return rc;
        break;
    case L_MAXPOOL:
    case L_AVGPOOL:
        GET(j, path, "r", 1, 1, CNN_KERNEL_MAX, 0, &L->r);
        GET(j, path, "stride", 0, 1, CNN_KERNEL_MAX, L->r, &L->stride);
        GET(j, path, "pad", 0, 0, CNN_KERNEL_MAX, 0, &L->pad);
        if (2 * L->pad > L->r)
            return rj_fail(c, RIDGE_EINVAL, path, "pad", "%g is more than half the window %g", L->pad, L->r);
        break;
    case L_ADAPTIVE: GET(j, path, "size", 1, 1, CNN_IMAGE_MAX, 0, &L->size); break;
    case L_FC:
        GET(j, path, "out", 0, 1, CNN_DIM_MAX, 0, &L->out);
        L->bias = 1;
        if ((rc = rj_bool(j, path, "bias", 0, &L->bias, c)) < 0)
            return rc;
        break;
    case L_ADD: GET(j, path, "from", 1, 0, CNN_MAX_LAYERS, 0, &L->from); break;
    case L_BOTTLENECK:
        GET(j, path, "mid", 1, 1, CNN_DIM_MAX, 0, &L->mid);
        GET(j, path, "out", 1, 1, CNN_DIM_MAX, 0, &L->out);
        GET(j, path, "stride", 0, 1, CNN_KERNEL_MAX, 1, &L->stride);
        GET(j, path, "repeat", 0, 1, CNN_REPEAT_MAX, 1, &L->repeat);
        break;
    case L_INVRES:
        GET(j, path, "expand", 1, 1, 1000, 0, &L->expand);
        GET(j, path, "out", 1, 1, CNN_DIM_MAX, 0, &L->out);
        GET(j, path, "stride", 0, 1, CNN_KERNEL_MAX, 1, &L->stride);
        GET(j, path, "repeat", 0, 1, CNN_REPEAT_MAX, 1, &L->repeat);
        break;
    case L_DETECT: return parse_detect(j, path, L, c);
    default: break;
    }
    return RIDGE_OK;
}

static void cnn_free_arch(void *arch)
{
    cnn_arch *a = arch;
    free(a->layers);
    a->layers = NULL;
    a->n = 0;
}

static const char *const arch_keys[] = {"image", "channels", "classes", "layers", NULL};

/* The model's id for messages: the preset id, or the file path. */
static void set_id(char *id, size_t cap, const char *origin)
{
    const char *pre = "builtin:";
    if (strncmp(origin, pre, strlen(pre)) == 0)
        origin += strlen(pre);
    snprintf(id, cap, "%s", origin);
}

static int cnn_parse(const cJSON *j, void *arch, const rj_ctx *c)
{
    cnn_arch *a = arch;
    const cJSON *layers = NULL, *it;
    cnn_walk w;
    char path[RJ_PATH_MAX];
    size_t i = 0;
    int rc, n;
    set_id(a->id, sizeof a->id, c->origin);
    if ((rc = rj_check_keys(j, "$.arch", arch_keys, c)) < 0)
        return rc;
    GET(j, "$.arch", "image", 1, 1, CNN_IMAGE_MAX, 0, &a->image);
    GET(j, "$.arch", "channels", 0, 1, CNN_DIM_MAX, 3, &a->channels);
    GET(j, "$.arch", "classes", 0, 1, CNN_DIM_MAX, 1000, &a->classes);
    if ((rc = rj_array(j, "$.arch", "layers", 1, &layers, c)) < 0)
        return rc;
    n = cJSON_GetArraySize(layers);
    if (n < 1 || n > CNN_MAX_LAYERS)
        return rj_fail(c, RIDGE_EINVAL, "$.arch", "layers", "%d layers; 1 to %d are accepted", n, CNN_MAX_LAYERS);
    a->layers = calloc((size_t)n, sizeof *a->layers);
    if (!a->layers)
        return ridge_err_set(c->err, RIDGE_ENOMEM, "%s: out of memory", c->origin);
    a->n = (size_t)n;
    cJSON_ArrayForEach(it, layers)
    {
        snprintf(path, sizeof path, "$.arch.layers[%zu]", i);
        if ((rc = parse_layer(it, path, &a->layers[i], c)) < 0)
            return rc;
        i++;
    }
    /* Shapes at the default image size. */
    if ((rc = cnn_walk_arch(a, a->image, &w, c)) != RIDGE_OK)
        return rc;
    walk_free(&w);
    return RIDGE_OK;
}

/* ------------------------------------------------------------ queries */

static double unit_params(const cnn_unit *u, double *tensors)
{
    double p = 0, t = 0;
    switch (u->kind) {
    case U_CONV:
        p = u->k * (u->c / u->groups) * u->r * u->s + (u->bias ? u->k : 0);
        t = u->bias ? 2 : 1;
        break;
    case U_BN:
        p = 2 * u->c;
        t = 2;
        break;
    case U_FC:
        p = u->c * u->h * u->w * u->k + (u->bias ? u->k : 0);
        t = u->bias ? 2 : 1;
        break;
    default: break;
    }
    if (tensors)
        *tensors += t * u->count;
    return p * u->count;
}

static double unit_macs(const cnn_unit *u)
{
    if (u->kind == U_CONV)
        return u->k * (u->c / u->groups) * u->r * u->s * u->p * u->q * u->count;
    if (u->kind == U_FC)
        return u->c * u->h * u->w * u->k * u->count;
    return 0;
}

/* Expand at an image size that parse or resolve already checked. */
static int walk_checked(const cnn_arch *a, double image, cnn_walk *w, ridge_err *err)
{
    rj_ctx c = {a->id, err};
    return cnn_walk_arch(a, image, w, &c);
}

static double cnn_params_tensors(const cnn_arch *a, double *tensors)
{
    cnn_walk w;
    double p = 0;
    if (tensors)
        *tensors = 0;
    if (walk_checked(a, a->image, &w, NULL) != RIDGE_OK)
        return 0;
    for (size_t i = 0; i < w.n; i++)
        p += unit_params(&w.u[i], tensors);
    walk_free(&w);
    return p;
}

static double cnn_params(const void *arch, const ridge_run_config *rc)
{
    (void)rc;
    return cnn_params_tensors(arch, NULL);
}

static int cnn_resolve(const void *arch, ridge_run_config *rc, ridge_err *err)
{
    const cnn_arch *a = arch;
    char origin[64];
    rj_ctx c = {origin, err};
    cnn_walk w;
    double p_run = 0, p_file;
    int st;
    if (rc->mode != RIDGE_MODE_TRAIN && rc->mode != RIDGE_MODE_INFER)
        return ridge_err_set(err, RIDGE_EINVAL, "run.mode %s: %s is a CNN; use train or infer",
                             ridge_mode_name(rc->mode), a->id);
    if (rc->hidden != 0 || rc->layers != 0)
        return ridge_err_set(err, RIDGE_EINVAL, "run.%s: %s is a CNN; run.hidden and run.layers apply to RNNs",
                             rc->hidden != 0 ? "hidden" : "layers", a->id);
    if (rc->image == 0)
        rc->image = a->image;
    if (!(rc->image >= 1 && rc->image <= CNN_IMAGE_MAX && rc->image == floor(rc->image)))
        return ridge_err_set(err, RIDGE_EINVAL, "run.image: %g is not an integer in [1, %d]", rc->image, CNN_IMAGE_MAX);
    snprintf(origin, sizeof origin, "run.image %g", rc->image);
    if ((st = cnn_walk_arch(a, rc->image, &w, &c)) != RIDGE_OK)
        return st;
    for (size_t i = 0; i < w.n; i++)
        p_run += unit_params(&w.u[i], NULL);
    walk_free(&w);
    /* The parameter count (and the memory terms computed from it) is the file's. */
    p_file = cnn_params(a, NULL);
    if (p_run != p_file)
        return ridge_err_set(err, RIDGE_EINVAL,
                             "run.image %g: %s would have %.0f parameters instead of %.0f (an fc layer's inputs "
                             "depend on the image size; pool to a fixed size first with gap or adaptive_avgpool)",
                             rc->image, a->id, p_run, p_file);
    return RIDGE_OK;
}

static double cnn_flops(const void *arch, const ridge_run_config *rc)
{
    cnn_walk w;
    double macs = 0;
    if (walk_checked(arch, rc->image, &w, NULL) != RIDGE_OK)
        return 0;
    for (size_t i = 0; i < w.n; i++)
        macs += unit_macs(&w.u[i]);
    walk_free(&w);
    return 2 * macs * rc->batch * (rc->mode == RIDGE_MODE_TRAIN ? 3 : 1);
}

static const char *cnn_unit_name(const void *arch, const ridge_run_config *rc)
{
    (void)arch;
    (void)rc;
    return "images/s";
}

static double cnn_items(const void *arch, const ridge_run_config *rc)
{
    (void)arch;
    return rc->batch;
}

/* ------------------------------------------------------------ graph */

/* The backward half of what a graph.h helper adds in training: the helper pushes the forward op
 * first; drop it. */
static void keep_backward(rw_graph *g, size_t n0, size_t nfwd)
{
    if (g->failed || g->n < n0 + nfwd)
        return;
    memmove(&g->ops[n0], &g->ops[n0 + nfwd], (g->n - n0 - nfwd) * sizeof *g->ops);
    g->n -= nfwd;
}

static void push_reduce(rw_graph *g, const char *group, const char *name, ridge_dtype dt, double rows, double cols,
                        double count)
{
    ridge_op *op = rw_push(g, RIDGE_OP_REDUCE, dt, group, name, count);
    if (!op)
        return;
    op->u.rows.rows = rows;
    op->u.rows.cols = cols;
}

/* Values in a convolution unit's filter. */
static double filter_elems(const cnn_unit *u)
{
    return u->k * (u->c / (u->groups > 1 ? u->groups : 1)) * u->r * u->s;
}

static void push_conv(rw_graph *g, const cnn_unit *u, const char *name, ridge_dtype dt, double n, ridge_pass pass)
{
    ridge_op *op = rw_push(g, RIDGE_OP_CONV2D, dt, u->group, name, u->count);
    if (!op)
        return;
    op->u.conv.n = n;
    op->u.conv.c = u->c;
    op->u.conv.h = u->h;
    op->u.conv.w = u->w;
    op->u.conv.k = u->k;
    op->u.conv.r = u->r;
    op->u.conv.s = u->s;
    op->u.conv.stride = u->stride;
    op->u.conv.pad = u->pad;
    op->u.conv.groups = u->groups;
    op->u.conv.pass = pass;
    /* The filter (read; its gradient written by bwd_filter) is cold, unless autocast has just
     * cast it (the cast reads the cold FP32 filter instead) or casts the gradient back just after
     * (that cast writes the cold FP32 gradient instead). */
    if (!g->amp)
        rw_cold(g, op, filter_elems(u) * ridge_dtype_bytes(dt));
}

/* NCHW activations: cuDNN's tensor-core convolutions work in NHWC, so a convolution in NCHW
 * transposes its activation operand(s) in and its result out, each a read and a write of the
 * tensor (docs/workloads.md, "Layout"). Grouped (depthwise) convolutions and the FP32/FP64 path run
 * NCHW kernels natively; the small filter transposes are left out. */
static int nchw_transposes(const cnn_unit *u, const ridge_run_config *rc, ridge_dtype dt)
{
    return rc->nchw && !rc->engine && u->groups <= 1 && dt != RIDGE_DTYPE_FP32 && dt != RIDGE_DTYPE_FP64;
}

static void push_transpose(rw_graph *g, const cnn_unit *u, const char *what, ridge_dtype at, double elements)
{
    char nm[RIDGE_OP_NAME_MAX];
    snprintf(nm, sizeof nm, "%s.%s", u->name, what);
    rw_elementwise(g, "layout", nm, at, elements, 1, 1, 0, 0, u->count);
}

/* The dtype activations are stored in: the framework's (fp8/int8 runs keep bf16 activations), or
 * an inference engine's, which keeps them in the run precision between its fused kernels. */
static ridge_dtype cnn_act_dtype(const ridge_run_config *rc)
{
    return rc->engine ? rw_math_dtype(rc->precision) : rw_act_dtype(rc->precision);
}

/* Batch norm as eager PyTorch runs it on channels_last activations (the torch and hf code styles,
 * NHWC): cuDNN when the input is FP32, or FP16 with FP32 weights (autocast); otherwise (BF16, or
 * FP16 weights as in a model cast with .half()) the native channels_last kernels, whose column
 * grid and loads in flight docs/model.md §6 prices ("Channels-last batch norm"). */
static int native_bn_cl(const rw_graph *g, const ridge_run_config *rc)
{
    ridge_dtype at = rw_act_dtype(rc->precision);
    if (!g->modules || rc->nchw || rc->engine)
        return 0;
    return at == RIDGE_DTYPE_BF16 || (at == RIDGE_DTYPE_FP16 && !g->amp);
}

/* An inference engine's forward of one unit (--fusion engine): batch norms are folded into the
 * convolutions' weights and bias, activations run in the producing kernel's epilogue, and a
 * residual add is fused into the epilogue of the convolution just before it, which then also
 * reads the other branch (epilogue_bytes). Returns 1 when it handled the unit. */
static int emit_engine(rw_graph *g, const cnn_unit *u, ridge_dtype at, double out)
{
    switch (u->kind) {
    case U_BN:
    case U_ACT: return 1;
    case U_ADD:
        for (size_t i = g->n; i-- > 0 && !g->failed;)
            if (g->ops[i].kind == RIDGE_OP_CONV2D) {
                g->ops[i].epilogue_bytes += out * ridge_dtype_bytes(at);
                return 1;
            }
        return 0; /* no convolution to fuse into: a kernel of its own */
    default: return 0;
    }
}

/* Forward kernels of one unit (train: the training-mode variants). */
static void emit_fwd(rw_graph *g, const cnn_unit *u, const ridge_run_config *rc)
{
    int train = rc->mode == RIDGE_MODE_TRAIN;
    ridge_dtype dt = rw_math_dtype(rc->precision), at = cnn_act_dtype(rc);
    double n = rc->batch, es = ridge_dtype_bytes(at);
    double in = n * u->c * u->h * u->w, out = n * u->k * u->p * u->q;
    char nm[RIDGE_OP_NAME_MAX];
    if (rc->engine && emit_engine(g, u, at, out))
        return;
    if (u->fused == ABSORBED) /* in the batch norm's kernel before it */
        return;
    switch (u->kind) {
    case U_CONV:
        if (nchw_transposes(u, rc, dt))
            push_transpose(g, u, "x_to_nhwc", at, in);
        rw_weight_cast(g, u->group, u->name, dt, filter_elems(u),
                       u->count);
        push_conv(g, u, u->name, dt, n, RIDGE_PASS_FWD);
        if (nchw_transposes(u, rc, dt))
            push_transpose(g, u, "y_to_nchw", at, out);
        if (u->bias && !rc->engine) {
            snprintf(nm, sizeof nm, "%s.bias", u->name);
            rw_elementwise(g, u->group, nm, at, out, 1, 1, 1, 0, u->count);
        }
        break;
    case U_BN:
        if (train) {
            /* Batch statistics (one pass: sum and sum of squares per channel), then normalize. */
            snprintf(nm, sizeof nm, "%s.stats", u->name);
            rw_rows(g, RIDGE_OP_REDUCE, u->group, nm, at, u->c, n * u->h * u->w, 0, u->count);
            if (!u->fused && native_bn_cl(g, rc) && !g->failed) {
                g->ops[g->n - 1].u.rows.kernel = RIDGE_ROW_COLUMN;
                /* batch_norm_update_stats_and_invert: the running statistics and invstd, one
                 * C-element kernel after the statistics (batch_norm_cuda_out) */
                g->ops[g->n - 1].u.rows.aux_kernels = 1;
            }
        }
        if (u->fused) {
            /* the normalisation, the ReLU (max: 1 FLOP) and with BN_ADD_ACT the residual add
             * (1 FLOP, one input more) in one pass */
            snprintf(nm, sizeof nm, "%.32s%s", u->name, fused_suffix(u));
            rw_elementwise(g, u->group, nm, at, in, u->fused == BN_ACT ? 1 : 2, 1, u->fused == BN_ACT ? 3 : 4, 0,
                           u->count);
        } else {
            rw_elementwise(g, u->group, u->name, at, in, 1, 1, 2, 0, u->count);
            if (native_bn_cl(g, rc) && !g->failed) {
                g->ops[g->n - 1].u.ew.channels = u->c;
                /* eval (batch_norm_cuda_out): save_mean.copy_(running_mean) and
                 * batch_norm_calc_invstd(running_var), two C-element kernels before the transform */
                if (!train)
                    g->ops[g->n - 1].u.ew.aux_kernels = 2;
            }
        }
        if (train && g->torch_step) {
            /* nn.BatchNorm2d in training mode: self.num_batches_tracked.add_(1), one aten op on
             * a one-value tensor before the batch-norm call */
            if (snprintf(nm, sizeof nm, "%s.num_batches_tracked", u->name) >= (int)sizeof nm)
                nm[sizeof nm - 1] = '\0'; /* a label: truncated to fit, like op names */
            rw_custom(g, u->group, nm, RIDGE_DTYPE_FP32, 1, 16, u->count);
        }
        break;
    case U_ACT: rw_elementwise(g, u->group, u->name, at, in, 1, 1, u->act_flops, 0, u->count); break;
    case U_MAXPOOL:
        /* Windows overlap: each input is read once from DRAM, the rest hit in cache; training also
         * writes the int64 argmax. */
        rw_custom(g, u->group, u->name, at, out * u->r * u->s, (in + out) * es + (train ? 8 * out : 0), u->count);
        break;
    case U_AVGPOOL: rw_custom(g, u->group, u->name, at, out * u->r * u->s, (in + out) * es, u->count); break;
    case U_GAP: push_reduce(g, u->group, u->name, at, n * u->c, u->h * u->w, u->count); break;
    case U_FC: rw_linear(g, u->group, u->name, dt, n, u->c * u->h * u->w, u->k, 0, u->count); break;
    case U_ADD: rw_elementwise(g, u->group, u->name, at, out, 2, 1, 1, 0, u->count); break;
    case U_DROPOUT:
        if (train) /* output and mask; identity in inference */
            rw_elementwise(g, u->group, u->name, at, in, 1, 2, 2, 0, u->count);
        break;
    case U_CONCAT: rw_elementwise(g, u->group, u->name, at, in, 1, 1, 0, 0, u->count); break;
    case U_LOSS:
        if (train)
            rw_rows(g, RIDGE_OP_SOFTMAX, u->group, u->name, at, n, u->c, 0, u->count);
        break;
    case U_DETLOSS:
        if (train) {
            snprintf(nm, sizeof nm, "%s.conf", u->name);
            rw_rows(g, RIDGE_OP_SOFTMAX, u->group, nm, at, n * u->anchors, u->k, 0, u->count);
            snprintf(nm, sizeof nm, "%s.box", u->name);
            rw_elementwise(g, u->group, nm, at, n * u->anchors * 4, 2, 1, 4, 0, u->count);
        }
        break;
    }
}

/* Backward kernels of one unit (training only). */
static void emit_bwd(rw_graph *g, const cnn_unit *u, const ridge_run_config *rc)
{
    ridge_dtype dt = rw_math_dtype(rc->precision), at = rw_act_dtype(rc->precision);
    double n = rc->batch, es = ridge_dtype_bytes(at);
    double in = n * u->c * u->h * u->w, out = n * u->k * u->p * u->q;
    char nm[RIDGE_OP_NAME_MAX];
    size_t n0 = g->n;
    if (u->fused == ABSORBED && u->kind == U_ACT) /* the ReLU's mask: in the batch norm's backward */
        return;
    switch (u->kind) {
    case U_CONV:
        if (u->bias) {
            snprintf(nm, sizeof nm, "%s.bgrad", u->name);
            push_reduce(g, u->group, nm, at, u->k, n * u->p * u->q, u->count);
        }
        if (!u->first) {
            snprintf(nm, sizeof nm, "%s.dgrad", u->name);
            if (nchw_transposes(u, rc, dt))
                push_transpose(g, u, "dy_to_nhwc", at, out);
            push_conv(g, u, nm, dt, n, RIDGE_PASS_BWD_DATA);
            if (nchw_transposes(u, rc, dt))
                push_transpose(g, u, "dx_to_nchw", at, in);
        }
        snprintf(nm, sizeof nm, "%s.wgrad", u->name);
        if (nchw_transposes(u, rc, dt)) { /* the backward-filter call transposes x and dy again */
            push_transpose(g, u, "wgrad_x_to_nhwc", at, in);
            push_transpose(g, u, "wgrad_dy_to_nhwc", at, out);
        }
        push_conv(g, u, nm, dt, n, RIDGE_PASS_BWD_FILTER);
        rw_grad_cast(g, u->group, u->name, dt, filter_elems(u),
                     u->count);
        break;
    case U_BN:
        if (u->fused) {
            /* cudnnBatchNormalizationBackwardEx with the activation: dy masked by the saved
             * output's sign, so the reduction of dy and dy * x-hat reads x, y and dy, and so does
             * dx; with BN_ADD_ACTIVATION it also writes the masked dy, the residual's gradient
             * (the add's backward, the sum where the branches fork, stays its own kernel). */
            ridge_op *op;
            snprintf(nm, sizeof nm, "%.32s%s.stats.bwd", u->name, fused_suffix(u));
            op = rw_push(g, RIDGE_OP_REDUCE, at, u->group, nm, u->count);
            if (op) {
                op->u.rows.rows = u->c;
                op->u.rows.cols = n * u->h * u->w;
                op->u.rows.inputs = 3;
            }
            snprintf(nm, sizeof nm, "%.32s%s.bwd", u->name, fused_suffix(u));
            rw_elementwise(g, u->group, nm, at, in, 3, u->fused == BN_ACT ? 1 : 2, 6, 0, u->count);
            break;
        }
        /* Reductions of dy and dy * x-hat per channel, then dx. */
        snprintf(nm, sizeof nm, "%s.stats", u->name);
        if (native_bn_cl(g, rc)) {
            /* batch_norm_backward_reduce_channels_last: one kernel reading x and dy */
            ridge_op *op;
            snprintf(nm, sizeof nm, "%s.stats.bwd", u->name);
            op = rw_push(g, RIDGE_OP_REDUCE, at, u->group, nm, u->count);
            if (op) {
                op->u.rows.rows = u->c;
                op->u.rows.cols = n * u->h * u->w;
                op->u.rows.inputs = 2;
                op->u.rows.kernel = RIDGE_ROW_COLUMN;
            }
        } else {
            rw_rows(g, RIDGE_OP_REDUCE, u->group, nm, at, u->c, n * u->h * u->w, 1, u->count);
            keep_backward(g, n0, 1);
        }
        n0 = g->n;
        rw_elementwise(g, u->group, u->name, at, in, 1, 1, 2, 1, u->count);
        keep_backward(g, n0, 1);
        if (native_bn_cl(g, rc) && !g->failed)
            g->ops[g->n - 1].u.ew.channels = u->c;
        break;
    case U_ACT:
        rw_elementwise(g, u->group, u->name, at, in, 1, 1, u->act_flops, 1, u->count);
        keep_backward(g, n0, 1);
        break;
    case U_MAXPOOL:
        /* Read dy and the argmax, zero-fill and scatter into dx. */
        snprintf(nm, sizeof nm, "%s.bwd", u->name);
        rw_custom(g, u->group, nm, at, in, out * (es + 8) + 2 * in * es, u->count);
        break;
    case U_AVGPOOL:
        snprintf(nm, sizeof nm, "%s.bwd", u->name);
        rw_custom(g, u->group, nm, at, in, (in + out) * es, u->count);
        break;
    case U_GAP:
        /* Broadcast dy / (h w) over the window. */
        snprintf(nm, sizeof nm, "%s.bwd", u->name);
        rw_elementwise(g, u->group, nm, at, in, 0, 1, 1, 0, u->count);
        break;
    case U_FC: /* no dgrad for the network input */
        rw_linear_backward(g, u->group, u->name, dt, n, u->c * u->h * u->w, u->k, !u->first, u->count);
        break;
    case U_ADD:
        /* The gradient passes to both inputs unchanged; where the branches fork it is summed. */
        snprintf(nm, sizeof nm, "%s.bwd", u->name);
        rw_elementwise(g, u->group, nm, at, out, 2, 1, 1, 0, u->count);
        break;
    case U_DROPOUT:
        rw_elementwise(g, u->group, u->name, at, in, 1, 2, 2, 1, u->count);
        keep_backward(g, n0, 1);
        break;
    case U_CONCAT:
        rw_elementwise(g, u->group, u->name, at, in, 1, 1, 0, 1, u->count);
        keep_backward(g, n0, 1);
        break;
    case U_LOSS:
        rw_rows(g, RIDGE_OP_SOFTMAX, u->group, u->name, at, n, u->c, 1, u->count);
        keep_backward(g, n0, 1);
        break;
    case U_DETLOSS:
        snprintf(nm, sizeof nm, "%s.conf", u->name);
        rw_rows(g, RIDGE_OP_SOFTMAX, u->group, nm, at, n * u->anchors, u->k, 1, u->count);
        keep_backward(g, n0, 1);
        n0 = g->n;
        snprintf(nm, sizeof nm, "%s.box", u->name);
        rw_elementwise(g, u->group, nm, at, n * u->anchors * 4, 2, 1, 4, 1, u->count);
        keep_backward(g, n0, 1);
        break;
    }
}

/* cuDNN's fused batch norms (--bn-fusion fused; docs/workloads.md, "CNNs"): a batch norm followed
 * by a ReLU runs it in its own kernel (cudnnBatchNormalizationForwardTrainingEx, BN_ACTIVATION),
 * one followed by a residual add and a ReLU runs both (BN_ADD_ACTIVATION), as NGC MXNet's
 * ResNet-50 does. The pair or triple must repeat alike (the same count); an inference engine's
 * graph (which folds batch norms away) and other activations keep their kernels. */
static void mark_bn_fusion(cnn_unit *u, size_t n, const ridge_run_config *rc)
{
    if (!rc->bn_fused || rc->engine)
        return;
    for (size_t i = 0; i + 1 < n; i++) {
        cnn_unit *a = &u[i + 1], *b = i + 2 < n ? &u[i + 2] : NULL;
        if (u[i].kind != U_BN || u[i].fused)
            continue;
        if (a->kind == U_ACT && a->act_flops == 1 && a->count == u[i].count) {
            u[i].fused = BN_ACT;
            a->fused = ABSORBED;
        } else if (a->kind == U_ADD && b && b->kind == U_ACT && b->act_flops == 1 && a->count == u[i].count &&
                   b->count == u[i].count) {
            u[i].fused = BN_ADD_ACT;
            a->fused = b->fused = ABSORBED;
        }
    }
}

static int cnn_build(const void *arch, const ridge_run_config *rc, rw_graph *g, ridge_err *err)
{
    const cnn_arch *a = arch;
    cnn_walk w;
    double tensors = 0, params = 0;
    int st;
    if ((st = walk_checked(a, rc->image, &w, err)) != RIDGE_OK)
        return st;
    mark_bn_fusion(w.u, w.n, rc);
    for (size_t i = 0; i < w.n; i++) {
        size_t first = g->n;
        emit_fwd(g, &w.u[i], rc);
        /* one nn.Module call per layer (conv, batch norm, activation, pool, linear); a residual
         * add stands for its block's call (torchvision's Bottleneck) */
        rw_modules_at(g, first, 1);
    }
    if (rc->mode == RIDGE_MODE_TRAIN) {
        size_t first = g->n;
        for (size_t i = w.n; i-- > 0;)
            emit_bwd(g, &w.u[i], rc);
        /* the backward kernels are issued by the C++ autograd engine */
        for (size_t i = first; !g->failed && i < g->n; i++)
            g->ops[i].host_class = RIDGE_HOST_AUTOGRAD;
        for (size_t i = 0; i < w.n; i++)
            params += unit_params(&w.u[i], &tensors);
        rw_optimizer(g, params, tensors, rc->precision, rc->optimizer, rc->optimizer_impl);
    }
    walk_free(&w);
    return RIDGE_OK;
}

/* Training: every tensor saved for backward, once (docs/workloads.md, "CNNs"). Inference: the
 * largest input + output (+ a live residual input) of any unit. */
static int cnn_memory(const void *arch, const ridge_run_config *rc, ridge_memory *m, ridge_err *err)
{
    const cnn_arch *a = arch;
    cnn_walk w;
    double es = ridge_dtype_bytes(cnn_act_dtype(rc)), acts = 0;
    int st;
    if ((st = walk_checked(a, rc->image, &w, err)) != RIDGE_OK)
        return st;
    for (size_t i = 0; i < w.n; i++) {
        const cnn_unit *u = &w.u[i];
        if (rc->mode == RIDGE_MODE_TRAIN) {
            acts += (u->save_el * es + u->save_bytes) * u->count;
        } else {
            double live = u->c * u->h * u->w + u->k * u->p * u->q + u->held_el;
            if (u->kind != U_LOSS && u->kind != U_DETLOSS && live * es > acts)
                acts = live * es;
        }
    }
    walk_free(&w);
    m->activations_bytes = acts * rc->batch;
    m->kv_cache_bytes = 0;
    return RIDGE_OK;
}

const rw_family rw_family_cnn = {
    "cnn",       sizeof(cnn_arch), cnn_parse,      cnn_free_arch, cnn_params, cnn_resolve,
    cnn_build,   cnn_memory,       cnn_flops,      cnn_unit_name, cnn_items,     NULL, /* no experts */
    NULL, /* no 16-bit tables */
};
