/*
 * bench_launch.cu - kernel launch cost: latency, throughput, CUDA graphs.
 *
 * All kernels are empty.  ridge sees each as an elementwise op of one
 * element with no inputs, no outputs and no arithmetic (zero FLOPs, zero
 * bytes: a valid operator, unlike a zero-size one or a custom op with
 * flops + bytes = 0, which ridge's loader rejects), repeated `count` times.
 * Each measurement's time_s covers config.launches kernel launches:
 *
 *   launch/empty_sync           launch + cudaStreamSynchronize, host clock,
 *                               one launch per sample (round-trip latency)
 *   launch/empty_async_issue    host time of N back-to-back launch calls,
 *                               per launch (CPU cost of issuing)
 *   launch/empty_async_wall     N launches then one synchronize, host clock,
 *                               per launch (what an eager loop sees)
 *   launch/empty_async_gpu      same, CUDA events, per launch (GPU side)
 *   launch/full_grid_async_gpu  as above with one full wave of empty blocks
 *   launch/graph_sync/nodesN    cudaGraphLaunch of an N-node graph +
 *                               synchronize, host clock, per replay
 *   launch/graph_replay/nodesN  back-to-back replays, CUDA events, per replay
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

__global__ static void launch_empty(void) {}

typedef struct {
    const char *id;
    const char *timer;
    const char *runtime;
    const char *measures;
    const char *sync;
    const char *timed;   /* "round_trip", "issue" or "back_to_back": what time_s is */
    long long launches;  /* kernel launches one time_s value covers */
    long long batch;     /* launches issued back to back per sample */
    unsigned grid, block;
} launch_desc;

static void launch_emit(ridge_bench *b, const launch_desc *d,
                        const ridge_stats *st, int inner, int warmup)
{
    ridge_meas m;
    ridge_json *j;
    ridge_meas_init(&m, d->id, st, inner, warmup, 0, 0);
    m.timer = d->timer;
    m.check.status = RIDGE_CHECK_NONE;
    j = ridge_meas_begin(b, &m);
    ridge_op_elementwise(j, RIDGE_DT_FP32, 1, 0, 0, 0.0, d->launches);
    ridge_json_str(j, "kernel", "empty");
    ridge_json_int(j, "grid", d->grid);
    ridge_json_int(j, "block", d->block);
    ridge_json_int(j, "launches", d->launches);
    ridge_json_int(j, "batch_launches", d->batch);
    ridge_json_str(j, "sync", d->sync);
    ridge_json_str(j, "timed", d->timed);
    ridge_json_str(j, "measures", d->measures);
    ridge_json_str(j, "runtime", d->runtime);
    ridge_meas_end(b);
    ridge_print_result(d->id, st, 0, 0, &m.check);
}

/* launch + synchronize, one per sample, host clock */
static int launch_sync(ridge_bench *b)
{
    int warm = b->quick ? 5 : 100, reps = b->quick ? 50 : 2000, i, n = 0;
    double *t = (double *)malloc((size_t)reps * sizeof *t), t0, tstart;
    ridge_stats st;
    launch_desc d;
    int rc = -1;
    if (!t)
        RIDGE_FAIL(b, "out of host memory");
    for (i = 0; i < warm; ++i) {
        launch_empty<<<1, 32, 0, b->stream>>>();
        RIDGE_LAUNCH_TRY(b, "launch_empty");
        RIDGE_CUDA_TRY(b, cudaStreamSynchronize(b->stream));
    }
    tstart = ridge_now_s();
    for (i = 0; i < reps; ++i) {
        t0 = ridge_now_s();
        launch_empty<<<1, 32, 0, b->stream>>>();
        RIDGE_LAUNCH_TRY(b, "launch_empty");
        RIDGE_CUDA_TRY(b, cudaStreamSynchronize(b->stream));
        t[n++] = ridge_now_s() - t0;
        if (n >= 20 && ridge_now_s() - tstart > (b->quick ? 0.05 : 1.0))
            break;
    }
    ridge_stats_compute(t, n, &st);
    memset(&d, 0, sizeof d);
    d.id = "launch/empty_sync";
    d.timer = "host_clock";
    d.runtime = "eager";
    d.measures = "launch + cudaStreamSynchronize round trip";
    d.sync = "each";
    d.timed = "round_trip";
    d.launches = 1;
    d.batch = 1;
    d.grid = 1;
    d.block = 32;
    launch_emit(b, &d, &st, 1, warm);
    rc = 0;
fail:
    free(t);
    return rc;
}

