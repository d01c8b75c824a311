#!/usr/bin/env bash
# How ridge reads and writes files when things go wrong (CTest: cli_io): output that cannot be
# written, temporary files, charts replaced atomically, files too large to read.
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   tests/run_io_test.sh RIDGE_BINARY
#
# Needs a Linux-like /dev/full (writes fail with ENOSPC) for the write-error checks; they are
# skipped with a note where it is missing. The cases that need redirections, links or a second
# process are here; plain args | exit | message cases are rows of cli_cases.txt.
set -u
export LC_ALL=C
. "$(dirname "${BASH_SOURCE[0]}")/check.sh"
check_usage 1 "RIDGE_BINARY" "$@"
ridge=$1
[ -x "$ridge" ] || { echo "$0: $ridge is not an executable" >&2; exit 2; }
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

# check MESSAGE COMMAND...: tests/check.sh.

# one_line_error FILE REGEX: FILE is exactly one line matching REGEX.
one_line_error() {
    [ "$(wc -l <"$1")" -eq 1 ] && grep -Eq -- "$2" "$1"
}

# --- output that cannot be written: exit 3 and one line on stderr, for every way of writing
if [ -w /dev/full ]; then
    FULL_CASES=(
        "gpus"
        "gpus --format csv"
        "predict --gpu a40 --workload resnet50 --format json"
        "plan --workload bert-base --gpus a40 --counts 1,2 --batches 16 --samples 1e6 --format csv"
        "plan --workload bert-base --gpus a40 --counts 1,2 --batches 16 --samples 1e6"
        "validate $src/validation/published/published-dev.json"
        "--help"
    )
    for c in "${FULL_CASES[@]}"; do
        read -ra argv <<<"$c"
        "$ridge" "${argv[@]}" >/dev/full 2>"$tmp/err"
        rc=$?
        check "ridge $c >/dev/full: exit $rc, expected 3" test $rc -eq 3
        check "ridge $c >/dev/full: one line naming standard output ($(head -c 200 "$tmp/err"))" \
            one_line_error "$tmp/err" '^ridge: standard output: write error \(No space left on device\)$'
    done
    # A command that fails for its own reason keeps its exit code.
    "$ridge" gpu show a100 >/dev/full 2>/dev/null
    check "a usage error keeps exit 2 on a full stdout" test $? -eq 2
else
    echo "note: no writable /dev/full; the write-error checks are skipped"
fi

# --- a reader that closes the pipe early: the same write error (exit 3), not a SIGPIPE death (141).
# Each output is far larger than a pipe's buffer (64 KiB), so ridge must block until the reader
# takes its one byte and exits; the writes after that fail, every time.
for c in "validate $src/validation/data/aiconfigurator-gemm.json --format csv" \
         "plan --workload llama2-7b --tokens 1e9 --gpus all --counts 1..64 --format jsonl"; do
    read -ra argv <<<"$c"
    "$ridge" "${argv[@]}" 2>"$tmp/err" | head -c1 >/dev/null
    rc=${PIPESTATUS[0]}
    check "ridge $c | head -c1: exit $rc, expected 3" test "$rc" = 3
    check "ridge $c | head -c1: a write error naming standard output ($(head -c 200 "$tmp/err"))" \
        one_line_error "$tmp/err" '^ridge: standard output: write error \(Broken pipe\)$'
done

# --- reading: one reader with one limit (RIDGE_FILE_MAX_BYTES, 256 MiB) for every input file.
# Bounded here in time and memory, so that a reader without a limit fails instead of filling the
# machine: a device that never ends is refused at the limit.
limit=$((256 * 1024 * 1024))
# A 3 GB address-space limit, where the binary runs under one (AddressSanitizer reserves far more
# address space than that at start: there the 60 s timeout alone bounds the run).
vlimit=3000000
(ulimit -v $vlimit; "$ridge" --version || exit 1) >/dev/null 2>&1 || vlimit=unlimited
ENDLESS_CASES=(
    "validate /dev/zero"
    "serve --gpu a40 --workload llama2-7b --trace /dev/zero"
    "plan --plan /dev/zero"
    "predict --gpu a40 --workload /dev/zero"
)
for c in "${ENDLESS_CASES[@]}"; do
    read -ra argv <<<"$c"
    (ulimit -v $vlimit; exec timeout 60 "$ridge" "${argv[@]}") >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "ridge $c: exit $rc, expected 3" test $rc -eq 3
    check "ridge $c: one line naming the limit ($(head -c 200 "$tmp/err"))" \
        one_line_error "$tmp/err" '^ridge: /dev/zero: larger than 256 MiB, the limit for an input file$'
