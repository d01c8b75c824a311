/* Tests of GPU descriptions: ridge_gpu_parse on every error path (a table of mutations of one
 * valid document), the built-in catalogue, MIG slices, file loading and derived figures.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The base document is tests/data/valid.json, a fictional GPU with every section filled and
 * deliberately irregular values. Each row of `mutation_cases` applies up to MAX_MUT edits to it
 * (paths are '/'-separated so that `sources` keys, which contain dots, stay one step), prints it
 * and parses it, then checks the status and that err.msg holds the expected "$.json.path: problem"
 * text. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "ridge/error.h"
#include "ridge/figures.h"
#include "ridge/gpu.h"

#ifndef RIDGE_TEST_DATA_DIR
#error "RIDGE_TEST_DATA_DIR must name tests/data (set by tests/CMakeLists.txt)"
#endif

#define ORIGIN "mut.json"
#define MAX_MUT 6

typedef enum {
    M_END = 0,
    M_SET,    /* replace (or add) the member at path with the JSON value text */
    M_ADD,    /* add a member even if one exists (makes duplicate keys), or append to an array */
    M_DEL,    /* delete the member at path */
    M_SETRAW, /* like M_SET, but the value text goes verbatim into the printed document
               * (for numbers cJSON cannot print, such as 1e999) */
} mut_op;

typedef struct {
    mut_op op;
    const char *path;
    const char *value;
} mutation;

typedef struct {
    const char *desc;
    mutation m[MAX_MUT];
    int status;
    const char *msg;   /* expected substring of err.msg (with the JSON path); NULL for RIDGE_OK */
    const char *xfail; /* a known bug (reported with file:line), or NULL */
} mutation_case;