/* N async launches per sample: host issue time, wall time, GPU time */
static int launch_async(ridge_bench *b, unsigned grid, unsigned block,
                        int full_grid)
{
    int nlaunch = b->quick ? 20 : 1000, reps = b->quick ? 3 : 20, i, r;
    double *issue = NULL, *wall = NULL, *gpu = NULL, t0, t1;
    cudaEvent_t e0 = NULL, e1 = NULL;
    ridge_stats st;
    launch_desc d;
    float ms = 0.0f;
    int rc = -1;

    issue = (double *)malloc((size_t)reps * sizeof *issue);
    wall = (double *)malloc((size_t)reps * sizeof *wall);
    gpu = (double *)malloc((size_t)reps * sizeof *gpu);
    if (!issue || !wall || !gpu)
        RIDGE_FAIL(b, "out of host memory");
    RIDGE_CUDA_TRY(b, cudaEventCreate(&e0));
    RIDGE_CUDA_TRY(b, cudaEventCreate(&e1));
    for (i = 0; i < nlaunch; ++i) { /* warm-up batch */
        launch_empty<<<grid, block, 0, b->stream>>>();
        RIDGE_LAUNCH_TRY(b, "launch_empty");
    }
    RIDGE_CUDA_TRY(b, cudaStreamSynchronize(b->stream));
    for (r = 0; r < reps; ++r) {
        t0 = ridge_now_s();
        RIDGE_CUDA_TRY(b, cudaEventRecord(e0, b->stream));
        for (i = 0; i < nlaunch; ++i)
            launch_empty<<<grid, block, 0, b->stream>>>();
        RIDGE_LAUNCH_TRY(b, "launch_empty");
        t1 = ridge_now_s();
        RIDGE_CUDA_TRY(b, cudaEventRecord(e1, b->stream));
        RIDGE_CUDA_TRY(b, cudaStreamSynchronize(b->stream));
        wall[r] = (ridge_now_s() - t0) / nlaunch;
        issue[r] = (t1 - t0) / nlaunch;
        RIDGE_CUDA_TRY(b, cudaEventElapsedTime(&ms, e0, e1));
        gpu[r] = (double)ms * 1e-3 / nlaunch;
    }

    memset(&d, 0, sizeof d);
    d.runtime = "eager";
    d.sync = "end";
    d.timed = "back_to_back";
    d.launches = 1;
    d.batch = nlaunch;
    d.grid = grid;
    d.block = block;
    if (!full_grid) {
        ridge_stats_compute(issue, reps, &st);
        d.id = "launch/empty_async_issue";
        d.timed = "issue";
        d.timer = "host_clock";
        d.measures = "host time of one asynchronous launch call";
        launch_emit(b, &d, &st, nlaunch, nlaunch);
        ridge_stats_compute(wall, reps, &st);
        d.id = "launch/empty_async_wall";
        d.timed = "back_to_back";
        d.measures = "N launches then one synchronize, wall time per launch";
        launch_emit(b, &d, &st, nlaunch, nlaunch);
    }
    ridge_stats_compute(gpu, reps, &st);
    d.id = full_grid ? "launch/full_grid_async_gpu" : "launch/empty_async_gpu";
    d.timer = "cuda_event";
    d.measures = "N back-to-back launches, GPU time per launch";
    launch_emit(b, &d, &st, nlaunch, nlaunch);
    rc = 0;
fail:
    ridge_events_destroy(e0, e1);
    free(issue);
    free(wall);
    free(gpu);
    return rc;
}

typedef struct {
    cudaGraphExec_t exec;
} graph_args;

static int graph_enqueue(ridge_bench *b, void *arg, cudaStream_t s)
{
    graph_args *g = (graph_args *)arg;
    RIDGE_CUDA_TRY(b, cudaGraphLaunch(g->exec, s));
    return 0;
fail:
    return -1;
}

