/*
 * bench_copy.cu - host<->device copies over PCIe/NVLink-C2C.
 *
 * cudaMemcpyAsync host-to-device and device-to-host, from pinned
 * (cudaMallocHost) and pageable (malloc, pages touched first) host memory,
 * at 4 KiB .. 256 MiB, timed with CUDA events on the benchmark stream.
 *
 *   bytes = size (each byte crosses the link once), FLOPs = 0
 *
 * Check: the bytes that arrive equal the bytes sent (memcmp after a round
 * trip through the device).
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
    cudaMemcpyKind kind;
} copy_args;

static int copy_enqueue(ridge_bench *b, void *arg, cudaStream_t s)
{
    copy_args *c = (copy_args *)arg;
    RIDGE_CUDA_TRY(b, cudaMemcpyAsync(c->dst, c->src, c->bytes, c->kind, s));
    return 0;
fail:
    return -1;
}

static void copy_emit(ridge_bench *b, const char *id, int h2d, int pinned,
                      size_t bytes, const ridge_stats *st, int inner,
                      int warmup, const ridge_check *chk)
{
    ridge_meas m;
    ridge_json *j;
    ridge_meas_init(&m, id, st, inner, warmup, 0, (long long)bytes);
    m.group = h2d ? "copy_h2d" : "copy_d2h";
    m.check = *chk;
    j = ridge_meas_begin(b, &m);
    ridge_op_copy(j, (long long)bytes, h2d ? "h2d" : "d2h");
    ridge_json_str(j, "host_memory", pinned ? "pinned" : "pageable");
    ridge_json_int(j, "size_bytes", (long long)bytes);
    ridge_json_str(j, "api", "cudaMemcpyAsync");
    ridge_json_str(j, "runtime", "eager");
    ridge_meas_end(b);
    ridge_print_result(id, st, 0, (long long)bytes, chk);
}

int ridge_group_copy(ridge_bench *b)
{
    static const size_t full[] = {4096, 65536, 1 << 20, 16 << 20, 256 << 20};
    static const size_t quick[] = {4096, 1 << 20};
    const size_t *sizes = b->quick ? quick : full;
    int nsizes = b->quick ? 2 : 5, si, pinned, dir, rc = -1;
    size_t maxb = sizes[nsizes - 1], i;
    unsigned char *ref = NULL, *chkbuf = NULL, *pageable = NULL,
                  *pinnedbuf = NULL;
    void *dev = NULL;

    ref = (unsigned char *)malloc(maxb);
    chkbuf = (unsigned char *)malloc(maxb);
    pageable = (unsigned char *)malloc(maxb);
    if (!ref || !chkbuf || !pageable)
        RIDGE_FAIL(b, "out of host memory");
    for (i = 0; i < maxb; ++i)
        ref[i] = (unsigned char)((i * 131u + 7u) ^ (i >> 12));
    memset(pageable, 0, maxb); /* touch every page before timing */
    memset(chkbuf, 0, maxb);
    RIDGE_CUDA_TRY(b, cudaMallocHost((void **)&pinnedbuf, maxb));
    memset(pinnedbuf, 0, maxb);
    RIDGE_CUDA_TRY(b, cudaMalloc(&dev, maxb));

    for (pinned = 1; pinned >= 0; --pinned) {
        unsigned char *hb = pinned ? pinnedbuf : pageable;
        for (si = 0; si < nsizes; ++si) {
            size_t bytes = sizes[si];
            char sz[32];
            ridge_format_bytes(sz, sizeof sz, bytes);
            for (dir = 0; dir < 2; ++dir) { /* 0: h2d, 1: d2h */
                copy_args c;
                ridge_timing t = ridge_timing_default(b);
                ridge_stats st;
                ridge_check chk;
                int inner = 1, bad;
                char id[160];
                snprintf(id, sizeof id, "%s/%s/%s",
                         dir == 0 ? "copy_h2d" : "copy_d2h",
                         pinned ? "pinned" : "pageable", sz);
                if (ridge_bench_time_left(b) <= 0) {
                    ridge_bench_skip(b, id, "group time budget exhausted");
                    continue;
                }
                t.warmup = 2;
                t.max_reps = b->quick ? 3 : 15;
                t.max_time_s = b->quick ? 0.02 : 0.3;
                t.target_sample_s = b->quick ? 20e-6 : 100e-6;
                t.max_inner = b->quick ? 10 : 100;
                if (dir == 0) {
                    memcpy(hb, ref, bytes);
                    c.dst = dev;
                    c.src = hb;
                    c.kind = cudaMemcpyHostToDevice;
                } else {
                    /* device holds ref from the h2d step; clear the target */
                    memset(hb, 0, bytes);
                    c.dst = hb;
                    c.src = dev;
                    c.kind = cudaMemcpyDeviceToHost;
                }
                c.bytes = bytes;
                if (ridge_time_events(b, copy_enqueue, &c, &t, &st, &inner))
                    goto fail;
                if (dir == 0) {
                    RIDGE_CUDA_TRY(b, cudaMemcpy(chkbuf, dev, bytes,
                                                 cudaMemcpyDeviceToHost));
                    bad = memcmp(chkbuf, ref, bytes) != 0;
                } else {
                    bad = memcmp(hb, ref, bytes) != 0;
                }
                memset(&chk, 0, sizeof chk);
                chk.metric = "bytes_differ";
                chk.value = bad;
                chk.tolerance = 0;
                chk.status = bad ? RIDGE_CHECK_FAILED : RIDGE_CHECK_PASSED;
                copy_emit(b, id, dir == 0, pinned, bytes, &st, inner,
                          t.warmup, &chk);
            }
        }
    }
    rc = 0;
fail:
    cudaFree(dev);
    if (pinnedbuf)
        cudaFreeHost(pinnedbuf);
    free(ref);
    free(chkbuf);
    free(pageable);
    return rc;
}
