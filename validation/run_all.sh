#!/usr/bin/env bash
# run_all.sh - build and run ridge's validation suite on one NVIDIA GPU.
#
#   bash validation/run_all.sh [OUTDIR]
#
# OUTDIR defaults to $OUT when set, else ./validation-out.  About 8 minutes
# on an H200: build (~0.5 min), CUDA microbenchmarks (~2.5 min), PyTorch
# end-to-end (~4 min).  Every part runs in its own process under a hard
# time limit; a part that fails or times out is recorded and the run goes on.
#
# OUTDIR receives four files:
#   measurements.json  every measurement, merged (docs/validation.md)
#   summary.txt        the table printed at the end
#   run.log            everything printed
#   parts.tar.gz       the raw part files, logs and nvidia-smi snapshots
#
# Environment (all optional):
#   RIDGE_CUDA_ARCH       nvcc -arch value, default sm_90 (e.g. sm_80, native)
#   RIDGE_BUILD           nvcc (default: plain nvcc, parallel) or cmake
#   RIDGE_QUICK=1         smoke run: tiny sizes, a minute or two in all
#   RIDGE_SKIP_CUDA=1     skip the CUDA microbenchmarks
#   RIDGE_SKIP_TORCH=1    skip the PyTorch timings
#   RIDGE_CUDA_GROUPS     subset, e.g. "bandwidth gemm"
#   RIDGE_TORCH_FAMILIES  subset, e.g. "llama lstm"
#   RIDGE_TOTAL_BUDGET_S  overall budget in seconds (default 480): a part
#                         gets at most what is left, none starts without 20 s
#   RIDGE_PYTHON          the python that has torch (default python3)
#   NVCC                  the nvcc to use (default: PATH, then /usr/local/cuda)

set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUTDIR=${1:-${OUT:-./validation-out}}
ARCH=${RIDGE_CUDA_ARCH:-sm_90}
BUILD=${RIDGE_BUILD:-nvcc}
QUICK=${RIDGE_QUICK:-0}
TOTAL_BUDGET=${RIDGE_TOTAL_BUDGET_S:-480}
PY=${RIDGE_PYTHON:-python3}
CUDA_GROUPS=${RIDGE_CUDA_GROUPS:-bandwidth flops gemm gemm_sweep launch copy small}
TORCH_FAMILIES=${RIDGE_TORCH_FAMILIES:-resnet conv bert gpt2 llama lstm}
CMD="bash $0${*:+ $*}"

# Soft budgets (seconds) the programs pace themselves to; the hard limit of
# each part adds room for process start-up and the item in flight.
cuda_soft() {
    case $1 in
    bandwidth) echo 25 ;; flops) echo 10 ;; gemm) echo 35 ;;
    gemm_sweep) echo 50 ;; launch) echo 10 ;; copy) echo 15 ;; small) echo 10 ;;
    *) echo 20 ;;
    esac
}
torch_soft() {
    case $1 in
    resnet) echo 70 ;; conv) echo 25 ;; bert) echo 40 ;; gpt2) echo 25 ;;
    llama) echo 50 ;; lstm) echo 20 ;; *) echo 30 ;;
    esac
}

mkdir -p "$OUTDIR" || { echo "run_all: cannot create $OUTDIR" >&2; exit 1; }
OUTDIR=$(cd "$OUTDIR" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ridge-validation.XXXXXX") || exit 1
PARTS=$WORK/parts
mkdir -p "$PARTS" "$WORK/build"
MANIFEST=$PARTS/parts.tsv
printf 'name\tkind\tfile\texit_status\telapsed_s\ttimed_out\tnote\n' >"$MANIFEST"
T_START=$(date +%s)
STARTED=$(date -u +%Y-%m-%dT%H:%M:%SZ)

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
left() { echo $((TOTAL_BUDGET - ($(date +%s) - T_START))); }
json_str() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }

# shellcheck disable=SC2317  # find_nvcc and build_cuda also run via bash -c
find_nvcc() {
    if [ -n "${NVCC:-}" ]; then echo "$NVCC"; return; fi
    if command -v nvcc >/dev/null 2>&1; then command -v nvcc; return; fi
    if [ -x /usr/local/cuda/bin/nvcc ]; then echo /usr/local/cuda/bin/nvcc; return; fi
    echo ""
}

