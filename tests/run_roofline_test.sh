#!/usr/bin/env bash
# ridge roofline of a model run (CTest: roofline_model): one point per kernel with FLOPs, marker
# sizes from the kernels' shares of the step, two GPUs on one chart, and bad input that leaves
# nothing behind. The .dat is checked against `ridge predict --per-op --format csv` of the same run.
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   tests/run_roofline_test.sh RIDGE_BINARY
set -u
export LC_ALL=C
. "$(dirname "${BASH_SOURCE[0]}")/check.sh"
check_usage 1 "RIDGE_BINARY" "$@"
ridge=$1 tmp=$(mktemp -d) n=0 failed=0 # counted by check (tests/check.sh)
trap 'rm -rf "$tmp"' EXIT
[ -x "$ridge" ] || { echo "$0: $ridge is not an executable" >&2; exit 2; }

# kernel_rows DAT [GPU_INDEX]: the kernel rows of block 3 ("x y bound_index bound "label" gpu share
# size"), of one GPU when given.
kernel_rows() {
    awk -v want="${2-}" '
        /^# \[index 3\]/ { on = 1; next }
        /^# \[index 4\]/ { on = 0 }
        on && $0 !~ /^#/ && NF { split($0, q, "\""); split(q[3], t, " "); if (want == "" || t[1] == want) print }
    ' "$1"
}
# predict_flop_rows CSV: the per-op rows with FLOPs (column flops > 0).
predict_flop_rows() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["flops"] > 0' "$1"
}
# near A B TOL: |A - B| <= TOL.
near() {
    awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'
}

# Charts are not rendered here (the .dat and .gp are what is checked; test_plots renders one).
export RIDGE_GNUPLOT=

# --- one GPU: ResNet-50 training, batch 64, on an A100
run=(--workload resnet50 --mode train --batch 64)
"$ridge" roofline --gpu a100-sxm4-80gb "${run[@]}" -o "$tmp/r.svg" >"$tmp/out" 2>"$tmp/err"
check "resnet50 chart exits 0" [ $? -eq 0 ]
check "resnet50 .dat and .gp written" [ -s "$tmp/r.dat" ] && [ -s "$tmp/r.gp" ]
"$ridge" predict --gpu a100-sxm4-80gb "${run[@]}" --per-op --format csv >"$tmp/p.csv"
kernel_rows "$tmp/r.dat" >"$tmp/rows"
predict_flop_rows "$tmp/p.csv" >"$tmp/prows"
nrows=$(wc -l <"$tmp/rows") npred=$(wc -l <"$tmp/prows")
check "one point per kernel with FLOPs ($nrows drawn, $npred in predict --per-op)" [ "$nrows" -eq "$npred" ]
check "resnet50 has kernels" [ "$nrows" -gt 100 ]
# Shares: the drawn markers' shares add up to the drawn share the .dat states, which is the
# share of predict's rows with FLOPs.
sum=$(awk '{ split($0, q, "\""); split(q[3], t, " "); s += t[2] } END { printf "%.9g", s }' "$tmp/rows")
stated=$(sed -n 's/^# Drawn: [0-9]* kernels with FLOPs, \([0-9.e+-]*\) of the step.*/\1/p' "$tmp/r.dat")
psum=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["flops"] > 0 { s += $c["share"] }
                END { printf "%.9g", s }' "$tmp/p.csv")
check "drawn share stated in the .dat ($stated)" [ -n "$stated" ]
check "marker shares sum to the drawn share ($sum vs $stated)" near "$sum" "${stated:-0}" 1e-4
check "drawn share is predict's share of the kernels with FLOPs ($stated vs $psum)" near "${stated:-0}" "$psum" 1e-4
check "shares are below 1 and sizes positive" awk '{ split($0, q, "\""); split(q[3], t, " ");
    if (!(t[2] > 0 && t[2] < 1 && t[3] > 0)) exit 1 }' "$tmp/rows"
# The largest marker is the largest share's.
check "the largest share has the largest marker" awk '{ split($0, q, "\""); split(q[3], t, " ");
    if (t[2] > bs) { bs = t[2]; bz = t[3] } if (t[3] > mz) mz = t[3] } END { exit !(bz == mz) }' "$tmp/rows"
