/* Multi-GPU prediction: Megatron-style tensor, pipeline, data and expert parallelism with ZeRO.
 * Every formula is in docs/parallel.md.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The per-GPU compute comes from one microbatch's single-GPU graph (ridge_model_build), sharded
 * op by op: tensor parallelism divides the column-parallel output widths (QKV, MLP up, LM head),
 * the row-parallel input widths (attention output, MLP down), the attention heads, the
 * vocabulary and the elementwise work between them; pipeline parallelism divides the per-layer
 * op counts. The sharded graph is predicted once with ridge_schedule_ops; collectives come
 * from ridge_collective on the GPUs each group actually spans. */
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ridge/parallel.h"
#include "ridge/predict.h"
#include "ridge/schedule.h"

#include "attrs.h"
#include "comm_group.h"
#include "kernel_prep.h"
#include "schedule_times.h"

/* Korthikanti et al. 2022 (Reducing Activation Recomputation...): with flash attention a layer
 * keeps 34 s b h bytes (16-bit), of which 24 are split by tensor parallelism and 10 (the norm
 * and residual inputs, dropout masks) are replicated unless sequence parallelism splits them. */
#define PAR_ACT_SPLIT 24.0
#define PAR_ACT_TOTAL 34.0
/* Share of a fused forward+backward kernel (attention, LSTM) that is the backward pass: the
 * flash-attention backward does ~2.5x the forward's FLOPs; we take 2/3. */
#define PAR_FUSED_BWD_SHARE (2.0 / 3.0)

static const ridge_name sched_rows[] = {{"1f1b", RIDGE_PP_1F1B}, {"interleaved", RIDGE_PP_INTERLEAVED}};
static const ridge_name fsdp_rows[] = {
    {"none", RIDGE_FSDP_NONE}, {"full", RIDGE_FSDP_FULL}, {"grad-op", RIDGE_FSDP_GRAD_OP}, {"hybrid", RIDGE_FSDP_HYBRID}};

RIDGE_NAMES_DEFINE(ridge_pp_schedule, sched_rows, "?")
RIDGE_NAMES_DEFINE(ridge_fsdp_mode, fsdp_rows, "?")

void ridge_parallel_config_init(ridge_parallel_config *pc)
{
    memset(pc, 0, sizeof *pc);
    pc->tp = pc->pp = pc->dp = pc->ep = 1;
    pc->prefetch = 1;
    pc->bucket_bytes = RIDGE_DP_BUCKET_BYTES;
    pc->dp_overlap = 1;
    pc->p2p_scatter_gather = 1;
    pc->microbatch = pc->global_batch = 1;
    pc->schedule = RIDGE_PP_1F1B;
    pc->virtual_stages = 1;
}

/* ------------------------------------------------------------------ graph facts */

/* The op's name up to its first '.' or '+' ("qkv_proj.dgrad" -> "qkv_proj"). */
static void base_name(const char *name, char *buf, size_t cap)
{
    size_t i = 0;
    while (name[i] && name[i] != '.' && name[i] != '+' && i + 1 < cap) {
        buf[i] = name[i];
        i++;
    }
    buf[i] = '\0';
}

/* strcmp(a, b) == 0, the first characters compared before the call. */
static int streq(const char *a, const char *b)
{
    return a[0] == b[0] && strcmp(a, b) == 0;
}

/* strstr(name, part) != NULL for a part that starts with '.': tried at each '.' only. */
static int has_part(const char *name, const char *part)
{
    size_t n = strlen(part);
    for (const char *p = strchr(name, '.'); p; p = strchr(p + 1, '.'))
        if (strncmp(p, part, n) == 0)
            return 1;
    return 0;
}

static int in_list(const char *s, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (streq(s, list[i]))
            return 1;
    return 0;
}

static const char *const col_parallel[] = {"qkv_proj", "up_proj", "gate_up_proj", "expert_up", "expert_gate_up",
                                           "lm_head", "mlm_decoder", NULL};
static const char *const row_parallel[] = {"o_proj", "down_proj", "expert_down", NULL};
static const char *const head_batched[] = {"attn_scores", "attn_context", "rel_pos_scores", NULL};
static const char *const tp_elementwise[] = {"attn_dropout", "rope", "silu_mul", "gelu", "relu", "expert_silu_mul",
                                             "expert_gelu", "expert_relu", "rel_shift", NULL};
static const char *const layer_norms[] = {"attn_norm", "mlp_norm", NULL};
static const char *const sp_rows[] = {"attn_norm", "mlp_norm", "final_norm", NULL};
static const char *const sp_elementwise[] = {"attn_residual", "mlp_residual", NULL};

/* What the unsharded transformer graph says about the architecture. */
typedef struct {
    int transformer;
    double layers, heads, kv_heads, d, tokens, act_bytes, top_k, experts;
    int moe, vocab_head, vocab_embed;
} par_shape;

static void shape_from_graph(const ridge_oplist *g, double microbatch, par_shape *s)
{
    double qkv_n = 0;
    for (size_t i = 0; i < g->n; i++) {
        const ridge_op *op = &g->ops[i];
        if (streq(op->name, "attn_norm")) {
            s->layers = op->count;
            s->tokens = op->u.rows.rows;
            s->d = op->u.rows.cols;
            s->act_bytes = ridge_dtype_bytes(op->dtype);
        } else if (streq(op->name, "attention") && op->kind == RIDGE_OP_ATTENTION) {
            s->heads = op->u.attn.heads;
            s->kv_heads = op->u.attn.kv_heads;
        } else if (streq(op->name, "attn_scores") && op->kind == RIDGE_OP_GEMM && s->heads == 0) {
            s->heads = op->u.gemm.batch / microbatch;
        } else if (streq(op->name, "qkv_proj") && op->kind == RIDGE_OP_GEMM) {
            qkv_n = op->u.gemm.n;
        } else if (streq(op->name, "router") && op->kind == RIDGE_OP_GEMM) {
            s->experts = op->u.gemm.n; /* the router scores every expert */
        } else if (streq(op->name, "topk_permute")) {
            s->moe = 1;
            s->top_k = op->u.ew.elements; /* divided below */
        } else if (streq(op->name, "lm_head") || streq(op->name, "mlm_decoder")) {
            s->vocab_head = 1;
        } else if (streq(op->name, "embed_tokens") && op->kind == RIDGE_OP_EMBEDDING) {
            s->vocab_embed = 1;
        }
    }
    if (s->kv_heads == 0 && s->heads > 0 && s->d > 0) /* unfused attention: from the QKV width */
        s->kv_heads = (qkv_n * s->heads / s->d - s->heads) / 2;
    if (s->moe && s->tokens > 0 && s->d > 0)
        s->top_k /= s->tokens * s->d;
}