/* clang-format off */
static const mutation_case mutation_cases[] = {
    /* Valid variants. */
    {"base document", {{0}}, RIDGE_OK, NULL, NULL},
    {"mig removed with its source", {{M_DEL, "mig", 0}, {M_DEL, "sources/mig", 0}}, RIDGE_OK, NULL, NULL},
    {"price: list only, year-only date",
     {{M_DEL, "price/usd_per_hour", 0}, {M_SET, "price/usd_list", "11999.5"}, {M_SET, "price/date", "\"2023\""}},
     RIDGE_OK, NULL, NULL},
    {"no NVLink at all",
     {{M_DEL, "interconnect/nvlink_links", 0}, {M_DEL, "interconnect/nvlink_bandwidth_bytes_per_s_per_direction", 0},
      {M_DEL, "interconnect/nvlink_kind", 0},
      {M_DEL, "sources/interconnect.nvlink_bandwidth_bytes_per_s_per_direction", 0}},
     RIDGE_OK, NULL, NULL},
    {"optional sections absent",
     {{M_DEL, "price", 0}, {M_DEL, "efficiency", 0}, {M_DEL, "notes", 0}, {M_DEL, "chip", 0},
      {M_DEL, "base_clock_hz", 0}, {M_DEL, "tensor_clock_hz", 0}},
     RIDGE_OK, NULL, NULL},
    {"group source covers a required one",
     {{M_DEL, "sources/memory.bandwidth_bytes_per_s", 0}}, RIDGE_OK, NULL, NULL},
    {"device names", {{M_SET, "device_names", "[\"NVIDIA Test GPU\", \"NVIDIA Test GPU 2\"]"}}, RIDGE_OK, NULL, NULL},

    /* device_names: an array of distinct, non-empty strings of under 64 bytes, at most 8. */
    {"device_names not an array", {{M_SET, "device_names", "\"NVIDIA H200\""}}, RIDGE_EINVAL,
     "$.device_names: expected a non-empty array of strings", NULL},
    {"device_names empty", {{M_SET, "device_names", "[]"}}, RIDGE_EINVAL,
     "$.device_names: expected a non-empty array of strings", NULL},
    {"device_names: a number", {{M_SET, "device_names", "[\"a\", 7]"}}, RIDGE_EINVAL,
     "$.device_names: entry 1: expected a non-empty string", NULL},
    {"device_names: an empty name", {{M_SET, "device_names", "[\"\"]"}}, RIDGE_EINVAL,
     "$.device_names: entry 0: expected a non-empty string", NULL},
    {"device_names: twice", {{M_SET, "device_names", "[\"x\", \"y\", \"x\"]"}}, RIDGE_EINVAL,
     "$.device_names: entry 2: \"x\" given twice", NULL},
    {"device_names: too many",
     {{M_SET, "device_names", "[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\"]"}}, RIDGE_EINVAL,
     "$.device_names: more than 8 names", NULL},
    {"device_names: too long",
     {{M_SET, "device_names", "[\"0123456789012345678901234567890123456789012345678901234567890123\"]"}},
     RIDGE_EINVAL, "$.device_names: entry 0: longer than 63 bytes", NULL},

    /* Missing required fields. */
    {"missing schema_version", {{M_DEL, "schema_version", 0}}, RIDGE_EINVAL, "$.schema_version: missing required number", NULL},
    {"missing id", {{M_DEL, "id", 0}}, RIDGE_EINVAL, "$.id: missing required string", NULL},
    {"missing name", {{M_DEL, "name", 0}}, RIDGE_EINVAL, "$.name: missing required string", NULL},
    {"missing vendor", {{M_DEL, "vendor", 0}}, RIDGE_EINVAL, "$.vendor: missing required string", NULL},
    {"missing architecture", {{M_DEL, "architecture", 0}}, RIDGE_EINVAL, "$.architecture: missing required string", NULL},
    {"missing sm_count", {{M_DEL, "sm_count", 0}}, RIDGE_EINVAL, "$.sm_count: missing required number", NULL},
    {"missing fp32_lanes", {{M_DEL, "fp32_lanes", 0}}, RIDGE_EINVAL, "$.fp32_lanes: missing required number", NULL},
    {"missing tensor_cores", {{M_DEL, "tensor_cores", 0}}, RIDGE_EINVAL, "$.tensor_cores: missing required number", NULL},
    {"missing boost_clock_hz", {{M_DEL, "boost_clock_hz", 0}}, RIDGE_EINVAL, "$.boost_clock_hz: missing required number", NULL},
    {"missing peaks", {{M_DEL, "peak_dense_flops_per_s", 0}}, RIDGE_EINVAL, "$.peak_dense_flops_per_s: missing required object", NULL},
    {"missing fp32 peak", {{M_DEL, "peak_dense_flops_per_s/fp32", 0}}, RIDGE_EINVAL, "$.peak_dense_flops_per_s.fp32: missing required number", NULL},
    {"missing memory", {{M_DEL, "memory", 0}}, RIDGE_EINVAL, "$.memory: missing required object", NULL},
    {"missing memory type", {{M_DEL, "memory/type", 0}}, RIDGE_EINVAL, "$.memory.type: missing required string", NULL},
    {"missing memory capacity", {{M_DEL, "memory/capacity_bytes", 0}}, RIDGE_EINVAL, "$.memory.capacity_bytes: missing required number", NULL},
    {"missing memory bandwidth", {{M_DEL, "memory/bandwidth_bytes_per_s", 0}}, RIDGE_EINVAL, "$.memory.bandwidth_bytes_per_s: missing required number", NULL},
    {"missing l2_bytes", {{M_DEL, "l2_bytes", 0}}, RIDGE_EINVAL, "$.l2_bytes: missing required number", NULL},
    {"missing sm", {{M_DEL, "sm", 0}}, RIDGE_EINVAL, "$.sm: missing required object", NULL},
    {"missing sm max_warps", {{M_DEL, "sm/max_warps", 0}}, RIDGE_EINVAL, "$.sm.max_warps: missing required number", NULL},
    {"missing interconnect", {{M_DEL, "interconnect", 0}}, RIDGE_EINVAL, "$.interconnect: missing required object", NULL},
    {"missing pcie_lanes", {{M_DEL, "interconnect/pcie_lanes", 0}}, RIDGE_EINVAL, "$.interconnect.pcie_lanes: missing required number", NULL},
    {"missing tdp_w", {{M_DEL, "tdp_w", 0}}, RIDGE_EINVAL, "$.tdp_w: missing required number", NULL},
    {"missing sources", {{M_DEL, "sources", 0}}, RIDGE_EINVAL, "$.sources: missing required object", NULL},
    {"missing price date", {{M_DEL, "price/date", 0}}, RIDGE_EINVAL, "$.price.date: missing required string", NULL},
    {"missing price source", {{M_DEL, "price/source", 0}}, RIDGE_EINVAL, "$.price.source: missing required string", NULL},
    {"price without an amount", {{M_DEL, "price/usd_per_hour", 0}}, RIDGE_EINVAL, "$.price: needs usd_per_hour or usd_list", NULL},
    {"missing mig profile name", {{M_DEL, "mig/1/profile", 0}}, RIDGE_EINVAL, "$.mig[1].profile: missing required string", NULL},
    {"missing mig max_instances", {{M_DEL, "mig/2/max_instances", 0}}, RIDGE_EINVAL, "$.mig[2].max_instances: missing required number", NULL},

    /* Wrong types. */
    {"sm_count as a string", {{M_SET, "sm_count", "\"76\""}}, RIDGE_EINVAL, "$.sm_count: expected a number, got a string", NULL},
    {"name as a number", {{M_SET, "name", "42.5"}}, RIDGE_EINVAL, "$.name: expected a string, got a number", NULL},
    {"vendor as null", {{M_SET, "vendor", "null"}}, RIDGE_EINVAL, "$.vendor: expected a string, got null", NULL},
    {"memory as an array", {{M_SET, "memory", "[1.5, 2.5]"}}, RIDGE_EINVAL, "$.memory: expected an object, got an array", NULL},
    {"mig as an object", {{M_SET, "mig", "{}"}}, RIDGE_EINVAL, "$.mig: expected an array, got an object", NULL},
    {"mig entry not an object", {{M_SET, "mig/1", "7"}}, RIDGE_EINVAL, "$.mig[1]: expected an object", NULL},
    {"fp32 peak as a boolean", {{M_SET, "peak_dense_flops_per_s/fp32", "true"}}, RIDGE_EINVAL, "$.peak_dense_flops_per_s.fp32: expected a number, got a boolean", NULL},
    {"source value not a string", {{M_SET, "sources/sm_count", "3.25"}}, RIDGE_EINVAL, "$.sources.sm_count: expected a non-empty string", NULL},
    {"integer field with a fraction", {{M_SET, "sm_count", "76.5"}}, RIDGE_EINVAL, "$.sm_count: 76.5 is not an integer", NULL},
    {"nested integer with a fraction", {{M_SET, "sm/max_warps", "47.25"}}, RIDGE_EINVAL, "$.sm.max_warps: 47.25 is not an integer", NULL},
    {"empty name", {{M_SET, "name", "\"\""}}, RIDGE_EINVAL, "$.name: empty string", NULL},
    {"chip too long", {{M_SET, "chip", "\"TX75-ABCDEFGHIJKLMNOPQRSTU\""}}, RIDGE_EINVAL, "$.chip: string longer than 23 bytes (UTF-8)", NULL},

    /* Text that is not UTF-8 (RFC 8259: JSON is UTF-8): rejected at load with its path, never copied out. */
    {"a stray 0xff byte in the name", {{M_SETRAW, "name", "\"Ridge \xff GPU\""}}, RIDGE_EPARSE, "$.name: not valid UTF-8", NULL},
    {"overlong '.' in a MIG profile", {{M_SETRAW, "mig/1/profile", "\"2g\xc0\xae" "20gb\""}}, RIDGE_EPARSE, "$.mig[1].profile: not valid UTF-8", NULL},
    {"a UTF-16 surrogate in a source", {{M_SETRAW, "sources/sm_count", "\"SM \xed\xa0\x80 count\""}}, RIDGE_EPARSE, "$.sources.sm_count: not valid UTF-8", NULL},
    {"a sequence cut short at the end of the notes", {{M_SETRAW, "notes", "\"cut \xe4\xb8\""}}, RIDGE_EPARSE, "$.notes: not valid UTF-8", NULL},
    {"above U+10FFFF in the efficiency source", {{M_SETRAW, "efficiency/source", "\"fit \xf4\x90\x80\x80\""}}, RIDGE_EPARSE, "$.efficiency.source: not valid UTF-8", NULL},
    {"valid 2-, 3- and 4-byte UTF-8 is kept", {{M_SETRAW, "name", "\"Ridge \xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80 GPU\""}}, RIDGE_OK, NULL, NULL},

    /* Negative, zero, non-finite and absurd values. */
    {"negative bandwidth", {{M_SET, "memory/bandwidth_bytes_per_s", "-1.2345e12"}}, RIDGE_EINVAL, "$.memory.bandwidth_bytes_per_s: -1.2345e+12 is out of range", NULL},
    {"zero bandwidth", {{M_SET, "memory/bandwidth_bytes_per_s", "0"}}, RIDGE_EINVAL, "$.memory.bandwidth_bytes_per_s: 0 is out of range", NULL},
    {"zero SMs", {{M_SET, "sm_count", "0"}}, RIDGE_EINVAL, "$.sm_count: 0 is out of range [1, 1024]", NULL},
    {"negative TDP", {{M_SET, "tdp_w", "-385"}}, RIDGE_EINVAL, "$.tdp_w: -385 is out of range [10, 5000]", NULL},
    {"zero fp16 peak (absent is the way)", {{M_SET, "peak_dense_flops_per_s/fp16", "0"}}, RIDGE_EINVAL, "$.peak_dense_flops_per_s.fp16: 0 is out of range", NULL},
    {"1e999 bandwidth (inf)", {{M_SETRAW, "memory/bandwidth_bytes_per_s", "1e999"}}, RIDGE_EINVAL, "$.memory.bandwidth_bytes_per_s: not a finite number", NULL},
    {"-1e999 l2 (-inf)", {{M_SETRAW, "l2_bytes", "-1e999"}}, RIDGE_EINVAL, "$.l2_bytes: not a finite number", NULL},
    {"1e999 nested in mig", {{M_SETRAW, "mig/0/memory_bytes", "1e999"}}, RIDGE_EINVAL, "$.mig[0].memory_bytes: not a finite number", NULL},
    {"absurd bandwidth 1e30", {{M_SET, "memory/bandwidth_bytes_per_s", "1e30"}}, RIDGE_EINVAL, "$.memory.bandwidth_bytes_per_s: 1e+30 is out of range [1e+09, 1e+14]", NULL},
    {"absurd SM count", {{M_SET, "sm_count", "100000"}}, RIDGE_EINVAL, "$.sm_count: 100000 is out of range", NULL},
    {"absurd clock", {{M_SET, "boost_clock_hz", "1.635e12"}}, RIDGE_EINVAL, "$.boost_clock_hz: 1.635e+12 is out of range", NULL},
    {"absurd peak", {{M_SET, "peak_dense_flops_per_s/bf16", "2.362e20"}}, RIDGE_EINVAL, "$.peak_dense_flops_per_s.bf16: 2.362e+20 is out of range", NULL},
    {"huge integer", {{M_SET, "sm/registers", "1e300"}}, RIDGE_EINVAL, "$.sm.registers: 1e+300 is out of range", NULL},
    {"pcie generation 8", {{M_SET, "interconnect/pcie_generation", "8"}}, RIDGE_EINVAL, "$.interconnect.pcie_generation: 8 is out of range [1, 7]", NULL},
    {"efficiency fraction above 1", {{M_SET, "efficiency/tensor_fraction", "1.0625"}}, RIDGE_EINVAL, "$.efficiency.tensor_fraction: 1.0625 is out of range [0.05, 1]", NULL},
    {"price per hour absurd", {{M_SET, "price/usd_per_hour", "2385"}}, RIDGE_EINVAL, "$.price.usd_per_hour: 2385 is out of range", NULL},
    {"fewer lanes than SMs", {{M_SET, "fp32_lanes", "75"}}, RIDGE_EINVAL, "$.fp32_lanes: fewer lanes (75) than SMs (76)", NULL},

    /* Unknown and duplicate keys. */
    {"unknown top-level key", {{M_SET, "bandwidth", "1.2345e12"}}, RIDGE_EINVAL, "$.bandwidth: unknown key", NULL},
    {"unknown key, wrong case", {{M_SET, "SM_count", "76"}}, RIDGE_EINVAL, "$.SM_count: unknown key", NULL},
    {"unknown memory key", {{M_SET, "memory/bandwith_bytes_per_s", "1.2345e12"}}, RIDGE_EINVAL, "$.memory.bandwith_bytes_per_s: unknown key", NULL},
    {"unknown peak precision", {{M_SET, "peak_dense_flops_per_s/fp4", "944.8e12"}}, RIDGE_EINVAL, "$.peak_dense_flops_per_s.fp4: unknown key", NULL},
    {"unknown sm key", {{M_SET, "sm/l1_bytes", "262144"}}, RIDGE_EINVAL, "$.sm.l1_bytes: unknown key", NULL},
    {"unknown interconnect key", {{M_SET, "interconnect/nvlink_version", "4"}}, RIDGE_EINVAL, "$.interconnect.nvlink_version: unknown key", NULL},
    {"unknown price key", {{M_SET, "price/currency", "\"EUR\""}}, RIDGE_EINVAL, "$.price.currency: unknown key", NULL},
    {"unknown mig key", {{M_SET, "mig/2/sm", "44"}}, RIDGE_EINVAL, "$.mig[2].sm: unknown key", NULL},
    {"unknown efficiency key", {{M_SET, "efficiency/l1_fraction", "0.5"}}, RIDGE_EINVAL, "$.efficiency.l1_fraction: unknown key", NULL},
    {"fraction for an unknown peak", {{M_SET, "efficiency/fraction_by_peak", "{\"fp4\": 0.5}"}}, RIDGE_EINVAL, "$.efficiency.fraction_by_peak.fp4: unknown key", NULL},
    {"fraction for a peak the GPU lacks", {{M_SET, "efficiency/fraction_by_peak", "{\"fp8\": 0.5}"}}, RIDGE_EINVAL, "$.efficiency.fraction_by_peak.fp8: the GPU has no fp8 peak", NULL},
    {"fraction by peak above 1", {{M_SET, "efficiency/fraction_by_peak", "{\"bf16\": 1.5}"}}, RIDGE_EINVAL, "$.efficiency.fraction_by_peak.bf16: 1.5 is out of range [0.05, 1]", NULL},
    {"fraction by peak not an object", {{M_SET, "efficiency/fraction_by_peak", "0.5"}}, RIDGE_EINVAL, "$.efficiency.fraction_by_peak: expected an object", NULL},
    {"framework cost negative", {{M_SET, "efficiency/framework_op_s", "-1e-6"}}, RIDGE_EINVAL, "$.efficiency.framework_op_s: -1e-06 is out of range", NULL},
    {"duplicate top-level key", {{M_ADD, "sm_count", "77"}}, RIDGE_EINVAL, "$.sm_count: duplicate key", NULL},
    {"duplicate memory key", {{M_ADD, "memory/type", "\"HBM3e\""}}, RIDGE_EINVAL, "$.memory.type: duplicate key", NULL},
    {"duplicate mig key", {{M_ADD, "mig/0/sm_count", "12"}}, RIDGE_EINVAL, "$.mig[0].sm_count: duplicate key", NULL},
    {"duplicate sources key", {{M_ADD, "sources/sm_count", "\"another source\""}}, RIDGE_EINVAL, "$.sources.sm_count: duplicate key", NULL},
    {"duplicate sources key, second not a string", {{M_ADD, "sources/sm_count", "5"}}, RIDGE_EINVAL, "$.sources.sm_count:", NULL},

    /* Enumerations and formats. */
    {"unknown vendor", {{M_SET, "vendor", "\"intel\""}}, RIDGE_EINVAL, "$.vendor: 'intel' is not one of: nvidia, amd", NULL},
    {"vendor in capitals", {{M_SET, "vendor", "\"NVIDIA\""}}, RIDGE_EINVAL, "$.vendor: 'NVIDIA' is not one of", NULL},
    {"unknown nvlink kind", {{M_SET, "interconnect/nvlink_kind", "\"cable\""}}, RIDGE_EINVAL, "$.interconnect.nvlink_kind: 'cable' is not one of: switch, bridge, fabric", NULL},
    {"id with a space and capitals", {{M_SET, "id", "\"Test GPU\""}}, RIDGE_EINVAL, "$.id: 'Test GPU' may contain only a-z, 0-9, '-' and '.'", NULL},
    {"id with an underscore", {{M_SET, "id", "\"testgpu_x7\""}}, RIDGE_EINVAL, "$.id: 'testgpu_x7' may contain only", NULL},
    {"id with a colon", {{M_SET, "id", "\"testgpu:1g\""}}, RIDGE_EINVAL, "$.id: 'testgpu:1g' may contain only", NULL},
    {"id too long", {{M_SET, "id", "\"testgpu-0123456789-0123456789-0123456789-abcdefg\""}}, RIDGE_EINVAL, "$.id: string longer than 47 bytes (UTF-8)", NULL},
    {"price date with slashes", {{M_SET, "price/date", "\"2024/05/17\""}}, RIDGE_EINVAL, "$.price.date: '2024/05/17' is not a date YYYY, YYYY-MM or YYYY-MM-DD", NULL},
    {"price date unpadded", {{M_SET, "price/date", "\"2024-5-17\""}}, RIDGE_EINVAL, "$.price.date: '2024-5-17' is not", NULL},
    {"price date with month 13", {{M_SET, "price/date", "\"2024-13-45\""}}, RIDGE_EINVAL, "$.price.date: '2024-13-45' is not", NULL},
    {"price date as words", {{M_SET, "price/date", "\"May 2024\""}}, RIDGE_EINVAL, "$.price.date: 'May 2024' is not", NULL},
    /* Die facts, RT cores, ECC (display only) and the price's kind and spot price. */
    {"die facts, RT cores and ECC with their sources",
     {{M_SET, "die", "{\"process\": \"4N\", \"foundry\": \"TSMC\", \"area_mm2\": 814, \"transistors\": 80e9}"}, {M_SET, "sources/die", "\"fixture\""}, {M_SET, "rt_cores", "0"},
      {M_SET, "sources/rt_cores", "\"fixture\""}, {M_SET, "memory/ecc", "true"}},
     RIDGE_OK, NULL, NULL},
    {"price kind and spot price", {{M_SET, "price/kind", "\"on_demand\""}, {M_SET, "price/spot_usd_per_hour", "1.2"}}, RIDGE_OK, NULL, NULL},
    {"negative die area", {{M_SET, "die", "{\"area_mm2\": -5}"}, {M_SET, "sources/die", "\"fixture\""}}, RIDGE_EINVAL, "$.die.area_mm2: -5 is out of range", NULL},
    {"zero die area", {{M_SET, "die", "{\"area_mm2\": 0}"}, {M_SET, "sources/die", "\"fixture\""}}, RIDGE_EINVAL, "$.die.area_mm2: 0 is out of range", NULL},
    {"die area as a string", {{M_SET, "die", "{\"area_mm2\": \"826 mm2\"}"}, {M_SET, "sources/die", "\"fixture\""}}, RIDGE_EINVAL, "$.die.area_mm2: expected a number, got a string", NULL},
    {"a thousand transistors", {{M_SET, "die", "{\"transistors\": 1000}"}, {M_SET, "sources/die", "\"fixture\""}}, RIDGE_EINVAL, "$.die.transistors: 1000 is out of range", NULL},
    {"infinite transistors", {{M_SETRAW, "die", "{\"transistors\": 1e999}"}, {M_SET, "sources/die", "\"fixture\""}}, RIDGE_EINVAL, "$.die.transistors", NULL},
    {"unknown die key", {{M_SET, "die", "{\"node\": \"7nm\"}"}, {M_SET, "sources/die", "\"fixture\""}}, RIDGE_EINVAL, "$.die.node: unknown key", NULL},
    {"empty die", {{M_SET, "die", "{}"}}, RIDGE_EINVAL, "$.die: empty object (omit the key instead)", NULL},
    {"die facts without a source", {{M_SET, "die", "{\"process\": \"4N\", \"foundry\": \"TSMC\", \"area_mm2\": 814, \"transistors\": 80e9}"}}, RIDGE_EINVAL, "$.sources.die.process: missing: this figure must be sourced", NULL},
    {"negative RT cores", {{M_SET, "rt_cores", "-1"}, {M_SET, "sources/rt_cores", "\"fixture\""}}, RIDGE_EINVAL, "$.rt_cores: -1 is out of range", NULL},
    {"fractional RT cores", {{M_SET, "rt_cores", "2.5"}, {M_SET, "sources/rt_cores", "\"fixture\""}}, RIDGE_EINVAL, "$.rt_cores: 2.5 is not an integer", NULL},
    {"RT cores without a source", {{M_SET, "rt_cores", "84"}}, RIDGE_EINVAL, "$.sources.rt_cores: missing: this figure must be sourced", NULL},
    {"ECC as a word", {{M_SET, "memory/ecc", "\"yes\""}}, RIDGE_EINVAL, "$.memory.ecc: expected", NULL},
    {"unknown price kind", {{M_SET, "price/kind", "\"reserved\""}}, RIDGE_EINVAL, "$.price.kind: 'reserved' is not one of: on_demand, spot", NULL},
    {"price kind without a price per hour",
     {{M_DEL, "price/usd_per_hour", 0}, {M_SET, "price/usd_list", "11999.5"}, {M_SET, "price/kind", "\"spot\""}},
     RIDGE_EINVAL, "$.price.kind: needs usd_per_hour", NULL},
    {"spot price beside a spot price", {{M_SET, "price/kind", "\"spot\""}, {M_SET, "price/spot_usd_per_hour", "1"}}, RIDGE_EINVAL, "$.price.spot_usd_per_hour: needs an on-demand usd_per_hour", NULL},
    {"negative spot price", {{M_SET, "price/kind", "\"on_demand\""}, {M_SET, "price/spot_usd_per_hour", "-1"}}, RIDGE_EINVAL, "$.price.spot_usd_per_hour: -1 is out of range", NULL},
    {"negative price per hour", {{M_SET, "price/usd_per_hour", "-2"}}, RIDGE_EINVAL, "$.price.usd_per_hour: -2 is out of range", NULL},
    {"schema_version 2", {{M_SET, "schema_version", "2"}}, RIDGE_EINVAL, "$.schema_version: 2 is not supported (this ridge reads 1)", NULL},
    {"schema_version 0", {{M_SET, "schema_version", "0"}}, RIDGE_EINVAL, "$.schema_version: 0 is out of range", NULL},
    {"schema_version as a string", {{M_SET, "schema_version", "\"1\""}}, RIDGE_EINVAL, "$.schema_version: expected a number, got a string", NULL},

    /* Consistency between fields. */
    {"nvlink links without bandwidth",
     {{M_DEL, "interconnect/nvlink_bandwidth_bytes_per_s_per_direction", 0},
      {M_DEL, "sources/interconnect.nvlink_bandwidth_bytes_per_s_per_direction", 0}},
     RIDGE_EINVAL, "$.interconnect.nvlink_bandwidth_bytes_per_s_per_direction: required when nvlink_links > 0", NULL},
    {"nvlink bandwidth without links", {{M_SET, "interconnect/nvlink_links", "0"}}, RIDGE_EINVAL, "$.interconnect.nvlink_links: must be > 0", NULL},

    /* Sources. */
    {"source for an absent field", {{M_SET, "sources/peak_dense_flops_per_s.fp8", "\"fixture\""}}, RIDGE_EINVAL, "$.sources.peak_dense_flops_per_s.fp8: names no field of this file", NULL},
    {"source for a removed optional field", {{M_DEL, "interconnect/nvlink_kind", 0}, {M_SET, "sources/interconnect.nvlink_kind", "\"x\""}}, RIDGE_EINVAL, "$.sources.interconnect.nvlink_kind: names no field", NULL},
    {"source naming no schema field", {{M_SET, "sources/memory.speed", "\"fixture\""}}, RIDGE_EINVAL, "$.sources.memory.speed: names no field", NULL},
    {"source naming sources", {{M_SET, "sources/sources", "\"itself\""}}, RIDGE_EINVAL, "$.sources.sources: names no field", NULL},
    {"source naming a key inside sources", {{M_SET, "sources/sources.sm_count", "\"itself\""}}, RIDGE_EINVAL, "$.sources.sources.sm_count: names no field", NULL},
    {"source key with a trailing dot", {{M_SET, "sources/memory.", "\"fixture\""}}, RIDGE_EINVAL, "$.sources.memory.: names no field", NULL},
    {"missing required source sm_count", {{M_DEL, "sources/sm_count", 0}}, RIDGE_EINVAL, "$.sources.sm_count: missing: this figure must be sourced", NULL},
    {"missing required source bandwidth",
     {{M_DEL, "sources/memory", 0}, {M_DEL, "sources/memory.bandwidth_bytes_per_s", 0}},
     RIDGE_EINVAL, "$.sources.memory.bandwidth_bytes_per_s: missing: this figure must be sourced", NULL},
    {"missing required source fp32 peak",
     {{M_DEL, "sources/peak_dense_flops_per_s", 0}, {M_DEL, "sources/peak_dense_flops_per_s.fp32", 0}},
     RIDGE_EINVAL, "$.sources.peak_dense_flops_per_s.fp32: missing: this figure must be sourced", NULL},
    {"a prefix that is not a group does not source", {{M_DEL, "sources/sm_count", 0}, {M_SET, "sources/sm", "\"fixture\""}},
     RIDGE_EINVAL, "$.sources.sm_count: missing", NULL},

    /* MIG profiles. */
    {"mig sm_count above the GPU's", {{M_SET, "mig/1/sm_count", "77"}}, RIDGE_EINVAL, "$.mig[1].sm_count: 77 is out of range [1, 76]", NULL},
    {"mig memory above the GPU's", {{M_SET, "mig/2/memory_bytes", "51539607553"}}, RIDGE_EINVAL, "$.mig[2].memory_bytes: 5.15396e+10 is out of range", NULL},
    {"duplicate mig profile", {{M_SET, "mig/2/profile", "\"1g.12gb\""}}, RIDGE_EINVAL, "$.mig[2].profile: duplicate profile '1g.12gb'", NULL},
    {"mig zero compute slices", {{M_SET, "mig/0/compute_slices", "0"}}, RIDGE_EINVAL, "$.mig[0].compute_slices: 0 is out of range [1, 8]", NULL},
    {"mig empty array", {{M_SET, "mig", "[]"}}, RIDGE_EINVAL, "$.mig: empty array", NULL},
    {"mig profile name too long", {{M_SET, "mig/0/profile", "\"1g.12gb-with-a-long-name\""}}, RIDGE_EINVAL, "$.mig[0].profile: string longer than 15 bytes (UTF-8)", NULL},
    {"more than 8 mig profiles",
     {{M_ADD, "mig", "{\"profile\":\"p4\",\"compute_slices\":1,\"memory_slices\":1,\"sm_count\":10,\"memory_bytes\":1.2e9,\"max_instances\":1}"},
      {M_ADD, "mig", "{\"profile\":\"p5\",\"compute_slices\":1,\"memory_slices\":1,\"sm_count\":10,\"memory_bytes\":1.2e9,\"max_instances\":1}"},
      {M_ADD, "mig", "{\"profile\":\"p6\",\"compute_slices\":1,\"memory_slices\":1,\"sm_count\":10,\"memory_bytes\":1.2e9,\"max_instances\":1}"},
      {M_ADD, "mig", "{\"profile\":\"p7\",\"compute_slices\":1,\"memory_slices\":1,\"sm_count\":10,\"memory_bytes\":1.2e9,\"max_instances\":1}"},
      {M_ADD, "mig", "{\"profile\":\"p8\",\"compute_slices\":1,\"memory_slices\":1,\"sm_count\":10,\"memory_bytes\":1.2e9,\"max_instances\":1}"},
      {M_ADD, "mig", "{\"profile\":\"p9\",\"compute_slices\":1,\"memory_slices\":1,\"sm_count\":10,\"memory_bytes\":1.2e9,\"max_instances\":1}"}},
     RIDGE_EINVAL, "$.mig: more than 8 profiles", NULL},
};
/* clang-format on */

