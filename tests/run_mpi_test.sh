#!/usr/bin/env bash
# `ridge plan` under MPI with two ranks prints exactly what one process prints (CTest: plan_mpi,
# registered when RIDGE_MPI found MPI). SPDX-License-Identifier: GPL-3.0-or-later
#
#   tests/run_mpi_test.sh MPIEXEC RIDGE_BINARY
#
# The big space (110,565 configurations) spans two of cmd_plan.c's 65,536-configuration chunks,
# the second of odd length, so both the chunk loop and an uneven split between ranks are checked.
set -u
export LC_ALL=C
if [ $# -ne 2 ]; then
    echo "usage: $0 MPIEXEC RIDGE_BINARY" >&2
    exit 2
fi
mpiexec=$1 ridge=$2
[ -x "$ridge" ] || { echo "$0: $ridge is not an executable" >&2; exit 2; }

mpiargs=(-n 2)
if "$mpiexec" --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
    # Two ranks on however few cores CI has; Open MPI refuses root (CI runs as root) without these.
    mpiargs+=(--oversubscribe)
    [ "$(id -u)" = 0 ] && mpiargs+=(--allow-run-as-root)
    # No shared-memory single copy (CMA) inside containers: it needs ptrace rights they often lack.
    export OMPI_MCA_btl_vader_single_copy_mechanism=none
fi

# name | ridge plan arguments
CASES=(
    "csv | --workload resnet50 --mode train --gpus a40,a100-sxm4-80gb,h100-sxm5-80gb,l40s --counts 1..16 --batches 16,32,64 --precisions bf16,fp16 --samples 1.2e6 --deadline-hours 3 --format csv"
    "jsonl | --workload llama2-7b --mode infer --gpus a100-sxm4-80gb,h200-sxm-141gb --counts 1,2,4,8 --batches 1,4,16 --tokens 1e8 --format jsonl"
    "text | --workload resnet50 --mode train --gpus a40,a100-sxm4-80gb,h100-sxm5-80gb,l40s --counts 1..16 --batches 16,32,64 --precisions bf16,fp16 --samples 1.2e6 --objective time --top 20"
    "csv-two-chunks | --workload resnet50 --mode train --gpus a40,a100-sxm4-80gb,h100-sxm5-80gb --counts 1..4095 --batches 16,32,64 --precisions bf16,fp16,fp32 --samples 1e7 --format csv"
)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
for row in "${CASES[@]}"; do
    name=${row%% | *}
    read -ra argv <<<"${row#* | }"
    if ! "$ridge" plan "${argv[@]}" --threads 1 >"$tmp/one" 2>"$tmp/one.err"; then
        echo "FAIL $name: one process exited non-zero"; cat "$tmp/one.err"; failed=1; continue
    fi
    if ! "$mpiexec" "${mpiargs[@]}" "$ridge" plan "${argv[@]}" --threads 1 >"$tmp/two" 2>"$tmp/two.err"; then
        echo "FAIL $name: mpiexec -n 2 exited non-zero"; cat "$tmp/two.err"; failed=1; continue
    fi
    if [ ! -s "$tmp/one" ] || ! cmp -s "$tmp/one" "$tmp/two"; then
        echo "FAIL $name: two ranks differ from one process"
        diff "$tmp/one" "$tmp/two" | head -20
        failed=1
        continue
    fi
    echo "ok   $name ($(wc -l <"$tmp/one") lines)"
done

# Rank 0 cannot write its output (every rank's stdout is /dev/full): it exits 3 and mpiexec
# fails. (mpiexec's own stdout is not ridge's: Open MPI ignores write errors on it.)
if [ -w /dev/full ]; then
    read -ra argv <<<"${CASES[0]#* | }"
    "$mpiexec" "${mpiargs[@]}" sh -c 'exec "$0" "$@" >/dev/full' "$ridge" plan "${argv[@]}" --threads 1 \
        >/dev/null 2>"$tmp/full.err"
    rc=$?
    if [ $rc -eq 0 ] || ! grep -q '^ridge: standard output: write error' "$tmp/full.err"; then
        echo "FAIL full: mpiexec -n 2 with rank output to /dev/full exited $rc"; head -5 "$tmp/full.err"; failed=1
    else
        echo "ok   full (mpiexec exit $rc)"
    fi
fi
exit $failed
