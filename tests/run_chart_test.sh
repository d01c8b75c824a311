#!/usr/bin/env bash
# ridge charts from the CLI (CTest: cli_charts): the .dat and .gp of the validate scatter (a panel
# per unit, the ratio column), the plan Pareto chart (one label per front point) and the serve
# sweep of an LLM (end-to-end, TTFT and TPOT panels with the objective lines). Never renders.
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   tests/run_chart_test.sh RIDGE_BINARY SOURCE_DIR
set -u
export LC_ALL=C
. "$(dirname "${BASH_SOURCE[0]}")/check.sh"
check_usage 2 "RIDGE_BINARY SOURCE_DIR" "$@"
ridge=$1 src=$2 tmp=$(mktemp -d) n=0 failed=0 # counted by check (tests/check.sh)
trap 'rm -rf "$tmp"' EXIT
[ -x "$ridge" ] || { echo "$0: $ridge is not an executable" >&2; exit 2; }
export RIDGE_GNUPLOT=

# --- validate --chart scatter: a panel per unit of the cases, the ratio = predicted / measured
files=("$src/validation/published/published-dev.json" "$src/validation/data/published-microbench.json")
"$ridge" validate "${files[@]}" --format csv >"$tmp/v.csv"
"$ridge" validate "${files[@]}" --chart scatter -o "$tmp/v.png" >/dev/null 2>&1
check "validate scatter exits 0" [ $? -eq 0 ]
units=$(awk -F, 'NR > 1 { print $8 }' "$tmp/v.csv" | sort -u | wc -l)
check "validate scatter: one panel per unit ($units)" \
    [ "$(grep -c '^# ---- panel ' "$tmp/v.gp")" -eq "$units" ]
check "validate scatter: the ratio against the measured value" grep -q 'using 2:4 with points' "$tmp/v.gp"
check "validate scatter: every case in the .dat" \
    [ "$(grep -c '^[0-9]' "$tmp/v.dat")" -eq "$(($(wc -l <"$tmp/v.csv") - 1))" ]
check "validate scatter: column 4 is predicted / measured" \
    awk '/^[0-9]/ { r = $3 / $2; if ((r - $4) / $4 > 1e-6 || ($4 - r) / $4 > 1e-6) bad = 1 } END { exit bad }' "$tmp/v.dat"

# --- plan --chart pareto: one label per front point, "GPU ×count, batch b"
"$ridge" plan --workload resnet50 --gpus a40,a100-sxm4-80gb --counts 1,2,4,8 --batches 64,128 --samples 1e7 \
    --price a40=0.5 --price a100-sxm4-80gb=1.2 --chart pareto -o "$tmp/p.svg" >"$tmp/p.out" 2>/dev/null
