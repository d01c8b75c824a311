#!/usr/bin/env bash
# Compares CLI output with the golden files in tests/golden/, byte for byte, under LC_ALL=C.
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   tests/run_golden.sh RIDGE_BINARY            check (CTest runs this)
#   tests/run_golden.sh --update RIDGE_BINARY   rewrite the golden files from RIDGE_BINARY
#
# After --update, read the diff (every changed number must be explained by a change you meant)
# before committing the new files. Only stdout is pinned; the command must exit 0.
set -u
export LC_ALL=C

update=0
if [ "${1-}" = "--update" ]; then
    update=1
    shift
fi
if [ $# -ne 1 ]; then
    echo "usage: $0 [--update] RIDGE_BINARY" >&2
    exit 2
fi
ridge=$1
[ -x "$ridge" ] || { echo "$0: $ridge is not an executable" >&2; exit 2; }
golden=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/golden

# golden file name | ridge arguments
GOLDEN=(
    "gpus.txt | gpus"
    "compare_a40_a100-sxm4-80gb.txt | compare a40 a100-sxm4-80gb"
    "compare_a40_a100-sxm4-80gb.json | compare a40 a100-sxm4-80gb --format json"
    "compare_a40_a100-sxm4-80gb.csv | compare a40 a100-sxm4-80gb --format csv"
)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
for row in "${GOLDEN[@]}"; do
    name=${row%% | *}
    read -ra argv <<<"${row#* | }"
    n=$((n + 1))
    if ! "$ridge" "${argv[@]}" >"$tmp/out" 2>"$tmp/err"; then
        failed=$((failed + 1))
        echo "FAIL $name: 'ridge ${argv[*]}' failed: $(head -n 1 "$tmp/err")"
        continue
    fi
    if [ $update = 1 ]; then
        if ! cmp -s "$tmp/out" "$golden/$name"; then
            cp "$tmp/out" "$golden/$name"
            echo "updated $name"
        fi
    elif [ ! -f "$golden/$name" ]; then
        failed=$((failed + 1))
        echo "FAIL $name: no golden file (create it with: $0 --update $ridge)"
    elif ! cmp -s "$tmp/out" "$golden/$name"; then
        failed=$((failed + 1))
        echo "FAIL $name: 'ridge ${argv[*]}' differs from tests/golden/$name:"
        diff -u "$golden/$name" "$tmp/out" | head -n 40
        echo "(if the change is intended: $0 --update $ridge)"
    fi
done
echo "$n golden files, $failed failed"
[ "$failed" -eq 0 ]
