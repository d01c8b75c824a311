#!/usr/bin/env python3
"""Merge the parts of a validation run into one measurement file.

  python3 validation/collect.py merge --parts DIR --out measurements.json
          [--summary summary.txt] [--command CMD] [--started ISO8601]
  python3 validation/collect.py summary measurements.json

`merge` reads DIR/parts.tsv (written by run_all.sh: one line per part with
name, kind, file, exit status, elapsed seconds, timed-out flag, note), the
part files it names, and the nvidia-smi snapshots DIR/nvsmi-start.txt and
DIR/nvsmi-end.txt.  A part cut short (time-out, crash) is salvaged line by
line: its writers put every measurement on a line of its own.  The merged
file has the format of docs/validation.md ("Measurement files"); numbers are
copied as produced, never edited.  Standard library only.
"""

import argparse
import json
import math
import os
import sys

SCHEMA_VERSION = 1

# nvidia-smi --query-gpu fields run_all.sh asks for, in order.
NVSMI_FIELDS = ("name", "driver_version", "clocks.sm", "clocks.mem",
                "clocks.max.sm", "clocks.max.mem", "power.draw",
                "power.limit", "temperature.gpu", "memory.total", "pstate")


def _num(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def read_nvsmi(path):
    """First GPU of an nvidia-smi snapshot: line 1 the fields, line 2 the
    values (csv, noheader, nounits).  None where missing."""
    try:
        with open(path) as f:
            lines = [ln.strip() for ln in f if ln.strip()]
    except OSError:
        return None
    if len(lines) < 2:
        return None
    keys = [k.strip() for k in lines[0].split(",")]
    vals = [v.strip() for v in lines[1].split(",")]
    raw = dict(zip(keys, vals))

    def mhz(k):
        v = _num(raw.get(k))
        return int(round(v * 1e6)) if v else None
    return {
        "name": raw.get("name"),
        "driver": raw.get("driver_version"),
        "sm_clock_hz": mhz("clocks.sm"),
        "mem_clock_hz": mhz("clocks.mem"),
        "sm_clock_max_hz": mhz("clocks.max.sm"),
        "mem_clock_max_hz": mhz("clocks.max.mem"),
        "power_w": _num(raw.get("power.draw")),
        "power_limit_w": _num(raw.get("power.limit")),
        "temperature_c": _num(raw.get("temperature.gpu")),
        "memory_total_mib": _num(raw.get("memory.total")),
        "pstate": raw.get("pstate"),
    }


def load_part(path):
    """(document, salvaged).  A document that does not parse is rebuilt from
    its lines: the provenance from the first, one measurement per line."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None, False
    try:
        doc = json.loads(text)
        if isinstance(doc, dict):
            return doc, False
    except ValueError:
        pass
    doc = {"schema_version": SCHEMA_VERSION, "kind": "ridge-measurements",
           "provenance": {}, "measurements": [], "skipped": [], "errors": []}
    key = '"provenance":'
    i = text.find(key)
    if i >= 0:
        try:
            doc["provenance"], _ = json.JSONDecoder().raw_decode(
                text, i + len(key))
        except ValueError:
            pass
    for line in text.splitlines():
        line = line.strip().rstrip(",")
        if not line.startswith('{"id"'):
            continue
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if "time_s" in m:
            doc["measurements"].append(m)
        elif "reason" in m:
            doc["skipped"].append(m)
    return doc, True


def read_manifest(parts_dir):
    parts = []
    try:
        with open(os.path.join(parts_dir, "parts.tsv")) as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                if len(cols) < 6 or cols[0] == "name":
                    continue
                parts.append({"name": cols[0], "kind": cols[1],
                              "file": cols[2],
                              "exit_status": int(cols[3]) if cols[3]
                              .lstrip("-").isdigit() else None,
                              "elapsed_s": _num(cols[4]),
                              "timed_out": cols[5] == "1",
                              "note": cols[6] if len(cols) > 6 else ""})
    except OSError:
        pass
    return parts


def dumps(x):
    return json.dumps(x, allow_nan=False, separators=(",", ":"))


def write_doc(path, doc):
    with open(path, "w") as f:
        f.write('{"schema_version":%d,"kind":"ridge-measurements",'
                '"provenance":%s,"measurements":[' % (
                    SCHEMA_VERSION, dumps(doc["provenance"])))
        for i, m in enumerate(doc["measurements"]):
            f.write(("\n" if i == 0 else ",\n") + dumps(m))
        f.write("\n]")
        for key in ("skipped", "errors", "parts"):
            f.write(',"%s":[' % key)
            for i, m in enumerate(doc[key]):
                f.write(("\n" if i == 0 else ",\n") + dumps(m))
            f.write("\n]")
        f.write(',"summary":%s}\n' % dumps(doc["summary"]))


def merge(args):
    parts = read_manifest(args.parts)
    start = read_nvsmi(os.path.join(args.parts, "nvsmi-start.txt"))
    end = read_nvsmi(os.path.join(args.parts, "nvsmi-end.txt"))
    prov = {"gpu_name": None, "sm_count": None, "sm_clock_max_hz": None,
            "mem_clock_max_hz": None, "driver": None, "cuda_runtime": None,
            "cublas": None, "torch": None, "date": args.started,
            "host": None, "command": args.command}
    measurements, skipped, errors, seen = [], [], [], set()
    part_rows = []
    for p in parts:
        if p["note"].startswith("skipped"):
            skipped.append({"id": "part/" + p["name"], "group": p["name"],
                            "reason": p["note"].split(":", 1)[-1].strip()})
        if p["file"] in ("", "-"):  # e.g. the build: no measurement file
            doc, salvaged = None, False
        else:
            doc, salvaged = load_part(os.path.join(args.parts, p["file"]))
        row = {"name": p["name"], "kind": p["kind"], "file": p["file"],
               "exit_status": p["exit_status"], "elapsed_s": p["elapsed_s"],
               "timed_out": p["timed_out"], "salvaged": salvaged,
               "measurements": 0}
        if p["note"]:
            row["note"] = p["note"]
        if p["timed_out"]:
            errors.append({"group": p["name"], "message":
                           "part %s timed out after %.0f s" % (
                               p["name"], p["elapsed_s"] or 0)})
        elif p["exit_status"] not in (0, None):
            errors.append({"group": p["name"], "message":
                           "part %s exited with status %s" % (
                               p["name"], p["exit_status"])})
        if doc is None:
            if p["file"] not in ("", "-") and not p["note"]:
                errors.append({"group": p["name"], "message":
                               "part %s wrote no measurement file" % p["name"]})
            part_rows.append(row)
            continue
        pv = doc.get("provenance") or {}
        if p["kind"] == "cuda":
            for k in ("gpu_name", "sm_count", "sm_clock_max_hz",
                      "mem_clock_max_hz", "cuda_runtime", "cublas",
                      "cuda_driver_api", "cublaslt_version",
                      "compute_capability", "l2_bytes", "global_mem_bytes",
                      "mem_bus_bits", "built_with_cuda", "built_for_arch",
                      "env_NVIDIA_TF32_OVERRIDE"):
                if prov.get(k) is None and pv.get(k) is not None:
                    prov[k] = pv[k]
        else:
            for k in ("torch", "torchvision", "cudnn", "python"):
                if prov.get(k) is None and pv.get(k) is not None:
                    prov[k] = pv[k]
            if prov.get("torch_cuda") is None and pv.get("cuda_runtime"):
                prov["torch_cuda"] = pv["cuda_runtime"]
            for k in ("gpu_name", "sm_count"):
                if prov.get(k) is None and pv.get(k) is not None:
                    prov[k] = pv[k]
        for k in ("host", "driver"):
            if prov.get(k) is None and pv.get(k):
                prov[k] = pv[k]
        if pv.get("quick"):
            prov["quick"] = True
        for m in doc.get("measurements", []):
            if m.get("id") in seen:
                errors.append({"group": p["name"], "message":
                               "duplicate measurement id %s dropped" %
                               m.get("id")})
                continue
            seen.add(m.get("id"))
            measurements.append(m)
            row["measurements"] += 1
        skipped.extend(doc.get("skipped", []))
        for e in doc.get("errors", []):
            e = dict(e)
            e.setdefault("group", p["name"])
            errors.append(e)
        part_rows.append(row)
    # nvidia-smi knows the driver and the clock limits best; the CUDA
    # device attributes are kept beside them
    for k in ("sm_clock_max_hz", "mem_clock_max_hz"):
        if prov.get(k) is not None:
            prov[k + "_cuda_attr"] = prov[k]
    for snap in (start, end):
        if snap:
            prov["gpu_name"] = prov["gpu_name"] or snap["name"]
            prov["driver"] = snap["driver"] or prov["driver"]
            for k in ("sm_clock_max_hz", "mem_clock_max_hz"):
                if snap[k]:
                    prov[k] = snap[k]
    prov["gpu_state_start"] = start
    prov["gpu_state_end"] = end
    if args.run_info:
        try:
            prov["run"] = json.loads(args.run_info)
        except ValueError:
            prov["run"] = args.run_info
    failed = sum(1 for m in measurements
                 if (m.get("check") or {}).get("status") == "failed")
    doc = {"provenance": prov, "measurements": measurements,
           "skipped": skipped, "errors": errors, "parts": part_rows,
           "summary": {"measurements": len(measurements),
                       "failed_checks": failed, "skipped": len(skipped),
                       "errors": len(errors),
                       "elapsed_s": args.elapsed_s}}
    write_doc(args.out, doc)
    text = summary_text(doc)
    if args.summary:
        with open(args.summary, "w") as f:
            f.write(text)
    sys.stdout.write(text)
    return 0


# ----------------------------------------------------------------- summary
def _fmt_time(s):
    if s is None:
        return "-"
    if s >= 1.0:
        return "%.3f s" % s
    if s >= 1e-3:
        return "%.3f ms" % (s * 1e3)
    return "%.2f us" % (s * 1e6)


def _fmt_rate(m):
    r = m.get("rate") or {}
    if r.get("flop_per_s"):
        return "%.4g TFLOP/s" % (r["flop_per_s"] * 1e-12)
    if r.get("bytes_per_s"):
        return "%.4g GB/s" % (r["bytes_per_s"] * 1e-9)
    if r.get("items_per_s"):
        return "%.0f %s/s" % (r["items_per_s"], r.get("item", "items"))
    return ""


def _headline(ms):
    by_id = {m["id"]: m for m in ms}
    rows = []
    bw = [m for m in ms if m.get("group") == "bandwidth"]
    for kern in ("read", "write", "copy", "triad", "memcpy_d2d"):
        ks = [m for m in bw if (m.get("config") or {}).get("kernel") == kern]
        if not ks:
            continue
        big = max(ks, key=lambda m: m["config"].get("array_bytes", 0))
        rows.append((big["id"], big))
        inl2 = [m for m in ks if m["config"].get("fits_in_l2")]
        if inl2:
            best = max(inl2, key=lambda m: (m.get("rate") or {})
                       .get("bytes_per_s") or 0)
            rows.append((best["id"] + " (best in L2)", best))
    for m in ms:
        if m.get("group") in ("flops", "gemm"):
            rows.append((m["id"], m))
    for i in ("launch/empty_sync", "launch/empty_async_issue",
              "launch/empty_async_gpu", "launch/graph_sync/nodes1",
              "launch/graph_replay/nodes1000"):
        if i in by_id:
            rows.append((i, by_id[i]))
    for i in ("copy_h2d/pinned/256MiB", "copy_d2h/pinned/256MiB",
              "copy_h2d/pageable/256MiB", "copy_d2h/pageable/256MiB",
              "small/add/eager/4KiB", "small/add/graph/4KiB",
              "small/reduce/eager/4KiB", "small/reduce/graph/4KiB"):
        if i in by_id:
            rows.append((i, by_id[i]))
    for m in ms:
        if m.get("group") == "torch_e2e":
            rows.append((m["id"], m))
    return rows


def summary_text(doc):
    p, s = doc["provenance"], doc["summary"]
    out = []
    out.append("ridge validation: %s, %s SMs, driver %s, CUDA %s, cuBLAS %s,"
               " torch %s" % (p.get("gpu_name"), p.get("sm_count"),
                              p.get("driver"), p.get("cuda_runtime"),
                              p.get("cublas"), p.get("torch")))
    out.append("%d measurements, %d failed checks, %d skipped, %d errors%s" % (
        s["measurements"], s["failed_checks"], s["skipped"], s["errors"],
        (", %.0f s" % s["elapsed_s"]) if s.get("elapsed_s") else ""))
    if doc.get("parts"):
        out.append("")
        out.append("%-22s %-9s %8s %6s" % ("part", "status", "time_s",
                                            "meas"))
        for r in doc["parts"]:
            st = ("timeout" if r["timed_out"] else
                  r["note"].split(":")[0] if r.get("note") else
                  "ok" if r["exit_status"] == 0 else
                  "exit %s" % r["exit_status"])
            out.append("%-22s %-9s %8s %6d" % (
                r["name"], st, ("%.1f" % r["elapsed_s"])
                if r["elapsed_s"] is not None else "-", r["measurements"]))
    rows = _headline(doc["measurements"])
    if rows:
        out.append("")
        out.append("%-56s %12s %18s %s" % ("measurement", "median", "rate",
                                           "check"))
        for name, m in rows:
            t = (m.get("time_s") or {}).get("median")
            chk = (m.get("check") or {}).get("status", "-")
            out.append("%-56s %12s %18s %s" % (name[:56], _fmt_time(t),
                                               _fmt_rate(m), chk))
    for e in doc.get("errors", [])[:20]:
        out.append("error: [%s] %s" % (e.get("group"), e.get("message")))
    return "\n".join(out) + "\n"


def summary(args):
    with open(args.file) as f:
        doc = json.load(f)
    doc.setdefault("parts", [])
    doc.setdefault("errors", [])
    sys.stdout.write(summary_text(doc))
    return 0


def main(argv):
    ap = argparse.ArgumentParser(prog="collect.py", description=__doc__,
                                 formatter_class=argparse
                                 .RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd")
    m = sub.add_parser("merge", help="merge a run's parts")
    m.add_argument("--parts", required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--summary")
    m.add_argument("--command")
    m.add_argument("--started")
    m.add_argument("--elapsed-s", type=float)
    m.add_argument("--run-info", help="JSON object recorded as provenance.run")
    s = sub.add_parser("summary", help="print the table of a merged file")
    s.add_argument("file")
    args = ap.parse_args(argv)
    if args.cmd == "merge":
        return merge(args)
    if args.cmd == "summary":
        return summary(args)
    ap.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