check "ops without FLOPs counted in the note" grep -q "without FLOPs (.* of the step) not shown" "$tmp/r.gp"
check "a numbered key of 5 kernels" [ "$(grep -c "^set label [0-9]* '[1-5]  " "$tmp/r.gp")" -eq 5 ]
top=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
               $c["flops"] > 0 && $c["share"] > best { best = $c["share"]; name = $c["name"] } END { print name }' "$tmp/p.csv")
check "the key names the largest kernel by share ($top)" grep -qF "set label 3 '1  $top:" "$tmp/r.gp"
check "marker area from the .dat column" grep -q ':8 with points pt 7 ps variable' "$tmp/r.gp"
check "the title names the run" grep -q "resnet50: train, batch 64, bf16" "$tmp/r.gp"

# --- two GPUs on one chart: BERT-base training on an A40 and an A100
run=(--workload bert-base --mode train)
"$ridge" roofline --gpu a40 --gpu a100-sxm4-80gb "${run[@]}" -o "$tmp/b.png" >"$tmp/out" 2>"$tmp/err"
check "two-GPU chart exits 0" [ $? -eq 0 ]
for g in 0 1; do
    id=$([ $g = 0 ] && echo a40 || echo a100-sxm4-80gb)
    "$ridge" predict --gpu $id "${run[@]}" --per-op --format csv >"$tmp/p$g.csv"
    a=$(kernel_rows "$tmp/b.dat" $g | wc -l) b=$(predict_flop_rows "$tmp/p$g.csv" | wc -l)
    check "$id: one point per kernel with FLOPs ($a drawn, $b in predict)" [ "$a" -eq "$b" ] && [ "$a" -gt 0 ]
    check "$id: its roofs in the .dat" grep -q "^\"$id BF16" "$tmp/b.dat"
    check "$id: its DRAM diagonal in the .dat" grep -q "^\"$id DRAM\"" "$tmp/b.dat"
done
check "GPUs told apart by marker shape" grep -q "a100-sxm4-80gb: roofs dash-dot, kernels triangles" "$tmp/b.gp"
check "second GPU's kernels as triangles" grep -q '\$6 == 1 ? \$2 : NaN):8 with points pt 9' "$tmp/b.gp"
check "the key gives both GPUs' shares" grep -q "^set label 3 '1  [^']*:[^|']* | " "$tmp/b.gp"
check "taller canvas for the longer legend" grep -q "size 1200,850" "$tmp/b.gp"

# --- bad input: one line on stderr, exit 2, and no chart, .dat or .gp left (an old chart kept)
echo old >"$tmp/keep.svg"
bad() {
    local why=$1 want=$2
    shift 2
    "$ridge" roofline "$@" -o "$tmp/keep.svg" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    check "$why: exit 2 (got $rc)" [ $rc -eq 2 ]
    check "$why: one line on stderr" [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ]
    check "$why: says $want" grep -Eq -- "$want" "$tmp/err"
    check "$why: nothing written" [ ! -e "$tmp/keep.dat" ] && [ ! -e "$tmp/keep.gp" ] && \
        [ "$(cat "$tmp/keep.svg")" = old ] && [ "$(ls "$tmp" | grep -c '^keep')" -eq 1 ]
}
bad "unknown model" "unknown workload 'resnet5'" --gpu a100-sxm4-80gb --workload resnet5 --mode train
bad "unknown mode" "--mode: 'sleep' is not one of" --gpu a100-sxm4-80gb --workload resnet50 --mode sleep
bad "unknown precision" "--precision: 'fp12' is not one of" --gpu a40 --gpu a100-sxm4-80gb --workload bert-base \
    --precision fp12
bad "bad batch" "--batch: 0 is out of range" --gpu a100-sxm4-80gb --workload resnet50 --batch 0
bad "precision the GPU lacks" "has no fp8 tensor path" --gpu a100-sxm4-80gb --workload resnet50 --precision fp8 \
    --mode infer
bad "three GPUs" "at most 2 GPUs" --gpu a40 --gpu a10 --gpu a100-sxm4-80gb --workload resnet50
bad "run options without a workload" "need --workload" --gpu a40 --mode train
bad "run options on an operator list" "apply to model workloads" --gpu a40 \
    --workload "$(dirname "${BASH_SOURCE[0]}")/../workloads/examples/transformer-layer.json" --batch 4
bad "measurements on two GPUs" "--measured draws on one GPU" --gpu a40 --gpu a10 \
    --measured "$(dirname "${BASH_SOURCE[0]}")/data/validate/kernels.json"

echo "$((n - failed)) of $n roofline checks passed"
[ "$failed" -eq 0 ]
