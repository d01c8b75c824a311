#!/usr/bin/env bash
# Fit the per-GPU efficiency files of validation/calibrated/ from microbenchmark-type records only
# (docs/validation.md, "Calibration on these files, and the transfer test"), then run the transfer test.
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   validation/calibrate_all.sh [RIDGE_BINARY]      (default build/cli/ridge; run from the source root)
#
# Writes validation/calibrated/GPU.json and prints each fit's report and the transfer table.
set -euo pipefail
ridge=${1:-build/cli/ridge}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=validation/calibrated
mkdir -p "$out"
H200=validation/data/h200-2026-11-29.json
AIC=validation/data/aiconfigurator-gemm.json
PUB=validation/data/published-microbench.json
fractions="--fit fraction_by_peak.fp32 --fit fraction_by_peak.tf32 --fit fraction_by_peak.fp16_fp32acc
           --fit fraction_by_peak.bf16 --fit fraction_by_peak.fp8 --fit fraction_by_peak.int8"

echo "== h200-sxm-141gb: run a's copy, GEMM peaks and sweeps, elementwise adds of 50 us or more"
# The GEMMs by precision: the int8 record (torch._int_mm, row-major B) runs as DP4A on the FP32
# lanes, so it would fit the SGEMM share (docs/model.md §2, "int8 outside TN"); it is held out.
# shellcheck disable=SC2086
"$ridge" calibrate --gpu h200-sxm-141gb "$H200" -o "$out/h200-sxm-141gb.json" --min-time 50e-6 \
    --train 'h200-2026-11-29/a/d2d_copy' --train 'h200-2026-11-29/a/bf16_*x*x*' \
    --train 'h200-2026-11-29/a/fp16_*x*x*' --train 'h200-2026-11-29/a/tf32_*x*x*' \
    --train 'h200-2026-11-29/a/fp32_*x*x*' --train 'h200-2026-11-29/a/fp8_*x*x*' \
    --train 'h200-2026-11-29/a/add_fp32_*' --fit dram_fraction $fractions

# AIConfigurator: half the n values train, the other half is held out.
aic_train() {
    local gpu=$1 n
    for n in 128 512 1536 3072 5120 8192 12288 51200; do
        printf -- '--train aiconfigurator-gemm/%s/*/*x%sx* ' "$gpu" "$n"
    done
}
for pair in h100-sxm5-80gb:h100_sxm l40s:l40s; do
    id=${pair%%:*} short=${pair#*:}
    echo "== $id: AIConfigurator GEMMs of 20 us or more, n in {128, 512, 1536, 3072, 5120, 8192, 12288, 51200}"
    # shellcheck disable=SC2046
    "$ridge" calibrate --gpu "$id" "$AIC" -o "$out/$id.json" --min-time 20e-6 $(aic_train "$short") \
        --fit dram_fraction --fit fraction_by_peak.bf16 --fit fraction_by_peak.fp8
done

# Published microbenchmarks: the mamf-finder GEMM peaks (stas00/ml-engineering) and the gpu-stream
# triad and scale rows train; read and init are held out. The busy-gemm rows (bewantbe) are held
# out too: their A40 FP16 and TF32 figures (40 TFLOPS each) contradict the A40 BF16 GEMM measured at
# 122.3 TFLOPS in shared/gpu-specs.md §8.
for id in a100-sxm4-80gb a100-sxm4-40gb a40 v100-sxm2-32gb h100-pcie-80gb l40; do
    echo "== $id: published-microbench.csv (GEMM rows, gpu-stream triad and scale)"
    # The training ids, and the peak share each GEMM row's precision informs.
    args=$(python3 - "$PUB" "$id" model/gpus/"$id".json <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
peaks = json.load(open(sys.argv[3]))["peak_dense_flops_per_s"]
share = {"bf16": "bf16", "fp16": "fp16_fp32acc", "tf32": "tf32", "fp32": "fp32", "fp8": "fp8",
         "fp64": "fp64_tensor" if peaks.get("fp64_tensor") else "fp64"}
out = ["--fit", "dram_fraction"]
for m in d["measurements"]:
    c = m["config"]
    if c.get("gpu") != sys.argv[2]:
        continue
    op = c["op"]
    mamf = op["op"] == "gemm" and "ml-engineering" in c.get("source", "")
    if mamf or (op["op"] == "elementwise" and op["inputs"] >= 1):
        out += ["--train", m["id"]]
    if mamf and "fraction_by_peak." + share[op["dtype"]] not in out:
        out += ["--fit", "fraction_by_peak." + share[op["dtype"]]]
print(" ".join(out))
EOF
)
    # shellcheck disable=SC2086
    "$ridge" calibrate --gpu "$id" "$PUB" -o "$out/$id.json" $args
done

echo "== transfer: fit on one GPU, predict another with its efficiency block"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
transfer() { # CALIBRATED_ID TARGET_ID FILE MIN_TIME
    python3 validation/transfer_efficiency.py "$out/$1.json" "model/gpus/$2.json" -o "$tmp/$2-from-$1.json"
    printf 'fit on %s, predict %s\n' "$1" "$2"
    "$ridge" validate "$3" --gpu-file "$tmp/$2-from-$1.json" --min-time "$4" --only kernels --summary |
        grep -E "^family +$2 |^gpu +$2 "
}
transfer h100-sxm5-80gb h200-sxm-141gb "$H200" 50e-6
transfer h100-sxm5-80gb l40s "$AIC" 20e-6
transfer h200-sxm-141gb h100-sxm5-80gb "$AIC" 20e-6
