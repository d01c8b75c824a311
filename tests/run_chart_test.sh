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

echo "$n checks, $failed failed"
[ "$failed" -eq 0 ]
