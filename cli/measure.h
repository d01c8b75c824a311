/* Measurement files (docs/validation.md): reading them, mapping each measurement to the ridge
 * prediction of the same thing, and predicting it on a GPU. Shared by `validate` and `calibrate`.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#ifndef RIDGE_CLI_MEASURE_H
#define RIDGE_CLI_MEASURE_H

#include "cli.h"
#include "ridge/parallel.h"
#include "ridge/schedule.h"
#include "ridge/workload.h"

#define MEAS_MAX_REASONS 16

typedef enum { MEAS_KERNEL = 0, MEAS_MODEL } meas_type;

/* How a kernel measurement was timed, hence what ridge predicts for it:
 * STEADY: calls issued back to back (CUDA events or N launches then one synchronize): per call,
 *         max(GPU time, host issue time);
 * ROUNDTRIP: one call then a synchronize each time (config.sync "each"): issue + GPU time;
 * ISSUE: the host time of the launch call alone (ids ending in "_issue"). */
typedef enum { MEAS_STEADY = 0, MEAS_ROUNDTRIP, MEAS_ISSUE, MEAS_GPU_TIME, MEAS_PER_CALL_EVENTS } meas_form;

/* Model measurements: what is compared. */
typedef enum { MEAS_LATENCY = 0, MEAS_THROUGHPUT, MEAS_GENERATION, MEAS_FLOP_RATE, MEAS_BYTE_RATE } meas_kind;

typedef struct {
    char id[96], group[32], gpu[48], workload[48], desc[96], unit[24], kind_name[16];
    char family[40]; /* kernel family (docs/validation.md, "Kernel families"), "model" for models */
    double measured;  /* seconds per call, or the published value in `unit` */
    double predicted; /* on the GPU meas_collect resolved for it (same unit) */
    meas_type type;
    /* MEAS_KERNEL: one op, or the ops of `graph` run one after another (config.ops) */
    ridge_op op;
    int framework; /* timed from PyTorch (config.framework "pytorch"): framework_op_s per op */
    ridge_runtime rt;
    meas_form form;
    double graph_nodes; /* kernels per graph replay (graph runtime), >= 1 */
    double reps; /* calls in the timed loop (the record's reps), 0 when not stated */
    /* MEAS_MODEL: the operator graphs, built once (they do not depend on the GPU) */
    ridge_oplist graph;  /* the step; for a generation, the prefill */
    ridge_oplist decode; /* generation only: one decode step */
    double items;        /* items (images, sequences, tokens) per step, for throughput */
    meas_kind kind;
    int generate;  /* prefill + output x decode */
    int prefill;   /* the step (graph) is a prefill: it starts a request (the profile's request_s) */
    double batch;  /* sequences per step (generation) */
    double output; /* generated tokens */
    ridge_host_profile host;  /* MEAS_MODEL: config.host, else torch-eager (docs/model.md §7) */
    ridge_runtime decode_rt;  /* generation: the decode step's runtime under that profile */
    /* A multi-GPU run (config.cluster): predicted with ridge_parallel_predict on the cluster
     * with the item's GPU; owned by the item. */
    ridge_model *par_model;
    ridge_cluster *par_cluster;
    ridge_parallel_config par;
    ridge_run_config par_run;
} meas_item;

typedef struct {
    meas_item *v;
    int n, cap;
    const char *reason[MEAS_MAX_REASONS];
    int reason_count[MEAS_MAX_REASONS];
    int nreasons;
} meas_set;

/* Read and check one measurement file (kind "ridge-measurements" with a measurements array).
 * Prints the error and returns an exit code. */
int meas_load_file(const char *path, cJSON **out);

/* Most measurement files one command reads. */
#define MEAS_MAX_FILES 64

/* Read the n (at most MEAS_MAX_FILES) measurement files, all before any is collected, then
 * meas_collect each into s with gpu_opt and gpu_file. Prints the error of the first file that
 * fails to load and returns its exit code (s untouched); CLI_EXIT_OK otherwise. */
int meas_collect_files(char *const *paths, int n, const char *gpu_opt, const ridge_gpu *gpu_file, meas_set *s);

/* Map every measurement of a document to an item appended to s (predictions are not made yet);
 * measurements that cannot be mapped are counted by reason. The GPU of a measurement: the
 * catalogue id gpu_opt, else config.gpu, else provenance.gpu_name. gpu_file (a loaded GPU, e.g. a
 * calibrated file, or NULL) replaces the catalogue entry for the measurements of its id, and is
 * used for every measurement when its id is not a catalogue id. Used: measurements whose check passed
 * (checked: true) or that have nothing to check (check.status "none": launch timings, published
 * figures); a failed check is skipped as "unchecked". */
void meas_collect(const cJSON *root, const char *gpu_opt, const ridge_gpu *gpu_file, meas_set *s);

/* Predict one item on g (normally the GPU the item names, or a calibrated copy of it).
 * Returns 0 and *pred (same unit as measured) or a static reason. Never prints. */
const char *meas_predict(const meas_item *it, const ridge_gpu *g, double *pred);

/* Count a skipped measurement by reason (reason must be static). */
void meas_skip(meas_set *s, const char *reason);
/* Drop the items measured in seconds below min_time_s (0: none) and, with only "kernels" or
 * "models" (NULL: all), the items of the other type; each counted as skipped by reason. */
void meas_filter(meas_set *s, double min_time_s, const char *only);
void meas_set_free(meas_set *s);

#endif
