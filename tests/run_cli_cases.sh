#!/usr/bin/env bash
# Runs the table of CLI cases: tests/run_cli_cases.sh RIDGE_BINARY CASES_FILE
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Each row of CASES_FILE is   args | exit code | stream | regex
#   args     split on blanks; @DATA@ is tests/data, @SRC@ the source tree root. May be empty.
#   exit     the expected exit status.
#   stream   where the regex (grep -E, any line) must match:
#              out   stdout
#              err   stderr
#              err1  stderr, which must be exactly one line, with stdout empty
#              json  stdout, which must also parse as JSON (python3 -m json.tool; skipped
#                    when python3 is absent)
#              csv   the first line of stdout (the header); with python3, every row must have
#                    as many fields as the header
#   regex    the rest of the line ('|' allowed); empty matches anything.
# '#' starts a comment line. A comment "# xfail: REASON" marks the next row as a known bug:
# its failure is reported as XFAIL and does not fail the run.
set -u
export LC_ALL=C

. "$(dirname "${BASH_SOURCE[0]}")/check.sh"
check_usage 2 "RIDGE_BINARY CASES_FILE" "$@"
ridge=$1
cases=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/.." && pwd)
data=$here/data
[ -x "$ridge" ] || { echo "$0: $ridge is not an executable" >&2; exit 2; }
[ -r "$cases" ] || { echo "$0: cannot read $cases" >&2; exit 2; }

# Resolve the interpreter once: launchers such as pyenv shims cost a second per call.
have_python=0 py=""
if command -v python3 >/dev/null 2>&1; then
    py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ] && have_python=1