/* Whole texts that are not (or not only) a JSON object. BASE_* rows derive from the base text. */
typedef enum { T_RAW = 0, T_BASE_TRUNCATED, T_BASE_APPEND } text_mode;

typedef struct {
    const char *desc;
    text_mode mode;
    const char *text;
    int status;
    const char *msg;
} text_case;

static const text_case text_cases[] = {
    {"empty input", T_RAW, "", RIDGE_EPARSE, ORIGIN ": line 1, column 1: malformed JSON"},
    {"only spaces", T_RAW, "  \n ", RIDGE_EPARSE, ORIGIN ": line 2, column 1: malformed JSON"},
    {"truncated object", T_RAW, "{\n  \"schema_version\": 1,\n  \"id\": \"tes", RIDGE_EPARSE, ORIGIN ": line 3, column"},
    {"truncated base document", T_BASE_TRUNCATED, NULL, RIDGE_EPARSE, ORIGIN ": line "},
    {"missing comma", T_RAW, "{\n  \"schema_version\": 1\n  \"id\": \"x\"\n}", RIDGE_EPARSE, ORIGIN ": line 3, column 3: malformed JSON"},
    {"single quotes", T_RAW, "{'schema_version': 1}", RIDGE_EPARSE, ORIGIN ": line 1, column"},
    {"trailing comma", T_RAW, "{\"schema_version\": 1,}", RIDGE_EPARSE, "malformed JSON"},
    {"trailing garbage", T_BASE_APPEND, "\n}x", RIDGE_EPARSE, ORIGIN ": trailing characters after the JSON value"},
    {"two documents", T_BASE_APPEND, " {}", RIDGE_EPARSE, ORIGIN ": trailing characters after the JSON value"},
    {"trailing whitespace is fine", T_BASE_APPEND, " \r\n\t\n", RIDGE_OK, NULL},
    {"an array", T_RAW, "[{\"schema_version\": 1}]", RIDGE_EPARSE, ORIGIN ": $: expected a JSON object"},
    {"a number", T_RAW, "2.385", RIDGE_EPARSE, ORIGIN ": $: expected a JSON object"},
    {"a string", T_RAW, "\"a100-sxm4-80gb\"", RIDGE_EPARSE, ORIGIN ": $: expected a JSON object"},
    {"null", T_RAW, "null", RIDGE_EPARSE, ORIGIN ": $: expected a JSON object"},
    {"empty object", T_RAW, "{}", RIDGE_EINVAL, ORIGIN ": $.schema_version: missing required number"},
    {"bare 1e999", T_RAW, "{\"schema_version\": 1e999}", RIDGE_EINVAL, ORIGIN ": $.schema_version: not a finite number"},
    {"a member name that is not UTF-8", T_RAW, "{\"schema_version\": 1, \"n\xfe\": 2.385}", RIDGE_EPARSE,
     ORIGIN ": $: a member name is not valid UTF-8"},
};

