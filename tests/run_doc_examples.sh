#!/usr/bin/env bash
# Every `ridge ...` example in README.md and docs/*.md runs, and exits as documented (CTest:
# doc_examples). SPDX-License-Identifier: GPL-3.0-or-later
#
#   tests/run_doc_examples.sh RIDGE_BINARY MEASUREMENTS.json [MPIEXEC]
#
# An example is a line of a fenced (```) or indented code block that starts, after an optional
# `$ ` prompt, with `ridge`, `./build/cli/ridge`, `build/cli/ridge` or `mpirun`, joined with its
# `\` continuation lines; in a `cmd && cmd` chain each `ridge` segment is one. A trailing
# `# comment` decides what is checked (docs/cli.md, "Examples in the documentation"):
#   (none, or any other text)  exit 0
#   # exit N ...                exit N (an error example)
#   # not run: REASON           listed with its reason, not run
#   # output not checked: REASON  run and its exit checked, its shown output not compared
# An example written `$ ridge ...` in a fenced block is followed by the output it printed, up to
# the block's end or the next `$ ` line: every line of it must appear in what the example prints
# now (stdout, then stderr), in order, trailing blanks aside. A shown output may leave lines out
# (abridged); a line that is `...` or `…` alone stands for lines left out and is not compared.
# A synopsis (an UPPERCASE placeholder, `[...]`, `...` or `| --alternative`) is listed, not run.
# `mpirun` examples run only with MPIEXEC (a ridge built with MPI), else a note says they were skipped.
#
# Each document's examples run in order (one may read what an earlier one wrote) in a fresh
# temporary directory that holds a symbolic link to every entry of the repository root, so
# relative paths read the tree. `validation-out/measurements.json`, which validation/run_all.sh
# writes on a GPU, is MEASUREMENTS.json there: test_calibrate's synthetic H200 file, which has a
# ridge-bench-cuda run's ids and configs. Output paths (-o, --output but serve's, serve's --chart,
# --write-baseline) lose their directories: every file lands in the temporary directory, and
# the check at the end fails if a documented output path in the tree changed.
set -u
export LC_ALL=C
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 RIDGE_BINARY MEASUREMENTS.json [MPIEXEC]" >&2
    exit 2
