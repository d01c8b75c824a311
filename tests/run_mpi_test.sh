#!/usr/bin/env bash
# `ridge plan` under MPI with two ranks prints exactly what one process prints, on one thread
# and on two (CTest: plan_mpi, registered when RIDGE_MPI found MPI); the ridge binary does not
# link libmpi, and loads ridge-mpi.so under mpirun only: from the build tree, from an installed
# prefix (CMAKE and BUILD_DIR given), and without it exits 3 with one line naming it.
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   tests/run_mpi_test.sh MPIEXEC RIDGE_BINARY [CMAKE BUILD_DIR]
#
# The big spaces (110,565 configurations) span two of cmd_plan.c's 65,536-configuration chunks,
# the second of odd length, so both the chunk loop and an uneven split between ranks are checked.
# The "ties" spaces have fp16 and bf16 of identical step times, and GPUs of the same price: rows
# that tie on the objective, time and cost, ordered by their index alone, in the top K and on the
# front (text: each rank selects its own, rank 0 merges them); "par" spaces search --tp/--pp/--zero.
set -u
export LC_ALL=C
if [ $# -ne 2 ] && [ $# -ne 4 ]; then
    echo "usage: $0 MPIEXEC RIDGE_BINARY [CMAKE BUILD_DIR]" >&2
    exit 2
fi
mpiexec=$1 ridge=$2 cmake=${3:-} build=${4:-}
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
ties="--workload resnet50 --mode train --gpus a100-sxm4-80gb,a100-sxm4-40gb,a100-pcie-80gb --counts 1..64 --batches 16,32,64,128 --precisions fp16,bf16 --samples 1.2e6 --price a100-sxm4-80gb=2 --price a100-sxm4-40gb=2 --price a100-pcie-80gb=1.5"
par="--workload gpt3-175b --mode train --gpus a100-sxm4-80gb,a100-sxm4-40gb --counts 64,128,256 --batches 1,2,4 --tp 1,2,4,8 --pp 1,2,4,8 --zero 0..3 --precisions fp16,bf16 --seq 2048 --tokens 3e9 --price a100-sxm4-80gb=2 --price a100-sxm4-40gb=2"
CASES=(
    "ties-text-time | $ties --objective time --top 25"
    "ties-text-cost | $ties --top 40 --no-comm"
    "ties-text-energy | $ties --objective energy --pareto time-energy --top 15"
    "ties-csv | $ties --format csv"
    "par-text | $par --objective time --top 12"
    "par-text-cost | $par --top 12"
    "par-csv | $par --format csv"
    "big-text | --workload resnet50 --mode train --gpus a40,a100-sxm4-80gb,h100-sxm5-80gb --counts 1..4095 --batches 16,32,64 --precisions bf16,fp16,fp32 --samples 1e7 --top 12 --price a40=1 --price a100-sxm4-80gb=2 --price h100-sxm5-80gb=4"
    "csv | --workload resnet50 --mode train --gpus a40,a100-sxm4-80gb,h100-sxm5-80gb,l40s --counts 1..16 --batches 16,32,64 --precisions bf16,fp16 --samples 1.2e6 --deadline-hours 3 --format csv"
    "jsonl | --workload llama2-7b --mode infer --gpus a100-sxm4-80gb,h200-sxm-141gb --counts 1,2,4,8 --batches 1,4,16 --tokens 1e8 --format jsonl"
    "text | --workload resnet50 --mode train --gpus a40,a100-sxm4-80gb,h100-sxm5-80gb,l40s --counts 1..16 --batches 16,32,64 --precisions bf16,fp16 --samples 1.2e6 --objective time --top 20"
    "csv-two-chunks | --workload resnet50 --mode train --gpus a40,a100-sxm4-80gb,h100-sxm5-80gb --counts 1..4095 --batches 16,32,64 --precisions bf16,fp16,fp32 --samples 1e7 --format csv"
)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
# check NAME WHAT OUT: OUT (a run's output) is byte for byte the one-process, one-thread output.
check() {
    if [ ! -s "$tmp/one" ] || ! cmp -s "$tmp/one" "$3"; then
        echo "FAIL $1: $2 differs from one process on one thread"
        diff "$tmp/one" "$3" | head -20
        failed=1
        return 1
    fi
}
for row in "${CASES[@]}"; do
    name=${row%% | *}
    read -ra argv <<<"${row#* | }"
    if ! "$ridge" plan "${argv[@]}" --threads 1 >"$tmp/one" 2>"$tmp/one.err"; then
        echo "FAIL $name: one process exited non-zero"; cat "$tmp/one.err"; failed=1; continue
    fi
    if ! "$ridge" plan "${argv[@]}" --threads 2 >"$tmp/threads" 2>"$tmp/threads.err"; then
        echo "FAIL $name: --threads 2 exited non-zero"; cat "$tmp/threads.err"; failed=1; continue
    fi
    check "$name" "--threads 2" "$tmp/threads" || continue
    # stdin from /dev/null: mpiexec forwards its standard input to rank 0
    if ! "$mpiexec" "${mpiargs[@]}" "$ridge" plan "${argv[@]}" --threads 1 </dev/null >"$tmp/two" 2>"$tmp/two.err"; then
        echo "FAIL $name: mpiexec -n 2 exited non-zero"; cat "$tmp/two.err"; failed=1; continue
    fi
    check "$name" "mpiexec -n 2" "$tmp/two" || continue
    echo "ok   $name ($(wc -l <"$tmp/one") lines; --threads 2 and mpiexec -n 2 alike)"
done
# The checks below run the first case; its one-process output again.
read -ra argv <<<"${CASES[0]#* | }"
"$ridge" plan "${argv[@]}" --threads 1 >"$tmp/one" 2>/dev/null

# The binary itself does not link libmpi: only ridge-mpi.so does, loaded under mpirun.
if command -v ldd >/dev/null; then
    if ldd "$ridge" | grep -q 'libmpi'; then
        echo "FAIL ldd: $ridge links libmpi"; ldd "$ridge" | grep libmpi; failed=1
    else
        echo "ok   ldd ($(ldd "$ridge" | grep -c '=>') shared libraries, no libmpi)"
    fi
fi

# Without the module (the binary copied where neither place has it): exit 3, one line per rank
# naming the module, nothing on stdout; outside mpirun the copy runs as one process. Each rank
# writes its line and exits 3 at once; mpiexec may kill the other rank as soon as the first exits
# non-zero, before that one's line is out (seen once in a loaded -j2 suite run), so one line or
# two, and nothing else from ridge.
mkdir -p "$tmp/nomod/bin"
cp "$ridge" "$tmp/nomod/bin/ridge"
"$mpiexec" "${mpiargs[@]}" "$tmp/nomod/bin/ridge" plan "${argv[@]}" </dev/null >"$tmp/nomod.out" 2>"$tmp/nomod.err"
rc=$?
nlines=$(grep -c '^ridge: .*/ridge-mpi\.so: .* (the MPI module, needed under mpirun)$' "$tmp/nomod.err")
nother=$(grep '^ridge: ' "$tmp/nomod.err" | grep -vc '/ridge-mpi\.so: .* (the MPI module, needed under mpirun)$')
if [ $rc -ne 3 ] || [ -s "$tmp/nomod.out" ] || [ "$nlines" -lt 1 ] || [ "$nlines" -gt 2 ] || [ "$nother" -ne 0 ]; then
    echo "FAIL nomodule: mpiexec exited $rc with $nlines module lines, $nother other ridge lines (want 3 and one line per rank)"; head -5 "$tmp/nomod.err"; failed=1
elif ! "$tmp/nomod/bin/ridge" plan "${argv[@]}" --threads 1 2>/dev/null | cmp -s - "$tmp/one"; then
    echo "FAIL nomodule: the copy outside mpirun differs from one process"; failed=1
else
    echo "ok   nomodule (mpiexec exit 3: $(head -1 "$tmp/nomod.err"))"
fi

# The installed layout: bin/ridge finds LIBDIR/ridge/ridge-mpi.so from its own directory.
if [ -n "$cmake" ]; then
    if ! "$cmake" --install "$build" --prefix "$tmp/prefix" >/dev/null; then
        echo "FAIL install: cmake --install failed"; failed=1
    elif ! (cd / && "$mpiexec" "${mpiargs[@]}" "$tmp/prefix/bin/ridge" plan "${argv[@]}" --threads 1 </dev/null \
        >"$tmp/inst" 2>"$tmp/inst.err"); then
        echo "FAIL install: the installed ridge under mpiexec -n 2 exited non-zero"; head -5 "$tmp/inst.err"; failed=1
    elif check install "the installed ridge under mpiexec -n 2" "$tmp/inst"; then
        echo "ok   install ($(cd "$tmp/prefix" && find . -name ridge-mpi.so))"
    fi
fi

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