check "plan pareto exits 0" [ $? -eq 0 ]
front=$(grep -c ' GPUs  batch ' "$tmp/p.out")
check "plan pareto: a front ($front points)" [ "$front" -gt 1 ]
check "plan pareto: one label per front point" [ "$(grep -c "^set label '" "$tmp/p.gp")" -eq "$front" ]
# each front row of stdout ("a100-sxm4-80gb bf16 8 GPUs batch 128") has its label ("a100 ×8, batch 128")
while read -r gpu _ count _ _ batch _; do
    check "plan pareto: label of ${gpu%%-*} x$count batch $batch" \
        grep -q "^set label '${gpu%%-*} ×$count, batch $batch' at graph" "$tmp/p.gp"
done < <(grep ' GPUs  batch ' "$tmp/p.out")

# --- plan --chart breakdown: each bound's layer in the roofline's colour of that bound
"$ridge" plan --workload resnet50 --gpus a40,a100-sxm4-80gb --counts 1 --batches 64,128 --samples 1e7 \
    --chart breakdown -o "$tmp/b.svg" >/dev/null 2>&1
check "plan breakdown exits 0" [ $? -eq 0 ]
"$ridge" roofline --gpu a100-sxm4-80gb --workload resnet50 --mode train --batch 64 -o "$tmp/r.svg" >/dev/null 2>&1
for pair in 2:compute 3:DRAM 4:L2; do
    rgb=$(grep -o "lc rgb '#[0-9a-f]*' title 'predicted, ${pair#*:}-bound'" "$tmp/r.gp" | cut -d"'" -f2)
    check "plan breakdown: ${pair#*:}-bound in the roofline's colour ($rgb)" \
        grep -q "dat using ${pair%%:*}[^ ]* lc rgb '$rgb' " "$tmp/b.gp"
done

# --- serve --sweep-rate on an LLM: end-to-end latency, TTFT and TPOT panels, the objectives
"$ridge" serve --gpu a100-sxm4-80gb --workload llama2-7b --prompt 512 --output 64 --sweep-rate 0.5:4:3 \
    --slo-ttft-p99-ms 1000 --slo-tpot-ms 60 -o "$tmp/s.svg" >/dev/null 2>&1
check "serve LLM sweep exits 0" [ $? -eq 0 ]
check "serve LLM sweep: three panels" grep -q 'set multiplot layout 3,1' "$tmp/s.gp"
for q in mean p50 p99; do
    check "serve LLM sweep: TTFT $q" grep -q "^# \[index [0-9]*\] a100-sxm4-80gb TTFT $q (panel 1: " "$tmp/s.dat"
    check "serve LLM sweep: TPOT $q" grep -q "^# \[index [0-9]*\] a100-sxm4-80gb TPOT $q (panel 2: " "$tmp/s.dat"
done
check "serve LLM sweep: the TTFT objective in its panel" grep -q '^# horizontal line: y = 1000 (panel 1)' "$tmp/s.dat"
check "serve LLM sweep: the TPOT objective in its panel" grep -q '^# horizontal line: y = 60 (panel 2)' "$tmp/s.dat"
# one row per rate in the TTFT p99 block
check "serve LLM sweep: TTFT p99 rows" \
    [ "$(awk '/TTFT p99/ { on = 1; next } /^#/ { on = 0 } on && NF' "$tmp/s.dat" | wc -l)" -eq 3 ]
# --- a queue model keeps one panel
"$ridge" serve --gpu a40 --workload resnet50 --sweep-rate 100:1000:3 --slo-p99-ms 20 -o "$tmp/q.svg" >/dev/null 2>&1
check "serve queue sweep: one panel" bash -c "! grep -q multiplot '$tmp/q.gp'"
check "serve queue sweep: the p99 objective" grep -q '^# horizontal line: y = 20 (panel 0)' "$tmp/q.dat"

# --- names from files never become gnuplot commands: a model, operator-list or GPU file whose name
# holds a line break and `system "touch X"` (fuzz9: the raw name in the .gp's first comment ran it).
# Rendered when gnuplot is around (the command would run then); the .gp is checked either way.
pwned="$tmp/X"
inj="x\\nsystem \\\"touch $pwned\\\"\\n# \\\\"  # JSON: x, a line break, system "touch X", a break, #, a backslash
renamed() { # FILE OLD_NAME NEW_NAME (JSON-escaped; sed's replacement takes backslashes doubled)
    sed "s|\"name\": \"$2\"|\"name\": \"${3//\\/\\\\}\"|" "$1"
}
renamed "$src/workloads/resnet50.json" resnet50 "$inj" >"$tmp/inj-model.json"
renamed "$src/workloads/examples/transformer-layer.json" llama2-7b-layer-prefill-2048 "$inj" >"$tmp/inj-ops.json"
renamed "$src/model/gpus/a40.json" "NVIDIA A40" "g'$inj" >"$tmp/inj-gpu.json"
check "injection: the model file is named so" grep -q 'system \\"touch' "$tmp/inj-model.json"
inert() { # WHAT GP: exit 0, X not created, no line of the .gp starting with system, no comment ending in '\'
    check "$1: exits 0" [ "$rc" -eq 0 ]
    check "$1: the command did not run" [ ! -e "$pwned" ]
    check "$1: no line of the .gp starts with system" bash -c "! grep -q '^system' '$2'"
    check "$1: no comment line of the .gp ends in a backslash" bash -c "! grep -q '^#.*\\\\\$' '$2'"
    check "$1: the name is in the .gp's first line" bash -c "head -1 '$2' | grep -q 'system \"touch'"
    rm -f "$pwned"
}
env -u RIDGE_GNUPLOT "$ridge" roofline --gpu a40 --workload "$tmp/inj-model.json" -o "$tmp/i1.png" >/dev/null 2>&1
rc=$?; inert "roofline of a model file" "$tmp/i1.gp"
env -u RIDGE_GNUPLOT "$ridge" roofline --gpu a40 --workload "$tmp/inj-ops.json" -o "$tmp/i2.png" >/dev/null 2>&1
rc=$?; inert "roofline of an operator list" "$tmp/i2.gp"
env -u RIDGE_GNUPLOT "$ridge" roofline --gpu-file "$tmp/inj-gpu.json" --gpu a100-sxm4-80gb --workload resnet50 \
    -o "$tmp/i3.png" >/dev/null 2>&1
rc=$?; inert "roofline of a GPU file" "$tmp/i3.gp"
env -u RIDGE_GNUPLOT "$ridge" plan --workload "$tmp/inj-model.json" --gpus a40 --price a40=1 --samples 1e6 \
    --chart pareto -o "$tmp/i4.png" >/dev/null 2>&1
rc=$?
check "plan pareto of a model file: exits 0" [ "$rc" -eq 0 ]
check "plan pareto of a model file: the command did not run" [ ! -e "$pwned" ]
check "plan pareto of a model file: no line starts with system" bash -c "! grep -q '^system' '$tmp/i4.gp'"
# A chart path with a line break could not be named in the script: exit 2, nothing written.
"$ridge" roofline --gpu a40 -o "$tmp/a
b.png" >/dev/null 2>"$tmp/err"
check "a chart path with a line break: exit 2" [ $? -eq 2 ]
check "a chart path with a line break: one line" [ "$(wc -l <"$tmp/err")" -eq 1 ]
check "a chart path with a line break: nothing written" [ "$(ls "$tmp" | grep -c '^a')" -eq 0 ]

# --- a plan chart with nothing to draw is bad input (exit 2, one line, no file), as gnuplot would
# fail on its empty ranges: no feasible configuration (no price, a power cap), none with a cost,
# no candidate that fits a batch.
nothing() { # WHAT WANT ARGS...
    local what=$1 want=$2
    shift 2
    "$ridge" plan "$@" -o "$tmp/none.png" >/dev/null 2>"$tmp/err"
    local rc=$?
    check "$what: exit 2 (got $rc)" [ $rc -eq 2 ]
    check "$what: one line" [ "$(wc -l <"$tmp/err")" -eq 1 ]
    check "$what: says $want" grep -q -- "$want" "$tmp/err"
    check "$what: nothing written" [ "$(ls "$tmp" | grep -c '^none')" -eq 0 ]
}
nothing "pareto without a price" "no feasible configuration (infeasible: 1, no price 1); nothing to chart" \
    --workload resnet50 --gpus a40 --samples 1e6 --chart pareto
nothing "pareto over the power cap" "infeasible: 1, over power cap 1" \
    --workload resnet50 --gpus a40 --samples 1e6 --price a40=1 --power-cap-w 1 --chart pareto
nothing "pareto of time without a price" "none has a cost" \
    --workload resnet50 --gpus a40 --samples 1e6 --objective time --chart pareto
for ch in pareto throughput-batch breakdown gpus; do
    nothing "$ch where nothing fits" "nothing to chart" --workload llama2-70b --gpus t4 --price t4=1 --samples 1e6 \
        --chart $ch
done

echo "$n checks, $failed failed"
[ "$failed" -eq 0 ]
