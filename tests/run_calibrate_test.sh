#!/usr/bin/env bash
# ridge calibrate end to end: tests/run_calibrate_test.sh RIDGE_BINARY SYNTHETIC.json
# SYNTHETIC.json is written by test_calibrate (a "true" H200 with moved efficiency parameters
# predicting a ridge-bench-cuda-shaped file). Calibrating from the defaults must write a GPU file
# that loads, and with it `ridge validate` must find the held-out and training cases near exact.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
export LC_ALL=C
ridge=$1
data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # message, command...
    local msg=$1
    shift
    if ! "$@"; then
        echo "FAIL: $msg" >&2
        fail=1
    fi
}
"$ridge" calibrate --gpu h200-sxm-141gb "$data" -o "$tmp/cal.json" >"$tmp/report.txt" 2>"$tmp/err.txt"
check "calibrate exits 0 ($(cat "$tmp/err.txt"))" test $? -eq 0
check "report names the held-out set" grep -q '^held-out cases' "$tmp/report.txt"
check "report lists a fitted bf16 fraction" grep -Eq '^fraction_by_peak\.bf16 +0\.7850 +0\.7[23][0-9]* ' "$tmp/report.txt"
check "graph_launch_s is reported as not identified" grep -Eq '^graph_launch_s .*not (fitted|identified)' "$tmp/report.txt"
# The held-out MAPE after calibration, from the "all" row of the second table: below 1 %.
after=$(awk '/^held-out cases/{h=1} h && $1=="all"{print $4; exit}' "$tmp/report.txt")
check "held-out MAPE after calibration ($after %) below 1 %" awk -v a="$after" 'BEGIN{exit !(a != "" && a < 1)}'
check "calibrated file loads" "$ridge" gpu show --gpu-file "$tmp/cal.json" --format json >"$tmp/show.json"
check "calibrated file carries fraction_by_peak" grep -q '"fraction_by_peak"' "$tmp/cal.json"
check "calibrated file says where it came from" grep -q 'ridge .* calibrate, ' "$tmp/cal.json"
check "its source gives the held-out MAPE" grep -Eq '"source":.*; held-out MAPE [0-9.]+ %"' "$tmp/cal.json"
"$ridge" validate --gpu-file "$tmp/cal.json" "$data" >"$tmp/val.txt"
check "validate with the calibrated file" test $? -eq 0
mape=$(awk '$1=="gpu" && $2=="h200-sxm-141gb"{print $4}' "$tmp/val.txt")
check "validate MAPE with the calibrated file ($mape %) below 1 %" awk -v a="$mape" 'BEGIN{exit !(a != "" && a < 1)}'
# The same file with the catalogue defaults is far off (the test data is not trivially fitted).
mape0=$("$ridge" validate "$data" | awk '$1=="gpu" && $2=="h200-sxm-141gb"{print $4}')
check "defaults are off by more than 5 % ($mape0 %)" awk -v a="$mape0" 'BEGIN{exit !(a != "" && a > 5)}'
# JSON report.
"$ridge" calibrate --gpu h200-sxm-141gb "$data" -o "$tmp/cal2.json" --format json >"$tmp/report.json"
check "json report" grep -q '"held_out_cases":' "$tmp/report.json"
check "same fit twice" cmp -s <(grep -v '"source"' "$tmp/cal.json") <(grep -v '"source"' "$tmp/cal2.json")
# --train replaces the split: fitting on the GEMMs alone leaves the bandwidth parameters alone.
"$ridge" calibrate --gpu h200-sxm-141gb --train 'gemm/*' "$data" -o "$tmp/cal3.json" >"$tmp/r3.txt"
check "--train gemm/*: dram_fraction not fitted" grep -Eq '^dram_fraction .*not (fitted|identified)' "$tmp/r3.txt"
# Every case in training: the source says there was no held-out case (it said "held-out MAPE 0.0 %").
"$ridge" calibrate --gpu h200-sxm-141gb --train '*' "$data" -o "$tmp/cal4.json" >"$tmp/r4.txt" 2>"$tmp/err4.txt"
check "--train '*' exits 0 ($(cat "$tmp/err4.txt"))" test $? -eq 0
check "--train '*': no held-out case in the report" grep -Eq '^calibration of h200-sxm-141gb: [0-9]+ training cases, 0 held out;' "$tmp/r4.txt"
check "--train '*': the source says no held-out case" grep -Eq '"source":.*; no held-out case"' "$tmp/cal4.json"
check "--train '*': the source gives no held-out MAPE" test -z "$(grep 'held-out MAPE' "$tmp/cal4.json")"
[ $fail = 0 ] && echo "calibrate end to end: ok"
exit $fail
