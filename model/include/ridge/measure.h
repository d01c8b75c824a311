/* ridge — measurement files (docs/validation.md): reading them, mapping each measurement to the ridge
 * prediction of the same thing, and predicting it on a GPU. Shared by `validate` and `calibrate`.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_MEASURE_H
#define RIDGE_MEASURE_H

#include <stddef.h>

#include "ridge/error.h"
#include "ridge/gpu.h"
#include "ridge/parallel.h"
#include "ridge/schedule.h"
#include "ridge/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Distinct skip reasons a set counts; the last slot counts every reason beyond the others
 * (RIDGE_MEAS_SKIP_OTHER), so no skipped measurement goes uncounted. */
#define RIDGE_MEAS_MAX_REASONS 48
/* Bytes of a skip reason's first example (ridge_meas_set.detail), its terminator included. */
#define RIDGE_MEAS_DETAIL_MAX 256

typedef enum { RIDGE_MEAS_KERNEL = 0, RIDGE_MEAS_MODEL } ridge_meas_type;

/* How a kernel measurement was timed, hence what ridge predicts for it:
 * STEADY: calls issued back to back (CUDA events or N launches then one synchronize): per call,
 *         max(GPU time, host issue time);
 * ROUNDTRIP: one call then a synchronize each time (config.sync "each"): issue + GPU time;
 * ISSUE: the host time of the launch call alone (ids ending in "_issue"). */
typedef enum { RIDGE_MEAS_STEADY = 0, RIDGE_MEAS_ROUNDTRIP, RIDGE_MEAS_ISSUE, RIDGE_MEAS_GPU_TIME, RIDGE_MEAS_PER_CALL_EVENTS } ridge_meas_form;

/* Model measurements: what is compared. */
typedef enum { RIDGE_MEAS_LATENCY = 0, RIDGE_MEAS_THROUGHPUT, RIDGE_MEAS_GENERATION, RIDGE_MEAS_FLOP_RATE, RIDGE_MEAS_BYTE_RATE } ridge_meas_kind;

/* Which latency statistic a serving-queue record gives (config.statistic). */
typedef enum { RIDGE_MEAS_Q_MEAN = 0, RIDGE_MEAS_Q_P50, RIDGE_MEAS_Q_P90, RIDGE_MEAS_Q_P99 } ridge_meas_queue_stat;

/* Longest measurement id, in bytes (a longer one is skipped: "id: longer than 95 bytes"). */
#define RIDGE_MEAS_ID_MAX 95

