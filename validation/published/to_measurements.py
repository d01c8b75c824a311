#!/usr/bin/env python3
"""Convert the rows of shared/data/published-dev.csv that ridge models into a measurement file.

Usage: to_measurements.py [--csv ../shared/data/published-dev.csv]
                          [--out validation/published/published-dev.json]

The rows chosen and their run configurations are exactly those of compare_published.py
(its GPU and PRECISION tables and MAPPING); `ridge validate` then predicts each measurement.
These are published figures, not measured by ridge: each keeps its source and row id, and the
format additions (value, unit, metric, config.kind...) are in docs/validation.md,
"Published figures as measurements". Rows left unmapped on purpose (the MXNet DLE inference rows,
"Total IPS incl. data") and the reasons are in compare_published.py's MAPPING.
"""
import argparse
import csv
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_published import (LLM, gpu_of, PRECISION, dle_run, host_of, io_tokens, multi_gpu_config,  # noqa: E402
                               pretrain_args, serving_config)  # (one mapping table for both scripts)


def layout_of(r):
    """DLE ConvNets: AMP runs NHWC, FP32/TF32 runs NCHW (the rows' notes: "AMP uses NHWC")."""
    return "nhwc" if PRECISION.get(r["precision"]) in ("fp16", "bf16") else "nchw"


def config_of(r):
    """The run configuration of a row compare_published.py maps, or None (same conditions)."""
    model, task, gpu = r["model"], r["task"], gpu_of(r["gpu"])
    prec = PRECISION.get(r["precision"])
    if not gpu or not prec or r["gpu_count"] != "1":
        return None
    if not r["batch_per_gpu"].isdigit():
        return None  # no batch stated: compare_published.py cannot run it either
    batch = int(r["batch_per_gpu"])
    base = {"gpu": gpu, "batch": batch, "precision": prec, "runtime": "eager", "source": r["source"],
            "host": host_of(r)}
    if model == "ResNet-50 v1.5" and task in ("training", "inference") and r["unit"] == "images/s":
        side = int(r["seq_or_image"].split("x")[0])
        cfg = dict(base, workload="resnet50", mode="train" if task == "training" else "infer", image=side,
                   layout=layout_of(r), kind="throughput")
        if prec in ("fp16", "bf16"):
            cfg["amp"] = True  # DLE ConvNets AMP: torch.cuda.amp autocast over FP32 weights
        if cfg["mode"] == "train":
            cfg["optimizer"] = "sgd"  # DLE ConvNets: SGD with momentum 0.875 (its README)
        return cfg
    dle = dle_run(r, prec)
    if dle is not None:  # TensorFlow 1.15 / MXNet DLE ResNet-50: compare_published.py's MAPPING and dle_run
        cfg = dict(base, workload="resnet50", mode=dle["mode"], image=224, layout=dle["layout"], kind="throughput")
        if dle["amp"]:
            cfg["amp"] = True  # TF's auto mixed precision graph rewrite: FP32 variables cast every step
        if dle["mode"] == "train":
            cfg.update(optimizer=dle["optimizer"], optimizer_impl=dle["optimizer_impl"])
        if "bn_fusion" in dle:
            cfg["bn_fusion"] = dle["bn_fusion"]
        return cfg
    if model == "ResNet-50 v1.5 (MLPerf, ImageNet)" and task == "inference" and r["framework"].startswith("TensorRT"):
        cfg = dict(base, workload="resnet50", mode="infer", image=224, fusion="engine", runtime="graph")
        if r["unit"].startswith("samples/s"):
            return dict(cfg, kind="throughput")
        if r["unit"] == "ms":
            return dict(cfg, kind="latency")
        return None
    if model == "BERT-large pre-training (LAMB)" and r["unit"] == "sequences/s":
        pa = pretrain_args(r, prec)
        if pa is None:
            return None
        return dict(base, workload="bert-large", mode="train", seq=int(r["seq_or_image"]), attention="unfused",
                    optimizer="lamb", kind="throughput", **pa)
    if model.startswith("BERT-large SQuAD v1.1") and r["unit"] == "sequences/s":
        return dict(base, workload="bert-large-squad", mode="train" if task == "training" else "infer",
                    seq=int(r["seq_or_image"]), attention="unfused", kind="throughput")
    if model in LLM and task == "inference (LLM prefill)" and r["unit"] == "ms":
        return dict(base, workload=LLM[model], mode="prefill", prompt=int(r["seq_or_image"].split()[1]),
                    kind="latency")
    if model in LLM and task == "inference (LLM generation)" and r["unit"].startswith("output tokens/s"):
        inp, outp = io_tokens(r)
        # decode is predicted once, at the mean context of the generation (prompt + output/2)
        return dict(base, workload=LLM[model], mode="generate", prompt=inp, output=outp,
                    context=inp + outp // 2, kind="generation")
    return None


def time_of(cfg, value):
    """Seconds per call: per step for throughputs, the latency itself, the whole generation."""
    if cfg["kind"] == "serving":  # the replica's whole run: requests x output tokens at that rate
        return cfg["requests"] * cfg["output"] / value
    if "parallel" in cfg and cfg["kind"] == "generation":  # per GPU: a replica's tp GPUs share its batch
        return cfg["parallel"]["microbatch"] * cfg["output"] / (value * cfg["parallel"]["tp"])
    if cfg["kind"] == "throughput":
        return cfg["batch"] / value
    if cfg["kind"] == "latency":
        return value * 1e-3
    return cfg["batch"] * cfg["output"] / value


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", default="../shared/data/published-dev.csv")
    ap.add_argument("--out", default="validation/published/published-dev.json")
    a = ap.parse_args()
    rows = list(csv.DictReader(open(a.csv, newline="")))
    meas, skipped = [], 0
    for r in rows:
        cfg = config_of(r) or multi_gpu_config(r) or serving_config(r)
        if cfg is None:
            skipped += 1
            continue
        value = float(r["value"])
        t = time_of(cfg, value)
        meas.append({"id": r["id"], "group": "published",
                     "time_s": {"min": t, "median": t, "max": t},
                     "value": value, "unit": r["unit"], "metric": r["metric"],
                     "flops": None, "bytes": None, "checked": False,
                     "check": {"status": "none", "metric": "published figure, not verified by ridge"},
                     "config": cfg})
    doc = {"schema_version": 1, "kind": "ridge-measurements",
           "provenance": {"source": "shared/data/published-dev.csv",
                          "note": "published figures, not measured by ridge",
                          "date": datetime.date.today().isoformat()},
           "measurements": meas,
           "summary": {"measurements": len(meas), "rows_not_mapped": skipped}}
    with open(a.out, "w") as f:
        f.write("{\n")
        f.write(f' "schema_version": 1, "kind": "ridge-measurements",\n')
        f.write(f' "provenance": {json.dumps(doc["provenance"])},\n')
        f.write(' "measurements": [\n')
        f.write(",\n".join("  " + json.dumps(m) for m in meas))
        f.write("\n ],\n")
        f.write(f' "summary": {json.dumps(doc["summary"])}\n}}\n')
    print(f"{a.out}: {len(meas)} measurements, {skipped} rows not mapped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