done
# Exactly the limit is read; one byte more is refused (a GPU file padded with blanks).
{ cat "$src/model/gpus/a40.json"; head -c $((limit - $(wc -c <"$src/model/gpus/a40.json"))) /dev/zero | tr '\0' ' '; } \
    >"$tmp/big-gpu.json"
check "a GPU file of exactly 256 MiB is $(wc -c <"$tmp/big-gpu.json") bytes" test "$(wc -c <"$tmp/big-gpu.json")" -eq $limit
"$ridge" gpu show --gpu-file "$tmp/big-gpu.json" >/dev/null 2>"$tmp/err"
rc=$?
check "a GPU file of exactly 256 MiB loads: exit $rc ($(head -c 200 "$tmp/err"))" test $rc -eq 0
printf ' ' >>"$tmp/big-gpu.json"
"$ridge" gpu show --gpu-file "$tmp/big-gpu.json" >/dev/null 2>"$tmp/err"
check "a GPU file of 256 MiB + 1 byte: exit 3" test $? -eq 3
check "a GPU file of 256 MiB + 1 byte: the limit named" one_line_error "$tmp/err" 'big-gpu\.json: larger than 256 MiB'
rm -f "$tmp/big-gpu.json"
# docs/workloads.md: 1,000,000 operators, in a file of at most 256 MiB. One million named GEMMs
# (104 MB) are read and predicted.
awk 'BEGIN { print "{\"schema_version\": 1, \"name\": \"million\", \"ops\": [";
             for (i = 0; i < 1000000; i++)
                 printf "  {\"op\": \"gemm\", \"name\": \"layer%07d.attn.q_proj\", \"dtype\": \"bf16\", \"m\": 4096, \"n\": 4096, \"k\": 4096}%s\n", i, i < 999999 ? "," : "";
             print "]}" }' >"$tmp/million.json"
"$ridge" predict --gpu a40 --workload "$tmp/million.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "one million named ops ($(($(wc -c <"$tmp/million.json") / 1000000)) MB) predict: exit $rc ($(head -c 200 "$tmp/err"))" \
    test $rc -eq 0
check "one million named ops: 1000000 kernels" grep -q '(1000000 kernels' "$tmp/out"
rm -f "$tmp/million.json"
# A serving trace is text: a NUL byte is an input error naming the line.
{ echo "arrival_s,prompt,output"; printf '0.5,12,7\n0.75,1\0002,7\n'; } >"$tmp/nul.csv"
"$ridge" serve --gpu a40 --workload llama2-7b --trace "$tmp/nul.csv" >"$tmp/out" 2>"$tmp/err"
check "a trace with a NUL byte: exit 2" test $? -eq 2
check "a trace with a NUL byte: the line named" one_line_error "$tmp/err" 'nul\.csv:3: a NUL byte: not a text file$'

# --- plan: a workload path longer than 511 characters (it was cut there), from the command line
# and from a plan file
long=$tmp/$(printf 'd%.0s' {1..200})/$(printf 'e%.0s' {1..200})/$(printf 'f%.0s' {1..200})
mkdir -p "$long"
cp "$src/workloads/bert-base.json" "$long/model.json"
printf '{"schema_version": 1, "workload": "%s", "gpus": "a40", "samples": 1e6}\n' "$long/model.json" >"$tmp/long.json"
"$ridge" plan --plan "$tmp/long.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a plan file naming a workload path of ${#long} characters: exit $rc ($(head -c 200 "$tmp/err"))" test $rc -eq 0
"$ridge" plan --workload "$long/model.json" --gpus a40 --samples 1e6 >"$tmp/out" 2>"$tmp/err"
rc=$?
check "--workload of ${#long} characters: exit $rc ($(head -c 200 "$tmp/err"))" test $rc -eq 0
rm -rf "$tmp/d"* "$tmp/long.json"

