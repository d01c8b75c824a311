#!/usr/bin/env bash
# ridge report: the example page is well-formed HTML with inline SVG charts and no external URL,
# names every GPU and section; the Markdown variant links its PNGs beside it; bad input exits 2
# and leaves no file. Usage: run_report_test.sh RIDGE
set -u
R=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export LC_ALL=C
"$R" report a40 a100-sxm4-80gb -o "$T/r.html" 2>"$T/err" || fail "report html: $(cat "$T/err")"
python3 - "$T/r.html" <<'PY' || exit 1
import sys, re
from html.parser import HTMLParser
text = open(sys.argv[1], encoding="utf-8").read()
void = {"meta", "br", "img", "hr", "link", "input"}
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.stack = []; self.svgs = []; self.bad = []
    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("src", "href", "xlink:href") and v and ("//" in v or v.startswith("http")):
                self.bad.append(v)
        if tag == "svg": self.svgs.append(0)
        if self.svgs and tag in ("path", "text", "rect", "polygon", "g", "line", "circle"): self.svgs[-1] += 1
        if tag not in void: self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        if self.svgs: self.svgs[-1] += 1
    def handle_endtag(self, tag):
        if tag in void: return
        if not self.stack or self.stack[-1] != tag:
            raise SystemExit("FAIL: unbalanced </%s> (open: %s)" % (tag, self.stack[-3:]))
        self.stack.pop()
p = P(); p.feed(text); p.close()
if p.stack: sys.exit("FAIL: unclosed tags %s" % p.stack)
if "http://" in text or "https://" in text: sys.exit("FAIL: an external URL in the page")
if p.bad: sys.exit("FAIL: external src/href %s" % p.bad)
if len(p.svgs) < 3 or min(p.svgs) < 5: sys.exit("FAIL: expected >= 3 non-empty inline charts, got %s" % p.svgs)
for w in ["a40", "a100-sxm4-80gb", "The short answer", "Training and inference throughput", "Per watt and per dollar",
          "The largest batch and model that fit", "MIG slices for inference", "Multi-GPU scaling",
          "How far to trust these numbers", "Assumptions", "MAPE", "no price", "bound"]:
    if w not in text: sys.exit("FAIL: the page does not mention '%s'" % w)