/* ---- helpers ---- */

static char *read_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f) {
        fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)n + 1);
        if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
            buf[n] = '\0';
            *len = (size_t)n;
        } else {
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    return buf;
}

/* One step down: array index or object key. */
static cJSON *step(cJSON *node, const char *part)
{
    if (cJSON_IsArray(node)) {
        char *end = NULL;
        long i = strtol(part, &end, 10);
        return (end && *end == '\0' && end != part) ? cJSON_GetArrayItem(node, (int)i) : NULL;
    }
    return cJSON_GetObjectItemCaseSensitive(node, part);
}

/* Splits "a/b/c" into its parent node (a/b) and the last part "c". */
static cJSON *parent_of(cJSON *root, const char *path, char *last, size_t cap)
{
    char buf[256];
    char *p = buf, *slash;
    cJSON *node = root;
    snprintf(buf, sizeof buf, "%s", path);
    while ((slash = strchr(p, '/')) != NULL) {
        *slash = '\0';
        node = step(node, p);
        if (!node)
            return NULL;
        p = slash + 1;
    }
    snprintf(last, cap, "%s", p);
    return node;
}

/* Applies one mutation. For M_SETRAW the node gets a placeholder string, and the caller swaps
 * it for the raw text after printing. Returns 0 on success. */