# --- output files: a new temporary name beside the target (mkstemp), then a rename
pub=$src/validation/published/published-dev.json
CALIBRATE=(calibrate --gpu v100-sxm2-32gb --train pub0225 --fit framework_op_s "$pub")
# A link at the old fixed temporary name (OUT.tmp) is not followed: its target stays as it was.
for out in cal.json baseline.json; do
    mkdir "$tmp/links"
    echo "victim" >"$tmp/links/victim.txt"
    ln -s victim.txt "$tmp/links/$out.tmp"
    if [ $out = cal.json ]; then
        "$ridge" "${CALIBRATE[@]}" -o "$tmp/links/$out" >/dev/null 2>"$tmp/err"
    else
        "$ridge" validate "$pub" --write-baseline "$tmp/links/$out" >/dev/null 2>"$tmp/err"
    fi
    rc=$?
    check "$out beside a link OUT.tmp: exit $rc ($(head -c 200 "$tmp/err"))" test $rc -eq 0
    check "$out beside a link OUT.tmp: the link's target is untouched" test "$(cat "$tmp/links/victim.txt")" = victim
    check "$out beside a link OUT.tmp: $out is written" grep -q '"schema_version"' "$tmp/links/$out"
    check "$out beside a link OUT.tmp: nothing else left ($(ls "$tmp/links" | tr '\n' ' '))" \
        test "$(ls "$tmp/links" | wc -l)" -eq 3
    rm -rf "$tmp/links"
done
# An output that exists and is not a plain file (a FIFO here; /dev/null, /dev/stdout alike) is
# written in place, as '>' writes it: renaming a temporary file over it would put a regular
# file in its place (run as root, over /dev/null itself).
for out in cal.json baseline.json; do
    mkdir "$tmp/fifo"
    mkfifo "$tmp/fifo/$out"
    timeout 90 cat "$tmp/fifo/$out" >"$tmp/fifo.got" &
    reader=$!
    if [ $out = cal.json ]; then
        timeout 60 "$ridge" "${CALIBRATE[@]}" -o "$tmp/fifo/$out" >/dev/null 2>"$tmp/err"
    else
        timeout 60 "$ridge" validate "$pub" --write-baseline "$tmp/fifo/$out" >/dev/null 2>"$tmp/err"
    fi
    rc=$?
    wait "$reader"
    check "$out a FIFO: exit $rc ($(head -c 200 "$tmp/err"))" test $rc -eq 0
    check "$out a FIFO: still a FIFO, not replaced by a file" test -p "$tmp/fifo/$out"
    check "$out a FIFO: the reader got the JSON" grep -q '"schema_version"' "$tmp/fifo.got"
    check "$out a FIFO: no temporary file left ($(ls "$tmp/fifo" | tr '\n' ' '))" test "$(ls "$tmp/fifo" | wc -l)" -eq 1
    rm -rf "$tmp/fifo" "$tmp/fifo.got"
done
# The same for a chart's data file (ridge_plot_write_file, shared by every chart; gnuplot off: it
# would read the FIFO again).
mkdir "$tmp/fifo"
mkfifo "$tmp/fifo/r.dat"
timeout 90 cat "$tmp/fifo/r.dat" >"$tmp/fifo.got" &
reader=$!
RIDGE_GNUPLOT= timeout 60 "$ridge" roofline --gpu a40 --workload resnet50 -o "$tmp/fifo/r.svg" >/dev/null 2>"$tmp/err"
rc=$?
wait "$reader"
check "roofline, its .dat a FIFO: exit $rc ($(head -c 200 "$tmp/err"))" test $rc -eq 0
check "roofline, its .dat a FIFO: still a FIFO, not replaced by a file" test -p "$tmp/fifo/r.dat"
check "roofline, its .dat a FIFO: the reader got the data" test -s "$tmp/fifo.got"
check "roofline, its .dat a FIFO: r.dat and r.gp only ($(ls "$tmp/fifo" | tr '\n' ' '))" \
    test "$(ls "$tmp/fifo" | tr '\n' ' ')" = "r.dat r.gp "
rm -rf "$tmp/fifo" "$tmp/fifo.got"
# An empty output path is a usage error naming the option (it was exit 3, "ridge: : cannot replace").
"$ridge" "${CALIBRATE[@]}" -o "" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "calibrate -o '': exit $rc, expected 2" test $rc -eq 2
check "calibrate -o '': one line naming -o ($(head -c 200 "$tmp/err"))" one_line_error "$tmp/err" "^ridge calibrate: -o: empty path"
"$ridge" validate "$pub" --write-baseline "" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "validate --write-baseline '': exit $rc, expected 2" test $rc -eq 2
check "validate --write-baseline '': one line naming the option ($(head -c 200 "$tmp/err"))" \
    one_line_error "$tmp/err" "^ridge validate: --write-baseline: empty path"