typedef struct {
    char id[RIDGE_MEAS_ID_MAX + 1], group[32], gpu[48], workload[48], desc[96], unit[24], kind_name[16];
    char family[40]; /* kernel family (docs/validation.md, "Kernel families"), "model" for models */
    double measured;  /* seconds per call, or the published value in `unit` */
    double predicted; /* on the GPU ridge_meas_collect resolved for it (same unit) */
    ridge_meas_type type;
    /* RIDGE_MEAS_KERNEL: one op, or the ops of `graph` run one after another (config.ops) */
    ridge_op op;
    int framework; /* timed from PyTorch (config.framework "pytorch"): framework_op_s per op */
    ridge_runtime rt;
    ridge_meas_form form;
    double graph_nodes; /* kernels per graph replay (graph runtime), >= 1 */
    double reps; /* calls in the timed loop (the record's reps), 0 when not stated */
    /* RIDGE_MEAS_MODEL: the operator graphs, built once (they do not depend on the GPU) */
    ridge_oplist graph;  /* the step; for a generation, the prefill */
    ridge_oplist decode; /* generation only: one decode step */
    double items;        /* items (images, sequences, tokens) per step, for throughput */
    ridge_meas_kind kind;
    int generate;  /* prefill + output x decode */
    int prefill;   /* the step (graph) is a prefill: it starts a request (the profile's request_s) */
    double batch;  /* sequences per step */
    int inference; /* the step is not training: it pays the profile's sequence_s per sequence */
    double output; /* generated tokens */
    ridge_host_profile host;  /* RIDGE_MEAS_MODEL: config.host, else torch-eager (docs/model.md §7) */
    ridge_runtime decode_rt;  /* generation: the decode step's runtime under that profile */
    double calls;  /* a model step timed back to back (config.timed "back_to_back"): the calls
                    * between the two events (config.calls); 0 for one call */
    /* A multi-GPU run (config.cluster): predicted with ridge_parallel_predict on the cluster
     * with the item's GPU; owned by the item. */
    ridge_model *par_model;
    ridge_cluster *par_cluster;
    ridge_parallel_config par;
    ridge_run_config par_run;   /* a generation's prefill; par_decode its decode step */
    ridge_run_config par_decode;
    int per_gpu; /* a multi-GPU generation's figure is per GPU (config.per_gpu), else per replica */
    /* An offline serving benchmark (config.kind "serving"; docs/validation.md, "Serving
     * benchmarks"): `requests` requests of par_run.prompt + output tokens queued at 0 s on one
     * replica, continuous batching of at most max_batch running (ridge serve --offline): output
     * tokens/s of the replica. The model is par_model; the replica is par.tp GPUs of one node of
     * par_cluster (NULL: the item's GPU alone). */
    int serving;
    double requests;
    int max_batch;
    double max_tokens; /* tokens per iteration, prompts chunked (config.max_tokens; 0 = no limit) */
    /* A serving queue (config.kind "queue"; docs/validation.md, "Serving queues"): Poisson
     * arrivals at rate_per_s into one replica that batches up to max_batch waiting requests,
     * waiting at most timeout_s for a batch to fill (ridge serve --rate --max-batch); the
     * request latency's `statistic` (mean, p50, p90, p99) in seconds. The model is par_model,
     * one pass of par_run per batch. */
    int queue;
    double rate_per_s, timeout_s;
    ridge_meas_queue_stat statistic;
} ridge_meas_item;

typedef struct {
    ridge_meas_item *v;
    int n, cap;
    const char *reason[RIDGE_MEAS_MAX_REASONS];
    int reason_count[RIDGE_MEAS_MAX_REASONS];
    int nreasons;
    /* For each reason, the first skipped measurement whose cause an error message names
     * ("ID: message": the model document's bad key, the op the GPU lacks, the layout check that
     * failed); "" when none did. */
    char detail[RIDGE_MEAS_MAX_REASONS][RIDGE_MEAS_DETAIL_MAX];
} ridge_meas_set;

/* A measurement document, read and checked (kind "ridge-measurements", schema_version 1, only
 * the top-level keys of docs/validation.md, a provenance object if any, a measurements array);
 * opaque: ridge_meas_collect reads it. */
typedef struct ridge_meas_doc ridge_meas_doc;

/* Parse a measurement document from memory (origin names it in errors: "ORIGIN: $.kind: ...").
 * Returns RIDGE_OK and *out (ridge_meas_doc_free), or an error: RIDGE_EPARSE when it is not a
 * JSON object, RIDGE_EINVAL when it is not a measurement file (wrong kind or schema_version, an
 * unknown top-level key, no measurements array). What is wrong with one measurement is not an
 * error here: ridge_meas_collect skips that measurement with a reason. */
int ridge_meas_doc_parse(const char *text, size_t len, const char *origin, ridge_meas_doc **out, ridge_err *err);
/* The same from a file (ridge_file_read: at most RIDGE_FILE_MAX_BYTES; RIDGE_EIO when unreadable). */
int ridge_meas_doc_load(const char *path, ridge_meas_doc **out, ridge_err *err);
void ridge_meas_doc_free(ridge_meas_doc *doc);
/* How many entries its measurements array has (mapped or not). */
size_t ridge_meas_doc_count(const ridge_meas_doc *doc);

/* Most measurement files one command reads. */
#define RIDGE_MEAS_MAX_FILES 64

/* Read the n (at most RIDGE_MEAS_MAX_FILES) measurement files, all before any is collected, then
 * ridge_meas_collect each into s with gpu_opt and gpu_file. Returns the status of the first file
 * that fails to load, its message in err (s untouched); RIDGE_OK otherwise. */
