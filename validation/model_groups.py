#!/usr/bin/env python3
"""ridge's error on the H200 whole-model records, by the groups issue 15 judges them in.

Usage: model_groups.py [--ridge PATH] [FILE]   (default build/cli/ridge and
       validation/data/h200-2026-11-29.json; run from the source root)

Runs `ridge validate FILE --only models --format csv` and prints the mean absolute percentage
error of each group of runs a and c, taken separately, with every record's signed error: the CUDA
graph records; the eager records whose step the GPU bounds; the eager records whose step the host
bounds (docs/model.md §7, "Errors on the H200 model records", where the groups are defined: by
what each run measured, batch-1 and small-batch eager runs being host-bound). A record of the file
in no group is listed apart, so a new record is not silently left out.
"""
import argparse
import csv
import io
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, ".."))

GROUPS = [
    ("graph", "a", ["llama2-7b_decode_bs1_ctx1024/graph", "llama2-7b_decode_bs32_ctx1024/graph",
                    "llama2-7b_decode_bs32_ctx4096/graph"]),
    ("GPU-bound eager", "a", ["resnet50_train_bf16_bs256", "resnet50_train_tf32_bs128", "resnet50_infer_fp16_bs256",
                              "llama2-7b_prefill_bs1_T2048", "llama2-7b_prefill_bs4_T2048"]),
    ("GPU-bound eager", "c", ["resnet50_train_bf16_bs256", "resnet50_train_tf32_bs128", "resnet50_infer_fp16_bs256"]),
    ("host-bound eager", "a", ["resnet50_train_bf16_bs64", "resnet50_infer_fp16_bs1", "bert-base_train_bf16_bs32_seq128",
                               "gpt2-124m_train_bf16_bs8_seq1024", "llama2-7b_prefill_bs1_T128",
                               "llama2-7b_decode_bs1_ctx1024", "llama2-7b_decode_bs32_ctx1024",
                               "llama2-7b_decode_bs32_ctx4096"]),
    ("host-bound eager", "c", ["resnet50_train_bf16_bs64", "resnet50_infer_fp16_bs1"]),
]
GOALS = {"graph": 10.0, "GPU-bound eager": 10.0, "host-bound eager": 15.0}


def record_errors(pairs):
    """{(run, name): signed error %} of the (id, error) pairs whose id is SET/RUN/NAME."""
    err = {}
    for rid, e in pairs:
        parts = rid.split("/", 2)
        if len(parts) == 3:
            err[(parts[1], parts[2])] = float(e)
    return err


def group_errors(err):
    """(group, run, [(name, error)] present, [names missing]) for each of GROUPS."""
    for name, run, ids in GROUPS:
        present = [(i, err[(run, i)]) for i in ids if (run, i) in err]
        yield name, run, present, [i for i in ids if (run, i) not in err]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file", nargs="?", default=os.path.join(ROOT, "validation", "data", "h200-2026-11-29.json"))
    ap.add_argument("--ridge", default=os.environ.get("RIDGE") or os.path.join(ROOT, "build", "cli", "ridge"))
    a = ap.parse_args(argv)
    try:
        out = subprocess.run([a.ridge, "validate", a.file, "--only", "models", "--format", "csv"],
                             capture_output=True, text=True)
    except OSError as e:
        print(f"model_groups.py: {a.ridge}: {e}", file=sys.stderr)
        return 2
    if out.returncode != 0:
        print(f"model_groups.py: ridge validate {a.file}: exit {out.returncode}: {out.stderr.strip()}",
              file=sys.stderr)
        return 2
    err = record_errors((r["id"], r["error_percent"]) for r in csv.DictReader(io.StringIO(out.stdout)))
    seen = set()
    print(f"{'group':18} {'run':3} {'cases':>5} {'MAPE [%]':>9} {'goal [%]':>9}  signed errors [%]")
    for name, run, e, missing in group_errors(err):
        seen.update((run, i) for i, _ in e)
        if not e:
            continue
        mape = sum(abs(x) for _, x in e) / len(e)
        print(f"{name:18} {run:3} {len(e):5d} {mape:9.2f} {GOALS[name]:9.0f}  " +
              " ".join(f"{x:+.1f}" for _, x in e) + (f"  (missing: {', '.join(missing)})" if missing else ""))
    rest = sorted(k for k in err if k not in seen)
    for run, i in rest:
        print(f"in no group: {run}/{i} {err[(run, i)]:+.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