snapshot() { # $1: file.  Line 1 the fields, line 2 the values of GPU 0.
    local f="name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.draw,power.limit,temperature.gpu,memory.total,pstate"
    command -v nvidia-smi >/dev/null 2>&1 || return 0
    { echo "$f"; nvidia-smi --query-gpu="$f" --format=csv,noheader,nounits 2>/dev/null | head -n 1; } >"$1"
}

record() { # name kind file rc elapsed timed_out note
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "${7:-}" >>"$MANIFEST"
}

# run_part NAME KIND FILE LIMIT_S CMD...: run under a hard limit, log, record
run_part() {
    local name=$1 kind=$2 file=$3 limit=$4 t0 rc el to=0
    shift 4
    t0=$(now)
    echo "== [$name] limit ${limit} s: $*"
    timeout --kill-after=10 "$limit" "$@" 2>&1 | tee "$PARTS/$name.log"
    rc=${PIPESTATUS[0]}
    el=$(since "$t0")
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        to=1
        echo "== [$name] TIMED OUT after ${el} s (limit ${limit} s)"
    else
        echo "== [$name] exit status $rc after ${el} s"
    fi
    record "$name" "$kind" "$file" "$rc" "$el" "$to"
}

# budget_for SOFT MARGIN NAME KIND FILE: prints "soft hard" or records a skip
budget_for() {
    local soft=$1 margin=$2 rem
    rem=$(($(left) - 15)) # keep time for merging
    if [ "$rem" -lt 20 ]; then
        record "$3" "$4" "$5" "" 0 0 "skipped: overall time budget exhausted"
        echo "== [$3] skipped: overall time budget exhausted" >&2
        return 1
    fi
    if [ $((soft + margin)) -gt "$rem" ]; then
        soft=$((rem - margin)); [ "$soft" -lt 5 ] && soft=5
        echo "$soft $rem"
    else
        echo "$soft $((soft + margin))"
    fi
}

