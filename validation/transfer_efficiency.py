#!/usr/bin/env python3
"""Write a catalogue GPU's file with the efficiency block another GPU's calibration fitted.

Usage: transfer_efficiency.py CALIBRATED.json TARGET_GPU_FILE.json -o OUT.json

The transfer test of docs/validation.md: fit on one GPU (ridge calibrate), then predict another GPU
with those efficiency parameters (ridge validate --gpu-file OUT.json) and report the error.
"""
import argparse
import json
import os
import sys


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("calibrated")
    ap.add_argument("target")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args(argv)
    try:
        with open(a.calibrated, encoding="utf-8") as f:
            src = json.load(f)
        with open(a.target, encoding="utf-8") as f:
            dst = json.load(f)
    except (OSError, ValueError) as e:
        print(f"transfer_efficiency.py: {e}", file=sys.stderr)
        return 2
    eff = src.get("efficiency")
    if not isinstance(eff, dict):
        print(f"transfer_efficiency.py: {a.calibrated}: $.efficiency: missing (not a calibrated file)", file=sys.stderr)
        return 2
    # A GPU file's source is at most 239 bytes; a share for a peak the target lacks (an FP8 fit
    # carried to an A100) is an error in its file, so it is left out.
    eff = dict(eff, source=f"transferred from {src.get('id')}: {eff.get('source', '')}".encode()[:239]
               .decode("utf-8", "ignore"))
    peaks = dst.get("peak_dense_flops_per_s") or {}
    if isinstance(eff.get("fraction_by_peak"), dict):
        eff["fraction_by_peak"] = {k: v for k, v in eff["fraction_by_peak"].items() if k in peaks}
    dst["efficiency"] = eff
    tmp = a.output + ".tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(dst, f, indent=1)
        os.replace(tmp, a.output)
    except OSError as e:
        print(f"transfer_efficiency.py: {e.filename or a.output}: {e.strerror}", file=sys.stderr)
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
