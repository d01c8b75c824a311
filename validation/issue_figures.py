#!/usr/bin/env python3
"""Every accuracy figure the open accuracy issues (14, 15, 16) set a goal for, against its goal.

Usage: issue_figures.py [--ridge PATH]   (default build/cli/ridge; run from the source root)

Runs `ridge validate --format json` on the imported files and prints one row per figure: the
issue, the figure, ridge's value, the goal and whether it is met. The sets and cuts are the
issues' own (docs/validation.md): H200 kernels of 50 us or more, overall and per family;
AIConfigurator GEMMs of 20 us or more per GPU x dtype; the H200 whole-model groups of runs a and
c (validation/model_groups.py); the published rows per GPU; the ten Megatron rows, each and their
mean. The transfer test is not rerun here (validation/calibrate_all.sh prints it). Exit 0 with the
table, 2 when ridge cannot be run or a file is missing.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
import model_groups  # noqa: E402  (the issue 15 groups, one definition)

H200 = os.path.join(ROOT, "validation", "data", "h200-2026-11-29.json")
AIC = os.path.join(ROOT, "validation", "data", "aiconfigurator-gemm.json")
PUB = os.path.join(ROOT, "validation", "published", "published-dev.json")
MEG = os.path.join(ROOT, "validation", "data", "megatron-dev.json")


def cases(ridge, path, *extra):
    """The cases of `ridge validate PATH --format json EXTRA...`; SystemExit(2) on failure."""
    try:
        out = subprocess.run([ridge, "validate", path, "--format", "json", *extra], capture_output=True, text=True)
    except OSError as e:
        print(f"issue_figures.py: {ridge}: {e}", file=sys.stderr)
        raise SystemExit(2)
    if out.returncode != 0:
        print(f"issue_figures.py: ridge validate {path}: exit {out.returncode}: {out.stderr.strip()}", file=sys.stderr)
        raise SystemExit(2)
    return json.loads(out.stdout)["cases"]


def mape(xs):
    return sum(abs(x) for x in xs) / len(xs) if xs else float("nan")


def rows(ridge):
    """(issue, figure, cases, value %, goal %) for every figure; value is a MAPE, or for a
    per-row goal the largest absolute error."""
    out = []
    k = [c for c in cases(ridge, H200, "--only", "kernels", "--min-time", "50e-6")]
    out.append((14, "H200 kernels >= 50 us", len(k), mape([c["error_percent"] for c in k]), 8.0))
    fams = {}
    for c in k:
        fams.setdefault(c["family"], []).append(c["error_percent"])
    for f in sorted(fams):
        out.append((14, f"  family {f}", len(fams[f]), mape(fams[f]), 15.0))
    a = cases(ridge, AIC, "--min-time", "20e-6")
    by = {}
    for c in a:
        gpu, dtype = c["id"].split("/")[1:3]
        by.setdefault((gpu, dtype), []).append(c["error_percent"])
    for (gpu, dtype) in sorted(by):
        out.append((14, f"AIConfigurator {gpu} {dtype} >= 20 us", len(by[(gpu, dtype)]), mape(by[(gpu, dtype)]),
                    10.0 if dtype == "fp8" else 8.0))
    m = model_groups.record_errors((c["id"], c["error_percent"]) for c in cases(ridge, H200, "--only", "models"))
    for name, run, e, _ in model_groups.group_errors(m):
        out.append((15, f"H200 models, {name}, run {run}", len(e), mape([x for _, x in e]), model_groups.GOALS[name]))
    pub = {}
    for c in cases(ridge, PUB):
        pub.setdefault(c["gpu"], []).append(c["error_percent"])
    for gpu in sorted(pub):
        out.append((15, f"published-dev {gpu}", len(pub[gpu]), mape(pub[gpu]), 15.0))
    meg = [c["error_percent"] for c in cases(ridge, MEG)]
    out.append((16, "Megatron rows, mean", len(meg), mape(meg), 4.0))
    out.append((16, "Megatron rows, the worst", len(meg), max(abs(x) for x in meg) if meg else float("nan"), 6.0))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ridge", default=os.environ.get("RIDGE") or os.path.join(ROOT, "build", "cli", "ridge"))
    a = ap.parse_args(argv)
    for p in (H200, AIC, PUB, MEG):
        if not os.path.exists(p):
            print(f"issue_figures.py: {p}: missing", file=sys.stderr)
            return 2
    try:
        table = rows(a.ridge)
    except SystemExit as e:
        return int(e.code)
    print(f"{'issue':5} {'figure':52} {'cases':>6} {'now [%]':>8} {'goal [%]':>9}  status")
    for issue, fig, n, v, goal in table:
        print(f"{issue:5d} {fig:52} {n:6d} {v:8.2f} {goal:9.0f}  {'met' if v <= goal else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