static int apply(cJSON *root, const mutation *m, int index)
{
    char last[256], placeholder[32];
    cJSON *parent = parent_of(root, m->path, last, sizeof last);
    cJSON *v = NULL;
    if (!parent)
        return -1;
    if (m->op == M_DEL) {
        if (cJSON_IsArray(parent)) {
            int i = atoi(last);
            if (!cJSON_GetArrayItem(parent, i))
                return -1;
            cJSON_DeleteItemFromArray(parent, i);
            return 0;
        }
        if (!cJSON_GetObjectItemCaseSensitive(parent, last))
            return -1;
        cJSON_DeleteItemFromObjectCaseSensitive(parent, last);
        return 0;
    }
    if (m->op == M_SETRAW) {
        snprintf(placeholder, sizeof placeholder, "@RAW%d@", index);
        v = cJSON_CreateString(placeholder);
    } else {
        v = cJSON_Parse(m->value);
    }
    if (!v)
        return -1;
    if (m->op == M_ADD) {
        if (cJSON_IsArray(parent) && strcmp(last, "-") == 0)
            cJSON_AddItemToArray(parent, v);
        else if (cJSON_IsArray(step(parent, last)) && cJSON_IsObject(v))
            cJSON_AddItemToArray(step(parent, last), v); /* "mig" + object: append a profile */
        else
            cJSON_AddItemToObject(parent, last, v); /* no duplicate check: makes duplicate keys */
        return 0;
    }
    if (cJSON_IsArray(parent)) {
        int i = atoi(last);
        if (!cJSON_GetArrayItem(parent, i)) {
            cJSON_Delete(v);
            return -1;
        }
        cJSON_ReplaceItemInArray(parent, i, v);
    } else if (cJSON_GetObjectItemCaseSensitive(parent, last)) {
        cJSON_ReplaceItemInObjectCaseSensitive(parent, last, v);
    } else {
        cJSON_AddItemToObject(parent, last, v);
    }
    return 0;
}

/* Replaces the first "\"@RAWn@\"" in text (malloc'd) with raw; returns the new text. */
static char *splice_raw(char *text, int index, const char *raw)
{
    char quoted[40];
    char *at, *out;
    size_t n;
    snprintf(quoted, sizeof quoted, "\"@RAW%d@\"", index);
    at = strstr(text, quoted);
    if (!at)
        return text;
    n = strlen(text) - strlen(quoted) + strlen(raw) + 1;
    out = malloc(n);
    if (!out)
        return text;
    snprintf(out, n, "%.*s%s%s", (int)(at - text), text, raw, at + strlen(quoted));
    free(text);
    return out;
}

static char *mutate(const char *base, const mutation *ms)
{
    cJSON *root = cJSON_Parse(base);
    char *text;
    if (!root)
        return NULL;
    for (int i = 0; i < MAX_MUT && ms[i].op != M_END; i++) {
        if (apply(root, &ms[i], i) != 0) {
            fprintf(stderr, "test setup: cannot apply mutation at '%s'\n", ms[i].path);
            cJSON_Delete(root);
            return NULL;
        }
    }
    text = cJSON_Print(root);
    cJSON_Delete(root);
    for (int i = 0; text && i < MAX_MUT && ms[i].op != M_END; i++) {
        if (ms[i].op == M_SETRAW)
            text = splice_raw(text, i, ms[i].value);
    }
    return text;
}

/* Status, message substring, and the shape of the message: one line starting with the origin. */
static void check_outcome(int rc, const ridge_err *err, int status, const char *msg, const char *xfail)
{
    if (xfail)
        check_xfail(xfail);
    if (!CHECK_STR_EQ(ridge_err_name(rc), ridge_err_name(status)))
        return;
    if (status == RIDGE_OK)
        return;
    CHECK_STR_HAS(err->msg, msg);
    CHECK(strncmp(err->msg, ORIGIN ": ", strlen(ORIGIN) + 2) == 0);
    CHECK(strchr(err->msg, '\n') == NULL);
}

static void test_mutations(const char *base)
{
    for (size_t i = 0; i < sizeof mutation_cases / sizeof mutation_cases[0]; i++) {
        const mutation_case *tc = &mutation_cases[i];
        static ridge_gpu_provenance prov;
        ridge_gpu g;
        ridge_err err = {{0}}, err_prov = {{0}};
        char *text = mutate(base, tc->m);
        int rc;
        check_context(tc->desc);
        if (!CHECK(text != NULL))
            continue;
        rc = ridge_gpu_parse(text, strlen(text), ORIGIN, &g, &err);
        check_outcome(rc, &err, tc->status, tc->msg, tc->xfail);
        /* Keeping the provenance checks it no differently. */
        CHECK_INT(ridge_gpu_parse_prov(text, strlen(text), ORIGIN, &g, &prov, &err_prov), rc);
        CHECK_STR_EQ(err_prov.msg, err.msg);
        free(text);
    }
    check_context(NULL);
}

static void test_texts(const char *base, size_t base_len)
{
    for (size_t i = 0; i < sizeof text_cases / sizeof text_cases[0]; i++) {
        const text_case *tc = &text_cases[i];
        char buf[8192];
        size_t len;
        ridge_gpu g;
        ridge_err err = {{0}};
        int rc;
        check_context(tc->desc);
        if (tc->mode == T_RAW) {
            len = (size_t)snprintf(buf, sizeof buf, "%s", tc->text);
        } else if (tc->mode == T_BASE_TRUNCATED) {
            len = (size_t)snprintf(buf, sizeof buf, "%.*s", (int)(base_len / 2), base);
        } else {
            len = (size_t)snprintf(buf, sizeof buf, "%s%s", base, tc->text);
        }
        if (!CHECK(len < sizeof buf))
            continue;
        rc = ridge_gpu_parse(buf, len, ORIGIN, &g, &err);
        check_outcome(rc, &err, tc->status, tc->msg, NULL);
    }
    check_context(NULL);
}

/* The base document parses to the values written in it. */
static void test_base_values(const char *base, size_t len)
{
    static ridge_gpu_provenance prov;
    ridge_gpu g;
    ridge_err err = {{0}};
    check_context("base values");
    if (!CHECK_INT(ridge_gpu_parse_prov(base, len, "valid.json", &g, &prov, &err), RIDGE_OK)) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    CHECK_STR_EQ(g.id, "testgpu-x7.5");
    CHECK_STR_EQ(g.vendor, "nvidia");
    CHECK_INT(g.sm_count, 76);
    CHECK_INT(g.fp32_lanes, 9728);
    CHECK_NEAR(g.base_clock_hz, 1.185e9, 0);
    CHECK_NEAR(g.tensor_clock_hz, 1.515e9, 0);
    CHECK_NEAR(g.peak_flops_per_s[RIDGE_PEAK_FP32], 31.81e12, 0);
    CHECK_NEAR(g.peak_flops_per_s[RIDGE_PEAK_FP16_FP32ACC], 118.1e12, 0);
    CHECK_NEAR(g.peak_flops_per_s[RIDGE_PEAK_FP8], 0, 0); /* absent */
    CHECK_NEAR(g.memory_bw_bytes_per_s, 1.2345e12, 0);
    CHECK_NEAR(g.memory_bytes, 48.0 * 1073741824.0, 0);
    CHECK_INT(g.memory_bus_bits, 3072);
    CHECK_NEAR(g.l2_bytes, 37748736, 0);
    CHECK_INT(g.max_blocks_per_sm, 24);
    CHECK_INT(g.pcie_generation, 5);
    CHECK_INT(g.nvlink_links, 6);
    CHECK_STR_EQ(g.nvlink_kind, "bridge");
    CHECK_NEAR(g.price_usd_per_hour, 2.385, 0);
    CHECK_STR_EQ(g.price_date, "2024-05-17");
    CHECK_INT(g.mig_count, 3);
    CHECK_INT(g.mig_total_compute_slices, 4);
    CHECK_INT(g.mig_total_memory_slices, 4);
    CHECK_STR_EQ(g.mig[1].profile, "2g.24gb");
    CHECK_INT(g.mig[1].sm_count, 22);
    CHECK_STR_EQ(g.mig_of, "");
    /* Efficiency: two fields from the file (bits 0 and 5), the rest defaults. */
    CHECK_NEAR(g.eff.tensor_fraction, 0.8125, 0);
    CHECK_NEAR(g.eff.dram_latency_s, 5.5e-7, 0);
    CHECK_INT(g.eff.from_file_mask, (1u << 0) | (1u << 5));
    CHECK_STR_EQ(g.eff.source, "ridge test fixture");
    CHECK_INT(prov.source_count, 11);
    CHECK_STR_EQ(ridge_gpu_source_for(&prov, "memory.bandwidth_bytes_per_s"), "fixture, 1234.5 GB/s");
    CHECK_STR_EQ(ridge_gpu_source_for(&prov, "memory.type"), "fixture");                        /* group */
    CHECK_STR_EQ(ridge_gpu_source_for(&prov, "peak_dense_flops_per_s.bf16"), "fixture (dense)"); /* group */
    CHECK(ridge_gpu_source_for(&prov, "tensor_cores") == NULL);
    CHECK(ridge_gpu_source_for(&prov, "sm_count_x") == NULL);
    /* Derived figures. */
    CHECK_NEAR(ridge_gpu_ridge_point(&g, RIDGE_PEAK_BF16), 236.2e12 / 1.2345e12, 1e-12);
    CHECK_NEAR(ridge_gpu_ridge_point(&g, RIDGE_PEAK_FP8), 0, 0);
    CHECK_NEAR(ridge_gpu_pcie_bw_bytes_per_s(&g), 63.015e9, 1e-4); /* Gen5 x16 */

    /* Its MIG slice 2g.24gb: 22/76 of the compute, 2/4 of the bandwidth, L2 and power. */
    check_context("base MIG slice 2g.24gb");
    if (CHECK_INT(ridge_gpu_mig_slice(&g, "2g.24gb", &err), RIDGE_OK)) {
        CHECK_STR_EQ(g.id, "testgpu-x7.5:2g.24gb");
        CHECK_STR_EQ(g.mig_of, "testgpu-x7.5");
        CHECK_INT(g.sm_count, 22);
        CHECK_INT(g.mig_count, 0);
        CHECK_NEAR(g.peak_flops_per_s[RIDGE_PEAK_BF16], 236.2e12 * 22.0 / 76.0, 1e-12);
        CHECK_NEAR(g.memory_bw_bytes_per_s, 1.2345e12 * 0.5, 1e-12);
        CHECK_NEAR(g.memory_bytes, 25769803776.0, 0);
        CHECK_NEAR(g.l2_bytes, 37748736 * 0.5, 1e-12);
        CHECK_NEAR(g.tdp_w, 385 * 0.5, 1e-12);
        CHECK_NEAR(g.price_usd_per_hour, 2.385 * 0.5, 1e-12);
    }
    check_context(NULL);
}

