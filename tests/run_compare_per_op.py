#!/usr/bin/env python3
"""ridge compare --per-op end to end (CTest: compare_per_op). SPDX-License-Identifier: GPL-3.0-or-later

    tests/run_compare_per_op.py RIDGE_BINARY

For the README example (A40 vs A100, ResNet-50 training, batch 64) and two more runs, in text, JSON
and CSV: the kernel count is predict --per-op's on each GPU, each GPU's kernel times add up to its
step time as compare prints it, the shares of the step-time difference add up to 100 %, and text
lines fit 120 columns. With --batch max (resnet50, bert-large, llama2-7b decode): each GPU's batch
is the largest predict says fits, the shares of the speed-up add up to 100 %, capacity is non-zero
where the batches differ, keys follow docs/cli.md's rule. Bad input is a one-line error with exit 2."""
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

# --batch max: each GPU at its largest batch that fits (predict's fits at b, not at b + 1); the
# speed-up in throughput; its shares of ln S add up to 100 %, capacity non-zero where the batches
# differ; keys by the key rule (SI unit last, true/false); text within 120 columns.
KEY = re.compile(r"^[a-z][a-z0-9_]*$")
SCALED = re.compile(r"_(us|ms|gib|gb_per_s|tflop_per_s)$")


def keys_ok(o, path="$"):
    bad = []
    if isinstance(o, dict):
        for k, v in o.items():
            if not KEY.match(k) or SCALED.search(k):
                bad.append(path + "." + k)
            if k in ("fits", "same_batch", "batch_max", "matched_by_name") and not isinstance(v, bool):
                bad.append(path + "." + k + " not true/false")
            bad += keys_ok(v, path + "." + k)
    elif isinstance(o, list):
        for v in o[:50]:
            bad += keys_ok(v, path + "[]")
    return bad


def fits(g, run, b):
    rc, out, _ = ridge(["predict", "--gpu", g] + run + ["--batch", str(b), "--format", "json"])
    return rc == 0 and json.loads(out)["memory"]["fits"]


MAXRUNS = [["--workload", "resnet50", "--mode", "train"], ["--workload", "bert-large", "--mode", "train"],
           ["--workload", "llama2-7b", "--mode", "decode", "--context", "512"]]
for run in MAXRUNS:
    gpus = ["a40", "a100-sxm4-80gb"]
    what = " ".join(gpus + run) + " --batch max"
    rc, out, err = ridge(["compare"] + gpus + run + ["--batch", "max", "--per-op", "--format", "json"])
    check(rc == 0, "%s --per-op json: exit %d %s" % (what, rc, err))
    d = json.loads(out)
    check(not keys_ok(d), "%s json keys: %r" % (what, keys_ok(d)[:3]))
    check(d.get("batch_max") is True, what + ": batch_max true")
    b = {r["gpu"]: r["batch"] for r in d["gpus"]}
    for g in gpus:
        check(b[g] >= 1 and fits(g, run, b[g]) and not fits(g, run, b[g] + 1),
              "%s: batch %s on %s is not the largest that fits" % (what, b[g], g))
    check(d["batch"] == b["a40"], what + ": the run's batch is the first GPU's")
    tp = {r["gpu"]: r["throughput"] for r in d["gpus"]}
    for s in d["speedup_sources"]:
        g = s["gpu"]
        total = sum(x["share"] for x in s["sources"])
        check(close(total, 1.0, 1e-9), "%s json: shares for %s add up to %g" % (what, g, total))
        check(close(s["speedup"], tp[g] / tp["a40"], 1e-9), "%s: speedup is in throughput" % what)
        check(close(s["speedup"], s["speedup_batch"] * s["speedup_same_batch"], 1e-9), what + ": S = S_batch S_same")
        cap = [x for x in s["sources"] if x["source"] == "capacity_batch"][0]
        check(s["same_batch"] is (b[g] == b["a40"]), what + ": same_batch")
        check(b[g] == b["a40"] or cap["share"] != 0, "%s: capacity share 0 with batches %r" % (what, b))
        check(s["batch"] == b[g] and s["first_batch"] == b["a40"], what + ": the summary names the batches")
        parts = sum(x["time_s"] for x in s["sources"] if x["source"] != "capacity_batch")
        check(close(parts, s["step_time_difference_s"], 1e-9), what + ": parts add up at the common batch")
    # The kernels run at the first GPU's batch on every GPU: their sum is that prediction's step.
    rc, out, _ = ridge(["compare"] + gpus + run + ["--batch", str(b["a40"]), "--format", "json"])
    same = {r["gpu"]: r["time_s"] for r in json.loads(out)["gpus"]}
    for g in gpus:
        t = sum(k["time_s"] for k in d["kernels"] if k["gpu"] == g)
        check(close(t, same[g], 1e-9), "%s: kernels on %s at the common batch" % (what, g))
    # Plain compare: each GPU's batch, speedup in throughput; CSV the same keys.
    rc, out, err = ridge(["compare"] + gpus + run + ["--batch", "max", "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(out)))
    check(rc == 0 and [int(r["batch"]) for r in rows] == [b[g] for g in gpus], "%s csv: batch column" % what)
    check(all(KEY.match(k) and not SCALED.search(k) for k in rows[0]) and rows[0]["fits"] in ("true", "false"),
          "%s csv keys %r" % (what, list(rows[0])))
    for f in ([], ["--per-op"]):
        rc, out, err = ridge(["compare"] + gpus + run + ["--batch", "max"] + f)
        wide = [l for l in out.split("\n") if len(l) > 120]
        check(rc == 0 and not wide, "%s %s text: exit %d, %d lines over 120 columns" % (what, f, rc, len(wide)))
        check("batch max" in out, "%s %s text: the header says batch max" % (what, f))
        if f:
            summ = [l for l in out.split("\n") if l.startswith("a100-sxm4-80gb ") and "%" in l]
            pct = [float(x) for x in re.findall(r"(-?[0-9.]+) %", summ[-1])] if summ else []
            check(len(pct) == 6 and abs(sum(pct) - 100) <= 0.35, "%s text: shares %r add up to 100 %%" % (what, pct))

# Bad input: one line on stderr, exit 2.
OPLIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "workloads", "examples", "gemm-sweep.json")
for args in (["compare", "a40", "a100-sxm4-80gb", "--per-op"],
             ["compare", "a40", "nosuchgpu", "--workload", "resnet50", "--per-op"],
             ["compare", "a40", "a100-sxm4-80gb", "--workload", "resnet50", "--top", "5"],
             ["compare", "a40", "a100-sxm4-80gb", "--workload", "resnet50", "--per-op", "--top", "x"],
             ["compare", "a40", "a100-sxm4-80gb", "--workload", "nosuchmodel", "--per-op"],
             ["compare", "a40", "a100-sxm4-80gb", "--workload", OPLIST,
              "--batch", "max", "--per-op"],
             ["compare", "a40", "a100-sxm4-80gb", "--workload", "llama2-7b", "--mode", "train", "--batch", "max"],
             ["compare", "a40", "a100-sxm4-80gb", "--workload", "llama2-7b", "--mode", "train", "--batch", "max",
              "--per-op"],
             ["compare", "a40", "a100-sxm4-80gb", "--batch", "max"]):
    rc, out, err = ridge(args)
    check(rc == 2 and out == "" and err.count("\n") == 1, "%s: exit %d, stderr %r" % (" ".join(args), rc, err))

print("compare_per_op: %d checks, %d failed" % (checks, failed))
sys.exit(1 if failed else 0)
