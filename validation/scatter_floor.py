#!/usr/bin/env python3
"""The scatter floor of a GEMM sweep: how well a record's own neighbours predict it.

Usage: scatter_floor.py [FILE] [--min-time S]     (default validation/data/aiconfigurator-gemm.json, 20e-6)

For every GEMM measurement of at least --min-time seconds whose shape has neighbours in the sweep
(the next smaller and larger k at the same m and n, the next smaller and larger n at the same m
and k), predict its time as the geometric mean of the neighbours' times scaled by the FLOP ratio
(t_neighbour * k / k_neighbour, or * n / n_neighbour) and print the mean and median absolute
percentage error per GPU and dtype, and per GPU, dtype and m >= 512 / m < 512. The predictor sees
the measured neighbours, so no model of the shape alone is expected to do much better: where it
stays far from zero, the records scatter (library heuristics switching kernels, clocks) more than
any smooth function of the shape (docs/validation.md, "Kernel error before and after").
Standard library only; reads a ridge measurement file (docs/validation.md).
"""
import argparse
import json
import math
import statistics
import sys


class BadRecord(Exception):
    pass


def shapes(doc, min_time):
    """{(source gpu, dtype): {(m, n, k): time_s}} of the GEMM measurements (config.op or the
    gemm of config.ops), and the set of keys timed at least min_time. A GEMM measurement whose
    sides or time are not positive numbers raises BadRecord naming it and the field."""
    table, timed = {}, set()
    ms = doc.get("measurements") if isinstance(doc, dict) else None
    if not isinstance(ms, list):
        raise BadRecord("$.measurements: missing or not a list")
    for i, m in enumerate(ms):
        if not isinstance(m, dict):
            raise BadRecord(f"$.measurements[{i}]: not an object")
        c = m.get("config") if isinstance(m.get("config"), dict) else {}
        ops = [c["op"]] if "op" in c else c.get("ops", [])
        g = [o for o in ops if isinstance(o, dict) and o.get("op") == "gemm"] if isinstance(ops, list) else []
        if len(g) != 1:
            continue
        rid = m.get("id", f"$.measurements[{i}]")
        t = m.get("time_s", {}).get("median") if isinstance(m.get("time_s"), dict) else None
        if not isinstance(t, (int, float)) or isinstance(t, bool) or not t > 0 or t == float("inf"):
            raise BadRecord(f"{rid}: time_s.median: not a positive number")
        for side in ("m", "n", "k"):
            v = g[0].get(side)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not v > 0 or v == float("inf"):
                raise BadRecord(f"{rid}: the gemm op's {side}: not a positive number")
        parts = str(rid).split("/")
        key = (parts[1] if len(parts) > 3 else str(c.get("gpu", "?")), str(g[0].get("dtype", "?")))
        mnk = (g[0]["m"], g[0]["n"], g[0]["k"])
        table.setdefault(key, {})[mnk] = t
        if t >= min_time:
            timed.add((key, mnk))
    return table, timed


def neighbour_errors(d, keys):
    ks = sorted({k for (_, _, k) in d})
    ns = sorted({n for (_, n, _) in d})
    out = []
    for (m, n, k) in keys:
        t = d[(m, n, k)]
        i, j = ks.index(k), ns.index(n)
        pred = []
        for kk in (ks[i - 1] if i > 0 else None, ks[i + 1] if i + 1 < len(ks) else None):
            if kk is not None and (m, n, kk) in d:
                pred.append(d[(m, n, kk)] * k / kk)
        for nn in (ns[j - 1] if j > 0 else None, ns[j + 1] if j + 1 < len(ns) else None):
            if nn is not None and (m, nn, k) in d:
                pred.append(d[(m, nn, k)] * n / nn)
        if len(pred) < 2:
            continue
        p = math.exp(sum(math.log(x) for x in pred) / len(pred))
        out.append(((m, n, k), abs(p / t - 1) * 100))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file", nargs="?", default="validation/data/aiconfigurator-gemm.json")
    ap.add_argument("--min-time", type=float, default=20e-6)
    a = ap.parse_args(argv)
    try:
        with open(a.file, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"scatter_floor.py: {a.file}: {e}", file=sys.stderr)
        return 2
    try:
        table, timed = shapes(doc, a.min_time)
    except BadRecord as e:
        print(f"scatter_floor.py: {a.file}: {e}", file=sys.stderr)
        return 2
    if not table:
        print(f"scatter_floor.py: {a.file}: no GEMM measurements", file=sys.stderr)
        return 2
    print(f"{'gpu':10} {'dtype':6} {'m':>10} {'cases':>6} {'MAPE [%]':>9} {'median [%]':>11}")
    for (gpu, dt), d in sorted(table.items()):
        keys = [mnk for mnk in d if ((gpu, dt), mnk) in timed]
        errs = neighbour_errors(d, keys)
        for label, sel in (("all", lambda m: True), ("m >= 512", lambda m: m >= 512), ("m < 512", lambda m: m < 512)):
            e = [x for (mnk, x) in errs if sel(mnk[0])]
            if e:
                print(f"{gpu:10} {dt:6} {label:>10} {len(e):6d} {sum(e) / len(e):9.2f} {statistics.median(e):11.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
