#!/usr/bin/env python3
"""ridge compare --per-op end to end (CTest: compare_per_op). SPDX-License-Identifier: GPL-3.0-or-later

    tests/run_compare_per_op.py RIDGE_BINARY

For the README example (A40 vs A100, ResNet-50 training, batch 64) and two more runs, in text, JSON
and CSV: the kernel count is predict --per-op's on each GPU, each GPU's kernel times add up to its
step time as compare prints it, the shares of the step-time difference add up to 100 %, and text
lines fit 120 columns. Bad input is a one-line error with exit 2."""
import csv
import io
import json
import os
import re
import subprocess
import sys

if len(sys.argv) != 2 or not os.access(sys.argv[1], os.X_OK):
    sys.exit("usage: run_compare_per_op.py RIDGE_BINARY")
RIDGE = sys.argv[1]
ENV = dict(os.environ, LC_ALL="C")
failed = checks = 0


def check(ok, msg):
    global failed, checks
    checks += 1
    if not ok:
        failed += 1
        print("FAIL: " + msg)


def ridge(args):
    p = subprocess.run([RIDGE] + args, capture_output=True, env=ENV)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def close(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-30)


UNIT = {"s": 1.0, "ms": 1e-3, "\u00b5s": 1e-6}


def seconds(cell):
    num, unit = cell.split(" ")
    return float(num) * UNIT[unit]


RUNS = [
    (["a40", "a100-sxm4-80gb"], ["--workload", "resnet50", "--mode", "train", "--batch", "64"]),
    (["a40", "a100-sxm4-80gb"], ["--workload", "bert-base", "--mode", "train", "--batch", "32"]),
    (["a40", "a100-sxm4-80gb", "h100-sxm5-80gb", "l40s"],
     ["--workload", "llama2-7b", "--mode", "decode", "--context", "512"]),
]

