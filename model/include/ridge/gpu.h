/* ridge — GPU descriptions: loading, checking and derived figures.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A ridge_gpu is a plain value: load it once (from the built-in catalogue or a JSON file, see
 * docs/gpu-schema.md), then pass `const ridge_gpu *` around. All quantities are SI and carry
 * their unit in the field name. Absent figures are 0 (peaks, optional clocks, prices).
 * It holds the numbers the model reads and is copied often (plan candidates, MIG slices, the
 * no-split-K and sustained-load copies, cluster costs), so the file's provenance strings (notes
 * and per-field sources, about 14 KB) live apart, in a ridge_gpu_provenance that only the loaders
 * ending in _prov fill. */
#ifndef RIDGE_GPU_H
#define RIDGE_GPU_H

#include <stddef.h>

#include "ridge/efficiency.h"
#include "ridge/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RIDGE_GPU_MAX_MIG 8
#define RIDGE_GPU_MAX_SOURCES 48
/* A count or capability the source says the part lacks (rt_cores, ecc), as opposed to 0, unknown. */
#define RIDGE_GPU_NONE (-1)

typedef struct {
    char profile[16];          /* "3g.40gb" */
    int compute_slices;        /* of total_compute_slices */
    int memory_slices;         /* of total_memory_slices */
    int sm_count;
    int max_instances;
    double memory_bytes;
} ridge_mig_profile;

typedef struct {
    char key[64];
    char value[224];
} ridge_gpu_source;

typedef struct {
    char id[48];
    char name[96];
    char vendor[16];
    char architecture[24];
    char chip[24];
    char compute_capability[16];
    char form_factor[24];

    int sm_count;
    int fp32_lanes;
    int tensor_cores;
    double base_clock_hz; /* 0 = unknown */
    double boost_clock_hz;
    double tensor_clock_hz;

    double peak_flops_per_s[RIDGE_PEAK_COUNT]; /* 0 = the part has no such path */

    char memory_type[16];
    double memory_bytes;
    double memory_bw_bytes_per_s;
    int memory_bus_bits; /* 0 = unknown */
    double l2_bytes;

    double smem_per_sm_bytes;
    int max_warps_per_sm;
    int max_blocks_per_sm; /* 0 = unknown */
    int registers_per_sm;  /* 0 = unknown */

    int pcie_generation;
    int pcie_lanes;
    int nvlink_links;                   /* 0 = none */
    double nvlink_bw_bytes_per_s;       /* total over links, one direction */
    char nvlink_kind[12];               /* "switch", "bridge", "fabric" or "" */

    double tdp_w;
    /* Clock the board's power limit lets dense 16- and 8-bit tensor-core GEMMs sustain once the
     * load has lasted RIDGE_SUSTAINED_LOAD_S (docs/model.md §2, "Power-limited sustained tensor
     * clock"); 0 = not known, the quoted tensor_clock_hz holds. */
    double sustained_tensor_clock_hz;

    double price_usd_per_hour; /* 0 = unknown */
    double price_usd_list;     /* 0 = unknown */
    char price_date[16];
    char price_source[160];
    char price_kind[12];            /* of price_usd_per_hour: "on_demand", "spot" or "" (not given) */
    double price_spot_usd_per_hour; /* 0 = unknown; same source and date */
    /* A MIG slice is priced at its share of the parent's prices: mig_compute_slices of
     * mig_compute_total (docs/gpu-schema.md, "MIG slices"); both 0 for a whole GPU. */
    int mig_compute_slices, mig_compute_total;

    /* Die and board facts (docs/gpu-schema.md, "die"): for display only, the model reads none.
     * "" / 0 = unknown (no source). */
    char process[24];        /* "7 nm (N7)" */
    char foundry[16];        /* "TSMC" */
    double die_area_mm2;
    double transistors;      /* count, per die; a multi-die part gives the sum */
    int rt_cores;            /* 0 = unknown, RIDGE_GPU_NONE = the part has none */
    int ecc;                 /* 0 = unknown, 1 = ECC memory, RIDGE_GPU_NONE = none */

    int mig_count;
    int mig_total_compute_slices;
    int mig_total_memory_slices;
    ridge_mig_profile mig[RIDGE_GPU_MAX_MIG];
    char mig_of[48]; /* when this value is a MIG slice: the parent id; "" otherwise */

    ridge_efficiency eff;
    /* 1: GEMMs are not split over K. Set only on the copy ridge_schedule_ops predicts its pass
     * without split-K on (docs/model.md §7); 0 in every GPU loaded or sliced. */
    int no_split_k;
    /* 1: the kernels run under sustained load (a benchmark loop of one kernel lasting at least
     * RIDGE_SUSTAINED_LOAD_S), so sustained_tensor_clock_hz applies. Set only on a copy by the
     * caller (ridge validate); 0 in every GPU loaded or sliced. */
    int sustained_load;

} ridge_gpu;

/* Most `device_names` a GPU file lists, and the longest one (bytes, with the NUL). */
#define RIDGE_GPU_MAX_DEVICE_NAMES 8
#define RIDGE_GPU_DEVICE_NAME_MAX 64

/* Where a GPU's figures come from: the file's `notes`, `device_names` and `sources`
 * (docs/gpu-schema.md), in file order. A MIG slice has its parent's provenance. */