check "validate --write-baseline '': stdout empty" test ! -s "$tmp/out"
# Two runs writing the same output at once: each has its own temporary file, both succeed, and
# the file is whole.
mkdir "$tmp/two"
for i in 1 2 3 4; do
    "$ridge" "${CALIBRATE[@]}" -o "$tmp/two/cal.json" >/dev/null 2>"$tmp/two.err$i" &
done
ok=0
for job in $(jobs -p); do wait "$job" && ok=$((ok + 1)); done
check "four runs writing one file at once all succeed ($ok; $(cat "$tmp"/two.err* | head -c 200))" test $ok -eq 4
check "four runs writing one file at once: it loads" "$ridge" gpu show --gpu-file "$tmp/two/cal.json" >/dev/null
check "four runs writing one file at once: no temporary file left" test "$(ls "$tmp/two" | wc -l)" -eq 1
rm -rf "$tmp/two" "$tmp"/two.err*

# --- an output that is one of the inputs is a usage error (exit 2), the input left as it was:
# the same path, another spelling of it, or a link to it.
cp "$src/validation/data/megatron-dev.json" "$tmp/in.json"
ln -s in.json "$tmp/link.json"
cp "$src/workloads/gpt2.json" "$tmp/w.gp" # a model file charted as w.png
sum=$(cksum <"$tmp/in.json")
wsum=$(cksum <"$tmp/w.gp")
OVER_CASES=(
    "validate $tmp/in.json --write-baseline $tmp/in.json|--write-baseline"
    "validate $tmp/in.json --write-baseline $tmp/../$(basename "$tmp")/in.json|--write-baseline"
    "validate $tmp/link.json --write-baseline $tmp/in.json|--write-baseline"
    "validate $tmp/in.json --gpu-file $tmp/in.json --write-baseline $tmp/in.json|--write-baseline"
    "calibrate --gpu h200-sxm-141gb $tmp/in.json -o $tmp/in.json|-o"
    "calibrate --gpu h200-sxm-141gb $tmp/link.json -o $tmp/in.json|-o"
    "roofline --gpu a40 --workload $tmp/w.gp -o $tmp/w.png|-o"
    "plan --workload $tmp/w.gp --gpus a40 --counts 1 --batches 1 --samples 1e6 --chart pareto --price a40=1 -o $tmp/w.png|-o"
    "serve --gpu a40 --workload $tmp/w.gp --sweep-rate 1:10:3 -o $tmp/w.png|-o"
    "validate $tmp/in.json --chart scatter -o $tmp/w.png --gpu-file $tmp/w.gp|-o"
)
for c in "${OVER_CASES[@]}"; do
    read -ra argv <<<"${c%|*}"
    "$ridge" "${argv[@]}" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check "ridge ${c%|*}: exit $rc, expected 2" test $rc -eq 2
    check "ridge ${c%|*}: one line ($(head -c 200 "$tmp/err"))" \
        one_line_error "$tmp/err" "^ridge ${argv[0]}: ${c#*|}: .* is also an input file \(writing it would replace that input\)"
    check "ridge ${c%|*}: the inputs are as they were" \
        test "$(cksum <"$tmp/in.json")" = "$sum" -a "$(cksum <"$tmp/w.gp")" = "$wsum"
done
rm -f "$tmp/in.json" "$tmp/link.json" "$tmp/w.gp"

# --- named pipes and pipes as inputs: read as files are; a FIFO that no process opens to write
# is an error after RIDGE_FILE_FIFO_WAIT_MS (10 s), never a hang (open(2) would wait forever).
mkfifo "$tmp/fifo"
meg=$src/validation/data/megatron-dev.json
timeout 30 "$ridge" validate "$tmp/fifo" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "validate FIFO with no writer: exit $rc, expected 3 (124: a hang)" test $rc -eq 3
check "validate FIFO with no writer: one line naming it ($(head -c 200 "$tmp/err"))" \
    one_line_error "$tmp/err" "^ridge: $tmp/fifo: a named pipe that no process opened to write \(waited 10 s\)$"