static int same_bits(double a, double b)
{
    uint64_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

/* ceil(x / t). The quotients sharding takes are positive and small: ceil of one in (0, 2^52) is the
 * integer below it (exact), plus one unless it is that integer, which costs fewer instructions
 * than the inlined ceil (no SSE4.1 rounding on baseline x86-64). Others: ceil itself. */
static double ceil_div(double x, double t)
{
    double q, r;
    if (t == 1)
        return x;
    q = x / t;
    if (!(q > 0 && q < 4503599627370496.0))
        return ceil(q);
    r = (double)(int64_t)q;
    return r < q ? r + 1 : r;
}

/* What sharding does to an op, from its base name (the lists above), found once per op. */
typedef enum {
    PAR_TP_NONE = 0,
    PAR_TP_COL,     /* col_parallel */
    PAR_TP_ROW,     /* row_parallel */
    PAR_TP_HEAD,    /* head_batched */
    PAR_TP_EW,      /* tp_elementwise */
    PAR_TP_SP_EW,   /* sp_elementwise */
    PAR_TP_SP_ROW,  /* sp_rows */
    PAR_TP_SOFTMAX, /* attn_softmax */
    PAR_TP_CE,      /* cross_entropy */
    PAR_TP_LOGITS,  /* logits_to_fp32 */
    PAR_TP_KV       /* kv_cache_write */
} par_tp_class;

typedef struct {
    unsigned char place;    /* par_place */
    unsigned char tp;       /* par_tp_class */
    unsigned char dg, wg;   /* ".dgrad", ".wgrad" in the name */
    unsigned char accum;    /* named "grad_accumulate" */
    unsigned char loss;     /* in group "loss" */
    unsigned char opt;      /* par_opt_class: how the optimizer group's elementwise op shards */
    unsigned char touched;  /* sharding may change its count or shape (shard_one; 0: never) */
    /* Its tensor-parallel split, found once (tp_fields): tp_n fields of the shape union (words
     * tp_w) each ceil_div by tp, only with sequence parallelism if tp_sp; PAR_TP_OWN: shard_op_tp
     * itself (attention, the KV-cache copy: their result depends on tp beyond a division). */
    unsigned char tp_n, tp_sp, tp_w[2];
    double bwd;             /* backward_share */
} par_class;
#define PAR_TP_OWN 3

/* The optimizer group's elementwise ops (ridge_parallel_evaluate's sharding loop). */
typedef enum {
    PAR_OPT_NONE = 0,   /* not an elementwise op of the optimizer group */
    PAR_OPT_ACCUM,      /* grad_accumulate: one add per parameter tensor */
    PAR_OPT_PER_TENSOR, /* main_grad_copy, a for-loop optimizer's step: kernels per tensor */
    PAR_OPT_ZERO_GRAD,  /* multi-tensor over the gradient shard */
    PAR_OPT_MULTI       /* multi-tensor over the optimizer shard */
} par_opt_class;

static const char *const softmax_rows[] = {"attn_softmax", NULL};
static const char *const ce_rows[] = {"cross_entropy", NULL};
static const char *const logits_rows[] = {"logits_to_fp32", NULL};
static const char *const kv_rows[] = {"kv_cache_write", NULL};

static par_tp_class tp_class_of(const char *base)
{
    static const struct {
        const char *const *list;
        par_tp_class c;
    } lists[] = {{col_parallel, PAR_TP_COL},     {row_parallel, PAR_TP_ROW}, {head_batched, PAR_TP_HEAD},
                 {tp_elementwise, PAR_TP_EW},    {sp_elementwise, PAR_TP_SP_EW}, {sp_rows, PAR_TP_SP_ROW},
                 {softmax_rows, PAR_TP_SOFTMAX}, {ce_rows, PAR_TP_CE},       {logits_rows, PAR_TP_LOGITS},
                 {kv_rows, PAR_TP_KV}};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        if (in_list(base, lists[i].list))
            return lists[i].c;
    return PAR_TP_NONE;
}

/* Tensor parallelism on an op whose split depends on tp beyond a division of its fields
 * (tp_fields: PAR_TP_OWN; inlined in shard_tp_layer): attention splits its heads, and its KV
 * heads down to one per rank; the KV-cache copy its bytes by tp, or by the KV heads when there
 * are fewer of them than ranks. */
RIDGE_ALWAYS_INLINE
static inline void shard_op_tp(ridge_op *op, const par_class *c, const par_shape *s, int tp)
{
    double t = tp;
    switch (op->kind) {
    case RIDGE_OP_ATTENTION:
        op->u.attn.heads = ceil_div(op->u.attn.heads, t);
        op->u.attn.kv_heads = op->u.attn.kv_heads >= t ? ceil_div(op->u.attn.kv_heads, t) : 1;
        break;
    case RIDGE_OP_COPY:
        if (c->tp == PAR_TP_KV && s->kv_heads >= t)
            op->u.copy.bytes /= t;
        else if (c->tp == PAR_TP_KV && s->kv_heads > 0)
            op->u.copy.bytes /= s->kv_heads;
        break;
    default: break;
    }
}

/* The word of the shape union field f. */
#define PAR_WORD(f) ((unsigned char)((offsetof(ridge_op, u.f) - offsetof(ridge_op, u)) / sizeof(double)))

/* The tensor-parallel split of op (of class c) as a descriptor (c->tp_n, tp_sp, tp_w): the
 * fields tp divides (ceil_div; for tp 1 none changes), by class: a column-parallel GEMM its n (k
 * for its data gradient, m for its weight gradient), a row-parallel one its k (n for both
 * gradients), a per-head batched GEMM its batch; the attention softmax its rows, the
 * vocabulary-parallel cross entropy its columns (the loss over all tokens only); with sequence
 * parallelism the norms' rows and the SP elementwise ops' elements; the TP elementwise ops'
 * elements; an embedding its vocabulary; the vocabulary-parallel logits cast its bytes and
 * FLOPs. Attention and the KV-cache copy are shard_op_tp's (PAR_TP_OWN). s is the model's shape,
 * op unsharded. */
static void tp_fields(const ridge_op *op, par_class *c, const par_shape *s)
{
    unsigned char w[2], n = 0, sp = 0;
    int dg = c->dg, wg = c->wg;
    switch (op->kind) {
    case RIDGE_OP_GEMM:
        if (c->tp == PAR_TP_COL)
            w[n++] = wg ? PAR_WORD(gemm.m) : dg ? PAR_WORD(gemm.k) : PAR_WORD(gemm.n);
        else if (c->tp == PAR_TP_ROW)
            w[n++] = wg || dg ? PAR_WORD(gemm.n) : PAR_WORD(gemm.k);
        else if (c->tp == PAR_TP_HEAD)
            w[n++] = PAR_WORD(gemm.batch);
        break;
    case RIDGE_OP_ATTENTION: n = PAR_TP_OWN; break;
    case RIDGE_OP_SOFTMAX:
        if (c->tp == PAR_TP_SOFTMAX)
            w[n++] = PAR_WORD(rows.rows);
        else if (c->tp == PAR_TP_CE && s->vocab_head && c->loss && op->u.rows.rows == s->tokens)
            w[n++] = PAR_WORD(rows.cols);
        break;
    case RIDGE_OP_LAYERNORM:
    case RIDGE_OP_RMSNORM:
        if (c->tp == PAR_TP_SP_ROW) {
            w[n++] = PAR_WORD(rows.rows);
            sp = 1;
        }
        break;
    case RIDGE_OP_ELEMENTWISE:
        if (c->tp == PAR_TP_EW || c->tp == PAR_TP_SP_EW) {
            w[n++] = PAR_WORD(ew.elements);
            sp = c->tp == PAR_TP_SP_EW;
        }
        break;
    case RIDGE_OP_EMBEDDING: w[n++] = PAR_WORD(emb.vocab); break;
    case RIDGE_OP_CUSTOM:
        if (c->tp == PAR_TP_LOGITS && s->vocab_head) {
            w[n++] = PAR_WORD(custom.bytes);
            w[n++] = PAR_WORD(custom.flops);
        }
        break;
    case RIDGE_OP_COPY:
        if (c->tp == PAR_TP_KV)
            n = PAR_TP_OWN;
        break;
    default: break;
    }
    c->tp_n = n;
    c->tp_sp = sp;
    c->tp_w[0] = n >= 1 && n <= 2 ? w[0] : 0;
    c->tp_w[1] = n == 2 ? w[1] : 0;
}

typedef enum { PAR_LAYER = 0, PAR_FIRST, PAR_LAST, PAR_OPT } par_place;

static par_place place_of_base(const ridge_op *op, const char *base)
{
    if (streq(op->group, "optimizer"))
        return PAR_OPT;
    if (streq(op->group, "attention") || streq(op->group, "mlp") || streq(op->group, "moe") ||
        in_list(base, layer_norms))
        return PAR_LAYER;
    if (streq(op->group, "embedding"))
        return PAR_FIRST;
    return PAR_LAST;
}

static par_place place_of(const ridge_op *op)
{
    char base[RIDGE_OP_NAME_MAX];
    base_name(op->name, base, sizeof base);
    return place_of_base(op, base);
}

/* Share of an op's time that belongs to the backward pass (recomputation runs in it). */
static double backward_share(const ridge_op *op)
{
    if (has_part(op->name, ".dgrad") || has_part(op->name, ".wgrad") || has_part(op->name, ".bwd") ||
        has_part(op->name, ".recompute"))
        return 1;
    if (op->kind == RIDGE_OP_CONV2D)
        return op->u.conv.pass == RIDGE_PASS_FWD ? 0 : 1;
    if (op->kind == RIDGE_OP_ATTENTION && op->u.attn.pass == RIDGE_PASS_FWD_BWD)
        return PAR_FUSED_BWD_SHARE;
    if (op->kind == RIDGE_OP_LSTM && op->u.lstm.pass == RIDGE_PASS_FWD_BWD)
        return PAR_FUSED_BWD_SHARE;
    return 0;
}

/* Everything the sharding and the step's split read from an op's name and group, once. */
static void classify(const ridge_op *op, par_class *c)
{
    char base[RIDGE_OP_NAME_MAX];
    base_name(op->name, base, sizeof base);
    c->place = (unsigned char)place_of_base(op, base);
    c->tp = (unsigned char)tp_class_of(base);
    c->dg = (unsigned char)has_part(op->name, ".dgrad");
    c->wg = (unsigned char)has_part(op->name, ".wgrad");
    c->accum = (unsigned char)streq(op->name, "grad_accumulate");
    c->loss = (unsigned char)streq(op->group, "loss");
    c->opt = PAR_OPT_NONE;
    c->bwd = backward_share(op);
}

/* The optimizer class of op (class c) under optimizer implementation impl. */
static void classify_opt(const ridge_op *op, ridge_optimizer_impl impl, par_class *c)
{
    if (c->place != PAR_OPT || op->kind != RIDGE_OP_ELEMENTWISE)
        c->opt = PAR_OPT_NONE;
    else if (c->accum)
        c->opt = PAR_OPT_ACCUM;
    else if (strcmp(op->name, "main_grad_copy") == 0 ||
             (impl == RIDGE_OPT_IMPL_FORLOOP && (strcmp(op->name, "adamw_step") == 0 || strcmp(op->name, "sgd_step") == 0)))
        c->opt = PAR_OPT_PER_TENSOR;
    else
        c->opt = strcmp(op->name, "zero_grad") == 0 ? PAR_OPT_ZERO_GRAD : PAR_OPT_MULTI;
}

/* ------------------------------------------------------------------ placement and collectives */

/* The node shape one group of n GPUs sees when its members are `stride` GPUs apart (TP
 * innermost, then PP, then DP): k members share a node, n / k nodes, and the node's network is
 * shared by the gpus_per_node / k groups that communicate at the same time. */
static void group_shape(const ridge_cluster *cl, int n, int stride, int *per_node, int *nodes, double *inter_bw)
{
    int g = cl->gpus_per_node, k;
    if ((long)n * stride <= g) {
        k = n;
    } else {
        k = stride >= g ? 1 : g / stride;
        if (k > n)
            k = n;
        while (k > 1 && n % k != 0)
            k--;
    }
    *per_node = k;
    *nodes = n / k;
    *inter_bw = cl->inter_bw_bytes_per_s_per_node * k / g;
}

/* The collectives a context has timed on its cluster (ridge_parallel_ctx): a collective's time is
 * a function of the cluster and (op, bytes, n, stride) alone, so a hit is the time itself. A hash
 * table: a key looks at PAR_COLL_PROBE slots from its home and replaces the home slot when none
 * holds it. An entry holds a key when its generation is the table's: clearing the table is a new
 * generation (ridge_parallel_ctx_clear). */
#define PAR_COLL_MEMO 1024 /* a power of 2 */
#define PAR_COLL_PROBE 4
typedef struct {
    unsigned gen; /* in use when == par_coll_memo.gen (never 0) */
    ridge_coll_op op;
    int n, stride;
    double bytes, t_s;
} par_coll_entry;

/* What decides dp_schedule's collectives. */
typedef struct {
    int zs, fsdp, dp, tp_pp, ep, dsh;
    double dense, expert, gb, pb, frac, ls;
} par_dp_key;

static int same_dp_key(const par_dp_key *a, const par_dp_key *b)
{
    return a->zs == b->zs && a->fsdp == b->fsdp && a->dp == b->dp && a->tp_pp == b->tp_pp && a->ep == b->ep &&
           a->dsh == b->dsh && same_bits(a->dense, b->dense) && same_bits(a->expert, b->expert) &&
           same_bits(a->gb, b->gb) && same_bits(a->pb, b->pb) && same_bits(a->frac, b->frac) &&
           same_bits(a->ls, b->ls);
}

/* The times tp_ep_pp_comm gives (par_coll_memo.comm). */
typedef struct {
    double t_ar, t_ag, t_rs, t_loss, t_a2a, t_p2p;
} par_comm;

/* Besides the table, the last result of each of the two callers that time several collectives
 * (tp_ep_pp_comm, dp_schedule's collectives) for the inputs that decide them, so that an
 * evaluation like the last looks up one key, not each collective's; valid when their gen is the
 * table's. */
typedef struct {
    unsigned gen;
    par_coll_entry e[PAR_COLL_MEMO];
    struct {
        unsigned gen;
        unsigned long serial; /* the prepared model (its shape and mode) */
        int tp, pp, ep, sp, sg, slow_stage;
        par_comm k;
    } comm;
    struct {
        unsigned gen;
        par_dp_key key;
        double t[3]; /* ZeRO <= 2 (not grad-op): t, tb, after; else a, r, ar */
    } dp[4];           /* [the ZeRO stage of the sharding, eff_stage]: a search alternates them */
} par_coll_memo;

static size_t coll_home(ridge_coll_op op, double bytes, int n, int stride)
{
    uint64_t h;
    memcpy(&h, &bytes, sizeof h);
    h ^= (uint64_t)n * 0x9E3779B97F4A7C15u ^ (uint64_t)stride * 0xC2B2AE3D27D4EB4Fu ^ (uint64_t)op * 0x165667B19E3779F9u;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9u;
    h ^= h >> 32;
    return (size_t)h & (PAR_COLL_MEMO - 1);
}

/* The group of n GPUs `stride` apart that collectives run on (coll_time): its set-up
 * (rc_coll_group: the node shape it sees, each protocol's tiers), made at the first of its
 * collectives that is not in the memo and shared by the others of the same caller. */
typedef struct {
    int n, stride, ready;
    rc_coll_group g;
} par_group;

/* The group of n GPUs `stride` apart, not set up yet (the set-up is left unwritten until used). */
static par_group *group_at(par_group *grp, int n, int stride)
{
    grp->n = n;
    grp->stride = stride;
    grp->ready = 0;
    return grp;
}

/* The time of op on bytes over the group grp (ridge_collective_shaped's on the node shape the group
 * sees), from the memo cm (may be NULL) or kept in it. The memo's key is the op it is timed as
 * (rc_coll_timed_as): an all-gather finds the reduce-scatter of the same bytes. */
static int coll_time(par_coll_memo *cm, const ridge_cluster *cl, par_group *grp, ridge_coll_op op, double bytes,
                     double *t_s, ridge_err *err)
{
    const int n = grp->n, stride = grp->stride;
    const ridge_coll_op key = rc_coll_timed_as(op);
    double t;
    int st;
    par_coll_entry *slot = NULL; /* where a miss is kept: the first free slot of the probe, or home */
    *t_s = 0;
    if (n <= 1 || bytes <= 0)
        return RIDGE_OK;
    if (cm) {
        size_t home = coll_home(key, bytes, n, stride);
        for (size_t j = 0; j < PAR_COLL_PROBE; j++) {
            par_coll_entry *e = &cm->e[(home + j) & (PAR_COLL_MEMO - 1)];
            if (e->gen != cm->gen) {
                if (!slot)
                    slot = e;
            } else if (e->bytes == bytes && e->n == n && e->stride == stride && e->op == key) {
                *t_s = e->t_s;
                return RIDGE_OK;
            }
        }
        if (!slot)
            slot = &cm->e[home];
    }
    if (!grp->ready) {
        int k, nodes;
        double inter_bw;
        group_shape(cl, n, stride, &k, &nodes, &inter_bw);
        rc_coll_group_init(cl, k, nodes, inter_bw, n, &grp->g);
        grp->ready = 1;
    }
    st = rc_coll_group_time(&grp->g, op, bytes, &t, err); /* ridge_collective_shaped's time */
    if (st == RIDGE_OK) {
        *t_s = t;
        if (slot) { /* failures are not kept: their message comes from the call */
            slot->gen = cm->gen;
            slot->op = key;
            slot->bytes = bytes;
            slot->n = n;
            slot->stride = stride;
            slot->t_s = t;
        }
    }
    return st;
}

/* ------------------------------------------------------------------ data parallelism */

/* The ZeRO stage whose state sharding a configuration has: FSDP full and hybrid shard weights,
 * gradients and optimizer state (3), shard-grad-op gradients and optimizer state (2). */
static int eff_stage(const ridge_parallel_config *pc)
{
    switch (pc->fsdp) {
    case RIDGE_FSDP_FULL:
    case RIDGE_FSDP_HYBRID: return 3;
    case RIDGE_FSDP_GRAD_OP: return 2;
    default: return pc->zero;
    }
}

/* GPUs the state is sharded over: dp, or the hybrid shard group (default: the data-parallel
 * ranks of one node, lowered until it divides dp). */
static int shard_group(const ridge_cluster *cl, const ridge_parallel_config *pc)
{
    int f;
    if (pc->fsdp != RIDGE_FSDP_HYBRID)
        return pc->dp;
    if (pc->fsdp_group > 0)
        return pc->fsdp_group;
    f = cl->gpus_per_node / (pc->tp * pc->pp);
    if (f < 1)
        f = 1;
    if (f > pc->dp)
        f = pc->dp;
    while (f > 1 && pc->dp % f != 0)
        f--;
    return f;
}

static double layers_per_stage(const par_shape *s, int pp)
{
    return s->layers > 0 ? s->layers / pp : 1; /* other families: the model is one FSDP unit */
}

double ridge_nccl_sm_share(const ridge_gpu *g)
{
    double sm = g->sm_count > 0 ? (double)RIDGE_NCCL_CHANNELS / g->sm_count : 0;
    return sm > 0.5 ? 0.5 : sm;
}

void ridge_parallel_step_split(const ridge_oplist *g, const ridge_op_result *res, double *forward_s,
                               double *backward_s, double *optimizer_s)
{
    *forward_s = *backward_s = *optimizer_s = 0;
    for (size_t i = 0; i < g->n; i++) {
        double b = backward_share(&g->ops[i]);
        if (place_of(&g->ops[i]) == PAR_OPT)
            *optimizer_s += res[i].time_s;
        else {
            *forward_s += res[i].time_s * (1 - b);
            *backward_s += res[i].time_s * b;
        }
    }
}

double ridge_dp_overlap_exposed_s(double t_dp_s, double t_bucket_s, double buckets, double backward_s,
                                  double sm_share)
{
    double tail, hidden;
    if (!(t_dp_s > 0))
        return 0;
    if (buckets < 1)
        buckets = 1;
    /* Bucket i is ready after i / buckets of the backward; the reductions run one after
     * another: the last ends at max(backward + its own time, first ready + all of them). */
    tail = backward_s / buckets + t_dp_s - backward_s;
    if (tail < t_bucket_s)
        tail = t_bucket_s;
    if (tail > t_dp_s)
        tail = t_dp_s;
    hidden = t_dp_s - tail;
    return tail + sm_share * hidden;
}

/* One layer's step in a two-stream pipeline: compute c beside communication x; the
 * communication's SMs slow the compute it overlaps. */
static double overlap_step(double c, double x, double sm)
{
    double slowed = c + sm * (x < c ? x : c);
    return x > slowed ? x : slowed;
}

/* n layers of compute c, each needing `head` (a parameter all-gather) before it and producing
 * `tail` (a gradient reduce-scatter) after it. With prefetch the gather of the next layer runs
 * beside the current layer's compute, and the reduce-scatters beside the next layers: only the
 * first gather and the last reduce-scatter are exposed. Without, each gather waits. */
static double layer_pipeline(double n, double c, double head, double tail, int prefetch, double sm)
{
    if (n < 1)
        n = 1;
    if (prefetch <= 0)
        return n * (head + overlap_step(c, tail, sm)) + tail;
    return head + (n - 1) * overlap_step(c, head + tail, sm) + c + tail;
}

typedef struct {
    double per_microbatch_s; /* added to every microbatch (ZeRO-2/3, FSDP) */
    double end_s;            /* exposed once per step: the last buckets, the all-gather after the step */
} dp_exposure;

/* One collective of a data-parallel group over this GPU's dense and expert shards: the dense
 * part over the n ranks of the group (stride tp pp), the experts' over the n / ep ranks of the
 * expert-data-parallel group (stride tp pp ep), `experts`. */
static int dp_coll(par_coll_memo *cm, const ridge_cluster *cl, ridge_coll_op op, double dense_bytes, double expert_bytes,
                   par_group *dense, par_group *experts, int ep, double *t_s, ridge_err *err)
{
    double te = 0;
    int st;
    if (ep <= 1)
        return coll_time(cm, cl, dense, op, dense_bytes + expert_bytes, t_s, err);
    st = coll_time(cm, cl, dense, op, dense_bytes, t_s, err);
    if (st == RIDGE_OK && expert_bytes > 0 && experts->n > 1)
        st = coll_time(cm, cl, experts, op, expert_bytes, &te, err);
    *t_s += te;
    return st;
}

/* dp_schedule's collectives for key, kept (cm may be NULL: no memo). key->zs, the effective ZeRO
 * stage, indexes cm->dp[4]: check_config has rejected a zero stage outside 0..3 before this. */
static void dp_known(par_coll_memo *cm, const par_dp_key *key, double t0, double t1, double t2)
{
    if (!cm)
        return;
    cm->dp[key->zs].gen = cm->gen;
    cm->dp[key->zs].key = *key;
    cm->dp[key->zs].t[0] = t0;
    cm->dp[key->zs].t[1] = t1;
    cm->dp[key->zs].t[2] = t2;
}

/* The three times dp_known kept for ZeRO stage zs (the caller has found them current). */
static void dp_recall(const par_coll_memo *cm, int zs, double *t0, double *t1, double *t2)
{
    *t0 = cm->dp[zs].t[0];
    *t1 = cm->dp[zs].t[1];
    *t2 = cm->dp[zs].t[2];
}

/* The schedule of the data-parallel traffic (docs/parallel.md, "Data parallelism"):
 * ZeRO-0 all-reduces the gradients once per step, ZeRO-1 reduce-scatters them once, both in
 * buckets during the last microbatch's backward; ZeRO-2 reduce-scatters them after every
 * microbatch; ZeRO-1/2 all-gather the updated parameters after the optimizer step; ZeRO-3 and
 * FSDP gather each layer's parameters in forward and again in backward and reduce-scatter its
 * gradients, per microbatch, layer by layer with prefetch. */
static int dp_schedule(par_coll_memo *cm, const ridge_cluster *cl, const ridge_parallel_config *pc, const par_shape *s,
                       const ridge_run_config *rc, double params, double fe, double t_f, double t_b, double t_mb,
                       double nm, dp_exposure *x, ridge_parallel_result *out, ridge_err *err)
{
    const int T = pc->tp, P = pc->pp, D = pc->dp, E = pc->ep, TP = T * P;
    int mixed = rc->precision == RIDGE_DTYPE_FP16 || rc->precision == RIDGE_DTYPE_BF16 ||
                rc->precision == RIDGE_DTYPE_FP8;
    double pb = mixed ? 2 : 4, gb = pc->grad_reduce_fp32 ? 4 : pb;
    double dense = params * (1 - fe) / TP, expert = params * fe / TP / E; /* this GPU's parameters */
    double ls = layers_per_stage(s, P), sm = ridge_nccl_sm_share(&cl->gpu);
    int zs = eff_stage(pc), dsh = zs >= 1 ? shard_group(cl, pc) : 1, st;
    double total_g = (dense + expert) * gb, buckets = ceil(total_g / pc->bucket_bytes);
    double bucket = total_g < pc->bucket_bytes ? total_g : pc->bucket_bytes, frac = bucket / total_g;
    double t = 0, tb = 0, after = 0;
    par_group dense_g, expert_g, replicas;
    par_dp_key key = {zs, pc->fsdp, D, TP, E, dsh, dense, expert, gb, pb, frac, ls};
    int known = cm && cm->dp[zs].gen == cm->gen && same_dp_key(&cm->dp[zs].key, &key);
    out->dp_bytes = total_g;
    if (zs <= 2 && pc->fsdp != RIDGE_FSDP_GRAD_OP) {
        ridge_coll_op op = zs == 0 ? RIDGE_COLL_ALLREDUCE : RIDGE_COLL_REDUCESCATTER;
        if (known) {
            dp_recall(cm, zs, &t, &tb, &after);
        } else {
            group_at(&dense_g, D, TP);
            group_at(&expert_g, D / E, TP * E);
            if ((st = dp_coll(cm, cl, op, dense * gb, expert * gb, &dense_g, &expert_g, E, &t, err)) != RIDGE_OK ||
                (st = dp_coll(cm, cl, op, dense * gb * frac, expert * gb * frac, &dense_g, &expert_g, E, &tb, err)) !=
                    RIDGE_OK)
                return st;
            if (zs >= 1 && (st = dp_coll(cm, cl, RIDGE_COLL_ALLGATHER, dense * pb, expert * pb, &dense_g, &expert_g, E,
                                         &after, err)) != RIDGE_OK)
                return st;
            dp_known(cm, &key, t, tb, after);
        }
        {
            double exposed = pc->dp_overlap ? ridge_dp_overlap_exposed_s(t, tb, buckets, t_b, sm) : t;
            if (zs == 2) { /* every microbatch's gradients, behind every backward */
                x->per_microbatch_s = exposed;
                out->dp_per_microbatch_s = t;
                out->dp_layer_reducescatter_s = t / ls;
                x->end_s = after;
                out->dp_collective_s = nm * t + after;
            } else {
                x->end_s = exposed + after;
                out->dp_collective_s = t + after;
            }
        }
        return RIDGE_OK;
    }
    {
        /* Per layer: the all-gather of its parameters and the reduce-scatter of its gradients
         * over the shard group; hybrid shard adds the all-reduce of the gradient shard across
         * the dp / dsh replicas (stride tp pp dsh). */
        double a = 0, r = 0, ar = 0, tf, tbw;
        if (known) {
            dp_recall(cm, zs, &a, &r, &ar);
        } else {
            group_at(&dense_g, dsh, TP);
            group_at(&expert_g, dsh / E, TP * E);
            if ((st = dp_coll(cm, cl, RIDGE_COLL_ALLGATHER, dense * pb / ls, expert * pb / ls, &dense_g, &expert_g, E,
                              &a, err)) != RIDGE_OK ||
                (st = dp_coll(cm, cl, RIDGE_COLL_REDUCESCATTER, dense * gb / ls, expert * gb / ls, &dense_g, &expert_g,
                              E, &r, err)) != RIDGE_OK)
                return st;
            if (pc->fsdp == RIDGE_FSDP_HYBRID && D / dsh > 1 &&
                (st = coll_time(cm, cl, group_at(&replicas, D / dsh, TP * dsh), RIDGE_COLL_ALLREDUCE,
                                (dense + expert) * gb / ls / dsh, &ar, err)) != RIDGE_OK)
                return st;
            dp_known(cm, &key, a, r, ar);
        }
        r += ar;
        tf = layer_pipeline(ls, t_f / ls, a, 0, pc->prefetch, sm);
        /* Backward: full shard gathers the parameters again (grad-op kept them from forward). */
        tbw = layer_pipeline(ls, t_b / ls, zs >= 3 ? a : 0, r, pc->prefetch, sm);
        x->per_microbatch_s = tf + tbw - t_mb;
        if (x->per_microbatch_s < 0)
            x->per_microbatch_s = 0;
        out->dp_layer_allgather_s = a;
        out->dp_layer_reducescatter_s = r;
        out->dp_per_microbatch_s = ls * ((zs >= 3 ? 2 : 1) * a + r);
        out->dp_collective_s = nm * out->dp_per_microbatch_s;
    }
    return RIDGE_OK;
}

/* ------------------------------------------------------------------ checks */

/* fmod(x, y) == 0. fmod is exact, so for integers x in [0, 2^53] and y in [1, 2^53] it is the
 * integer remainder's test, which costs a division instead of a call. */
static int divides(double y, double x)
{
    if (x >= 0 && x <= 9007199254740992.0 && y >= 1 && y <= 9007199254740992.0) {
        uint64_t a = (uint64_t)x, b = (uint64_t)y;
        if ((double)a == x && (double)b == y)
            return a % b == 0;
    }
    return fmod(x, y) == 0;
}

/* transformer: ridge_model_family(m) is "transformer" (the prepared model knows it). */
static int check_config(const ridge_cluster *cl, const ridge_model *m, int transformer, const ridge_run_config *rc,
                        const ridge_parallel_config *pc, ridge_err *err)
{
    long gpus = (long)cl->gpus_per_node * cl->nodes, used = (long)pc->tp * pc->pp * pc->dp;
    double per = (double)pc->dp * pc->microbatch;
    if (rc->grad_accum > 1)
        return ridge_err_set(err, RIDGE_EINVAL,
                             "run.grad_accum: on a cluster, parallel.global_batch / (parallel.dp x "
                             "parallel.microbatch) sets the micro-batches per step");
    if (pc->tp < 1 || pc->pp < 1 || pc->dp < 1 || pc->ep < 1)
        return ridge_err_set(err, RIDGE_EINVAL,
                             "parallel.tp, parallel.pp, parallel.dp, parallel.ep: group sizes must be at least 1");
    if (!transformer && (pc->tp > 1 || pc->pp > 1 || pc->ep > 1 || pc->sequence_parallel))
        return ridge_err_set(err, RIDGE_EINVAL,
                             "parallel.tp/parallel.pp/parallel.ep/parallel.sequence_parallel: parallelism is "
                             "modelled for transformers; %s is a %s (use parallel.dp only)",
                             ridge_model_name(m), ridge_model_family(m));
    if (used != gpus)
        return ridge_err_set(err, RIDGE_EINVAL,
                             "parallel.tp %d x parallel.pp %d x parallel.dp %d = %ld GPUs, but cluster %s has %ld "
                             "(%d node%s x %d; cluster.nodes scales it)",
                             pc->tp, pc->pp, pc->dp, used, cl->id, gpus, cl->nodes, cl->nodes == 1 ? "" : "s",
                             cl->gpus_per_node);
    if (pc->zero < 0 || pc->zero > 3)
        return ridge_err_set(err, RIDGE_EINVAL, "parallel.zero: %d is not 0, 1, 2 or 3", pc->zero);
    if (pc->fsdp != RIDGE_FSDP_NONE && pc->zero != 0)
        return ridge_err_set(err, RIDGE_EINVAL, "parallel.fsdp %s: give parallel.fsdp or parallel.zero, not both",
                             ridge_fsdp_mode_name(pc->fsdp));
    if ((unsigned)pc->fsdp > RIDGE_FSDP_HYBRID)
        return ridge_err_set(err, RIDGE_EINVAL, "parallel.fsdp: not none, full, grad-op or hybrid");
    if (pc->fsdp_group < 0 || (pc->fsdp_group > 0 && pc->fsdp != RIDGE_FSDP_HYBRID))
        return ridge_err_set(err, RIDGE_EINVAL, "parallel.fsdp_group %d: only parallel.fsdp hybrid has a shard group",
                             pc->fsdp_group);
    if (pc->fsdp_group > 0 && pc->dp % pc->fsdp_group != 0)
        return ridge_err_set(err, RIDGE_EINVAL, "parallel.fsdp_group %d: does not divide parallel.dp %d",
                             pc->fsdp_group, pc->dp);
    if (pc->fsdp == RIDGE_FSDP_HYBRID && pc->ep > 1)
        return ridge_err_set(err, RIDGE_EINVAL, "parallel.fsdp hybrid with parallel.ep %d: expert parallelism inside "
                                                "hybrid shard groups is not modelled", pc->ep);
    if (pc->prefetch < 0 || pc->prefetch > 64)
        return ridge_err_set(err, RIDGE_EINVAL, "parallel.prefetch %d: not in [0, 64]", pc->prefetch);
    /* 1 B to 1e6 MiB: the range of the command line's --bucket-mb, in bytes */
    if (!(pc->bucket_bytes >= 1 && pc->bucket_bytes <= RIDGE_PARALLEL_MAX_BUCKET_BYTES))
        return ridge_err_set(err, RIDGE_EINVAL, "parallel.bucket_bytes: %g bytes is not in [1 B, %g B (1e6 MiB)]",
                             pc->bucket_bytes, RIDGE_PARALLEL_MAX_BUCKET_BYTES);
    if (pc->dp % pc->ep != 0)
        return ridge_err_set(err, RIDGE_EINVAL,
                             "parallel.ep %d: does not divide parallel.dp %d (experts are spread over data-parallel "
                             "ranks)", pc->ep, pc->dp);
    if (!(pc->microbatch >= 1 && pc->microbatch == floor(pc->microbatch)))
        return ridge_err_set(err, RIDGE_EINVAL, "parallel.microbatch: %g is not a positive integer", pc->microbatch);
    if (!(pc->global_batch >= 1 && divides(per, pc->global_batch)))
        return ridge_err_set(err, RIDGE_EINVAL, "parallel.global_batch %g: not a multiple of parallel.dp %d x "
                                                "parallel.microbatch %g",
                             pc->global_batch, pc->dp, pc->microbatch);
    if (pc->schedule == RIDGE_PP_INTERLEAVED && pc->virtual_stages < 2)
        return ridge_err_set(err, RIDGE_EINVAL,
                             "parallel.schedule interleaved: needs parallel.virtual_stages 2 or more");
    if (pc->schedule == RIDGE_PP_1F1B && pc->virtual_stages != 1)
        return ridge_err_set(err, RIDGE_EINVAL, "parallel.virtual_stages %d: only the interleaved schedule has them",
                             pc->virtual_stages);
    if (pc->schedule == RIDGE_PP_INTERLEAVED && pc->pp < 2)
        return ridge_err_set(err, RIDGE_EINVAL, "parallel.schedule interleaved: needs parallel.pp 2 or more");
    /* Megatron's interleaved schedule runs the microbatches through the chunks in groups of P
     * (it refuses a count that is not a multiple of P); with fewer than P its bubble formula
     * would give a step shorter than one microbatch's path through the stages. */
    if (pc->schedule == RIDGE_PP_INTERLEAVED && !divides(pc->pp, pc->global_batch / per))
        return ridge_err_set(err, RIDGE_EINVAL,
                             "parallel.schedule interleaved: the %g microbatches per step (global_batch / (dp x "
                             "microbatch)) are not a multiple of parallel.pp %d",
                             pc->global_batch / per, pc->pp);
    /* The sharding finds a layer by its kernels as Megatron, engines, inductor and the model as
     * written launch them; eager PyTorch's composite kernels (norms in FP32, RoPE by halves) are
     * not sharded. */
    if ((rc->code == RIDGE_CODE_TORCH || rc->code == RIDGE_CODE_HF) && (pc->tp > 1 || pc->pp > 1 || pc->ep > 1))
        return ridge_err_set(err, RIDGE_EINVAL,
                             "code %s: eager PyTorch's composite kernels are not sharded over tensor, pipeline or "
                             "expert parallelism (use megatron, engine, compile or the model as written)",
                             ridge_code_name(rc->code));
    return RIDGE_OK;
}

static int check_shape(const ridge_model *m, const par_shape *s, const ridge_parallel_config *pc, ridge_err *err)
{
    double chunks = (double)pc->pp * pc->virtual_stages;
    if (s->layers <= 0 && (pc->tp > 1 || pc->pp > 1 || pc->ep > 1))
        return ridge_err_set(err, RIDGE_EINVAL, "%s: no transformer layers found in its graph", ridge_model_name(m));
    if (pc->pp > 1 && !divides(chunks, s->layers))
        return pc->virtual_stages > 1
                   ? ridge_err_set(err, RIDGE_EINVAL,
                                   "parallel.pp %d x parallel.virtual_stages %d: %g chunks do not divide the %g "
                                   "layers of %s",
                                   pc->pp, pc->virtual_stages, chunks, s->layers, ridge_model_name(m))
                   : ridge_err_set(err, RIDGE_EINVAL, "parallel.pp %d: does not divide the %g layers of %s", pc->pp,
                                   s->layers, ridge_model_name(m));
    if (pc->tp > 1 && !divides(pc->tp, s->heads))
        return ridge_err_set(err, RIDGE_EINVAL, "parallel.tp %d: does not divide the %g attention heads of %s", pc->tp,
                             s->heads, ridge_model_name(m));
    if (pc->tp > 1 && s->kv_heads >= pc->tp && !divides(pc->tp, s->kv_heads))
        return ridge_err_set(err, RIDGE_EINVAL, "parallel.tp %d: does not divide the %g KV heads of %s", pc->tp,
                             s->kv_heads, ridge_model_name(m));
    if (pc->ep > 1 && !s->moe)
        return ridge_err_set(err, RIDGE_EINVAL, "parallel.ep %d: %s has no experts", pc->ep, ridge_model_name(m));
    if (pc->ep > 1 && s->experts > 0 && !divides(pc->ep, s->experts))
        return ridge_err_set(err, RIDGE_EINVAL, "parallel.ep %d: does not divide the %g experts of %s", pc->ep,
                             s->experts, ridge_model_name(m));
    return RIDGE_OK;
}

/* Whether shard_one may change op (of class c) for some configuration: a tensor-parallel class,
 * a kind tensor parallelism always splits (attention, embedding), a layer (its count over the
 * stages), the optimizer's shards. The others are the model's as they are. */
static int shard_touches(const ridge_op *op, const par_class *c)
{
    return c->tp != PAR_TP_NONE || op->kind == RIDGE_OP_ATTENTION || op->kind == RIDGE_OP_EMBEDDING ||
           c->place == PAR_LAYER || c->opt != PAR_OPT_NONE;
}

/* ------------------------------------------------------------------ the prepared model */

/* A term of a place's time: op i's time times its share of the pass. */
typedef struct {
    size_t i;
    double share;
} par_term;

struct ridge_parallel_model {
    unsigned long serial;    /* unique among the process's prepared models (ridge_parallel_ctx) */
    const ridge_model *m;    /* borrowed */
    ridge_run_config rc;     /* as given (check_config reads it) */
    ridge_run_config mb;     /* rc with the microbatch as batch */
    double microbatch;       /* pc->microbatch it was prepared for */
    double accum;            /* microbatches the optimizer group was built for (1: none) */
    int build_st, memory_st; /* ridge_model_build's and ridge_model_memory's status ... */
    ridge_err build_err, memory_err; /* ... and messages, reported in ridge_predict's order */
    ridge_oplist g;          /* one microbatch, the optimizer group of the whole step */
    par_class *cls;          /* each op's class */
    /* The evaluation's sums of each place's forward and backward times (one allocation, fwd):
     * the terms of the forward sums, place by place (fwd_end[p]: the end of place p's), each op
     * of the place with its forward share 1 - bwd, in graph order; those of the backward sums
     * (bwd, bwd_end) with their share bwd. An op whose share is 0 has no term: its t x 0 would
     * be +0, which adds nothing to a sum (t is a time, finite and >= 0; the sum starts at +0). */
    par_term *fwd, *bwd;
    size_t fwd_end[4], bwd_end[4];
    /* The evaluation's loops over subsets, in graph order (one allocation, `order`): the
     * optimizer group's sharded ops; the grad_accumulate ops. */
    size_t *order, *opt_ops, n_opt, *accum_ops, n_accum;
    /* The ops sharding leaves alone (not touched), and those it changes outside the optimizer
     * group's sharded ones (shard_graph's loops): those that are their own lead, and of the others
     * (an evaluation's pass gives them their lead's result, so only their count, which the
     * schedule reads, is sharded there) the layers' (count_ops: the count of the others is the
     * model's whatever the configuration), in graph order, in the same allocation. */
    size_t *plain_ops, n_plain, *layer_ops, n_layer, *count_ops, n_count;
    /* [op]: the op whose kernel result op i has in every configuration (find_leads): the first in
     * graph order with the same kernel inputs, unsharded, and the same tensor-parallel split of
     * them (so the same sharded too); i itself when none comes before it. In `order`'s allocation. */
    size_t *lead;
    par_shape s;
    ridge_memory full;       /* ridge_model_memory of one microbatch */
    double params, expert_share; /* ridge_model_params_for; expert params / params (0 without) */
    /* ridge_model_throughput_unit: the model's alone (every family's names its items whatever the
     * run configuration, which it is handed but does not read), so found once. */
    const char *unit;
};

static int find_leads(ridge_parallel_model *pm);

/* The microbatches per step a configuration accumulates into the optimizer group (1: none). */
static double accum_of(const ridge_run_config *rc, const ridge_parallel_config *pc)
{
    double nm = pc->global_batch / ((double)pc->dp * pc->microbatch);
    return rc->mode == RIDGE_MODE_TRAIN && nm > 1 && nm <= RIDGE_RUN_GRAD_ACCUM_MAX ? nm : 1;
}

void ridge_parallel_model_free(ridge_parallel_model *pm)
{
    if (!pm)
        return;
    ridge_oplist_free(&pm->g);
    free(pm->cls);
    free(pm->order);
    free(pm->fwd);
    free(pm);
}

int ridge_parallel_prepare(const ridge_model *m, const ridge_run_config *rc, const ridge_parallel_config *pc,
                           ridge_parallel_model **out, ridge_err *err)
{
    ridge_parallel_model *pm = calloc(1, sizeof *pm);
    ridge_run_config acc;
    *out = NULL;
    static atomic_ulong serials;
    if (!pm)
        return ridge_err_set(err, RIDGE_ENOMEM, "out of memory");
    pm->serial = atomic_fetch_add(&serials, 1) + 1;
    pm->m = m;
    pm->rc = *rc;
    pm->mb = *rc;
    pm->mb.batch = pc->microbatch;
    pm->microbatch = pc->microbatch;
    pm->accum = accum_of(rc, pc);
    /* The graph of one microbatch, with the optimizer group of the whole step: built for nm
     * accumulated microbatches (rw_optimizer adds microbatches 2..nm's gradients into .grad,
     * autograd's AccumulateGrad: grad_accumulate), then every other op back to one microbatch
     * (ridge_model_build multiplied their counts by exactly nm). */
    acc = pm->mb;
    if (pm->accum > 1)
        acc.grad_accum = pm->accum;
    pm->build_st = ridge_model_build(m, &acc, &pm->g, &pm->build_err);
    pm->s.transformer = strcmp(ridge_model_family(m), "transformer") == 0;
    if (pm->build_st == RIDGE_OK) {
        size_t n = pm->g.n ? pm->g.n : 1, nf = 0, nb = 0;
        if (!(pm->cls = calloc(n, sizeof *pm->cls)) || !(pm->order = malloc(6 * n * sizeof *pm->order)) ||
            !(pm->fwd = malloc(2 * n * sizeof *pm->fwd))) {
            ridge_parallel_model_free(pm);
            return ridge_err_set(err, RIDGE_ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < pm->g.n; i++) {
            classify(&pm->g.ops[i], &pm->cls[i]);
            classify_opt(&pm->g.ops[i], rc->optimizer_impl, &pm->cls[i]);
            pm->cls[i].touched = (unsigned char)shard_touches(&pm->g.ops[i], &pm->cls[i]);
        }
        pm->bwd = pm->fwd + n;
        for (int pl = 0; pl < 4; pl++) {
            for (size_t i = 0; i < pm->g.n; i++) {
                const double b = pm->cls[i].bwd;
                if (pm->cls[i].place != pl)
                    continue;
                if (1 - b != 0)
                    pm->fwd[nf++] = (par_term){i, 1 - b};
                if (b != 0)
                    pm->bwd[nb++] = (par_term){i, b};
            }
            pm->fwd_end[pl] = nf;
            pm->bwd_end[pl] = nb;
        }
        pm->opt_ops = pm->order;
        pm->accum_ops = pm->order + pm->g.n;
        pm->plain_ops = pm->order + 2 * pm->g.n;
        pm->layer_ops = pm->order + 3 * pm->g.n;
        pm->lead = pm->order + 4 * pm->g.n;
        pm->count_ops = pm->order + 5 * pm->g.n;
        for (size_t i = 0; i < pm->g.n; i++) {
            if (pm->cls[i].opt != PAR_OPT_NONE)
                pm->opt_ops[pm->n_opt++] = i;
            if (pm->cls[i].accum)
                pm->accum_ops[pm->n_accum++] = i;
        }
        if (acc.grad_accum > 1)
            for (size_t i = 0; i < pm->g.n; i++)
                if (pm->cls[i].place != PAR_OPT)
                    pm->g.ops[i].count /= acc.grad_accum;
        if (pm->s.transformer)
            shape_from_graph(&pm->g, pc->microbatch, &pm->s);
        for (size_t i = 0; i < pm->g.n; i++)
            tp_fields(&pm->g.ops[i], &pm->cls[i], &pm->s);
        if (find_leads(pm) != RIDGE_OK) {
            ridge_parallel_model_free(pm);
            return ridge_err_set(err, RIDGE_ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < pm->g.n; i++) {
            if (pm->cls[i].opt != PAR_OPT_NONE)
                continue;
            if (!pm->cls[i].touched)
                pm->plain_ops[pm->n_plain++] = i;
            else if (pm->lead[i] == i)
                pm->layer_ops[pm->n_layer++] = i;
            else if (pm->cls[i].place == PAR_LAYER)
                pm->count_ops[pm->n_count++] = i;
        }
        pm->memory_st = ridge_model_memory(m, &pm->mb, &pm->full, &pm->memory_err);
        pm->params = ridge_model_params_for(m, rc);
        pm->expert_share = pm->params > 0 ? ridge_model_expert_params(m) / pm->params : 0;
        pm->unit = ridge_model_throughput_unit(m, rc);
    }
    *out = pm;
    return RIDGE_OK;
}

/* ------------------------------------------------------------------ the evaluation context */

/* The kernel results of one op of the scratch graph, for the ops it was predicted for, PAR_WAYS of
 * them per op and per value of the GPU's no_split_k. The optimizer group's shapes change with
 * the ZeRO stage and the stages; the ways keep the few a search cycles through. The key is what
 * ridge_kernel_predict reads of an op (kind, dtype, cold, reuse and epilogue bytes, the shape
 * union), compared byte for byte; a slot holds a result when its generation is the context's. */
#define PAR_WAYS 4
#ifndef PAR_GEN_TYPE
#define PAR_GEN_TYPE unsigned /* a narrower type tries the wrap-around (docs/parallel.md) */
#endif
typedef PAR_GEN_TYPE par_gen;

typedef struct {
    ridge_op_kind kind;
    ridge_dtype dtype;
    double cold_bytes, reuse_bytes, epilogue_bytes;
    unsigned char u[sizeof ((ridge_op *)0)->u];
} par_kernel_key;

struct par_kernel_slot {
    par_gen gen; /* valid when == ridge_parallel_ctx.gen (never 0) */
    par_kernel_key key;
    ridge_kernel_result kr;
};

/* The part of a cluster the memos depend on, compared before each evaluation and copied: all but
 * its sources (the last fields, 4.6 of its 6.5 kB), which nothing of a prediction reads. */
#define PAR_CL_KEY_BYTES offsetof(ridge_cluster, source_count)
_Static_assert(sizeof(ridge_cluster) - (offsetof(ridge_cluster, sources) + sizeof ((ridge_cluster *)0)->sources) < 8 &&
                   offsetof(ridge_cluster, sources) - offsetof(ridge_cluster, source_count) <= 8,
               "ridge_cluster: the sources must be its last fields (PAR_CL_KEY_BYTES)");

/* What the context knows of its scratch op i. A kernel slot's key is compared byte for byte only
 * while this does not say which way holds the op's inputs: hit[f], a way of op i's memo for
 * no_split_k f, has a key equal to the op's kernel inputs (its result counts when its generation
 * is the context's). scratch_shard clears it whenever it writes the op (shard_graph's loop over
 * the layer ops: unless the op's shape comes out as it was) and, once, after the graph is copied
 * (scratch_begin) before the memos see the op; a growth of the memos, which moves them, clears it
 * too (ctx_reserve). memo_kernel sets it only where it compared or wrote the key,
 * and a miss that replaces the way hit names sets it again. */
typedef struct par_kernel_slot par_kernel_slot;
typedef struct {
    uint64_t stamp;         /* the sharding (ridge_parallel_ctx.sh_stamp) its count and shape are for; before
                               ridge_parallel_ctx.copy_stamp: none, the op is as copied */
    double shard;           /* and the optimizer shard they are for (its class's; 0 outside the optimizer group) */
    par_kernel_slot *hit[2]; /* [no_split_k]: the way of its memo whose key is its kernel inputs (NULL: not known) */
    par_gen mgen[2];         /* [no_split_k]: a generation a way of its memo was written in; a way holds a result
                                of the context's generation only if this is it (a miss compares no key else) */
} par_op_state;

/* An optimizer-group op's sharding before its last (ridge_parallel_ctx.alt): its stamp, shard and
 * hits (as par_op_state's, for this count and shape), and the count and shape themselves. A search
 * that alternates two shards (ZeRO stages) swaps the two instead of sharding and comparing again;
 * a miss that replaces the way one of these hits names clears it. */
typedef struct {
    uint64_t stamp;
    double shard;
    par_kernel_slot *hit[2];
    double count;
    unsigned char u[sizeof ((ridge_op *)0)->u];
} par_op_alt;

struct ridge_parallel_ctx {
    size_t cap;              /* ops the scratch below holds */
    ridge_op *ops;           /* the sharded graph */
    unsigned long ops_serial; /* the prepared model whose graph ops holds (0: none): the ops sharding
                                 leaves alone are already there, the others are restored */
    par_op_state *st;        /* [op] */
    par_op_alt *alt;         /* [op] */
    /* The scratch's sharding: shard_one's output depends on the prepared model, tp, pp, sequence
     * parallelism and (optimizer group) the op's shard alone, so an op sharded for the same ones
     * is left as it is. sh_stamp names the (tp, pp, sp) last seen and is never 0. */
    uint64_t sh_stamp;
    uint64_t sh_all;     /* every op of the graph was sharded for this stamp, but the count_ops' count alone
                            (0: not known) */
    uint64_t copy_stamp; /* the stamp the graph was copied in: an op's state of an earlier one is void */
    int sh_tp, sh_pp, sh_sp;
    double *t_op;            /* each op's time in the stream */
    par_kernel_slot *memo[2]; /* [no_split_k][op x PAR_WAYS + way] */
    rk_kernel_prepared kp;    /* the kernel model's figures of the cluster copy's GPU (cl->gpu), prepared
                                 by every evaluation with the memos on, before its first prediction:
                                 memo_miss predicts through them (kernel_prep.h); derived 0, as no
                                 memo result leaves the context and nothing here reads those fields */
    const ridge_kernel_result **kr; /* [op]: a schedule pass's kernel results (memo_pass) */
    const size_t *lead;      /* [op]: the prepared model's lead (memo_pass), set by evaluate before its schedule */
    unsigned char *next_way[2]; /* [no_split_k][op]: the way a miss replaces */
    par_gen gen;             /* the memos' generation: clearing them starts the next */
    int memos;               /* 0: ridge_parallel_predict's one evaluation, no memo */
    int have_cl;
    ridge_cluster *cl;       /* the cluster the memos are for, its first PAR_CL_KEY_BYTES (NULL without memos) */
    par_coll_memo *coll;     /* NULL without memos */
    /* Memory first: every op outside the optimizer group's sharded elementwise ops predicted
     * without error, in both passes, for model `ok_serial` at tp ok_tp, sequence parallel ok_sp
     * (those ops' kernel inputs depend on nothing else). ok_serial 0: none. */
    unsigned long ok_serial;
    int ok_tp, ok_sp;
    int ok_split;   /* one of those ops splits over K in the first pass */
    int ok_nosplit; /* and they passed the no-split pass too */
    /* The global batch's model FLOPs and items for model mf_serial (0: none) at global batch
     * mf_batch: functions of the two alone (evaluate). */
    unsigned long mf_serial;
    double mf_batch, mf_flops, mf_items;
    /* Model gb_serial's run configuration (0: none), its batch the last global batch: the one the
     * model FLOPs are asked for, kept (not a result: a clear leaves it) so as not to copy it each
     * time. */
    unsigned long gb_serial;
    ridge_run_config gb;
};

static int ctx_alloc(int memos, ridge_parallel_ctx **out, ridge_err *err)
{
    ridge_parallel_ctx *c = calloc(1, sizeof *c);
    *out = NULL;
    if (!c || (memos && (!(c->coll = calloc(1, sizeof *c->coll)) || !(c->cl = malloc(sizeof *c->cl))))) {
        if (c)
            free(c->coll);
        free(c);
        return ridge_err_set(err, RIDGE_ENOMEM, "out of memory");
    }
    c->memos = memos;
    c->gen = 1;
    c->sh_stamp = 1;
    if (c->coll)
        c->coll->gen = c->gen;
    *out = c;
    return RIDGE_OK;
}

int ridge_parallel_ctx_alloc(ridge_parallel_ctx **out, ridge_err *err)
{
    return ctx_alloc(1, out, err);
}

void ridge_parallel_ctx_free(ridge_parallel_ctx *c)
{
    if (!c)
        return;
    free(c->ops);
    free(c->st);
    free(c->alt);
    free(c->t_op);
    free(c->kr);
    free(c->coll);
    free(c->cl);
    for (int f = 0; f < 2; f++) {
        free(c->memo[f]);
        free(c->next_way[f]);
    }
    free(c);
}

/* O(1): the next generation; once in 2^32 clears (the counter back at 0) every entry is cleared
 * for real, so that no old generation can come round again. A clear forgets all the context kept
 * for the next evaluation, not only the memos: a new sharding stamp (every op is restored and
 * sharded again, as for a new configuration) and the model FLOPs of the last global batch, so an
 * evaluation after a clear does the work of one on a new context but the graph copy and the
 * allocations (an op sharding never touches, or a layer op it shards to the shape it had, keeps
 * its remembered memo way, whose key is still its inputs: it is predicted again into it without
 * the key being written). */
void ridge_parallel_ctx_clear(ridge_parallel_ctx *c)
{
    if (!c || !c->memos)
        return;
    c->ok_serial = 0; /* the copy of the cluster stays: the next evaluation compares it */
    c->sh_stamp++;
    c->sh_all = 0;
    c->mf_serial = 0;
    c->gen = (par_gen)(c->gen + 1);
    if (c->gen == 0) {
        for (size_t i = 0; i < PAR_COLL_MEMO; i++)
            c->coll->e[i].gen = 0;
        c->coll->comm.gen = 0;
        for (int z = 0; z < 4; z++)
            c->coll->dp[z].gen = 0;
        for (int f = 0; f < 2; f++) {
            for (size_t i = 0; i < c->cap * PAR_WAYS; i++)
                c->memo[f][i].gen = 0;
            for (size_t i = 0; i < c->cap; i++)
                c->st[i].mgen[f] = 0;
        }
        c->gen = 1;
    }
    c->coll->gen = c->gen;
}

static int ctx_reserve(ridge_parallel_ctx *c, size_t n, ridge_err *err)
{
    ridge_op *ops;
    par_op_state *st;
    par_op_alt *alt;
    double *t_op;
    int ok = 1;
    if (n <= c->cap)
        return RIDGE_OK;
    c->ops_serial = 0;
    if ((ops = realloc(c->ops, n * sizeof *ops)))
        c->ops = ops;
    if ((st = realloc(c->st, n * sizeof *st)))
        c->st = st;
    if ((alt = realloc(c->alt, n * sizeof *alt)))
        c->alt = alt;
    if ((t_op = realloc(c->t_op, n * sizeof *t_op)))
        c->t_op = t_op;
    ok = ops && st && alt && t_op;
    if (c->memos) {
        const ridge_kernel_result **kr = realloc(c->kr, n * sizeof *kr);
        if (kr)
            c->kr = kr;
        ok = ok && kr;
    }
    for (int f = 0; f < 2 && c->memos; f++) {
        par_kernel_slot *m = realloc(c->memo[f], n * PAR_WAYS * sizeof *m);
        unsigned char *w = realloc(c->next_way[f], n);
        if (m)
            c->memo[f] = m;
        if (w)
            c->next_way[f] = w;
        ok = ok && m && w;
    }
    /* The memos may have moved: no hit holds (and with ops_serial 0 the next scratch_begin clears
     * the states of the graph it copies). */
    if (c->st)
        memset(c->st, 0, (st ? n : c->cap) * sizeof *c->st);
    if (c->alt)
        memset(c->alt, 0, (alt ? n : c->cap) * sizeof *c->alt);
    if (!ok)
        return ridge_err_set(err, RIDGE_ENOMEM, "out of memory");
    for (int f = 0; f < 2 && c->memos; f++) {
        for (size_t i = c->cap * PAR_WAYS; i < n * PAR_WAYS; i++)
            c->memo[f][i].gen = 0;
        memset(c->next_way[f] + c->cap, 0, n - c->cap);
    }
    c->cap = n;
    return RIDGE_OK;
}

/* The shape union byte for byte, 8 bytes at a time from its start (where the ways of one op
 * differ first: a GEMM's m, n, k, an elementwise op's elements), then the rest of the key. */
_Static_assert(sizeof ((par_kernel_key *)0)->u % 8 == 0, "par_kernel_key: the shape union in 8-byte words");
static int same_kernel_input(const par_kernel_key *k, const ridge_op *op)
{
    const unsigned char *a = k->u, *b = (const unsigned char *)&op->u;
    for (size_t j = 0; j < sizeof k->u; j += 8) {
        uint64_t x, y;
        memcpy(&x, a + j, sizeof x);
        memcpy(&y, b + j, sizeof y);
        if (x != y)
            return 0;
    }
    return k->kind == op->kind && k->dtype == op->dtype && k->cold_bytes == op->cold_bytes &&
           k->reuse_bytes == op->reuse_bytes && k->epilogue_bytes == op->epilogue_bytes;
}

static void set_kernel_key(par_kernel_key *k, const ridge_op *op)
{
    k->kind = op->kind;
    k->dtype = op->dtype;
    k->cold_bytes = op->cold_bytes;
    k->reuse_bytes = op->reuse_bytes;
    k->epilogue_bytes = op->epilogue_bytes;
    memcpy(k->u, &op->u, sizeof k->u);
}

/* Whether ops a and b (of classes ca, cb) have the same kernel inputs and tensor-parallel split of
 * them, bit for bit (find_leads). */
static int same_lead(const ridge_op *a, const par_class *ca, const ridge_op *b, const par_class *cb)
{
    return a->kind == b->kind && a->dtype == b->dtype && same_bits(a->cold_bytes, b->cold_bytes) &&
           same_bits(a->reuse_bytes, b->reuse_bytes) && same_bits(a->epilogue_bytes, b->epilogue_bytes) &&
           memcmp(&a->u, &b->u, sizeof a->u) == 0 && ca->tp_n == cb->tp_n && ca->tp_sp == cb->tp_sp &&
           ca->tp_w[0] == cb->tp_w[0] && ca->tp_w[1] == cb->tp_w[1];
}

/* pm->lead (after tp_fields): ops outside the optimizer group's sharded ones and those sharded by
 * shard_op_tp (PAR_TP_OWN) whose kernel inputs and split are the same, bit for bit, have the same
 * kernel inputs once sharded for any configuration (sharding writes only the split's fields, and
 * the count, which is not an input): a pass predicts the first of them and gives the others its
 * result (memo_pass). With full recomputation a layer's forward ops come twice, and its norms,
 * dropouts and residual adds are alike. A hash table of the ops by the kind, dtype, cold bytes and
 * the shape's first three words (a GEMM's m, n, k; an elementwise op's elements, inputs,
 * outputs...), the rest compared: O(n). */
static int find_leads(ridge_parallel_model *pm)
{
    size_t cap = 16, *table;
    while (cap < 2 * pm->g.n)
        cap *= 2;
    if (!(table = malloc(cap * sizeof *table)))
        return RIDGE_ENOMEM;
    for (size_t j = 0; j < cap; j++)
        table[j] = (size_t)-1;
    for (size_t i = 0; i < pm->g.n; i++) {
        const ridge_op *op = &pm->g.ops[i];
        const par_class *c = &pm->cls[i];
        uint64_t w[5], h = 0;
        size_t slot;
        pm->lead[i] = i;
        if (c->opt != PAR_OPT_NONE || c->tp_n == PAR_TP_OWN)
            continue;
        w[0] = (uint64_t)op->kind << 32 ^ (uint64_t)op->dtype;
        memcpy(&w[1], &op->cold_bytes, sizeof w[1]);
        memcpy(&w[2], &op->u, 3 * sizeof w[2]);
        for (size_t j = 0; j < 5; j++) {
            h = (h ^ w[j]) * 0x9E3779B97F4A7C15u;
            h ^= h >> 29;
        }
        for (slot = (size_t)h & (cap - 1); table[slot] != (size_t)-1; slot = (slot + 1) & (cap - 1))
            if (same_lead(op, c, &pm->g.ops[table[slot]], &pm->cls[table[slot]]))
                break;
        if (table[slot] == (size_t)-1)
            table[slot] = i;
        else
            pm->lead[i] = table[slot];
    }
    free(table);
    return RIDGE_OK;
}

/* memo_kernel past its hit, for scratch op i (memo_slow; inlined in memo_pass's loop, whose
 * registers are saved once per pass, not per miss): a hit naming a way of an older generation (its key is
 * the op's inputs, so the op is predicted again into it), or none: the ways compared when one may
 * be of this generation (mgen), else the op predicted into the way a miss replaces, its key
 * written. The hit then names the way; a failure clears it and the way (failures are not kept). */
RIDGE_ALWAYS_INLINE
static inline const ridge_kernel_result *memo_miss(ridge_parallel_ctx *c, const ridge_gpu *g, int f, size_t i,
                                                   int *status, ridge_err *err)
{
    par_op_state *st = &c->st[i];
    const ridge_op *op = &c->ops[i];
    par_kernel_slot *sl = st->hit[f];
    if (!sl) {
        par_kernel_slot *ways = &c->memo[f][i * PAR_WAYS];
        unsigned char *next = &c->next_way[f][i];
        if (st->mgen[f] == c->gen)
            for (int w = 0; w < PAR_WAYS; w++)
                if (ways[w].gen == c->gen && same_kernel_input(&ways[w].key, op)) {
                    st->hit[f] = &ways[w];
                    *status = RIDGE_OK;
                    return &ways[w].kr;
                }
        sl = &ways[*next];
        *next = (unsigned char)((*next + 1) % PAR_WAYS);
        if (c->alt[i].hit[f] == sl) /* its key is about to change */
            c->alt[i].hit[f] = NULL;
        set_kernel_key(&sl->key, op);
        st->hit[f] = sl;
    }
    /* g is the cluster copy's GPU (memo_pass, memo_kernel with the memos on), whose figures evaluate
     * prepared; its no_split_k, which the schedule's second pass sets, is read from g itself. */
    *status = g == c->kp.g ? rk_kernel_predict_prepared(&c->kp, op, &sl->kr, err)
                           : ridge_kernel_predict(g, op, &sl->kr, err);
    if (*status != RIDGE_OK) {
        sl->gen = 0;
        st->hit[f] = NULL;
        return NULL;
    }
    sl->gen = c->gen;
    st->mgen[f] = c->gen;
    return &sl->kr;
}

/* memo_miss kept out of line (memo_kernel's): its caller's fast path then saves no registers. */
static RIDGE_NOINLINE const ridge_kernel_result *memo_slow(ridge_parallel_ctx *c, const ridge_gpu *g, int f, size_t i,
                                                         int *status, ridge_err *err)
{
    return memo_miss(c, g, f, i, status, err);
}

/* ridge_schedule_kernel_fn over the context's memo: a result op i had for the same kernel inputs
 * on the same GPU. A scratch op whose hit names a way of the current generation takes it without
 * comparing: that way's key is its inputs (par_op_state); the rest is memo_slow. Without memos,
 * or for an op that is not the scratch's op i (with the memos on there is none: rest_would_succeed
 * passes the scratch's ops, evaluate's schedule takes memo_pass), the kernel model itself. */
static const ridge_kernel_result *memo_kernel(void *ctx, const ridge_gpu *g, size_t i, const ridge_op *op,
                                              ridge_kernel_result *buf, int *status, ridge_err *err)
{
    ridge_parallel_ctx *c = ctx;
    int f = g->no_split_k ? 1 : 0;
    par_kernel_slot *hit;
    if (!c->memos || op != &c->ops[i]) {
        *status = ridge_kernel_predict(g, op, buf, err);
        return *status == RIDGE_OK ? buf : NULL;
    }
    if ((hit = c->st[i].hit[f]) && hit->gen == c->gen) {
        *status = RIDGE_OK;
        return &hit->kr;
    }
    return memo_slow(c, g, f, i, status, err);
}

/* memo_pass from op i on, its first miss: memo_miss inlined, the registers saved once for the
 * rest of the pass (after a clear every op misses) rather than per miss. */
static RIDGE_NOINLINE int memo_pass_rest(ridge_parallel_ctx *c, const ridge_gpu *g, int f, size_t i, size_t n,
                                       const ridge_kernel_result **kr, size_t *failed, ridge_err *err)
{
    int status = RIDGE_OK;
    /* c's arrays and generation are read from c each op, not held in locals: after a prediction
     * they would be reloaded from the stack all the same, and were saved there before it. */
    for (; i < n; i++) {
        const size_t lead = c->lead[i];
        par_kernel_slot *hit;
        if (lead != i) { /* its lead's, found before it in this pass */
            kr[i] = kr[lead];
            continue;
        }
        hit = c->st[i].hit[f];
        if (hit && hit->gen == c->gen) {
            kr[i] = &hit->kr;
            continue;
        }
        if (!(kr[i] = memo_miss(c, g, f, i, &status, err))) {
            *failed = i;
            return status;
        }
    }
    return RIDGE_OK;
}

/* ridge_schedule_known_fn over the context's memo: memo_kernel for each scratch op of the pass
 * (evaluate's, with the memos on: ops is the scratch), its hits found in this loop, the rest
 * from the first miss on in memo_pass_rest; an op with another lead (c->lead) takes its lead's
 * result (the same kernel inputs: memo_kernel would give an equal one), its memo untouched. */
static int memo_pass(void *ctx, const ridge_gpu *g, const ridge_op *ops, size_t n, const ridge_kernel_result **kr,
                     size_t *failed, ridge_err *err)
{
    ridge_parallel_ctx *c = ctx;
    (void)ops;
    const par_op_state *st = c->st;
    const par_gen gen = c->gen;
    const size_t *lead = c->lead;
    int f = g->no_split_k ? 1 : 0;
    for (size_t i = 0; i < n; i++) {
        par_kernel_slot *hit;
        if (lead[i] != i) {
            kr[i] = kr[lead[i]];
            continue;
        }
        hit = st[i].hit[f];
        if (!hit || hit->gen != gen)
            return memo_pass_rest(c, g, f, i, n, kr, failed, err);
        kr[i] = &hit->kr;
    }
    return RIDGE_OK;
}

/* ------------------------------------------------------------------ prediction */

/* shard_one writes an op's count and, of its shape, only fields in the union's first PAR_SHARD_BYTES:
 * all a restore needs to copy back. */
#define PAR_SHARD_BYTES (4 * sizeof(double))
#define PAR_SHARDED(f) (offsetof(ridge_op, u.f) + sizeof ((ridge_op *)0)->u.f <= offsetof(ridge_op, u) + PAR_SHARD_BYTES)
_Static_assert(PAR_SHARDED(gemm.m) && PAR_SHARDED(gemm.n) && PAR_SHARDED(gemm.k) && PAR_SHARDED(gemm.batch) &&
                   PAR_SHARDED(attn.heads) && PAR_SHARDED(attn.kv_heads) && PAR_SHARDED(rows.rows) &&
                   PAR_SHARDED(rows.cols) && PAR_SHARDED(ew.elements) && PAR_SHARDED(emb.vocab) &&
                   PAR_SHARDED(custom.bytes) && PAR_SHARDED(custom.flops) && PAR_SHARDED(copy.bytes),
               "shard_one: a field it writes lies past PAR_SHARD_BYTES");

/* What shard_tp_layer reads of the configuration, worked out once for a loop over the ops (held in
 * registers there, where the configuration's fields would be loaded again after each store to an
 * op). */
typedef struct {
    int tp;       /* tp (shard_op_tp) */
    int own;      /* PAR_TP_OWN ops are sharded: tp > 1 or sequence parallelism */
    int split[2]; /* [tp_sp]: tp divides the fields of the op's descriptor (tp > 1; with tp_sp, with sp only) */
    int stages;   /* pp > 1: a layer's count is divided by pp */
    double t, p;  /* tp and pp */
} par_split;

static par_split split_of(const ridge_parallel_config *pc)
{
    par_split k;
    k.tp = pc->tp;
    k.own = pc->tp > 1 || pc->sequence_parallel;
    k.split[0] = pc->tp > 1;
    k.split[1] = pc->tp > 1 && pc->sequence_parallel;
    k.stages = pc->pp > 1;
    k.t = pc->tp;
    k.p = pc->pp;
    return k;
}

/* shard_tp_layer's pipeline stages: op's count from `from`'s (a layer's divided by pp). */
RIDGE_ALWAYS_INLINE
static inline void shard_count(ridge_op *op, const ridge_op *from, const par_class *cl, const par_split *k)
{
    op->count = cl->place == PAR_LAYER && k->stages ? from->count / k->p : from->count;
}

/* shard_one's tensor and sequence parallelism (cl's descriptor) and pipeline stages for k, from
 * the op `from` (op itself, or the unsharded op) into op: its count and every field the split may
 * write (tp_w's words; attention's and the KV-cache copy's, PAR_TP_OWN, the first
 * PAR_SHARD_BYTES) are written whether it splits them or not, so that op's other fields are all
 * it keeps of before. Returns 0 when the shape it wrote is op's shape before bit for bit (its
 * kernel inputs are the same: the count is not one), 1 when it may not be (PAR_TP_OWN: always). */
RIDGE_ALWAYS_INLINE
static inline int shard_tp_layer(ridge_op *op, const ridge_op *from, const par_class *cl, const par_shape *s,
                                 const par_split *k)
{
    int changed = 0;
    if (cl->tp_n == PAR_TP_OWN) {
        if (from != op)
            memcpy(&op->u, &from->u, PAR_SHARD_BYTES);
        if (k->own)
            shard_op_tp(op, cl, s, k->tp);
        changed = 1;
    } else {
        const unsigned char *src = (const unsigned char *)&from->u;
        unsigned char *dst = (unsigned char *)&op->u;
        const int split = k->split[cl->tp_sp];
        for (int j = 0; j < cl->tp_n; j++) {
            double x;
            uint64_t was, now;
            memcpy(&x, src + cl->tp_w[j] * sizeof x, sizeof x);
            if (split)
                x = ceil_div(x, k->t);
            memcpy(&was, dst + cl->tp_w[j] * sizeof x, sizeof was);
            memcpy(&now, &x, sizeof now);
            changed |= was != now;
            memcpy(dst + cl->tp_w[j] * sizeof x, &x, sizeof x);
        }
    }
    shard_count(op, from, cl, k);
    return changed;
}

/* Shard op (of class cl): tensor and sequence parallelism, pipeline stages, and the optimizer
 * group over its shards. Inlined into the loops over the graph (scratch_shard's callers). */
RIDGE_ALWAYS_INLINE
static inline void shard_one(ridge_op *op, const par_class *cl, const par_shape *s, const par_split *k,
                             double opt_shard, double grad_shard)
{
    const double P = k->p;
    shard_tp_layer(op, op, cl, s, k);
    switch ((par_opt_class)cl->opt) {
    case PAR_OPT_ACCUM:
        /* One add per parameter tensor: a stage holds 1/P of the tensors, each split over T (and
         * its gradient over the shard group with ZeRO >= 2). */
        op->count = ceil_div(op->count, P);
        op->u.ew.elements = ceil_div(op->u.ew.elements, grad_shard / P);
        break;
    case PAR_OPT_PER_TENSOR:
        /* Kernels per parameter tensor (Megatron's copy to the FP32 main gradients, a for-loop
         * optimizer): the stage's tensors, 1/T of each (1/(T D) sharded) */
        op->count = ceil_div(op->count, P);
        op->u.ew.elements = ceil_div(op->u.ew.elements, opt_shard / P);
        break;
    case PAR_OPT_ZERO_GRAD:
    case PAR_OPT_MULTI: {
        /* Multi-tensor kernels chunk the parameters by size: 1/sh of the launches */
        double sh = cl->opt == PAR_OPT_ZERO_GRAD ? grad_shard : opt_shard, n = ceil_div(op->count, sh);
        op->u.ew.elements = ceil_div(op->u.ew.elements * op->count, sh * n);
        op->count = n;
        break;
    }
    default: break;
    }
}

/* The scratch for pm at pc's tp, pp and sequence parallelism, before scratch_shard: the whole
 * graph is copied once per model, which starts a new stamp (copy_stamp: the states of before it
 * are of another graph), and a new (tp, pp, sp) is a new stamp. Nothing is cleared: an op's state
 * counts only from the copy on (scratch_shard), and every op the memos are asked for has passed
 * scratch_shard since the copy (evaluate shards the whole graph after one, sh_all, and asks for
 * no op outside its leads; rest_would_succeed shards each op it predicts). */
static void scratch_begin(ridge_parallel_ctx *c, const ridge_parallel_model *pm, const ridge_parallel_config *pc)
{
    if (c->ops_serial != pm->serial) {
        memcpy(c->ops, pm->g.ops, pm->g.n * sizeof *c->ops);
        c->ops_serial = pm->serial;
        c->copy_stamp = ++c->sh_stamp;
        c->sh_all = 0;
    }
    if (c->sh_tp != pc->tp || c->sh_pp != pc->pp || c->sh_sp != pc->sequence_parallel) {
        c->sh_stamp++;
        c->sh_tp = pc->tp;
        c->sh_pp = pc->pp;
        c->sh_sp = pc->sequence_parallel;
    }
}

/* The context's scratch op i sharded for the configuration (k: its split; after scratch_begin): an
 * op sharding may change is restored from pm (its count, and its shape, the fields shard_one
 * writes, when it is not as copied) and sharded again unless it already is for this stamp and shard, or its other sharding is
 * (par_op_alt). An op sharding leaves alone only has its hits cleared, once after a copy. */
static inline ridge_op *scratch_shard(ridge_parallel_ctx *c, const ridge_parallel_model *pm, size_t i,
                                      const par_split *k, double opt_shard, double grad_shard)
{
    ridge_op *op = &c->ops[i];
    const par_class *cl = &pm->cls[i];
    par_op_state *st = &c->st[i];
    double sh;
    if (!cl->touched) {
        if (st->stamp < c->copy_stamp) {
            st->stamp = c->sh_stamp;
            st->hit[0] = st->hit[1] = NULL;
        }
        return op;
    }
    sh = cl->opt == PAR_OPT_ACCUM || cl->opt == PAR_OPT_ZERO_GRAD ? grad_shard
         : cl->opt != PAR_OPT_NONE                             ? opt_shard
                                                                : 0;
    if (st->stamp == c->sh_stamp && same_bits(st->shard, sh))
        return op;
    if (cl->opt != PAR_OPT_NONE) {
        /* A sharding of this stamp becomes the other; the other may be the one wanted. */
        par_op_alt *a = &c->alt[i], was;
        int keep = st->stamp == c->sh_stamp;
        if (keep) {
            was.stamp = st->stamp;
            was.shard = st->shard;
            was.hit[0] = st->hit[0];
            was.hit[1] = st->hit[1];
            was.count = op->count;
            memcpy(was.u, &op->u, sizeof was.u);
        }
        if (a->stamp == c->sh_stamp && same_bits(a->shard, sh)) {
            st->stamp = a->stamp;
            st->shard = a->shard;
            st->hit[0] = a->hit[0];
            st->hit[1] = a->hit[1];
            op->count = a->count;
            memcpy(&op->u, a->u, sizeof op->u);
            if (keep)
                *a = was;
            return op;
        }
        if (keep)
            *a = was;
    }
    /* The count also when the op is as copied: shard_graph may have sharded it alone (count_ops). */
    op->count = pm->g.ops[i].count;
    if (st->stamp >= c->copy_stamp) /* sharded since the copy: what shard_one writes */
        memcpy(&op->u, &pm->g.ops[i].u, PAR_SHARD_BYTES);
    shard_one(op, cl, &pm->s, k, opt_shard, grad_shard);
    st->stamp = c->sh_stamp;
    st->shard = sh;
    st->hit[0] = st->hit[1] = NULL;
    return op;
}

/* The sharded graph into ops: the context's scratch, or the model's own graph (ridge_parallel_predict's
 * throwaway model, sharded in place). Out of line: inlined in evaluate, its loops ran short of
 * registers. */
static RIDGE_NOINLINE void shard_graph(ridge_parallel_ctx *c, ridge_op *ops, const ridge_parallel_model *pm,
                        const ridge_parallel_config *pc, double opt_shard, double grad_shard)
{
    const par_split k = split_of(pc);
    if (ops == pm->g.ops) {
        for (size_t i = 0; i < pm->g.n; i++)
            if (pm->cls[i].touched)
                shard_one(&ops[i], &pm->cls[i], &pm->s, &k, opt_shard, grad_shard);
        return;
    }
    scratch_begin(c, pm, pc);
    if (c->sh_all == c->sh_stamp) { /* the others are sharded for this stamp */
        for (size_t j = 0; j < pm->n_opt; j++)
            scratch_shard(c, pm, pm->opt_ops[j], &k, opt_shard, grad_shard);
        return;
    }
    /* scratch_shard over the graph, by the prepared model's lists: the ops sharding leaves alone,
     * the optimizer group's sharded ones, and the others (pm->layer_ops), whose steps (shard 0, no
     * other sharding, shard_one without its optimizer part) are written out here. */
    {
        const uint64_t now = c->sh_stamp, copy = c->copy_stamp;
        const size_t *plain = pm->plain_ops, *layer = pm->layer_ops, n_plain = pm->n_plain, n_layer = pm->n_layer;
        const size_t *count = pm->count_ops, n_count = pm->n_count;
        const par_class *cls = pm->cls;
        const ridge_op *orig = pm->g.ops;
        ridge_op *scratch = c->ops;
        par_op_state *sts = c->st;
        for (size_t j = 0; j < n_plain; j++) {
            par_op_state *st = &sts[plain[j]];
            if (st->stamp < copy) {
                st->stamp = now;
                st->hit[0] = st->hit[1] = NULL;
            }
        }
        for (size_t j = 0; j < pm->n_opt; j++)
            scratch_shard(c, pm, pm->opt_ops[j], &k, opt_shard, grad_shard);
        /* A layer op's shard is 0 whenever its stamp is set (scratch_shard's, this loop's): only
         * the stamp is compared and written. Nothing but shard_tp_layer writes a layer op of the
         * scratch after the copy, and it rewrites every field it may change: sharding from pm's op
         * restores the op too. An op sharded since the copy whose shape comes out as it was keeps
         * its hits, as an op sharding leaves alone does: their ways' keys are still its kernel
         * inputs (the results count only in their generation; after a clear it is predicted
         * again, into the way, without writing the key). */
        for (size_t j = 0; j < n_layer; j++) {
            const size_t i = layer[j];
            par_op_state *st = &sts[i];
            if (st->stamp == now)
                continue;
            if (shard_tp_layer(&scratch[i], &orig[i], &cls[i], &pm->s, &k) || st->stamp < copy)
                st->hit[0] = st->hit[1] = NULL;
            st->stamp = now;
        }
        /* The ops that take their lead's result in the pass (memo_pass): the layers' count alone
         * (shard_count's for a layer), their shape and state left as they were (their stamp then
         * says they are not sharded for this one: scratch_shard shards them whole before the
         * memos see them); the others' not even that (their count is the model's). */
        for (size_t j = 0; j < n_count; j++)
            scratch[count[j]].count = k.stages ? orig[count[j]].count / k.p : orig[count[j]].count;
    }
    c->sh_all = c->sh_stamp;
}

/* The tensor-parallel, expert-parallel and pipeline collectives. slow_stage PAR_OPT times both
 * ends of the model (one stage, or every collective the step could need: memory-first). */
static int tp_ep_pp_comm(ridge_parallel_ctx *c, const ridge_cluster *cl, const ridge_parallel_model *pm,
                         const ridge_parallel_config *pc, int slow_stage, par_comm *k, ridge_err *err)
{
    const par_shape *s = &pm->s;
    const int T = pc->tp, P = pc->pp, E = pc->ep, train = pm->rc.mode == RIDGE_MODE_TRAIN;
    par_coll_memo *cm = c->coll;
    par_group tpg, g;
    int st;
    if (cm && cm->comm.gen == cm->gen && cm->comm.serial == pm->serial && cm->comm.tp == T && cm->comm.pp == P &&
        cm->comm.ep == E && cm->comm.sp == pc->sequence_parallel && cm->comm.sg == pc->p2p_scatter_gather &&
        cm->comm.slow_stage == slow_stage) {
        *k = cm->comm.k;
        return RIDGE_OK;
    }
    memset(k, 0, sizeof *k);
    group_at(&tpg, T, 1); /* the tensor-parallel group */
    if (T > 1) {
        double bytes = s->tokens * s->d * s->act_bytes;
        if (pc->sequence_parallel) {
            if ((st = coll_time(cm, cl, &tpg, RIDGE_COLL_ALLGATHER, bytes, &k->t_ag, err)) != RIDGE_OK ||
                (st = coll_time(cm, cl, &tpg, RIDGE_COLL_REDUCESCATTER, bytes, &k->t_rs, err)) != RIDGE_OK)
                return st;
        } else if ((st = coll_time(cm, cl, &tpg, RIDGE_COLL_ALLREDUCE, bytes, &k->t_ar, err)) != RIDGE_OK) {
            return st;
        }
        if (!pc->sequence_parallel && train && s->vocab_head && slow_stage != PAR_FIRST &&
            (st = coll_time(cm, cl, &tpg, RIDGE_COLL_ALLREDUCE, s->tokens * 4, &k->t_loss, err)) != RIDGE_OK)
            return st;
    }
    if (E > 1 && (st = coll_time(cm, cl, group_at(&g, E, T * P), RIDGE_COLL_ALLTOALL,
                                 s->tokens * s->top_k * s->d * s->act_bytes, &k->t_a2a, err)) != RIDGE_OK)
        return st;
    if (P > 1) {
        double bytes = s->tokens * s->d * s->act_bytes, t_ag_p2p = 0;
        int split = T > 1 && (pc->sequence_parallel || pc->p2p_scatter_gather);
        /* Neighbouring stages are T GPUs apart. A pipeline that spans nodes (T P > G) has hops
         * across them, the interleaved wrap-around's too, and its blocking exchanges go at the
         * pace of those: each is timed as a pair on two nodes (a stride of a node), each rank
         * through its own share of the network. */
        int hop = (long)T * P > cl->gpus_per_node && T < cl->gpus_per_node ? cl->gpus_per_node : T;
        if ((st = coll_time(cm, cl, group_at(&g, 2, hop), RIDGE_COLL_SENDRECV, split ? bytes / T : bytes, &k->t_p2p,
                            err)) != RIDGE_OK)
            return st;
        if (split && !pc->sequence_parallel &&
            (st = coll_time(cm, cl, &tpg, RIDGE_COLL_ALLGATHER, bytes, &t_ag_p2p, err)) != RIDGE_OK)
            return st;
        k->t_p2p += t_ag_p2p;
    }
    if (cm) {
        cm->comm.gen = cm->gen;
        cm->comm.serial = pm->serial;
        cm->comm.tp = T;
        cm->comm.pp = P;
        cm->comm.ep = E;
        cm->comm.sp = pc->sequence_parallel;
        cm->comm.sg = pc->p2p_scatter_gather;
        cm->comm.slow_stage = slow_stage;
        cm->comm.k = *k;
    }
    return RIDGE_OK;
}

/* Memory per GPU (docs/parallel.md, "Memory"). */
static void per_gpu_memory(const ridge_parallel_model *pm, const ridge_cluster *cl, const ridge_parallel_config *pc,
                           int zs, double nm, double w_shard, double grad_shard, double opt_shard, double keep,
                           ridge_parallel_result *out)
{
    const ridge_memory *full = &pm->full;
    const par_shape *s = &pm->s;
    const int T = pc->tp, P = pc->pp, V = pc->virtual_stages;
    double act_factor, inflight;
    /* With ZeRO or FSDP a state is sharded over the dsh GPUs of the shard group, experts as well:
     * an EP rank's 1/E of the experts over the dsh / E ranks of its expert-data-parallel group
     * (DeepSpeed-MoE), so 1/dsh of everything; unsharded, each EP rank holds 1/E of the experts. */
    out->memory.weights_bytes = full->weights_bytes / w_shard;
    out->memory.gradients_bytes = full->gradients_bytes / grad_shard;
    out->memory.optimizer_bytes = full->optimizer_bytes / opt_shard;
    /* ZeRO-3 / FSDP full and hybrid: the layer being computed and the prefetched ones whole, at
     * most the stage's L_s layers; nothing is gathered when the shard group is one GPU. An EP rank
     * gathers its own experts only (`keep` of the layer, as unsharded), as its all-gathers move. */
    if (zs >= 3 && w_shard > (double)T * P) {
        double ls = layers_per_stage(s, P), held = 1 + pc->prefetch;
        out->memory.weights_bytes += (held < ls ? held : ls) * full->weights_bytes * keep / (T * P) / ls;
    }
    act_factor = pc->sequence_parallel ? 1.0 / T : (PAR_ACT_TOTAL - PAR_ACT_SPLIT + PAR_ACT_SPLIT / T) / PAR_ACT_TOTAL;
    inflight = 1;
    if (pm->rc.mode == RIDGE_MODE_TRAIN && P > 1) {
        inflight = nm < P ? nm : P;
        if (V > 1)
            inflight *= 1 + (P - 1) / ((double)P * V);
    }
    out->memory.activations_bytes = full->activations_bytes / P * inflight * act_factor;
    /* The caches of all the step's sequences stay resident: nm microbatches of M each. */
    out->memory.kv_cache_bytes =
        full->kv_cache_bytes * nm / P / (s->kv_heads > 0 ? (s->kv_heads >= T ? T : s->kv_heads) : 1);
    out->memory.workspace_bytes = full->workspace_bytes;
    out->memory.total_bytes = out->memory.weights_bytes + out->memory.gradients_bytes + out->memory.optimizer_bytes +
                              out->memory.activations_bytes + out->memory.kv_cache_bytes + out->memory.workspace_bytes;
    out->capacity_bytes = cl->gpu.memory_bytes;
    out->fits = out->memory.total_bytes <= out->capacity_bytes;
}

/* Memory first, for a configuration that does not fit: would the rest of the evaluation fail?
 * Runs every kernel prediction the schedule makes (its first pass, and the no-split pass when a
 * kernel splits and the runtime is eager, as ridge_schedule_ops) and every collective the step
 * could need, through the memos: a superset of what the full evaluation calls (the stage that
 * decides which end's collectives count is not known), so 1 here means it would succeed too. The ops outside the
 * optimizer group's sharded ones depend on the model, tp and sequence parallelism only: once
 * they have passed for those, only the others are sharded and checked. An op with another lead
 * (pm->lead) is neither: its lead's kernel inputs are its own, so its lead's prediction stands
 * for its own (as in the full evaluation's pass, which gives it its lead's result). */
static int rest_would_succeed(ridge_parallel_ctx *c, const ridge_parallel_model *pm, const ridge_cluster *cl,
                              const ridge_parallel_config *pc, ridge_runtime rt, double nm, double fe,
                              double opt_shard, double grad_shard)
{
    ridge_gpu *g = &c->cl->gpu;
    ridge_kernel_result buf;
    ridge_parallel_result scratch;
    dp_exposure dpx = {0, 0};
    par_comm k;
    const par_split ks = split_of(pc);
    int nosplit = g->no_split_k, st, layer_split = 0, split;
    int layers_ok = c->ok_serial == pm->serial && c->ok_tp == pc->tp && c->ok_sp == pc->sequence_parallel;
    if (!layers_ok)
        c->ok_serial = 0; /* until the layers pass */
    scratch_begin(c, pm, pc);
    /* The schedule's first pass; its second (no split-K) runs when a kernel splits, eager. */
    for (int pass = 0; pass < 2; pass++) {
        g->no_split_k = pass ? 1 : nosplit;
        split = layers_ok ? c->ok_split : 0;
        for (size_t i = 0; i < pm->g.n; i++) {
            const ridge_kernel_result *kr;
            ridge_op *op;
            if ((layers_ok && pm->cls[i].opt == PAR_OPT_NONE) || pm->lead[i] != i) /* a lead's stands for it */
                continue;
            op = scratch_shard(c, pm, i, &ks, opt_shard, grad_shard);
            if (!(kr = memo_kernel(c, g, i, op, &buf, &st, NULL))) {
                g->no_split_k = nosplit;
                return 0;
            }
            if (kr->split_k > 1) {
                split = 1;
                if (pm->cls[i].opt == PAR_OPT_NONE && !pass)
                    layer_split = 1;
            }
        }
        if (!pass) {
            if (!layers_ok) {
                c->ok_split = layer_split;
                c->ok_nosplit = 0;
            }
            if (!split || rt != RIDGE_RUNTIME_EAGER)
                break;
            /* The layers' second pass once per (model, tp, sp). */
            layers_ok = layers_ok && c->ok_nosplit;
        } else if (!layers_ok) {
            c->ok_nosplit = 1;
        }
    }
    g->no_split_k = nosplit;
    c->ok_serial = pm->serial;
    c->ok_tp = pc->tp;
    c->ok_sp = pc->sequence_parallel;
    if (tp_ep_pp_comm(c, cl, pm, pc, PAR_OPT, &k, NULL) != RIDGE_OK)
        return 0;
    memset(&scratch, 0, sizeof scratch);
    return !(pm->rc.mode == RIDGE_MODE_TRAIN && pc->dp > 1 &&
             dp_schedule(c->coll, cl, pc, &pm->s, &pm->rc, pm->params, fe, 0, 0, 0, nm, &dpx, &scratch, NULL) !=
                 RIDGE_OK);
}

/* ridge_parallel_evaluate, sharding into `ops` (the context's scratch, or pm's own graph once). */
static int evaluate(ridge_parallel_ctx *c, const ridge_parallel_model *pm, ridge_op *ops, const ridge_cluster *cl,
                    const ridge_parallel_config *pc, ridge_runtime rt, int flags, ridge_parallel_result *out,
                    ridge_err *err)
{
    const ridge_run_config *rc = &pm->rc;
    const ridge_model *m = pm->m;
    const par_shape *sp = &pm->s;
    double *t_op;
    ridge_schedule_totals tot;
    par_comm k;
    const int T = pc->tp, P = pc->pp, D = pc->dp, E = pc->ep, V = pc->virtual_stages;
    const int train = rc->mode == RIDGE_MODE_TRAIN;
    double t_place_f[4] = {0}, t_place_b[4] = {0}, t_f, t_b, t_mb, nm, opt_shard, grad_shard, w_shard;
    double t_accum = 0, a_mb, fe, keep;
    dp_exposure dpx = {0, 0};
    ridge_parallel_breakdown *bd = &out->breakdown;
    int st, zs, dsh, slow_stage = PAR_OPT; /* PAR_OPT: one stage holds both ends */

    memset(out, 0, sizeof *out);
    if ((st = check_config(cl, m, sp->transformer, rc, pc, err)) != RIDGE_OK)
        return st;
    if (pc->microbatch != pm->microbatch || accum_of(rc, pc) != pm->accum)
        return ridge_err_set(err, RIDGE_EINVAL,
                             "parallel: the model was prepared for parallel.microbatch %g and %g accumulated "
                             "microbatches, not %g and %g",
                             pm->microbatch, pm->accum, pc->microbatch, accum_of(rc, pc));
    if (pm->build_st != RIDGE_OK) {
        if (err)
            *err = pm->build_err;
        return pm->build_st;
    }
    if ((st = check_shape(m, sp, pc, err)) != RIDGE_OK)
        return st;
    if (pm->memory_st != RIDGE_OK) {
        if (err)
            *err = pm->memory_err;
        return pm->memory_st;
    }
    if ((st = ctx_reserve(c, pm->g.n, err)) != RIDGE_OK)
        return st;
    if (c->memos && (!c->have_cl || memcmp(c->cl, cl, PAR_CL_KEY_BYTES) != 0)) { /* the memos are for one cluster */
        ridge_parallel_ctx_clear(c);
        memcpy(c->cl, cl, PAR_CL_KEY_BYTES);
        c->have_cl = 1;
    }
    if (c->memos) { /* once per evaluation, as a fresh context would (a clear keeps nothing of it) */
        rk_kernel_prep(&c->cl->gpu, &c->kp);
        c->kp.derived = 0;
    }
    t_op = c->t_op;
    nm = pc->global_batch / ((double)D * pc->microbatch);

    /* Shard the graph: the optimizer state over the shard group (ZeRO >= 1, FSDP), gradients
     * (ZeRO >= 2), weights (ZeRO-3); without sharding each EP rank holds 1/E of the experts. */
    zs = eff_stage(pc);
    dsh = zs >= 1 ? shard_group(cl, pc) : 1;
    out->dp_shard_group = dsh;
    fe = E > 1 && pm->params > 0 ? pm->expert_share : 0;
    keep = (1 - fe) + fe / E;
    opt_shard = (double)T * P * (zs >= 1 ? dsh : 1 / keep);
    grad_shard = (double)T * P * (zs >= 2 ? dsh : 1 / keep);
    w_shard = (double)T * P * (zs >= 3 ? dsh : 1 / keep);
    /* Memory first: it needs nothing the schedule gives. */
    per_gpu_memory(pm, cl, pc, zs, nm, w_shard, grad_shard, opt_shard, keep, out);
    if ((flags & RIDGE_PARALLEL_MEMORY_FIRST) && c->memos && !out->fits &&
        rest_would_succeed(c, pm, cl, pc, rt, nm, fe, opt_shard, grad_shard))
        return RIDGE_OK;
    if (!ops || c->memos) /* the memos' hits are for the scratch's ops (memo_kernel) */
        ops = c->ops;
    shard_graph(c, ops, pm, pc, opt_shard, grad_shard);

    c->lead = pm->lead;
    if (c->memos)
        st = rs_schedule_times(&c->cl->gpu, ops, pm->g.n, rt, memo_pass, c, c->kr, t_op, &tot, err); /* total_time_s */
    else
        st = ridge_schedule_ops_with(&cl->gpu, ops, pm->g.n, rt, memo_kernel, c, NULL, t_op, &tot, err);
    if (st != RIDGE_OK)
        return st;
    /* Each place's forward and backward time, its ops in graph order. */
    for (size_t pl = 0, jf = 0, jb = 0; pl < 4; pl++) {
        double f = 0, b = 0;
        for (; jf < pm->fwd_end[pl]; jf++)
            f += t_op[pm->fwd[jf].i] * pm->fwd[jf].share;
        for (; jb < pm->bwd_end[pl]; jb++)
            b += t_op[pm->bwd[jb].i] * pm->bwd[jb].share;
        t_place_f[pl] = f;
        t_place_b[pl] = b;
    }
    for (size_t j = 0; j < pm->n_accum; j++)
        t_accum += t_op[pm->accum_ops[j]];
    /* The accumulation adds run in the backward passes of microbatches 2..nm: compute, not the
     * optimizer step. */
    bd->optimizer_s = t_place_f[PAR_OPT] + t_place_b[PAR_OPT] - t_accum;
    if (P == 1) {
        /* One stage: the whole graph as scheduled (host pipeline included), less the optimizer
         * group. */
        t_mb = tot.total_time_s - bd->optimizer_s - t_accum;
        t_f = t_place_f[PAR_LAYER] + t_place_f[PAR_FIRST] + t_place_f[PAR_LAST];
        t_b = t_mb > t_f ? t_mb - t_f : 0; /* inference: no backward, only rounding left */
    } else {
        /* The slower of the first stage (embedding + layers) and the last (layers + head). */
        double first = t_place_f[PAR_FIRST] + t_place_b[PAR_FIRST], last = t_place_f[PAR_LAST] + t_place_b[PAR_LAST];
        int pl = first >= last ? PAR_FIRST : PAR_LAST;
        slow_stage = pl;
        t_f = t_place_f[PAR_LAYER] + t_place_f[pl];
        t_b = t_place_b[PAR_LAYER] + t_place_b[pl];
        t_mb = t_f + t_b;
    }
    out->stage_forward_s = t_f;
    out->stage_backward_s = t_b;
    out->microbatches = nm;
    out->grad_accumulate_s = t_accum;

    if ((st = tp_ep_pp_comm(c, cl, pm, pc, slow_stage, &k, err)) != RIDGE_OK)
        return st;
    /* Tensor parallelism: 2 all-reduces per layer forward, 2 backward (and 2 more forward with
     * full recomputation), of tokens x d activations; sequence parallelism swaps each for an
     * all-gather plus a reduce-scatter of the same tensor. */
    if (T > 1) {
        double per_layer = train ? (rc->recompute == RIDGE_RECOMPUTE_FULL ? 6 : 4) : 2;
        double one = pc->sequence_parallel ? k.t_ag + k.t_rs : k.t_ar;
        out->tp_comm_per_microbatch_s = per_layer * (sp->layers / P) * one;
        /* The model's two ends (Megatron's mpu, not recomputed): the vocabulary-parallel
         * embedding all-reduces its output (forward) on the first stage; on the last, the LM
         * head's input gradient is all-reduced (backward) and the vocabulary-parallel cross
         * entropy all-reduces three values per token in fp32 (the logits' maximum, the target's
         * logit, the sum of exponentials). With P > 1 the slower stage's; with P = 1 both. */
        if (!pc->sequence_parallel) {
            double ends = 0;
            if (sp->vocab_embed && slow_stage != PAR_LAST)
                ends += k.t_ar;
            if (train && sp->vocab_head && slow_stage != PAR_FIRST)
                ends += k.t_ar + 3 * k.t_loss;
            out->tp_comm_per_microbatch_s += ends;
        }
    }
    /* Expert parallelism: all-to-all dispatch and combine of tokens x top_k rows per MoE layer,
     * forward and backward, over ep data-parallel ranks (stride tp x pp). */
    if (E > 1)
        out->ep_comm_per_microbatch_s = (train ? 4 : 2) * (sp->layers / P) * k.t_a2a;
    /* Pipeline: one activation (forward) or its gradient (backward) crosses to the neighbouring
     * stage after every chunk of every microbatch. Megatron's sends are blocking, so each costs
     * t_p2p on the critical path: 2 (V m + P - 1) per step. With scatter/gather each of the tp
     * ranks sends 1/tp of the tensor over its own NIC and the receivers all-gather it over the
     * node's fabric (with --sp the tensor is already split). */
    if (P > 1) {
        out->p2p_s = k.t_p2p;
        bd->pp_comm_s = (train ? 2 : 1) * ((double)V * nm + P - 1) * k.t_p2p;
    }

    /* Data parallelism (training): docs/parallel.md, "Data parallelism". */
    out->params = pm->params;
    out->params_per_gpu = out->params / ((double)T * P);
    if (train && D > 1 &&
        (st = dp_schedule(c->coll, cl, pc, sp, rc, out->params, fe, t_f, t_b, t_mb, nm, &dpx, out, err)) !=
            RIDGE_OK)
        return st;
    /* Microbatches 2..nm add their gradients into .grad during their backward: spread over the
     * nm microbatches, a_mb = t_accum / nm, so that the bubble's microbatches carry it too. */
    a_mb = nm > 0 ? t_accum / nm : 0;
    bd->compute_s = nm * (t_mb + a_mb);
    /* The compute-bound part of a microbatch: the scheduled graph's compute-bound time over its
     * microbatch's (the optimizer group and the step's gradient accumulations left out: both
     * memory-bound), carried to the stage's microbatch. With T = P = D = 1, compute_bound_s / step
     * is the single-GPU time_by_bound_s[compute] / total. */
    {
        double kt = tot.total_time_s - bd->optimizer_s - t_accum;
        double share = kt > 0 ? tot.time_by_bound_s[RIDGE_BOUND_COMPUTE] / kt : 0;
        out->compute_bound_s = nm * t_mb * (share < 0 ? 0 : share > 1 ? 1 : share);
    }
    bd->tp_comm_s = nm * out->tp_comm_per_microbatch_s;
    bd->ep_comm_s = nm * out->ep_comm_per_microbatch_s;
    /* The data-parallel traffic a microbatch does not hide stretches every microbatch, the
     * bubble's included. */
    bd->bubble_s = (P - 1) / (double)V *
                   (t_mb + a_mb + dpx.per_microbatch_s + out->tp_comm_per_microbatch_s + out->ep_comm_per_microbatch_s);
    bd->dp_comm_exposed_s = nm * dpx.per_microbatch_s + dpx.end_s;
    bd->dp_comm_hidden_s = out->dp_collective_s > bd->dp_comm_exposed_s ? out->dp_collective_s - bd->dp_comm_exposed_s : 0;
    out->step_time_s = bd->compute_s + bd->tp_comm_s + bd->pp_comm_s + bd->dp_comm_exposed_s + bd->ep_comm_s +
                       bd->bubble_s + bd->optimizer_s;
    {
        double busy = bd->compute_s + bd->tp_comm_s + bd->ep_comm_s + bd->bubble_s;
        out->bubble_fraction = busy > 0 ? bd->bubble_s / busy : 0;
    }

    /* Throughput and model FLOPs of the global batch. */
    out->gpus = T * P * D;
    if (c->mf_serial != pm->serial || !same_bits(c->mf_batch, pc->global_batch)) {
        if (c->gb_serial != pm->serial) {
            c->gb = *rc;
            c->gb_serial = pm->serial;
        }
        /* The global batch's work; one beyond a single run's batch limit (RIDGE_RUN_BATCH_MAX: a
         * global batch may be larger) is its microbatches' work times their count (FLOPs and
         * items are linear in the batch). */
        double scale = pc->global_batch > RIDGE_RUN_BATCH_MAX ? pc->global_batch / pc->microbatch : 1;
        c->gb.batch = scale > 1 ? pc->microbatch : pc->global_batch;
        c->mf_flops = scale * ridge_model_flops(m, &c->gb);
        c->mf_items = scale * ridge_model_items_per_step(m, &c->gb);
        c->mf_serial = pm->serial;
        c->mf_batch = pc->global_batch;
    }
    out->model_flops = c->mf_flops;
    out->throughput_unit = pm->unit;
    if (out->step_time_s > 0) {
        out->throughput = c->mf_items / out->step_time_s;
        out->throughput_per_gpu = out->throughput / out->gpus;
        out->model_flops_per_s_per_gpu = out->model_flops / out->step_time_s / out->gpus;
    }
    out->mfu = ridge_predict_mfu(&cl->gpu, rc->precision, out->model_flops_per_s_per_gpu);
    return RIDGE_OK;
}

void ridge_parallel_add_request(const ridge_host_profile *hp, const ridge_gpu *g, const ridge_run_config *rc,
                                double sequences, ridge_parallel_result *r)
{
    double host, scale;
    if (!rc || rc->mode == RIDGE_MODE_TRAIN || !(r->step_time_s > 0))
        return;
    /* a prefill's request work, and every inference step's per-sequence work (docs/model.md §7) */
    host = (rc->mode == RIDGE_MODE_PREFILL ? ridge_host_request_on(hp, g) : 0) +
           ridge_host_sequences_on(hp, g, sequences);
    if (!(host > 0))
        return;
    scale = r->step_time_s / (r->step_time_s + host);
    r->breakdown.host_s += host;
    r->step_time_s += host;
    r->throughput *= scale;
    r->throughput_per_gpu *= scale;
    r->model_flops_per_s_per_gpu *= scale;
    r->mfu *= scale;
}

int ridge_parallel_evaluate(ridge_parallel_ctx *c, const ridge_parallel_model *pm, const ridge_cluster *cl,
                            const ridge_parallel_config *pc, ridge_runtime rt, int flags, ridge_parallel_result *out,
                            ridge_err *err)
{
    return evaluate(c, pm, NULL, cl, pc, rt, flags, out, err);
}

int ridge_parallel_predict(const ridge_cluster *cl, const ridge_model *m, const ridge_run_config *rc,
                           const ridge_parallel_config *pc, ridge_runtime rt, ridge_parallel_result *out,
                           ridge_err *err)
{
    ridge_parallel_model *pm = NULL;
    ridge_parallel_ctx *c = NULL;
    int st;
    memset(out, 0, sizeof *out);
    /* The configuration first: preparing reads its batch sizes. */
    if ((st = check_config(cl, m, strcmp(ridge_model_family(m), "transformer") == 0, rc, pc, err)) != RIDGE_OK)
        return st;
    if ((st = ridge_parallel_prepare(m, rc, pc, &pm, err)) == RIDGE_OK &&
        (st = ctx_alloc(0, &c, err)) == RIDGE_OK)
        st = evaluate(c, pm, pm->g.ops, cl, pc, rt, 0, out, err); /* pm is ours: sharded in place */
    ridge_parallel_ctx_free(c);
    ridge_parallel_model_free(pm);
    return st;
}