fi
[ $have_python = 1 ] || echo "note: python3 not found; JSON validity and CSV shape checks are skipped"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Commands run in a directory of their own, so files they write with relative names
# (-o sweep-empty.svg, calibrate ... -o calibrate-t4.json) never land in the caller's tree.
case $ridge in /*) ;; *) ridge=$PWD/$ridge ;; esac
case $cases in /*) ;; *) cases=$PWD/$cases ;; esac
mkdir "$tmp/cwd"
cd "$tmp/cwd" || exit 2

# trim VAR TEXT: VAR = TEXT without leading and trailing blanks (no subshell: rows run fast).
trim() { local s=$2; s=${s#"${s%%[![:space:]]*}"}; s=${s%"${s##*[![:space:]]}"}; printf -v "$1" '%s' "$s"; }

# finish ROW WHY: count and report one row ("" = passed).
finish() {
    local i=$1 why=$2
    if [ -n "${row_xfail[$i]}" ]; then
        if [ -n "$why" ]; then
            xfailed=$((xfailed + 1))
            echo "XFAIL ${row_label[$i]}: $why (known bug: ${row_xfail[$i]})"
        else
            xpassed=$((xpassed + 1))
            echo "XPASS ${row_label[$i]} (known bug fixed? drop the xfail mark: ${row_xfail[$i]})"
        fi
    elif [ -n "$why" ]; then
        failed=$((failed + 1))
        echo "FAIL ${row_label[$i]}: $why"
        if [ -f "$tmp/$i.out" ]; then
            echo "  --- stdout (first lines)"; head -n 5 "$tmp/$i.out" | sed 's/^/  /'
            echo "  --- stderr (first lines)"; head -n 5 "$tmp/$i.err" | sed 's/^/  /'
        fi
    fi
}

n=0 failed=0 xfailed=0 xpassed=0 lineno=0 xfail=""
declare -a row_label=() row_xfail=() deferred=()
declare -A memo memo_rc
mkdir "$tmp/shape"
while IFS= read -r line || [ -n "$line" ]; do
    lineno=$((lineno + 1))
    trim t "$line"
    case "$t" in
    "") continue ;;
    "# xfail:"*) trim xfail "${t#*xfail:}"; continue ;;
    "#"*) continue ;;
    esac
    IFS='|' read -r f_args f_code f_stream f_regex <<<"$line"
    trim args "$f_args"
    trim code "$f_code"
    trim stream "$f_stream"
    trim regex "${f_regex-}"
    args=${args//@DATA@/$data}
    args=${args//@SRC@/$src}
    read -ra argv <<<"$args"
    n=$((n + 1))
    row_label[$n]="$cases:$lineno: ridge $args"
    row_xfail[$n]=$xfail
    xfail=""
    out=$tmp/$n.out err=$tmp/$n.err

    # A command already run with the same arguments is not run again (ridge is deterministic):
    # dozens of rows check different lines of one `ridge validate` of the published figures.
    # Commands that write files are always run.
    key=""
    case " $args " in
    *" -o "* | *"--write"* | *"--chart"* | *" calibrate "* | *" report "* | *" roofline "*) ;;
    *) key=$args ;;
    esac
    if [ -n "$key" ] && [ -n "${memo[$key]-}" ]; then
        m=${memo[$key]}
        cp "$tmp/$m.out" "$out"
        cp "$tmp/$m.err" "$err"
        rc=${memo_rc[$key]}
    else
        "$ridge" "${argv[@]}" >"$out" 2>"$err"
        rc=$?
        if [ -n "$key" ]; then
            memo[$key]=$n
            memo_rc[$key]=$rc
        fi
    fi
    why=""
    if [ "$rc" != "$code" ]; then
        why="exit code $rc, expected $code"
    else
        case "$stream" in
        out) grep -Eq -- "$regex" "$out" || why="stdout does not match /$regex/" ;;
        err) grep -Eq -- "$regex" "$err" || why="stderr does not match /$regex/" ;;
        err1)
            lines=$(wc -l <"$err")
            if [ "$lines" -ne 1 ]; then
                why="stderr has $lines lines, expected one"
            elif [ -s "$out" ]; then
                why="stdout is not empty"
            elif ! grep -Eq -- "$regex" "$err"; then
                why="stderr does not match /$regex/"
            fi
            ;;
        json) grep -Eq -- "$regex" "$out" || why="stdout does not match /$regex/" ;;
        csv) head -n 1 "$out" | grep -Eq -- "$regex" || why="CSV header does not match /$regex/" ;;
        *) why="unknown stream '$stream' in $cases:$lineno" ;;
        esac
    fi
    if [ -z "$why" ] && [ $have_python = 1 ] && { [ "$stream" = json ] || [ "$stream" = csv ]; }; then
        cp "$out" "$tmp/shape/$n.$stream" # checked below, in one python run for all rows
        deferred[$n]=1
    else
        finish "$n" "$why"
    fi
done <"$cases"

# JSON must parse; CSV rows must all have the header's field count.
if [ ${#deferred[@]} -gt 0 ]; then
    declare -A shape_why
    while IFS=$'\t' read -r i reason; do
        shape_why[$i]=$reason
    done < <("$py" - "$tmp/shape" <<'PY'
import csv, json, os, sys
d = sys.argv[1]
for name in sorted(os.listdir(d)):
    row, kind = name.split(".")
    path = os.path.join(d, name)
    try:
        if kind == "json":
            with open(path) as f:
                json.load(f)
        else:
            with open(path, newline="") as f:
                rows = list(csv.reader(f))
            bad = [i + 1 for i, r in enumerate(rows) if len(r) != len(rows[0])]
            if len(rows) < 2:
                print("%s\tCSV has no data rows" % row)
            elif bad:
                print("%s\tCSV rows %s have a different field count from the header" % (row, bad[:5]))
    except Exception as e:
        print("%s\tnot valid %s: %s" % (row, kind.upper(), str(e).splitlines()[0]))
PY
    )
    for i in "${!deferred[@]}"; do
        finish "$i" "${shape_why[$i]-}"
    done
fi

echo "$n CLI cases, $failed failed, $xfailed expected failures (known bugs), $xpassed unexpected passes"
[ "$n" -gt 0 ] && [ "$failed" -eq 0 ]