fi
ridge=$1 measurements=$2 mpiexec=${3-}
[ -x "$ridge" ] || { echo "$0: $ridge is not an executable" >&2; exit 2; }
[ -r "$measurements" ] || { echo "$0: cannot read $measurements" >&2; exit 2; }
measurements=$(cd "$(dirname "$measurements")" && pwd)/$(basename "$measurements")
ridge=$(cd "$(dirname "$ridge")" && pwd)/$(basename "$ridge")
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash=${BASH:-bash}
timeout_s=${RIDGE_DOC_TIMEOUT:-20}
floor=50 # examples that must run: an extractor that finds none must not pass
floor_out=3 # and `$ ` examples whose shown output is compared
command -v timeout >/dev/null 2>&1 || { echo "$0: needs timeout(1) (coreutils)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/stamp"
: >"$tmp/outputs"
mkdir "$tmp/expect"

# The examples, one per line: FILE <tab> LINE <tab> COMMAND (continuations joined, the trailing
# comment kept).
extract() {
    awk -v expdir="$tmp/expect" '
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
    function is_cmd(s) { return s ~ /^(ridge|\.\/build\/cli\/ridge|build\/cli\/ridge)( |$)/ || s ~ /^mpirun / }
    # prompted: a `$ ` command of a fenced block, whose shown output follows it (file exp)
    function emit(file, line, s, prompted,    n, parts, i, seg, f) {
        s = trim(s)
        sub(/^\$ /, "", s)
        if (is_cmd(s)) {
            f = "-"
            if (prompted) { f = expdir "/" (++nexp); printf "" > f; close(f); capture = f }
            printf "%s\t%d\t%s\t%s\n", file, line, s, f
            return
        }
        # a chain: each && segment that is a ridge command
        n = split(s, parts, / && /)
        for (i = 1; i <= n; i++) { seg = trim(parts[i]); if (n > 1 && is_cmd(seg)) printf "%s\t%d\t%s\t-\n", file, line, seg }
    }
    FNR == 1 { fence = 0; indented = 0; blank = 1; cont = ""; capture = "" }
    {
        line = $0
        if (cont != "") {                       # inside a continued command
            if (line ~ /\\$/) { sub(/\\$/, "", line); cont = cont " " trim(line); next }
            emit(FILENAME, cont_line, cont " " trim(line), cont_prompted); cont = ""; next
        }
        if (line ~ /^[ \t]*```/) { fence = !fence; blank = 0; if (capture != "") close(capture); capture = ""; next }
        # a shown output ends at the next command, prompted or not (trimmed: an indented fence too)
        tl = trim(line); sub(/^\$ /, "", tl)
        if (fence && capture != "" && (trim(line) ~ /^\$ / || is_cmd(tl))) { close(capture); capture = "" }
        else if (fence && capture != "") { print line >> capture; next }
        if (!fence) {
            if (line ~ /^[ \t]*$/) { blank = 1; next }
            if (line ~ /^    / && (blank || indented)) indented = 1
            else { indented = 0; blank = 0; next }
            blank = 0
        }
        t = trim(line); prompted = fence && t ~ /^\$ /; sub(/^\$ /, "", t)
        if (!is_cmd(t) && t !~ / && /) next
        if (line ~ /\\$/) { sub(/\\$/, "", line); cont = trim(line); cont_line = FNR; cont_prompted = prompted; next }
        emit(FILENAME, FNR, line, prompted)
    }' "$@"
}

# Exit 0 when every line of the shown output $1 (trailing blanks aside; `...`/`…` lines skipped)
# appears, in order, in the printed output $2; else print the first shown line not found.
shown_in() {
    awk 'function rt(s) { sub(/[ \t\r]+$/, "", s); return s }
    FNR == NR { x = rt($0); if (x != "" && x !~ /^[ \t]*(\.\.\.|…)$/) want[++n] = x; next }
    { if (i < n && rt($0) == want[i + 1]) i++ }
    END { if (i < n) { print want[i + 1]; exit 1 } }' "$1" "$2"
}

# The shell the examples run in: `ridge` and `mpirun` are functions that run the binaries under
# test with the output paths moved into the working (temporary) directory.
cat >"$tmp/prelude.sh" <<'EOF'
_ridge_args() {   # fills _a with "$@" (ridge's arguments), output paths moved to .
    _a=()
    local sub=${1-} prev="" x flag val
    for x in "$@"; do
        flag=$prev val=$x
        case $x in --*=*) flag=${x%%=*} val=${x#*=} ;; esac
        case $flag in
        -o | --write-baseline) _out=1 ;;
        --output) [ "$sub" = serve ] && _out=0 || _out=1 ;;
        --chart) [ "$sub" = serve ] && _out=1 || _out=0 ;;
        *) _out=0 ;;
        esac
        if [ $_out = 1 ]; then
            printf '%s\n' "$val" >>"$DOC_OUTPUTS"
            val=${val##*/}
            [ "$flag" = "$prev" ] && x=$val || x=$flag=$val
        fi
        _a+=("$x")
        prev=$x
    done
}
ridge() { _ridge_args "$@"; "$DOC_RIDGE" "${_a[@]}"; }
mpirun() {
    local m=()
    while [ $# -gt 0 ] && [ "$1" != ridge ]; do m+=("$1"); shift; done
    [ $# -gt 0 ] || { echo "doc example: mpirun without ridge" >&2; return 1; }
    shift
    _ridge_args "$@"
    # Open MPI's own allocations are leaks to a sanitizer build's LeakSanitizer (as plan_mpi).
    ASAN_OPTIONS=detect_leaks=0 "$DOC_MPIEXEC" $DOC_MPIARGS "${m[@]}" "$DOC_RIDGE" "${_a[@]}"
}
EOF
export DOC_RIDGE=$ridge DOC_MPIEXEC=$mpiexec DOC_OUTPUTS=$tmp/outputs DOC_MPIARGS=""
if [ -n "$mpiexec" ] && "$mpiexec" --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then
    # As tests/run_mpi_test.sh: ranks on few cores, as root in CI, no CMA inside containers.
    DOC_MPIARGS="--oversubscribe"
    [ "$(id -u)" = 0 ] && DOC_MPIARGS="$DOC_MPIARGS --allow-run-as-root"
    export OMPI_MCA_btl_vader_single_copy_mechanism=none
fi

cd "$src" || exit 2
docs=(README.md docs/*.md)
extract "${docs[@]}" >"$tmp/examples"

n=0 failed=0 listed=0 skipped=0 doc="" per_doc=""
n_out=0 n_outskip=0
while IFS=$'\t' read -r file line cmd shown <&3; do
    if [ "$file" != "$doc" ]; then         # a fresh directory per document
        [ -n "$doc" ] && per_doc="$per_doc $doc $n_doc,"
        doc=$file n_doc=0
        work=$tmp/run-$(echo "$file" | tr / _)
        mkdir "$work"
        for e in "$src"/*; do [ "${e##*/}" = validation-out ] || ln -s "$e" "$work/"; done
        mkdir "$work/validation-out"
        ln -s "$measurements" "$work/validation-out/measurements.json"
    fi
    where="$file:$line"
    comment=""
    if [[ $cmd =~ ^([^#]*[^#[:space:]])[[:space:]]+(#.*)$ ]]; then
        cmd=${BASH_REMATCH[1]} comment=${BASH_REMATCH[2]}
    fi
    expect=0 check_out=1
    if [[ $comment =~ ^#[[:space:]]*output\ not\ checked: ]]; then
        check_out=0
    elif [[ $comment =~ ^#[[:space:]]*exit[[:space:]]+([0-9]+) ]]; then
        expect=${BASH_REMATCH[1]}
    elif [[ $comment =~ ^#[[:space:]]*not\ run:[[:space:]]*(.*)$ ]]; then
        echo "not run  $where: ${BASH_REMATCH[1]}"
        listed=$((listed + 1))
        continue
    fi
    synopsis=0
    case " $cmd " in *"["* | *"..."* | *" | -"*) synopsis=1 ;; esac
    for w in $cmd; do [[ $w =~ ^[A-Z][A-Z_]+([.|].*)?$ ]] && synopsis=1; done
    if [ $synopsis = 1 ]; then
        echo "synopsis $where: $cmd"
        listed=$((listed + 1))
        continue
    fi
    case $cmd in
    ./build/cli/ridge* | build/cli/ridge*) cmd=ridge${cmd#*build/cli/ridge} ;;
    mpirun*)
        if [ -z "$mpiexec" ]; then
            echo "note: $where needs mpirun and a ridge built with MPI; skipped"
            skipped=$((skipped + 1))
            continue
        fi
        ;;
    esac
    n=$((n + 1)) n_doc=$((n_doc + 1))
    start=$(date +%s.%N)
    (cd "$work" && timeout "$timeout_s" "$bash" -c ". \"\$0\"; $cmd" "$tmp/prelude.sh" \
        >"$tmp/out" 2>"$tmp/err" </dev/null)
    rc=$?
    secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    if [ $rc -eq 124 ]; then
        echo "FAIL $where: timed out after ${timeout_s} s: $cmd"
        failed=$((failed + 1))
    elif [ $rc -ne "$expect" ]; then
        echo "FAIL $where: exit $rc, documented $expect: $cmd"
        sed -n '1,5s/^/  stderr: /p' "$tmp/err"
        failed=$((failed + 1))
    elif [ "$shown" != - ] && grep -qvE '^[[:space:]]*(\.\.\.|…)?[[:space:]]*$' "$shown" && [ $check_out = 0 ]; then
        echo "ok       $where (exit $rc, $secs s; output not checked): $cmd"
        n_outskip=$((n_outskip + 1))
    elif [ "$shown" != - ] && grep -qvE '^[[:space:]]*(\.\.\.|…)?[[:space:]]*$' "$shown"; then
        cat "$tmp/out" "$tmp/err" >"$tmp/printed"
        if missing=$(shown_in "$shown" "$tmp/printed"); then
            echo "ok       $where (exit $rc, $secs s, output as shown): $cmd"
            n_out=$((n_out + 1))
        else
            echo "FAIL $where: the output shown is not what it prints now: $cmd"
            echo "  first line shown but not printed (in order): $missing"
            failed=$((failed + 1))
        fi
    else
        echo "ok       $where (exit $rc, $secs s): $cmd"
    fi
done 3<"$tmp/examples"
[ -n "$doc" ] && per_doc="$per_doc $doc $n_doc"

# No documented output path in the tree was written.
while IFS= read -r p; do
    case $p in /*) continue ;; esac
    if [ -e "$src/$p" ] && [ "$src/$p" -nt "$tmp/stamp" ]; then
        echo "FAIL: $p in the source tree was written by an example"
        failed=$((failed + 1))
    fi
done <"$tmp/outputs"

echo "doc examples: $n run (${per_doc# }), $n_out with their shown output checked ($n_outskip not checked), $failed failed, $listed listed but not run, $skipped skipped"
if [ $n -lt $floor ]; then
    echo "FAIL: only $n examples found and run, fewer than $floor: is the extractor broken?"
    exit 1
fi
if [ $n_out -lt $floor_out ]; then
    echo "FAIL: only $n_out shown outputs compared, fewer than $floor_out: is the extractor broken?"
    exit 1
fi
[ $failed -eq 0 ]