/* Errors stay one printable line whatever the input holds: keys and values are echoed into
 * err.msg, and the CLI prints it to a terminal. */
/* efficiency.fraction_by_peak overrides the tensor/vector fraction for one peak only. */
static void test_fraction_by_peak(const char *base)
{
    const mutation ms[MAX_MUT] = {{M_SET, "efficiency/fraction_by_peak", "{\"bf16\": 0.7, \"fp32\": 0.95}"},
                                  {M_SET, "efficiency/framework_op_s", "4e-6"},
                                  {M_END, NULL, NULL}};
    char *text = mutate(base, ms);
    ridge_gpu g;
    ridge_err err;
    check_context("fraction_by_peak");
    if (!CHECK(text != NULL))
        return;
    if (CHECK_INT(ridge_gpu_parse(text, strlen(text), "fixture", &g, &err), RIDGE_OK)) {
        CHECK_NEAR(ridge_efficiency_fraction(&g.eff, RIDGE_PEAK_BF16), 0.7, 0);
        CHECK_NEAR(ridge_efficiency_fraction(&g.eff, RIDGE_PEAK_FP32), 0.95, 0);
        CHECK_NEAR(ridge_efficiency_fraction(&g.eff, RIDGE_PEAK_FP16_FP32ACC), g.eff.tensor_fraction, 0);
        CHECK_NEAR(ridge_efficiency_fraction(&g.eff, RIDGE_PEAK_FP64), g.eff.vector_fraction, 0);
        CHECK_NEAR(g.eff.framework_op_s, 4e-6, 0);
        CHECK(g.eff.from_file_mask & (1u << 8));
    }
    free(text);
}

static void test_one_line_errors(void)
{
    static const struct {
        const char *desc;
        const char *json;
    } rows[] = {
        {"newline escape in id", "{\"schema_version\": 1, \"id\": \"x\\ny\"}"},
        {"escape sequence in a key", "{\"schema_version\": 1, \"a\\u001b[31mred\": 2.385}"},
        {"carriage return in vendor",
         "{\"schema_version\": 1, \"id\": \"x\", \"name\": \"X\", \"vendor\": \"nv\\r\\nidia\"}"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_gpu g;
        ridge_err err = {{0}};
        int printable = 1;
        check_context(rows[i].desc);
        CHECK_INT(ridge_gpu_parse(rows[i].json, strlen(rows[i].json), ORIGIN, &g, &err), RIDGE_EINVAL);
        for (const char *p = err.msg; *p; p++)
            printable &= (unsigned char)*p >= 0x20 && *p != 0x7f;
        CHECK(printable);
    }
    check_context(NULL);
}

/* Arguments that are not JSON text at all. */
static void test_parse_edges(const char *base, size_t len)
{
    ridge_gpu g;
    ridge_err err = {{0}};
    check_context("parse edges");
    CHECK_INT(ridge_gpu_parse(NULL, 0, "null.json", &g, &err), RIDGE_EINVAL);
    CHECK_STR_HAS(err.msg, "null.json: no data");
    /* No error buffer: failures still return their status. */
    CHECK_INT(ridge_gpu_parse("{", 1, "x.json", &g, NULL), RIDGE_EPARSE);
    CHECK_INT(ridge_gpu_parse("{}", 2, "x.json", &g, NULL), RIDGE_EINVAL);
    /* A NULL origin is named generically. */
    CHECK_INT(ridge_gpu_parse("[]", 2, NULL, &g, &err), RIDGE_EPARSE);
    CHECK_STR_HAS(err.msg, ": $: expected a JSON object");
    /* The length bounds the text: the base cut before its closing brace is malformed. */
    CHECK_INT(ridge_gpu_parse(base, len - 3, "cut.json", &g, &err), RIDGE_EPARSE);
    check_context(NULL);
}

/* Every built-in GPU loads, and its id is the file name. */
static void test_catalog_all(void)
{
    size_t n = ridge_catalog_count();
    CHECK(n >= 19);
    CHECK(ridge_catalog_id(n) == NULL);
    for (size_t i = 0; i < n; i++) {
        const char *id = ridge_catalog_id(i);
        ridge_gpu g;
        ridge_err err = {{0}};
        size_t len = 0;
        check_context(id);
        if (!CHECK(id != NULL))
            continue;
        CHECK(ridge_catalog_json(id, &len) != NULL && len > 100);
        if (!CHECK_INT(ridge_catalog_load(id, &g, &err), RIDGE_OK)) {
            fprintf(stderr, "  %s\n", err.msg);
            continue;
        }
        CHECK_STR_EQ(g.id, id);
        CHECK(g.peak_flops_per_s[RIDGE_PEAK_FP32] > 0);
        CHECK(g.memory_bw_bytes_per_s > 0);
        if (i > 0)
            CHECK(strcmp(ridge_catalog_id(i - 1), id) < 0); /* sorted, no duplicates */
        /* Every MIG profile of a built-in GPU loads as "ID:PROFILE". */
        for (int k = 0; k < g.mig_count; k++) {
            char mid[80];
            ridge_gpu s;
            snprintf(mid, sizeof mid, "%s:%s", id, g.mig[k].profile);
            CHECK_INT(ridge_catalog_load(mid, &s, &err), RIDGE_OK);
            CHECK(s.sm_count == g.mig[k].sm_count && s.memory_bw_bytes_per_s <= g.memory_bw_bytes_per_s);
        }
    }
    check_context(NULL);
}

/* The driver's names in the catalogue's device_names: each maps back to its own file, no name is
 * in two files, and the names measurement files carry resolve (docs/gpu-schema.md). */
static void test_catalog_device_names(void)
{
    static ridge_gpu_provenance prov, other;
    static const struct {
        const char *name, *id;
    } want[] = {
        {"NVIDIA H200", "h200-sxm-141gb"},           {"NVIDIA H100 80GB HBM3", "h100-sxm5-80gb"},
        {"NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb"}, {"NVIDIA A100 80GB PCIe", "a100-pcie-80gb"},
        {"NVIDIA A40", "a40"},                       {"NVIDIA L40", "l40"},
        {"NVIDIA L40S", "l40s"},                     {"NVIDIA L4", "l4"},
        {"Tesla V100-SXM2-16GB", "v100-sxm2-32gb"},  {"NVIDIA A10", "a10"},
    };
    size_t n = ridge_catalog_count(), named = 0;
    for (size_t i = 0; i < n; i++) {
        const char *id = ridge_catalog_id(i);
        ridge_gpu g;
        check_context(id);
        if (!CHECK_INT(ridge_catalog_load_prov(id, &g, &prov, NULL), RIDGE_OK))
            continue;
        named += prov.device_name_count > 0;
        for (int k = 0; k < prov.device_name_count; k++) {
            const char *hit = ridge_catalog_find_device(prov.device_names[k]);
            CHECK(hit != NULL && strcmp(hit, id) == 0);
            for (size_t j = i + 1; j < n; j++) {
                ridge_gpu h;
                if (ridge_catalog_load_prov(ridge_catalog_id(j), &h, &other, NULL) != RIDGE_OK)
                    continue;
                for (int q = 0; q < other.device_name_count; q++)
                    CHECK(strcmp(other.device_names[q], prov.device_names[k]) != 0);
            }
        }
    }
    check_context(NULL);
    CHECK(named >= 18); /* every NVIDIA part */
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *hit = ridge_catalog_find_device(want[i].name);
        check_context(want[i].name);
        CHECK(hit != NULL && strcmp(hit, want[i].id) == 0);
    }
    check_context(NULL);
    /* Exact names only: no prefix ("NVIDIA L4" is not "NVIDIA L40"), no case folding. */
    CHECK(ridge_catalog_find_device("NVIDIA H100 NVL") == NULL);
    CHECK(ridge_catalog_find_device("nvidia h200") == NULL);
    CHECK(ridge_catalog_find_device("NVIDIA") == NULL);
    CHECK(ridge_catalog_find_device("") == NULL);
    CHECK(ridge_catalog_find_device(NULL) == NULL);
    /* ridge_catalog_device_id: the part, or a MIG instance's slice of it ("<name> MIG <profile>",
     * as NVML and torch report a MIG device) when the part's file has that profile */
    {
        char id[64], tiny[8];
        CHECK(ridge_catalog_device_id("NVIDIA H200", id, sizeof id) == 1);
        CHECK_STR_EQ(id, "h200-sxm-141gb");
        CHECK(ridge_catalog_device_id("NVIDIA A100-SXM4-80GB MIG 3g.40gb", id, sizeof id) == 1);
        CHECK_STR_EQ(id, "a100-sxm4-80gb:3g.40gb");
        CHECK(ridge_catalog_device_id("NVIDIA H200 MIG 1g.18gb", id, sizeof id) == 1);
        CHECK_STR_EQ(id, "h200-sxm-141gb:1g.18gb");
        CHECK(ridge_catalog_device_id("NVIDIA A100-SXM4-80GB MIG 9g.99gb", id, sizeof id) == 0);
        CHECK_STR_EQ(id, "");
        CHECK(ridge_catalog_device_id("NVIDIA A40 MIG 1g.12gb", id, sizeof id) == 0); /* no MIG on an A40 */
        CHECK(ridge_catalog_device_id("NVIDIA A100-SXM4-80GB MIG ", id, sizeof id) == 0);
        CHECK(ridge_catalog_device_id(" MIG 3g.40gb", id, sizeof id) == 0);
        CHECK(ridge_catalog_device_id("NVIDIA H100 NVL", id, sizeof id) == 0);
        CHECK(ridge_catalog_device_id(NULL, id, sizeof id) == 0);
        CHECK(ridge_catalog_device_id("NVIDIA H200", tiny, sizeof tiny) == 0); /* too long for out */
        CHECK_STR_EQ(tiny, "");
    }
}

