#!/usr/bin/env bash
# Input files that are pipes (CTest: cli_pipes): every input named on the command line is read
# once, so a pipe, a FIFO with a writer or bash's <(...) works wherever a regular file does
# (docs/cli.md, "Input files"). A second read of a pipe finds it empty ("malformed JSON"); a
# second open of a FIFO waits for a writer that never comes (the timeout: exit 124).
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   tests/run_pipe_test.sh RIDGE_BINARY
#
# The cases need process substitution and FIFOs, which rows of cli_cases.txt cannot express.
set -u
export LC_ALL=C RIDGE_GNUPLOT=
. "$(dirname "${BASH_SOURCE[0]}")/check.sh"
check_usage 1 "RIDGE_BINARY" "$@"
ridge=$1
[ -x "$ridge" ] || { echo "$0: $ridge is not an executable" >&2; exit 2; }
case $ridge in /*) ;; *) ridge=$PWD/$ridge ;; esac # the checks run in a directory of their own
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
cd "$tmp" || exit 2

# check MESSAGE COMMAND...: tests/check.sh.

# same_run LABEL FILE ARGS...: ridge ARGS with @IN@ the regular FILE, then with @IN@ a pipe of
# it: both exit 0 with the same stdout.
same_run() {
    local label=$1 file=$2 a
    shift 2
    local reg=() pipe=()
    for a in "$@"; do
        reg+=("${a//@IN@/$file}")
    done
    timeout 60 "$ridge" "${reg[@]}" >"$tmp/reg.out" 2>"$tmp/reg.err"
    local rc=$?
    check "$label, a regular file: exit $rc ($(head -c 200 "$tmp/reg.err"))" test $rc -eq 0
    # <(...) expands once per word: build the argument list with the pipe's path in it.
    exec 9< <(cat "$file")
    for a in "$@"; do
        pipe+=("${a//@IN@//dev/fd/9}")
    done
    timeout 60 "$ridge" "${pipe[@]}" >"$tmp/pipe.out" 2>"$tmp/pipe.err"
    rc=$?
    exec 9<&-
    check "$label, a pipe: exit $rc ($(head -c 200 "$tmp/pipe.err"))" test $rc -eq 0
    # (An output that names the input, a price's source, names it by the path it was given.)
    check "$label, a pipe: the regular file's output" \
        cmp -s <(sed "s|$file|@IN@|g" "$tmp/reg.out") <(sed "s|/dev/fd/9|@IN@|g" "$tmp/pipe.out")
}

model=$src/workloads/bert-base.json
llm=$src/workloads/gpt2.json
oplist=$src/workloads/examples/transformer-layer.json
host=$src/tests/data/host/slow_cpu.json

# --- --workload: a model file, and an operator list, in every command that takes one
same_run "predict --workload MODEL" "$model" predict --gpu h100-sxm5-80gb --workload @IN@
same_run "predict --workload OPLIST" "$oplist" predict --gpu h100-sxm5-80gb --workload @IN@
same_run "predict --workload OPLIST --format json" "$oplist" predict --gpu a40 --workload @IN@ --format json
same_run "predict --cluster --workload MODEL" "$llm" predict --cluster dgx-a100 --tp 2 --pp 1 --dp 4 \
    --microbatch 1 --global-batch 4 --workload @IN@
same_run "compare --workload MODEL" "$model" compare a40 a10 --workload @IN@
same_run "compare --workload MODEL --per-op" "$model" compare a40 a10 --workload @IN@ --per-op --top 3
same_run "serve --workload MODEL" "$llm" serve --gpu a40 --workload @IN@ --rate 2
same_run "plan --workload MODEL" "$model" plan --workload @IN@ --gpus a40,l4 --samples 1e6
same_run "roofline --workload MODEL" "$model" roofline --gpu a40 --workload @IN@ -o "$tmp/r.svg"
same_run "roofline --workload OPLIST" "$oplist" roofline --gpu a40 --workload @IN@ -o "$tmp/r.svg"

# --- --host: parsed at the option, and the runs take that profile (it was loaded again for each)
same_run "predict --host FILE" "$host" predict --gpu h200-sxm-141gb --workload llama2-7b --mode decode --host @IN@
check "predict --host a pipe: the file's profile is used" grep -q '^host profile      slow-cpu' "$tmp/pipe.out"
same_run "predict --cluster --host FILE" "$host" predict --cluster dgx-a100 --tp 2 --pp 1 --dp 4 --microbatch 1 \
    --global-batch 4 --workload gpt2 --mode decode --host @IN@
same_run "compare --host FILE" "$host" compare a40 a10 --workload gpt2 --mode decode --host @IN@
same_run "serve --host FILE" "$host" serve --gpu a40 --workload gpt2 --rate 2 --host @IN@
same_run "roofline --host FILE" "$host" roofline --gpu a40 --workload gpt2 --mode decode --host @IN@ -o "$tmp/r.svg"

# --- the other inputs: GPU files, prices, traces, plans, measurements, clusters
same_run "predict --gpu-file" "$src/model/gpus/a40.json" predict --gpu-file @IN@ --workload resnet50
same_run "compare --prices" "$src/tests/data/prices/good.txt" compare a40 t4 --workload resnet50 --prices @IN@
same_run "serve --trace" "$src/workloads/examples/requests.csv" serve --gpu a40 --workload llama2-7b --trace @IN@
same_run "plan --plan" "$src/tests/data/plan/dims.json" plan --plan @IN@
same_run "validate FILE" "$src/validation/published/published-dev.json" validate @IN@
same_run "calibrate FILE" "$src/validation/published/published-dev.json" calibrate --gpu v100-sxm2-32gb \
    --train pub0225 --fit framework_op_s @IN@ -o "$tmp/cal.json"
same_run "roofline --measured" "$src/tests/data/validate/torch-e2e-sample.json" roofline --gpu a40 --measured @IN@ \
    -o "$tmp/r.svg"
same_run "predict --cluster FILE" "$src/model/clusters/dgx-a100.json" predict --cluster @IN@ --tp 2 --pp 1 --dp 4 \
    --microbatch 1 --global-batch 4 --workload gpt2

# feed FILE FIFO: write FILE into FIFO in the background (writer: its pid), for at most 60 s: the
# timeout covers the open too, which waits for a reader.
feed() {
    timeout 60 sh -c 'cat "$1" >"$2"' sh "$1" "$2" &
    writer=$!
}

# --- a FIFO with a writer: the prices file a plan file names (it was read to check it, then again)
mkfifo "$tmp/prices.fifo"
printf '{"schema_version": 1, "workload": "bert-base", "gpus": "a40", "samples": 1e6, "prices": "%s"}\n' \
    "$tmp/prices.fifo" >"$tmp/plan.json"
feed "$src/tests/data/prices/good.txt" "$tmp/prices.fifo"
timeout 60 "$ridge" plan --plan "$tmp/plan.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
wait "$writer"
check "a plan naming a prices FIFO: exit $rc ($(head -c 200 "$tmp/err"))" test $rc -eq 0
check "a plan naming a prices FIFO: its price is used" grep -q '^  a40: 0\.44 USD/h spot' "$tmp/out"
# A workload FIFO: an operator list (it was opened to sniff it, then again to load it).
mkfifo "$tmp/w.fifo"
feed "$oplist" "$tmp/w.fifo"
timeout 60 "$ridge" predict --gpu a40 --workload "$tmp/w.fifo" >"$tmp/out" 2>"$tmp/err"
rc=$?
wait "$writer"
check "predict --workload FIFO: exit $rc ($(head -c 200 "$tmp/err"))" test $rc -eq 0
check "predict --workload FIFO: the operator list predicted" grep -q 'workload llama2-7b-layer-prefill-2048' "$tmp/out"
# A host profile FIFO that three measurements of one file name in config.host: read once, for
# all three (it was read again for each, the second open waiting for a writer).
mkfifo "$tmp/host.fifo"
python3 - "$src/validation/data/h200-2026-11-29.json" "$tmp/host.fifo" >"$tmp/m3.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ms = [m for m in d["measurements"] if "resnet50_train" in m["id"]][:3]
for m in ms:
    m["config"]["host"] = sys.argv[2]
d["measurements"] = ms
json.dump(d, sys.stdout)
PY
feed "$host" "$tmp/host.fifo"
timeout 60 "$ridge" validate "$tmp/m3.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
wait "$writer"
check "validate, a host FIFO in three measurements: exit $rc ($(head -c 200 "$tmp/err"))" test $rc -eq 0
check "validate, a host FIFO in three measurements: all three compared" grep -q '^3 cases compared$' "$tmp/out"
# A missing host file in three measurements: each skipped with the file's error.
sed "s|$tmp/host.fifo|$tmp/no-such-host.json|g" "$tmp/m3.json" >"$tmp/m3-missing.json"
timeout 60 "$ridge" validate "$tmp/m3-missing.json" >"$tmp/out" 2>"$tmp/err"
check "validate, a missing host file in three measurements: exit 0" test $? -eq 0
check "validate, a missing host file in three measurements: 3 skipped, the file named" \
    grep -q 'no-such-host\.json: cannot open' "$tmp/out"
check "validate, a missing host file in three measurements: 3 skipped" \
    grep -q '0 cases compared; 3 skipped: host profile not loaded (config.host)' "$tmp/out"

# --- errors from a pipe are the parser's, named by the pipe's path, with the file's exit code
"$ridge" predict --gpu a40 --workload <(printf '{"ops": [') >"$tmp/out" 2>"$tmp/err"
check "a malformed operator list in a pipe: exit 2" test $? -eq 2
check "a malformed operator list in a pipe: one line, the parser's ($(head -c 200 "$tmp/err"))" \
    grep -Eq '^ridge: /dev/fd/[0-9]+: line 1, column [0-9]+: malformed JSON' "$tmp/err"
"$ridge" predict --gpu a40 --workload llama2-7b --host <(echo '{"schema_version": 1, "host": {"launch_us": 1}}') \
    >"$tmp/out" 2>"$tmp/err"
check "a bad host profile in a pipe: exit 2" test $? -eq 2
check "a bad host profile in a pipe: its key named ($(head -c 200 "$tmp/err"))" \
    grep -Eq '^ridge: --host: /dev/fd/[0-9]+: \$\.host\.launch_us: unknown key$' "$tmp/err"

echo "$n pipe checks, $failed failed"
[ "$failed" -eq 0 ]