# shellcheck disable=SC2317
build_cuda() {
    local nvcc bin=$WORK/build/ridge-bench-cuda f o rc=0 pids=()
    nvcc=$(find_nvcc)
    if [ -z "$nvcc" ]; then echo "run_all: nvcc not found" >&2; return 1; fi
    echo "run_all: building with $nvcc -arch=$ARCH ($BUILD)"
    "$nvcc" --version | tail -n 2
    if [ "$BUILD" = cmake ]; then
        local carch=${ARCH#sm_}
        cmake -S "$HERE" -B "$WORK/build/cmake" -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_CUDA_COMPILER="$nvcc" \
            -DRIDGE_BENCH_CUDA_ARCHITECTURES="$carch" || return 1
        cmake --build "$WORK/build/cmake" -j "$(nproc 2>/dev/null || echo 4)" \
            --target ridge-bench-cuda || return 1
        cp "$WORK/build/cmake/ridge-bench-cuda" "$bin" || return 1
    else
        mkdir -p "$WORK/build/obj"
        for f in "$HERE"/cuda/*.cu; do
            case $(basename "$f") in test_*) continue ;; esac
            o=$WORK/build/obj/$(basename "$f" .cu).o
            (cd "$HERE/cuda" &&
                "$nvcc" -arch="$ARCH" -O3 -Xcompiler -Wall -c "$(basename "$f")" -o "$o") \
                >"$o.log" 2>&1 &
            pids+=($!)
        done
        for f in "${pids[@]}"; do wait "$f" || rc=1; done
        cat "$WORK"/build/obj/*.log 2>/dev/null
        [ "$rc" -eq 0 ] || return 1
        "$nvcc" -arch="$ARCH" -o "$bin" "$WORK"/build/obj/*.o -lcublasLt -lcublas || return 1
    fi
    "$bin" --version
}

main() {
    local g fam b soft hard quick_flag="" bin=$WORK/build/ridge-bench-cuda rc
    [ "$QUICK" != 0 ] && quick_flag=--quick
    echo "run_all: ridge validation suite, output $OUTDIR, work $WORK"
    echo "run_all: started $STARTED on $(uname -n), budget ${TOTAL_BUDGET} s${quick_flag:+, quick}"
    snapshot "$PARTS/nvsmi-start.txt"
    if command -v nvidia-smi >/dev/null 2>&1; then
        nvidia-smi -q >"$PARTS/nvidia-smi-q.txt" 2>&1
        nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,temperature.gpu --format=csv
    else
        echo "run_all: nvidia-smi not found"
    fi

    if [ "${RIDGE_SKIP_CUDA:-0}" = 0 ]; then
        local t0
        t0=$(now)
        echo "== [build] ridge-bench-cuda"
        export -f find_nvcc build_cuda
        export HERE WORK ARCH BUILD
        NVCC=${NVCC:-} timeout 300 bash -c build_cuda 2>&1 | tee "$PARTS/build.log"
        rc=${PIPESTATUS[0]}
        record build build - "$rc" "$(since "$t0")" "$([ "$rc" -eq 124 ] && echo 1 || echo 0)"
        if [ "$rc" -ne 0 ] || [ ! -x "$bin" ]; then
            echo "== [build] FAILED (status $rc): CUDA microbenchmarks skipped"
            for g in $CUDA_GROUPS; do
                record "cuda-$g" cuda "cuda-$g.json" "" 0 0 "skipped: build failed"
            done
        else
            for g in $CUDA_GROUPS; do
                b=$(budget_for "$(cuda_soft "$g")" 20 "cuda-$g" cuda "cuda-$g.json") || continue
                read -r soft hard <<<"$b"
                run_part "cuda-$g" cuda "cuda-$g.json" "$hard" \
                    "$bin" --only "$g" --budget-s "$soft" $quick_flag \
                    --out "$PARTS/cuda-$g.json"
            done
        fi
    fi

    if [ "${RIDGE_SKIP_TORCH:-0}" = 0 ]; then
        if ! "$PY" -c "import torch" >/dev/null 2>&1; then
            echo "== [torch] $PY cannot import torch: PyTorch timings skipped"
            for fam in $TORCH_FAMILIES; do
                record "torch-$fam" torch "torch-$fam.json" "" 0 0 "skipped: $PY cannot import torch"
            done
        else
            "$PY" -c "import torch; print('run_all: torch', torch.__version__, 'cuda', torch.version.cuda, 'available', torch.cuda.is_available())"
            for fam in $TORCH_FAMILIES; do
                b=$(budget_for "$(torch_soft "$fam")" 40 "torch-$fam" torch "torch-$fam.json") || continue
                read -r soft hard <<<"$b"
                run_part "torch-$fam" torch "torch-$fam.json" "$hard" \
                    "$PY" "$HERE/torch/bench_torch.py" --only "$fam" \
                    --budget-s "$soft" $quick_flag --out "$PARTS/torch-$fam.json"
            done
        fi
    fi

    snapshot "$PARTS/nvsmi-end.txt"
    local info
    info="{\"outdir\":$(json_str "$OUTDIR"),\"cuda_arch\":$(json_str "$ARCH"),\"build\":$(json_str "$BUILD"),\"quick\":$([ "$QUICK" != 0 ] && echo true || echo false),\"total_budget_s\":$TOTAL_BUDGET,\"cuda_groups\":$(json_str "$CUDA_GROUPS"),\"torch_families\":$(json_str "$TORCH_FAMILIES"),\"python\":$(json_str "$PY")}"
    echo "== [merge] $OUTDIR/measurements.json"
    rc=0
    "$PY" "$HERE/collect.py" merge --parts "$PARTS" --out "$OUTDIR/measurements.json" \
        --summary "$OUTDIR/summary.txt" --command "$CMD" --started "$STARTED" \
        --elapsed-s "$(($(date +%s) - T_START))" --run-info "$info" || rc=1
    [ "$rc" -eq 0 ] || echo "run_all: merge FAILED; the raw parts are in parts.tar.gz"
    tar -czf "$OUTDIR/parts.tar.gz" -C "$WORK" parts || rc=1
    echo "run_all: done in $(($(date +%s) - T_START)) s; results in $OUTDIR"
    # non-zero when anything failed, timed out or did not check out
    if [ "$rc" -eq 0 ] && ! "$PY" - "$OUTDIR/measurements.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
sys.exit(0 if s["errors"] == 0 and s["failed_checks"] == 0 else 1)
EOF
    then
        rc=1
    fi
    return "$rc"
}

main 2>&1 | tee "$OUTDIR/run.log"
status=${PIPESTATUS[0]}
rm -rf "$WORK"
exit "$status"