typedef struct {
    const char *id;
    int sm_count;
    double bw_bytes_per_s;
    double bf16, fp16, fp16_fp32acc;
    double l2_bytes; /* 0: not checked */
} known_gpu;

static const known_gpu known[] = {
    {"a100-sxm4-80gb", 108, 2.039e12, 312e12, 312e12, 312e12, 41943040},
    {"h200-sxm-141gb", 132, 4.8e12, 989.4e12, 989.4e12, 989.4e12, 62914560},
    {"rtx-3090", 82, 936e9, 71e12, 142e12, 71e12, 0}, /* GeForce: BF16 at half the FP16-acc rate */
    {"a40", 84, 696e9, 149.7e12, 149.7e12, 149.7e12, 6291456},
};

static void test_known_values(void)
{
    ridge_gpu g;
    ridge_err err = {{0}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        const known_gpu *k = &known[i];
        check_context(k->id);
        if (!CHECK_INT(ridge_catalog_load(k->id, &g, &err), RIDGE_OK))
            continue;
        CHECK_INT(g.sm_count, k->sm_count);
        CHECK_NEAR(g.memory_bw_bytes_per_s, k->bw_bytes_per_s, 1e-12);
        CHECK_NEAR(g.peak_flops_per_s[RIDGE_PEAK_BF16], k->bf16, 1e-12);
        CHECK_NEAR(g.peak_flops_per_s[RIDGE_PEAK_FP16], k->fp16, 1e-12);
        CHECK_NEAR(g.peak_flops_per_s[RIDGE_PEAK_FP16_FP32ACC], k->fp16_fp32acc, 1e-12);
        if (k->l2_bytes > 0)
            CHECK_NEAR(g.l2_bytes, k->l2_bytes, 0);
    }
    check_context("rtx-3090 bf16 is half its fp16");
    if (CHECK_INT(ridge_catalog_load("rtx-3090", &g, &err), RIDGE_OK))
        CHECK_NEAR(g.peak_flops_per_s[RIDGE_PEAK_BF16], g.peak_flops_per_s[RIDGE_PEAK_FP16] / 2, 1e-12);

    check_context("a100-sxm4-80gb derived");
    if (CHECK_INT(ridge_catalog_load("a100-sxm4-80gb", &g, &err), RIDGE_OK)) {
        CHECK_NEAR(ridge_gpu_ridge_point(&g, RIDGE_PEAK_BF16), 312e12 / 2.039e12, 1e-12);
        CHECK_NEAR(ridge_gpu_ridge_point(&g, RIDGE_PEAK_FP32), 19.5e12 / 2.039e12, 1e-12);
        CHECK_NEAR(ridge_gpu_ridge_point(&g, RIDGE_PEAK_COUNT), 0, 0); /* out of range */
        CHECK_NEAR(ridge_gpu_pcie_bw_bytes_per_s(&g), 31.5e9, 2e-3);    /* Gen4 x16 */
        CHECK_NEAR(ridge_gpu_pcie_bw_bytes_per_s(&g), 16 * 2 * 8e9 * 128.0 / 130.0 / 8.0, 1e-12);
        CHECK_INT(g.mig_count, 6);
        CHECK_INT(g.mig_total_compute_slices, 7);
        CHECK_INT(g.mig_total_memory_slices, 8);
    }
    check_context(NULL);
}

/* PCIe bandwidth per generation, for x16 unless stated (one direction). */
static void test_pcie(void)
{
    static const struct {
        int gen, lanes;
        double expect;
    } rows[] = {
        {1, 16, 4e9}, {2, 16, 8e9}, {3, 16, 15.754e9}, {4, 16, 31.508e9}, {5, 16, 63.015e9},
        {6, 16, 126.03e9}, {4, 8, 15.754e9}, {3, 1, 0.98462e9}, {0, 16, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ridge_gpu g;
        memset(&g, 0, sizeof g);
        g.pcie_generation = rows[i].gen;
        g.pcie_lanes = rows[i].lanes;
        check_context("pcie table");
        CHECK_NEAR(ridge_gpu_pcie_bw_bytes_per_s(&g), rows[i].expect, 1e-4);
    }
    check_context(NULL);
}

static void test_catalog_errors(void)
{
    ridge_gpu g;
    ridge_err err = {{0}};

    check_context("unknown id a100");
    CHECK_INT(ridge_catalog_load("a100", &g, &err), RIDGE_ENOTFOUND);
    CHECK_STR_HAS(err.msg, "'a100'");
    CHECK_STR_HAS(err.msg, "a100-");
    CHECK_STR_HAS(err.msg, "nearest");

    check_context("unknown id h200-sxm-141");
    CHECK_INT(ridge_catalog_load("h200-sxm-141", &g, &err), RIDGE_ENOTFOUND);
    CHECK_STR_HAS(err.msg, "nearest: h200-sxm-141gb");

    check_context("empty and NULL ids");
    CHECK_INT(ridge_catalog_load("", &g, &err), RIDGE_EINVAL);
    CHECK_INT(ridge_catalog_load(NULL, &g, &err), RIDGE_EINVAL);
    CHECK(ridge_catalog_json("no-such-gpu", NULL) == NULL);

    check_context("a100-sxm4-80gb:3g.40gb");
    if (CHECK_INT(ridge_catalog_load("a100-sxm4-80gb:3g.40gb", &g, &err), RIDGE_OK)) {
        CHECK_STR_EQ(g.id, "a100-sxm4-80gb:3g.40gb");
        CHECK_STR_EQ(g.mig_of, "a100-sxm4-80gb");
        CHECK_INT(g.sm_count, 42);
        CHECK_NEAR(g.memory_bw_bytes_per_s, 2.039e12 * 4.0 / 8.0, 1e-12);
        CHECK_NEAR(g.memory_bytes, 40.0 * 1073741824.0, 0);
        CHECK_NEAR(g.peak_flops_per_s[RIDGE_PEAK_BF16], 312e12 * 42.0 / 108.0, 1e-12);
        CHECK_NEAR(g.tdp_w, 400.0 * 3.0 / 7.0, 1e-12);
        CHECK_STR_HAS(g.name, "MIG 3g.40gb");
    }

    check_context("a40:1g.10gb (no MIG)");
    CHECK_INT(ridge_catalog_load("a40:1g.10gb", &g, &err), RIDGE_ENOTFOUND);
    CHECK_STR_HAS(err.msg, "a40");
    CHECK_STR_HAS(err.msg, "no MIG");

    check_context("a100-sxm4-80gb:9g.99gb (unknown profile)");
    CHECK_INT(ridge_catalog_load("a100-sxm4-80gb:9g.99gb", &g, &err), RIDGE_ENOTFOUND);
    CHECK_STR_HAS(err.msg, "'9g.99gb'");
    CHECK_STR_HAS(err.msg, "3g.40gb");

    check_context("unknown base with a profile");
    CHECK_INT(ridge_catalog_load("a1000:3g.40gb", &g, &err), RIDGE_ENOTFOUND);
    CHECK_STR_HAS(err.msg, "'a1000'");
    check_context(NULL);
}

static void test_load_file(void)
{
    ridge_gpu g;
    ridge_err err = {{0}};
    const char *missing = RIDGE_TEST_DATA_DIR "/does-not-exist.json";

    check_context("load_file missing");
    CHECK_INT(ridge_gpu_load_file(missing, &g, &err), RIDGE_EIO);
    CHECK_STR_HAS(err.msg, missing);

    check_context("load_file directory");
    CHECK(ridge_gpu_load_file(RIDGE_TEST_DATA_DIR, &g, &err) < 0);

    check_context("load_file valid");
    if (CHECK_INT(ridge_gpu_load_file(RIDGE_TEST_DATA_DIR "/valid.json", &g, &err), RIDGE_OK))
        CHECK_STR_EQ(g.id, "testgpu-x7.5");

    /* The bad-input files the CLI tests use fail here with their JSON path. */
    {
        static const struct {
            const char *file;
            int status;
            const char *msg;
        } rows[] = {
            {"malformed.json", RIDGE_EPARSE, "malformed.json: line 11, column 3: malformed JSON"},
            {"unknown_key.json", RIDGE_EINVAL, "unknown_key.json: $.memory.bandwith_bytes_per_s: unknown key"},
            {"negative_bw.json", RIDGE_EINVAL, "negative_bw.json: $.memory.bandwidth_bytes_per_s: -1.2345e+12 is out of range"},
            {"nan_like.json", RIDGE_EINVAL, "nan_like.json: $.memory.bandwidth_bytes_per_s: not a finite number"},
            {"missing_field.json", RIDGE_EINVAL, "missing_field.json: $.sm_count: missing required number"},
            {"wrong_type.json", RIDGE_EINVAL, "wrong_type.json: $.tdp_w: expected a number, got a string"},
        };
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s", RIDGE_TEST_DATA_DIR, rows[i].file);
            check_context(rows[i].file);
            CHECK_INT(ridge_gpu_load_file(path, &g, &err), rows[i].status);
            CHECK_STR_HAS(err.msg, rows[i].msg);
        }
    }
    check_context(NULL);
}