check "validate FIFO with no writer: stdout empty" test ! -s "$tmp/out"
(sleep 1; cat "$meg" >"$tmp/fifo") &
timeout 30 "$ridge" validate "$tmp/fifo" >"$tmp/out" 2>"$tmp/err"
check "validate FIFO whose writer opens 1 s late: exit $? ($(head -c 200 "$tmp/err"))" grep -q "10 cases compared" "$tmp/out"
wait
# A writer that opens at once and writes 2 s later: ridge reads on, blocking, like any pipe.
(exec 3>"$tmp/fifo"; sleep 2; cat "$meg" >&3) &
timeout 30 "$ridge" validate "$tmp/fifo" >"$tmp/out" 2>"$tmp/err"
check "validate FIFO whose writer writes 2 s late: exit $? ($(head -c 200 "$tmp/err"))" grep -q "10 cases compared" "$tmp/out"
wait
timeout 30 "$ridge" validate <(sleep 1; cat "$meg") >"$tmp/out" 2>"$tmp/err"
check "validate <(...): exit $? ($(head -c 200 "$tmp/err"))" grep -q "10 cases compared" "$tmp/out"
timeout 30 "$ridge" validate /dev/stdin <"$meg" >"$tmp/out" 2>"$tmp/err"
check "validate /dev/stdin: exit $? ($(head -c 200 "$tmp/err"))" grep -q "10 cases compared" "$tmp/out"
rm -f "$tmp/fifo"

# --- charts: rendered into a temporary file and renamed over the old chart, never written in
# place. A stand-in gnuplot writes part of a chart where gnuplot would write it (its stdout when
# called `-c SCRIPT -`, else the file the script's `set output` names), then kills ridge
# (`kill -9` during rendering): the old chart must be left whole.
cat >"$tmp/killer-gnuplot" <<'SH'
#!/bin/sh
if [ "$1" = -c ] && [ "$3" = - ]; then
    printf 'part of a ch'
else
    chart=$(dirname "$1")/$(sed -n "s/^ *set output dir \. '\(.*\)'$/\1/p" "$1")
    printf 'part of a ch' >"$chart"
fi
kill -9 $PPID
sleep 1
SH
chmod +x "$tmp/killer-gnuplot"
CHART_CASES=(
    "roofline --gpu a40 -o @CHART@"
    "serve --gpu a40 --workload resnet50 --sweep-rate 100:1000:3 -o @CHART@"
    "plan --workload bert-base --gpus a40,l4 --counts 1,2 --batches 16 --samples 1e6 --price a40=0.8 --price l4=0.6 --chart pareto -o @CHART@"
    "validate $pub --chart scatter -o @CHART@"
)
for c in "${CHART_CASES[@]}"; do
    mkdir "$tmp/chart"
    echo "old chart" >"$tmp/chart/c.png"
    read -ra argv <<<"${c//@CHART@/$tmp/chart/c.png}"
    # (In a subshell that waits, so that bash's "Killed" note goes with its stderr.)
    (RIDGE_GNUPLOT=$tmp/killer-gnuplot "$ridge" "${argv[@]}"; true) >/dev/null 2>&1
    check "ridge ${c%% *} killed while rendering: the old chart is whole ($(head -c 40 "$tmp/chart/c.png"))" \
        test "$(cat "$tmp/chart/c.png")" = "old chart"
    rm -f "$tmp"/chart/c.png.?????? # the killed run's temporary file: a kill -9 leaves it
    # With gnuplot: the new chart replaces the old one by rename (a new inode), a whole PNG.
    if command -v gnuplot >/dev/null 2>&1; then
        before=$(stat -c %i "$tmp/chart/c.png")
        "$ridge" "${argv[@]}" >/dev/null 2>"$tmp/err"
        rc=$?
        check "ridge ${c%% *} -o c.png: exit $rc ($(head -c 200 "$tmp/err"))" test $rc -eq 0
        check "ridge ${c%% *} -o c.png: a PNG" grep -q PNG <(head -c 4 "$tmp/chart/c.png")
        check "ridge ${c%% *} -o c.png: renamed over the old chart, not written into it" \
            test "$(stat -c %i "$tmp/chart/c.png")" != "$before"
        check "ridge ${c%% *} -o c.png: no temporary file left ($(ls "$tmp/chart" | tr '\n' ' '))" \
            test "$(ls "$tmp/chart" | grep -c '^c\.png')" -eq 1
    fi
    rm -rf "$tmp/chart"
done
command -v gnuplot >/dev/null 2>&1 || echo "note: no gnuplot; charts are only checked with a stand-in"

echo "$n I/O checks, $failed failed"
[ "$failed" -eq 0 ]
