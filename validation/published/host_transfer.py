#!/usr/bin/env python3
"""Is the eager host cost a property of the host software, not of the GPU? A held-out test.

Usage: host_transfer.py [--ridge build/cli/ridge] [--data validation/published/published-dev.json]
                        [--train pub0225] [--from-gpu v100-sxm2-32gb] [--to-gpu t4]

The DeepLearningExamples ConvNets inference rows (NGC pytorch-21.03) at batch 1 are host-bound:
10-13 ms per image on a V100 and on a T4 alike. This script

1. fits `framework_op_s` alone (`ridge calibrate --fit framework_op_s`) on one row of the first GPU
   (default pub0225: V100, batch 1, FP32), the declared training subset;
2. writes the second GPU's catalogue file (model/gpus/ID.json) with that one fitted value in its
   `efficiency` (every other parameter keeps its default) to a temporary file;
3. predicts every published row of both GPUs with `ridge validate --gpu-file` and prints them,
   marking the training row. Rows of the second GPU were not used in any fit: a small error on its
   host-bound rows says the fitted cost carries over to another GPU with the same software.

Nothing is written to the repository; docs/validation.md ("Published measurements") quotes the
result.
"""
import argparse
import csv
import io
import json
import os
import subprocess
import sys
import tempfile


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"host_transfer: {' '.join(cmd)}: {out.stderr.strip()}")
    return out.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ridge", default="build/cli/ridge")
    ap.add_argument("--data", default="validation/published/published-dev.json")
    ap.add_argument("--train", default="pub0225")
    ap.add_argument("--from-gpu", default="v100-sxm2-32gb")
    ap.add_argument("--to-gpu", default="t4")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        fitted_file = os.path.join(tmp, "from.json")
        run([a.ridge, "calibrate", "--gpu", a.from_gpu, "--train", a.train, "--fit", "framework_op_s", a.data,
             "-o", fitted_file])
        f = json.load(open(fitted_file))["efficiency"]["framework_op_s"]
        to = json.load(open(os.path.join("model", "gpus", a.to_gpu + ".json")))
        to.setdefault("efficiency", {})["framework_op_s"] = f
        to["efficiency"]["source"] = f"framework_op_s fitted on {a.train} ({a.from_gpu}) by host_transfer.py"
        to_file = os.path.join(tmp, "to.json")
        json.dump(to, open(to_file, "w"), indent=1)
        print(f"framework_op_s fitted on {a.train} ({a.from_gpu}): {f * 1e6:.1f} us per operator "
              f"(default 3 us)\n")
        cases = {m["id"]: m["config"] for m in json.load(open(a.data))["measurements"]}
        base = {r["id"]: r for r in csv.DictReader(io.StringIO(run([a.ridge, "validate", a.data, "--format", "csv"])))}
        print(f"{'id':8} {'gpu':16} {'case':28} {'published':>10} {'default':>9} {'fitted':>9}")
        for gpu, gpu_file in ((a.from_gpu, fitted_file), (a.to_gpu, to_file)):
            for r in csv.DictReader(io.StringIO(run([a.ridge, "validate", a.data, "--gpu-file", gpu_file,
                                                     "--format", "csv"]))):
                if r["gpu"] != gpu:
                    continue
                c = cases[r["id"]]
                what = f"{r['workload']} {c.get('mode', '')} b{c.get('batch', '')} {c.get('precision', '')}"
                mark = "  (training)" if r["id"] == a.train else ""
                print(f"{r['id']:8} {gpu:16} {what:28} {float(r['measured']):10.4g} "
                      f"{float(base[r['id']]['error_percent']):+8.1f}% {float(r['error_percent']):+8.1f}%{mark}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
