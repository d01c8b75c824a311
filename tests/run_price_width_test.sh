#!/usr/bin/env bash
# Chip facts and prices in text people can read (CTest: price_width): `ridge gpu show` of every
# built-in GPU and of a MIG slice fits 120 columns with the die facts one per line; the price
# lines of compare, plan and serve (and compare's table of the parts of a product) fit it too, and
# each names its date and source or the option that gives a price. SPDX-License-Identifier: GPL-3.0-or-later
#
#   tests/run_price_width_test.sh RIDGE_BINARY
set -u
export LC_ALL=C.UTF-8
. "$(dirname "${BASH_SOURCE[0]}")/check.sh"
check_usage 1 "RIDGE_BINARY" "$@"
ridge=$1 tmp=$(mktemp -d) n=0 failed=0 # counted by check (tests/check.sh)
trap 'rm -rf "$tmp"' EXIT
[ -x "$ridge" ] || { echo "$0: $ridge is not an executable" >&2; exit 2; }

# fits FILE: no line wider than 120 characters (UTF-8 aware: "mm²" is three columns).
fits() { [ "$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$1")" -le 120 ]; }

ids=$("$ridge" gpus --format csv | tail -n +2 | cut -d, -f1)
check "gpus lists the catalogue" [ "$(echo "$ids" | wc -l)" -ge 19 ]
for id in $ids a100-sxm4-80gb:1g.10gb; do
    "$ridge" gpu show "$id" >"$tmp/show" 2>&1
    check "gpu show $id fits 120 columns" fits "$tmp/show"
    for fact in Process Foundry "Die area" Transistors "RT cores"; do
        check "gpu show $id: one line for $fact" [ "$(grep -c "^die  *$fact " "$tmp/show")" -eq 1 ]
    done
    check "gpu show $id: ECC on one line" [ "$(grep -c '^memory  *ECC memory ' "$tmp/show")" -eq 1 ]
    # Each price names its date and source, or says there is none and how to give one.
    check "gpu show $id: the price line" grep -Eq \
        '^Price per GPU-hour: ([0-9.]+ USD/h.*, (20[0-9-]+|no date given): .|no price \(give --price )' "$tmp/show"
done

run_fits() { # WHY ARGS...: ridge ARGS succeeds and what it prints from its prices on fits 120 columns
    local why=$1
    shift
    check "$why: runs" "$ridge" "$@" >"$tmp/out" 2>&1
    sed -n '/^Prices per GPU-hour:$/,$p; /^price \{13\}[^ ]/,$p' "$tmp/out" >"$tmp/tail"
    check "$why: prints its prices" [ -s "$tmp/tail" ]
    check "$why: its prices (and parts) fit 120 columns" fits "$tmp/tail"
}
run_fits "compare with prices and parts" compare a40 a100-pcie-40gb a100-sxm4-80gb:1g.10gb --price a40=0.44
grep -A20 '^Prices per GPU-hour:$' "$tmp/out" | grep -E '^  [a-z0-9:.-]+: ' >"$tmp/prices"
check "compare: one price line per GPU" [ "$(wc -l <"$tmp/prices")" -eq 3 ]
run_fits "compare --workload with prices" compare a40 l4 --workload resnet50 --mode infer --batch 8
run_fits "plan with prices" plan --workload bert-base --gpus a40,l4,a100-sxm4-80gb:3g.40gb --counts 1 --batches 16 \
    --samples 1e6
run_fits "serve with a price" serve --gpu h200-sxm-141gb --workload resnet50 --rate 10

echo "$((n - failed)) of $n price and width checks passed"
[ "$failed" -eq 0 ]