PY
ls -A "$T" | grep -q ridge-report && fail "temporary chart directory left behind"
# Markdown: PNGs beside it, linked by bare file name.
"$R" report a40 a100-sxm4-80gb -o "$T/r.md" 2>"$T/err" || fail "report md: $(cat "$T/err")"
n=0
for png in $(grep -o '([^)]*\.png)' "$T/r.md" | tr -d '()'); do
  case "$png" in */*) fail "md links $png, not a file beside it";; esac
  [ -s "$T/$png" ] || fail "md links $png, which is missing"
  n=$((n + 1))
done
[ "$n" -ge 3 ] || fail "md has $n charts, expected >= 3"
grep -q '^| question' "$T/r.md" || fail "md has no table"
# Markdown of text from files: a prices file's source with a tag, table pipes, a link and an image
# is plain text in the .md (as in the .html), not markup (fuzz9: a host id's <script> reached it).
# (a source is cut at 50 bytes: this one fits)
printf 'a40=0.44 source=<script>x</script> | c | [l](x) ![i](http://e/) \\\n' >"$T/prices.txt"
"$R" report a40 --prices "$T/prices.txt" -o "$T/x.md" 2>"$T/err" || fail "report md --prices: $(cat "$T/err")"
line=$(grep '^- Price of a40: ' "$T/x.md")
[ -n "$line" ] || fail "md: no price line"
grep -q '<script' "$T/x.md" && fail "md: a <script> tag from the prices file: $line"
case "$line" in *'&lt;script&gt;x&lt;/script&gt; \| c \| \[l\](x) !\[i\](http://e/) \\.') ;;
  *) fail "md: the source is not escaped: $line";; esac
grep -q '[^\\]](http' "$T/x.md" && fail "md: a link from the prices file: $line"
"$R" report a40 --prices "$T/prices.txt" -o "$T/x.html" 2>"$T/err" || fail "report html --prices: $(cat "$T/err")"
grep -q '&lt;script&gt;x&lt;/script&gt; | c |' "$T/x.html" || fail "html: the source is not escaped"
# A file name that is no plain link target: the chart links are percent-encoded, naming the PNGs.
"$R" report a40 -o "$T/a (b).md" 2>"$T/err" || fail "report 'a (b).md': $(cat "$T/err")"
grep -q '](a%20%28b%29-throughput.png)' "$T/a (b).md" || fail "md: the chart link is not percent-encoded"
[ -s "$T/a (b)-throughput.png" ] || fail "md: the PNG of 'a (b).md' is missing"
# An output that is no file: a directory is exit 3 naming it, before anything runs; a device is
# written in place (HTML without an extension) and a full one is exit 3.
mkdir "$T/dir" "$T/dir.md"
for out in "$T/dir" "$T/dir.md"; do
  "$R" report a40 -o "$out" 2>"$T/err"; rc=$?
  [ "$rc" -eq 3 ] || fail "-o a directory ($out): exit $rc, expected 3"
  [ "$(cat "$T/err")" = "ridge: report: $out: is a directory" ] || fail "-o a directory: $(cat "$T/err")"
  [ -z "$(ls -A "$out")" ] || fail "-o a directory: wrote into it"
done
if [ -w /dev/full ]; then
  "$R" report a40 -o /dev/full 2>"$T/err"; rc=$?
  [ "$rc" -eq 3 ] || fail "-o /dev/full: exit $rc, expected 3"
  [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q '^ridge: /dev/full: .*No space left on device' "$T/err" ||
    fail "-o /dev/full: $(cat "$T/err")"
fi
# A directory that does not exist (or a file where one should be) is an output that cannot be
# written: exit 3 naming it, as every -o writer says it, before anything runs.
touch "$T/file"
for out in "$T/nodir/r.html" "$T/nodir/r.md" "$T/file/r.html"; do
  "$R" report a40 -o "$out" 2>"$T/err"; rc=$?
  [ "$rc" -eq 3 ] || fail "-o $out: exit $rc, expected 3"
  [ "$(wc -l <"$T/err")" -eq 1 ] && grep -Eq "^ridge: $out: cannot write \((No such file or directory|Not a directory)\)\$" "$T/err" ||
    fail "-o $out: $(cat "$T/err")"
done
[ ! -e "$T/nodir" ] || fail "-o into a missing directory: made it"
"$R" report a40 -o /dev/stdout 2>"$T/err" >"$T/stdout.html" || fail "-o /dev/stdout: $(cat "$T/err")"
head -1 "$T/stdout.html" | grep -q '^<!DOCTYPE html>' || fail "-o /dev/stdout: not the HTML page"
# Bad input: one line on stderr, exit 2, no file.
bad() {
  local what=$1 out=$2; shift 2
  "$R" report "$@" -o "$out" 2>"$T/err"; rc=$?
  [ "$rc" -eq 2 ] || fail "$what: exit $rc, expected 2"
  [ "$(wc -l <"$T/err")" -eq 1 ] || fail "$what: expected one line, got: $(cat "$T/err")"
  [ ! -e "$out" ] || fail "$what: $out written"
}
bad "unknown GPU" "$T/u.html" a40 a99
bad "unknown extension" "$T/r.pdf" a40
bad "unknown GPU in --price" "$T/p.html" a40 --price zz=1
bad "a GPU not in the report in --price" "$T/p.html" a40 --price h100-sxm5-80gb=1
bad "negative price" "$T/p.html" a40 --price a40=-1
# each question has its own mode, batch and lengths: those run options are refused
bad "--seq" "$T/q.html" a40 --seq 64
bad "--batch" "$T/q.html" a40 --batch 8
bad "--mode" "$T/q.html" a40 --mode infer
bad "--context" "$T/q.html" a40 --context 4000
# Prices: --price replaces the catalogue's (a40 has none), and the per-dollar table uses it.
"$R" report a40 a100-sxm4-80gb --price a40=0.9 -o "$T/p.html" 2>"$T/err" || fail "report --price: $(cat "$T/err")"
grep -q 'Price of a40: 0.9 USD/h' "$T/p.html" || fail "--price a40=0.9 not named in the assumptions"
grep -q 'Price of a40: no price (give --price a40=USD_PER_HOUR' "$T/r.html" || fail "a40 without --price: no 'no price'"
[ "$(grep -c 'no price' "$T/p.html")" -lt "$(grep -c 'no price' "$T/r.html")" ] || fail "--price did not price the a40"
"$R" report a40 2>/dev/null; [ $? -eq 2 ] || fail "no -o: expected exit 2"
"$R" report --help | grep -q "usage: ridge report" || fail "--help"
echo "report: ok"
