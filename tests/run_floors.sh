#!/usr/bin/env bash
# No library file includes a header from a floor above its own (docs/architecture.md, "Floors").
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   tests/run_floors.sh [SOURCE_DIR]     (CTest runs this as `floors`; default: the script's ../)
#
# Every #include "..." of model/ and workloads/ (sources and headers, public and private) is
# resolved to a file, and both files are given a floor by the table below. A header belongs to
# the floor of the file that implements it. Failures print one line each,
#   model/hw/cluster.c includes ridge/comm.h (floor system above hw)
# and a file the table does not know fails too: a new file needs its row here.
set -u
export LC_ALL=C

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2

# Floors from the ground up; names joined by '=' are one floor (run and system, serve and measure).
floors="base hw kernel workload run=system serve=measure plan clients"

# The table: a floor, then the files (paths from the source root, globs allowed) on it. The library
# has one folder per floor (model/FLOOR/, and workloads/ for the workload floor); public headers
# (model/include/ridge/) take the floor of the file that implements them.
table='
base     model/base/* model/include/ridge/error.h model/include/ridge/file.h model/include/ridge/names.h
base     model/include/ridge/version.h
hw       model/hw/* model/include/ridge/gpu.h model/include/ridge/efficiency.h model/include/ridge/cluster.h
hw       model/include/ridge/figures.h
kernel   model/kernel/* model/include/ridge/op.h model/include/ridge/kernel.h
workload workloads/*.c workloads/*.h model/include/ridge/workload.h
run      model/run/* model/include/ridge/host.h model/include/ridge/schedule.h model/include/ridge/predict.h
system   model/system/* model/include/ridge/comm.h model/include/ridge/parallel.h
serve    model/serve/* model/include/ridge/queue.h model/include/ridge/serve.h
measure  model/measure/* model/include/ridge/measure.h model/include/ridge/torch_map.h
measure  model/include/ridge/validate.h model/include/ridge/calibrate.h
plan     model/plan/* model/include/ridge/plan.h model/include/ridge/serve_plan.h
clients  cli/* plots/* plots/include/ridge/*
'

# rank NAME: the floor's height (0 = base), or nothing for an unknown name.
rank()
{
    local i=0 f
    for f in $floors; do
        case "=$f=" in *"=$1="*) echo $i; return ;; esac
        i=$((i + 1))
    done
}

# floor_of PATH: the table's floor name for PATH, or nothing.
floor_of()
{
    local fl pats pat
    set -f # the entries are matched as globs, not expanded (floor_of runs in $(...), a subshell)
    while read -r fl pats; do
        [ -n "$fl" ] || continue
        for pat in $pats; do
            if [[ $1 == $pat ]]; then
                echo "$fl"
                return
            fi
        done
    done <<<"$table"
}

# resolve FILE NAME: the path an #include "NAME" of FILE reads (the compiler's search order:
# the file's own folder, then the include folders); ridge/version.h is generated in the build.
resolve()
{
    local d c
    d=$(dirname "$1")
    for c in "$d/$2" "model/include/$2" "plots/include/$2" model/*/"$2" "workloads/$2" "cli/$2"; do
        [ -f "$c" ] && { echo "${c#./}"; return; }
    done
    [ "$2" = ridge/version.h ] && echo model/include/ridge/version.h
}

fail=0
checked=0
for f in model/*.c model/*.h model/*/*.c model/*/*.h model/include/ridge/*.h workloads/*.c workloads/*.h; do
    [ -f "$f" ] || continue
    ff=$(floor_of "$f")
    if [ -z "$ff" ]; then
        echo "$f has no floor (add its row to the table in tests/run_floors.sh)"
        fail=1
        continue
    fi
    fr=$(rank "$ff")
    while read -r name; do
        h=$(resolve "$f" "$name")
        if [ -z "$h" ]; then
            echo "$f includes $name (not found: no floor)"
            fail=1
            continue
        fi
        hf=$(floor_of "$h")
        if [ -z "$hf" ]; then
            echo "$f includes $name ($h has no floor: add its row to the table in tests/run_floors.sh)"
            fail=1
            continue
        fi
        checked=$((checked + 1))
        if [ "$(rank "$hf")" -gt "$fr" ]; then
            echo "$f includes $name (floor $hf above $ff)"
            fail=1
        fi
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done

if [ $fail -ne 0 ]; then
    echo "floors: FAILED (docs/architecture.md, \"Floors\")"
    exit 1
fi
echo "floors: $checked includes checked, none from a floor above"
