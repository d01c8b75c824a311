#!/usr/bin/env python3
"""ridge-bench-torch: PyTorch end-to-end timings for ridge's validation.

  python3 validation/torch/bench_torch.py --out torch.json [--quick]
          [--only resnet,conv,bert,gpt2,llama,lstm] [--budget-s S] [--device cuda]

Families (each time-boxed; budgets in seconds on an H200):
  resnet  ResNet-50 v1.5 train/infer, AMP fp16/bf16, batch 64/256 (70)
  conv    ResNet-50 convolutions one at a time, fp32 (TF32 off) and bf16,
          cudnn.benchmark on: the kernel-level check of Winograd (25)
  bert    BERT-base/large encoder, seq 128/512, infer + fine-tune step (40)
  gpt2    GPT-2 124M training step (25)
  llama   7B-shaped GQA decoder, 2 and 4 layers, prefill + decode (50)
  lstm    2x1024 LSTM (cuDNN) forward and training step (20)

Every family measures eager mode and, where marked, a CUDA graph of the
same step (torch.cuda.CUDAGraph; torch.compile is not used: its compile
time would not fit the budget).  `--device cpu` runs the same code on the
CPU as a smoke test (fp16 becomes bf16, no graphs).

Exit status: 0 everything ran and every check passed; 1 otherwise;
2 usage error.
"""

import argparse
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import torch  # noqa: E402

import harness  # noqa: E402

FAMILIES = ("resnet", "conv", "bert", "gpt2", "llama", "lstm")


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="bench_torch.py",
        description="PyTorch end-to-end timings for ridge (random weights).")
    p.add_argument("--out", default="ridge-bench-torch.json",
                   help="measurement file to write (JSON)")
    p.add_argument("--quick", action="store_true",
                   help="tiny models and few repetitions (smoke test)")
    p.add_argument("--only", default=",".join(FAMILIES),
                   help="comma-separated families: " + ",".join(FAMILIES))
    p.add_argument("--budget-s", type=float, default=None,
                   help="time budget per family in seconds "
                        "(default: the family's own)")
    p.add_argument("--device", default="cuda", help="cuda, cuda:N or cpu")
    p.add_argument("--list", action="store_true",
                   help="list the configurations and exit")
    a = p.parse_args(argv)
    fams = [f for f in a.only.split(",") if f]
    bad = [f for f in fams if f not in FAMILIES]
    if bad or not fams:
        p.error("unknown family: %s" % ",".join(bad or ["(none)"]))
    if a.budget_s is not None and a.budget_s <= 0:
        p.error("--budget-s must be positive")
    a.families = fams
    return a


def main(argv):
    args = parse_args(argv)
    device = torch.device(args.device)
    mods = [importlib.import_module("wl_" + f) for f in args.families]

    if args.list:
        ctx = harness.Context(device, args.quick)
        for m in mods:
            for c in m.cases(ctx):
                print("%s  [%s]" % (c.name, ",".join(c.runtimes)))
        return 0

    if device.type == "cuda" and not torch.cuda.is_available():
        # Still leave a well-formed file saying why nothing was measured.
        b = harness.Writer(args.out, harness.provenance(args, torch.device(
            "cpu")))
        b.close([{"id": "torch/" + f, "group": harness.GROUP,
                  "reason": "torch.cuda.is_available() is False"}
                 for f in args.families], [],
                {"measurements": 0, "failed_checks": 0,
                 "skipped": len(args.families), "errors": 0})
        print("bench_torch: no CUDA device visible to PyTorch", flush=True)
        return 1
    if device.type == "cuda":
        torch.cuda.set_device(device)

    bench = harness.Bench(args, device)
    print("bench_torch: torch %s, %s, %s" % (
        torch.__version__, bench.prov.get("gpu_name") or device.type,
        "quick" if args.quick else "full"), flush=True)
    note = None
    try:
        for fam, mod in zip(args.families, mods):
            torch.backends.cudnn.benchmark = getattr(mod, "CUDNN_BENCHMARK",
                                                     False)
            # PyTorch's default is True; a family may ask for true FP32.
            torch.backends.cudnn.allow_tf32 = getattr(mod, "CUDNN_ALLOW_TF32",
                                                      True)
            budget = args.budget_s if args.budget_s else mod.BUDGET_S
            if args.quick:
                budget = min(budget, 20.0)
            bench.run_family(fam, mod.cases(bench.ctx), budget)
    except harness.Terminated as e:
        note = str(e)
        bench.errors.append({"group": harness.GROUP, "id": "torch",
                             "message": note})
    except KeyboardInterrupt:
        note = "interrupted"
        bench.errors.append({"group": harness.GROUP, "id": "torch",
                             "message": note})
    summary = bench.close(note)
    print("bench_torch: %d measurements, %d failed checks, %d skipped, "
          "%d errors -> %s" % (summary["measurements"],
                               summary["failed_checks"], summary["skipped"],
                               summary["errors"], args.out), flush=True)
    return 0 if summary["errors"] == 0 and summary["failed_checks"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