static void test_edit_distance(void)
{
    static const struct {
        const char *a, *b;
        size_t d;
    } rows[] = {
        {"", "", 0},
        {"a100", "", 4},
        {"", "h200", 4},
        {"a40", "a40", 0},
        {"a100", "a10", 1},
        {"kitten", "sitting", 3},
        {"flaw", "lawn", 2},
        {"h100-sxm5-80gb", "h100-pcie-80gb", 4},
        {"rtx-4090", "rtx-3090", 1},
        {"mi300x", "mi250x", 2},
    };
    check_context("edit distance");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        CHECK_INT(ridge_edit_distance(rows[i].a, rows[i].b), rows[i].d);
        CHECK_INT(ridge_edit_distance(rows[i].b, rows[i].a), rows[i].d); /* symmetric */
    }
    check_context(NULL);
}

static void test_peak_names(void)
{
    check_context("peak names");
    CHECK_STR_EQ(ridge_peak_key(RIDGE_PEAK_FP16_FP32ACC), "fp16_fp32acc");
    CHECK_STR_EQ(ridge_peak_key(RIDGE_PEAK_BF16), "bf16");
    CHECK_STR_EQ(ridge_peak_key(RIDGE_PEAK_COUNT), "?");
    CHECK(ridge_peak_is_tensor(RIDGE_PEAK_TF32));
    CHECK(!ridge_peak_is_tensor(RIDGE_PEAK_FP16_VECTOR));
    CHECK(!ridge_peak_is_tensor(RIDGE_PEAK_FP64));
    CHECK(ridge_peak_is_tensor(RIDGE_PEAK_FP64_TENSOR));
    CHECK(ridge_peak_is_integer(RIDGE_PEAK_INT4));
    CHECK(!ridge_peak_is_integer(RIDGE_PEAK_FP8));
    for (int p = 0; p < RIDGE_PEAK_COUNT; p++)
        CHECK(strlen(ridge_peak_label((ridge_peak)p)) > 2);
    check_context(NULL);
}

/* The catalogue's prices (shared/gpu-prices.md): each per-hour price has its kind, date and
 * source; the parts with no sourced price have none (never an invented figure); a MIG slice
 * takes compute_slices/7 of its parent's. And the A100 parts' SKU facts (shared/gpu-specs.md,
 * "Die facts"): HBM2 on the 40 GB parts, HBM2e on the 80 GB ones, 250/300/400 W. */
static void test_catalog_prices_and_die(void)
{
    static const char *const unpriced[] = {"a40", "a100-pcie-40gb", "a100-sxm4-40gb", "v100-sxm2-32gb", "t4",
                                           "a10", "a30", "mi250x", "mi300x"};
    static const struct {
        const char *id, *mem;
        double tdp_w;
    } a100[] = {{"a100-pcie-40gb", "HBM2", 250}, {"a100-pcie-80gb", "HBM2e", 300},
                {"a100-sxm4-40gb", "HBM2", 400}, {"a100-sxm4-80gb", "HBM2e", 400}};
    ridge_gpu g, s;
    ridge_err err = {{0}};
    for (size_t i = 0; i < ridge_catalog_count(); i++) {
        check_context(ridge_catalog_id(i));
        if (!CHECK_INT(ridge_catalog_load(ridge_catalog_id(i), &g, &err), RIDGE_OK))
            continue;
        if (g.price_usd_per_hour > 0)
            CHECK(g.price_kind[0] && g.price_date[0] && g.price_source[0]);
        if (g.die_area_mm2 > 0)
            CHECK(g.transistors > 0 && g.process[0] && g.foundry[0] && g.chip[0]);
    }
    for (size_t i = 0; i < sizeof unpriced / sizeof unpriced[0]; i++) {
        check_context(unpriced[i]);
        if (CHECK_INT(ridge_catalog_load(unpriced[i], &g, &err), RIDGE_OK))
            CHECK(g.price_usd_per_hour == 0 && g.price_spot_usd_per_hour == 0);
    }
    for (size_t i = 0; i < sizeof a100 / sizeof a100[0]; i++) {
        check_context(a100[i].id);
        if (!CHECK_INT(ridge_catalog_load(a100[i].id, &g, &err), RIDGE_OK))
            continue;
        CHECK_STR_EQ(g.memory_type, a100[i].mem);
        CHECK_NEAR(g.tdp_w, a100[i].tdp_w, 0);
        CHECK_STR_EQ(g.chip, "GA100");
        CHECK_NEAR(g.die_area_mm2, 826, 0);
        CHECK_NEAR(g.transistors, 54.2e9, 1e-12);
        CHECK_INT(g.rt_cores, RIDGE_GPU_NONE);
        CHECK_INT(g.ecc, 0); /* unknown: no source in shared/gpu-specs.md */
    }
    check_context("a40 facts");
    if (CHECK_INT(ridge_catalog_load("a40", &g, &err), RIDGE_OK)) {
        CHECK_INT(g.rt_cores, 84);
        CHECK_INT(g.ecc, 1);
        CHECK_STR_EQ(g.foundry, "Samsung");
    }
    check_context("MIG slice price share");
    if (CHECK_INT(ridge_catalog_load("a100-sxm4-80gb", &g, &err), RIDGE_OK) &&
        CHECK_INT(ridge_catalog_load("a100-sxm4-80gb:2g.20gb", &s, &err), RIDGE_OK)) {
        CHECK_NEAR(s.price_usd_per_hour, g.price_usd_per_hour * 2 / 7, 1e-12);
        CHECK_NEAR(s.price_spot_usd_per_hour, g.price_spot_usd_per_hour * 2 / 7, 1e-12);
        CHECK_INT(s.mig_compute_slices, 2);
        CHECK_INT(s.mig_compute_total, 7);
        CHECK_STR_EQ(s.price_source, g.price_source);
        CHECK_STR_EQ(s.price_date, g.price_date);
        CHECK_INT(g.mig_compute_slices, 0);
    }
    check_context(NULL);
}

/* Price dates: a month and a day that month has, 29 February in leap years only. */
static void test_price_dates(void)
{
    const char *good[] = {"2026", "2026-03", "2026-12-31", "2024-02-29", "2000-02-29", "2026-04-30"};
    const char *bad[] = {"", "26", "2026-13", "2026-00", "2026-02-30", "2025-02-29", "1900-02-29",
                         "2026-04-31", "2026-03-00", "2026-3-1", "2026/03", NULL};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        if (!CHECK(ridge_price_date_valid(good[i])))
            fprintf(stderr, "  %s refused\n", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (!CHECK(!ridge_price_date_valid(bad[i])))
            fprintf(stderr, "  %s accepted\n", bad[i] ? bad[i] : "NULL");
}

int main(void)
{
    test_price_dates();
    size_t len = 0;
    char *base = read_text(RIDGE_TEST_DATA_DIR "/valid.json", &len);
    if (!CHECK(base != NULL))
        return check_report();
    test_base_values(base, len);
    test_parse_edges(base, len);
    test_mutations(base);
    test_texts(base, len);
    test_one_line_errors();
    test_fraction_by_peak(base);
    test_catalog_all();
    test_catalog_device_names();
    test_known_values();
    test_catalog_prices_and_die();
    test_pcie();
    test_catalog_errors();
    test_load_file();
    test_edit_distance();
    test_peak_names();
    free(base);
    return check_report();
}