int ridge_meas_collect_files(const char *const *paths, int n, const char *gpu_opt, const ridge_gpu *gpu_file,
                             ridge_meas_set *s, ridge_err *err);

/* A progress callback: done of total units so far. Called at most every RIDGE_PROGRESS_EVERY
 * units and once with done == total at the end; done never exceeds total. */
typedef void (*ridge_progress_fn)(void *arg, size_t done, size_t total);
#define RIDGE_PROGRESS_EVERY 64

/* ridge_meas_collect_files, calling progress (or NULL) with the measurements collected of all the
 * files' (ridge_meas_doc_count of each), for a command's progress line. */
int ridge_meas_collect_files_progress(const char *const *paths, int n, const char *gpu_opt, const ridge_gpu *gpu_file,
                                      ridge_meas_set *s, ridge_progress_fn progress, void *arg, ridge_err *err);

/* Map every measurement of a document to an item appended to s and predict it on its GPU;
 * measurements that cannot be mapped or predicted are counted by reason, among them a missing
 * required field ("no id", "no time_s.median") and a field present with the wrong type or out of
 * its range ("config.batch: not an integer in [1, 10000000]"); an optional field that is absent
 * (or null) keeps its default. The GPU of a measurement: the catalogue id gpu_opt, else
 * config.gpu, else provenance.gpu_name. gpu_file (a loaded GPU, e.g. a calibrated file, or NULL)
 * replaces the catalogue entry for the measurements of its id, and is used for every measurement
 * when its id is not a catalogue id. Used: measurements whose check passed (checked: true) or that
 * have nothing to check (check.status "none": launch timings, published figures); a failed check
 * is skipped as "unchecked". */
void ridge_meas_collect(const ridge_meas_doc *doc, const char *gpu_opt, const ridge_gpu *gpu_file, ridge_meas_set *s);

/* Predict one item on g (normally the GPU the item names, or a calibrated copy of it).
 * Returns 0 and *pred (same unit as measured) or a static reason. Never prints. */
const char *ridge_meas_predict(const ridge_meas_item *it, const ridge_gpu *g, double *pred);
/* The same, with the failure's message in detail (when not NULL): an op or precision the GPU lacks
 * is the reason "precision not supported by the GPU". */
const char *ridge_meas_predict_err(const ridge_meas_item *it, const ridge_gpu *g, double *pred, ridge_err *detail);

/* Skip reasons that depend on how the caller asked (ridge_meas_collect's gpu_opt,
 * ridge_meas_filter's arguments), worded by those arguments: a command names its own flags for
 * them. The other reasons name the measurement's fields ("no op or workload in config"). */
#define RIDGE_MEAS_SKIP_NO_GPU "GPU not mapped (no gpu_opt, config.gpu or provenance.gpu_name)"
#define RIDGE_MEAS_SKIP_NOT_KERNEL "not a kernel (only \"kernels\")"
#define RIDGE_MEAS_SKIP_NOT_MODEL "not a model (only \"models\")"
#define RIDGE_MEAS_SKIP_BELOW_MIN_TIME "measured below min_time_s"
/* The reason that counts the skips beyond RIDGE_MEAS_MAX_REASONS - 1 distinct reasons. */
#define RIDGE_MEAS_SKIP_OTHER "other reasons"

/* Count a skipped measurement by reason (reason must be static). */
void ridge_meas_skip(ridge_meas_set *s, const char *reason);
/* The same, keeping "ID: detail" as the reason's example when it is the first with a detail
 * (detail NULL or "": none). */
void ridge_meas_skip_detail(ridge_meas_set *s, const char *reason, const char *id, const char *detail);
/* Drop the items measured in seconds below min_time_s (0: none) and, with only "kernels" or
 * "models" (NULL: all), the items of the other type; each counted as skipped by reason. */
void ridge_meas_filter(ridge_meas_set *s, double min_time_s, const char *only);
void ridge_meas_set_free(ridge_meas_set *s);

#ifdef __cplusplus
}
#endif
#endif