typedef struct {
    char notes[640];
    int source_count;
    ridge_gpu_source sources[RIDGE_GPU_MAX_SOURCES];
    /* The names the CUDA driver reports for this part (torch.cuda.get_device_name, nvidia-smi
     * --query-gpu=name), by which measurement files are mapped to it: "NVIDIA H200". */
    int device_name_count;
    char device_names[RIDGE_GPU_MAX_DEVICE_NAMES][RIDGE_GPU_DEVICE_NAME_MAX];
} ridge_gpu_provenance;

/* Continuous load after which the board power limit sets the clock (docs/model.md §2): between
 * the 58.5 ms loop of h200-2026-11-29/a/bf16_6144x6144x6144 (still 1965 MHz at its end) and the
 * 79 ms loop of …/a/fp8_8192x8192x8192 (1560 MHz). */
#define RIDGE_SUSTAINED_LOAD_S 0.07

/* Parse and check a GPU description held in memory. `origin` names it in errors (a path or
 * "builtin:a40"). On failure *gpu is unspecified and err holds one line:
 * "FILE: $.json.path: problem". */
int ridge_gpu_parse(const char *json, size_t len, const char *origin, ridge_gpu *gpu, ridge_err *err);
/* Read and parse a file (ridge_file_load). RIDGE_EIO if it cannot be read. */
int ridge_gpu_load_file(const char *path, ridge_gpu *gpu, ridge_err *err);
/* The same three loaders, also filling *prov with the notes and sources (checked the same way,
 * and giving the same errors, as when they are not kept). prov may be NULL. */
int ridge_gpu_parse_prov(const char *json, size_t len, const char *origin, ridge_gpu *gpu,
                         ridge_gpu_provenance *prov, ridge_err *err);
int ridge_gpu_load_file_prov(const char *path, ridge_gpu *gpu, ridge_gpu_provenance *prov, ridge_err *err);

/* The largest working set the kernel model's cache rule serves entirely from L2 (docs/model.md
 * §1, "Cache levels"): RIDGE_L2_FULL_HIT_SHARE_SINGLE (0.95) of the L2 on a die with one L2
 * partition (the chip: TU1xx, GA102-GA107, AD102-AD107), RIDGE_L2_FULL_HIT_SHARE (0.5) otherwise
 * (GA100, GH100: two partitions, each caching for its own SMs, can hold a line twice; a GPU file
 * without a chip, or with another). A die fact, so the GPU's. */
#define RIDGE_L2_FULL_HIT_SHARE 0.5
#define RIDGE_L2_FULL_HIT_SHARE_SINGLE 0.95
double ridge_gpu_l2_full_hit_bytes(const ridge_gpu *g);

/* 1 when d is a price date: YYYY, YYYY-MM or YYYY-MM-DD, a month 01-12 and a day that month has
 * (29 February only in a leap year); else 0. */
int ridge_price_date_valid(const char *d);

/* Built-in catalogue (embedded at build time). */
size_t ridge_catalog_count(void);
const char *ridge_catalog_id(size_t i);
/* Load a built-in GPU by id. An id may carry a MIG profile: "a100-sxm4-80gb:3g.40gb" gives
 * that slice as a GPU of its own (see ridge_gpu_mig_slice). Unknown ids fail with
 * RIDGE_ENOTFOUND and the nearest known ids in err. */
int ridge_catalog_load(const char *id, ridge_gpu *gpu, ridge_err *err);
int ridge_catalog_load_prov(const char *id, ridge_gpu *gpu, ridge_gpu_provenance *prov, ridge_err *err);
/* The raw JSON text of a built-in GPU, or NULL. */
const char *ridge_catalog_json(const char *id, size_t *len);
/* The id of the built-in GPU whose `device_names` holds `device_name` exactly (the driver's name
 * of the part, "NVIDIA A100-SXM4-80GB"), or NULL when none does (or device_name is NULL). The
 * catalogue's files name each device once (tests/test_gpu.c). */
const char *ridge_catalog_find_device(const char *device_name);
/* The GPU id a driver's device name stands for, written to out (at most cap bytes with the NUL):
 * the part ridge_catalog_find_device names, or for a MIG instance, "<part name> MIG <profile>"
 * as NVML and torch.cuda.get_device_name() report it ("NVIDIA A100-SXM4-80GB MIG 3g.40gb"), that
 * part's slice "ID:PROFILE" when its file has the profile. 1 when mapped, else 0 (out is ""). */
int ridge_catalog_device_id(const char *device_name, char *out, size_t cap);

/* Turn *gpu into the MIG instance `profile` (SMs, memory, bandwidth, L2 and power scaled by its
 * share). RIDGE_ENOTFOUND if the part has no such profile. */
int ridge_gpu_mig_slice(ridge_gpu *gpu, const char *profile, ridge_err *err);

/* Derived figures. */
double ridge_gpu_pcie_bw_bytes_per_s(const ridge_gpu *gpu); /* one direction */
/* FLOP per byte of DRAM traffic at which peak p is reached; 0 if the part lacks p. */
double ridge_gpu_ridge_point(const ridge_gpu *gpu, ridge_peak p);

/* Edit distance, for "did you mean" lists (exposed for tests). */
size_t ridge_edit_distance(const char *a, const char *b);

#ifdef __cplusplus
}
#endif
#endif