for gpus, run in RUNS:
    what = " ".join(gpus + run)
    kernels = {}
    for g in gpus:
        rc, out, _ = ridge(["predict", "--gpu", g] + run + ["--per-op", "--format", "json"])
        check(rc == 0, "predict on %s: exit %d" % (g, rc))
        kernels[g] = len(json.loads(out)["ops"]) if rc == 0 else -1
    rc, out, _ = ridge(["compare"] + gpus + run + ["--format", "json"])
    step = {r["gpu"]: r["time_s"] for r in json.loads(out)["gpus"]}

    # JSON: every kernel on every GPU, times adding up to the step, shares to 1.
    rc, out, err = ridge(["compare"] + gpus + run + ["--per-op", "--format", "json"])
    check(rc == 0, "%s --per-op json: exit %d %s" % (what, rc, err))
    d = json.loads(out)
    check(not d["matched_by_name"], what + ": same graph on every GPU")
    for g in gpus:
        rows = [k for k in d["kernels"] if k["gpu"] == g]
        check(len(rows) == kernels[g], "%s json: %d kernels on %s, predict has %d" % (what, len(rows), g, kernels[g]))
        t = sum(k["time_s"] for k in rows)
        check(close(t, step[g], 1e-9), "%s json: kernels on %s add up to %g s, the step is %g s" % (what, g, t, step[g]))
    for s in d["speedup_sources"]:
        total = sum(x["share"] for x in s["sources"])
        check(close(total, 1.0, 1e-9), "%s json: shares for %s add up to %g" % (what, s["gpu"], total))
        check(close(sum(x["time_s"] for x in s["sources"]), s["step_time_difference_s"], 1e-9),
              "%s json: parts for %s add up to the difference" % (what, s["gpu"]))
        check(close(s["step_time_difference_s"], step[gpus[0]] - step[s["gpu"]], 1e-9),
              "%s json: difference for %s" % (what, s["gpu"]))
        check(s["same_batch"] is True, what + ": same_batch is a boolean")

    # CSV: the same rows.
    rc, out, err = ridge(["compare"] + gpus + run + ["--per-op", "--format", "csv"])
    check(rc == 0, "%s --per-op csv: exit %d %s" % (what, rc, err))
    rows = list(csv.DictReader(io.StringIO(out)))
    for g in gpus:
        mine = [r for r in rows if r["gpu"] == g]
        check(len(mine) == kernels[g], "%s csv: %d kernels on %s, predict has %d" % (what, len(mine), g, kernels[g]))
        t = sum(float(r["time_s"]) for r in mine)
        check(close(t, step[g], 1e-6), "%s csv: kernels on %s add up to %g s, the step is %g s" % (what, g, t, step[g]))

    # Text: shown kernels + "(the other N kernels)" = every kernel; their times and the rest's
    # add up to the step row (4 significant digits each); shares add up to 100 %; 120 columns.
    rc, out, err = ridge(["compare"] + gpus + run + ["--per-op"])
    check(rc == 0, "%s --per-op text: exit %d %s" % (what, rc, err))
    lines = out.split("\n")
    wide = [l for l in lines if len(l) > 120]
    check(not wide, "%s text: %d lines over 120 columns: %r" % (what, len(wide), wide[:1]))
    # Columns by the dashed rule under each heading (a sum row leaves its bound cells empty).
    tables, cur = [], None
    for i, l in enumerate(lines):
        if l.startswith("kernel  ") and i + 1 < len(lines) and lines[i + 1].startswith("---"):
            spans = [m.span() for m in re.finditer(r"-+", lines[i + 1])]
            cut = lambda s, spans=spans: [s[a:b + 2 if b < len(s) else None].strip() for a, b in spans]
            cur = {"head": cut(l), "rows": [], "cut": cut}
            tables.append(cur)
        elif cur is not None and l.strip() == "":
            cur = None
        elif cur is not None and not l.startswith("---"):
            cur["rows"].append(cur["cut"](l))
    check(len(tables) >= 1, what + " text: a kernel table")
    seen = set()
    for tab in tables:
        ids = [h for h in tab["head"] if h in gpus]
        cols = [tab["head"].index(g) for g in ids]
        body = [r for r in tab["rows"] if r[0] != "step"]
        steprow = [r for r in tab["rows"] if r[0] == "step"]
        check(len(steprow) == 1, what + " text: one step row")
        m = [re.match(r"\(the other (\d+) kernels\)", r[0]) for r in body]
        rest = sum(int(x.group(1)) for x in m if x)
        shown = sum(1 for x in m if not x)
        for g, c in zip(ids, cols):
            seen.add(g)
            check(shown + rest == kernels[g], "%s text: %d + %d kernels on %s, predict has %d" %
                  (what, shown, rest, g, kernels[g]))
            t = 0.0
            for r in body:
                t += seconds(r[c])
            st = seconds(steprow[0][c])
            check(close(t, st, 5e-3), "%s text: kernels on %s add up to %g s, step row says %g s" % (what, g, t, st))
            check(close(st, step[g], 5e-4), "%s text: step row on %s %g s, compare says %g s" % (what, g, st, step[g]))
    check(seen == set(gpus), what + " text: every GPU in a table")
    summ = [l for l in lines if l.startswith("gpu ")]
    check(len(summ) == 1, what + " text: one summary table")
    if summ:
        i = lines.index(summ[0])
        for l in lines[i + 2:i + 1 + len(gpus)]:
            pct = [float(x) for x in re.findall(r"(-?[0-9.]+) %", l)]
            check(len(pct) == 6 and abs(sum(pct) - 100) <= 0.35, "%s text: shares %r add up to 100 %%" % (what, pct))

# The default and --top: 20 kernels shown, then the rest; --top 0 shows all.
rc, out, _ = ridge(["compare"] + RUNS[0][0] + RUNS[0][1] + ["--per-op"])
check("(the other 259 kernels)" in out and "the 20 longest on a40" in out, "default --top 20")
rc, out, _ = ridge(["compare"] + RUNS[0][0] + RUNS[0][1] + ["--per-op", "--top", "0"])
check(rc == 0 and "(the other" not in out, "--top 0 shows every kernel")

# Bad input: one line on stderr, exit 2.
for args in (["compare", "a40", "a100-sxm4-80gb", "--per-op"],
             ["compare", "a40", "nosuchgpu", "--workload", "resnet50", "--per-op"],
             ["compare", "a40", "a100-sxm4-80gb", "--workload", "resnet50", "--top", "5"],
             ["compare", "a40", "a100-sxm4-80gb", "--workload", "resnet50", "--per-op", "--top", "x"],
             ["compare", "a40", "a100-sxm4-80gb", "--workload", "nosuchmodel", "--per-op"]):
    rc, out, err = ridge(args)
    check(rc == 2 and out == "" and err.count("\n") == 1, "%s: exit %d, stderr %r" % (" ".join(args), rc, err))

print("compare_per_op: %d checks, %d failed" % (checks, failed))
sys.exit(1 if failed else 0)