/* A graph of `nodes` empty kernels: replay+sync (host) and replays (events) */
static int launch_graph(ridge_bench *b, int nodes)
{
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    int capturing = 0, i, n = 0, rc = -1;
    int warm = b->quick ? 2 : 10, reps = b->quick ? 10 : 200;
    double *t = NULL, t0, tstart;
    ridge_stats st;
    ridge_timing tm = ridge_timing_default(b);
    launch_desc d;
    graph_args ga;
    int inner = 1;
    char id_sync[64], id_replay[64];

    t = (double *)malloc((size_t)reps * sizeof *t);
    if (!t)
        RIDGE_FAIL(b, "out of host memory");
    RIDGE_CUDA_TRY(b, cudaStreamBeginCapture(b->stream,
                                             cudaStreamCaptureModeThreadLocal));
    capturing = 1;
    for (i = 0; i < nodes; ++i)
        launch_empty<<<1, 32, 0, b->stream>>>();
    RIDGE_LAUNCH_TRY(b, "launch_empty (capture)");
    capturing = 0;
    RIDGE_CUDA_TRY(b, cudaStreamEndCapture(b->stream, &graph));
    RIDGE_CUDA_TRY(b, cudaGraphInstantiate(&exec, graph, 0));
    RIDGE_CUDA_TRY(b, cudaGraphUpload(exec, b->stream));

    for (i = 0; i < warm; ++i) {
        RIDGE_CUDA_TRY(b, cudaGraphLaunch(exec, b->stream));
        RIDGE_CUDA_TRY(b, cudaStreamSynchronize(b->stream));
    }
    tstart = ridge_now_s();
    for (i = 0; i < reps; ++i) {
        t0 = ridge_now_s();
        RIDGE_CUDA_TRY(b, cudaGraphLaunch(exec, b->stream));
        RIDGE_CUDA_TRY(b, cudaStreamSynchronize(b->stream));
        t[n++] = ridge_now_s() - t0;
        if (n >= 10 && ridge_now_s() - tstart > (b->quick ? 0.05 : 0.5))
            break;
    }
    ridge_stats_compute(t, n, &st);
    snprintf(id_sync, sizeof id_sync, "launch/graph_sync/nodes%d", nodes);
    snprintf(id_replay, sizeof id_replay, "launch/graph_replay/nodes%d",
             nodes);
    memset(&d, 0, sizeof d);
    d.id = id_sync;
    d.timer = "host_clock";
    d.runtime = "graph";
    d.measures = "cudaGraphLaunch + cudaStreamSynchronize per replay";
    d.sync = "each";
    d.timed = "round_trip";
    d.launches = nodes;
    d.batch = 1;
    d.grid = 1;
    d.block = 32;
    launch_emit(b, &d, &st, 1, warm);

    ga.exec = exec;
    tm.max_time_s = b->quick ? 0.05 : 0.3;
    tm.max_inner = b->quick ? 5 : 100;
    if (ridge_time_events(b, graph_enqueue, &ga, &tm, &st, &inner))
        goto fail;
    d.id = id_replay;
    d.timer = "cuda_event";
    d.measures = "back-to-back graph replays, GPU time per replay";
    d.sync = "end";
    d.timed = "back_to_back";
    d.batch = inner;
    launch_emit(b, &d, &st, inner, tm.warmup);
    rc = 0;
fail:
    ridge_graph_cleanup(b, capturing, exec, graph);
    free(t);
    return rc;
}

int ridge_group_launch(ridge_bench *b)
{
    static const int nodes[] = {1, 10, 100, 1000};
    int rc = 0, i, per_sm;
    if (launch_sync(b))
        rc = -1;
    if (!b->fatal && launch_async(b, 1, 32, 0))
        rc = -1;
    per_sm = ridge_blocks_per_sm((const void *)launch_empty, 256);
    if (!b->fatal &&
        launch_async(b, (unsigned)(b->sm_count * per_sm), 256, 1))
        rc = -1;
    for (i = 0; i < 4 && !b->fatal; ++i) {
        char id[64];
        if (b->quick && nodes[i] > 100)
            continue;
        if (ridge_bench_time_left(b) <= 0) {
            snprintf(id, sizeof id, "launch/graph_*/nodes%d", nodes[i]);
            ridge_bench_skip(b, id, "group time budget exhausted");
            continue;
        }
        if (launch_graph(b, nodes[i]))
            rc = -1;
    }
    return rc;
}
