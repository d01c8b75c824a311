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
if [ $# -ne 1 ]; then
    echo "usage: $0 RIDGE_BINARY" >&2
    exit 2
fi
ridge=$1
[ -x "$ridge" ] || { echo "$0: $ridge is not an executable" >&2; exit 2; }
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

# check MESSAGE COMMAND...: one check; the command's status decides.
check() {
    local msg=$1
    shift
    n=$((n + 1))
    if ! "$@"; then
        echo "FAIL: $msg"
        failed=$((failed + 1))
    fi
}

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

echo "$n I/O checks, $failed failed"
[ "$failed" -eq 0 ]
