#!/usr/bin/env python3
"""Convert the measured and published data sets of shared/data/ into ridge measurement files.

Usage: import_shared.py [--shared DIR] [--out DIR] [--only NAME [--input FILE]]

DIR defaults to ../shared/data (beside the checkout) and validation/data. One file per source:

  h200-2026-11-29/dev.jsonl        -> validation/data/h200-2026-11-29.json
  aiconfigurator-gemm/gemm.csv     -> validation/data/aiconfigurator-gemm.json
  published-microbench.csv         -> validation/data/published-microbench.json
  megatron-dev.csv                 -> validation/data/megatron-dev.json
  NAME-YYYY-MM-DD/dev.jsonl        -> validation/data/NAME-YYYY-MM-DD.json (another run of
                                      measure.py, e.g. on another GPU: ids NAME-YYYY-MM-DD/RUN/RECORD)

Any file of one data set's format converts with --only SET --input FILE (the output is
--out/SET.json; a measure.py file in a NAME-YYYY-MM-DD folder keeps that folder's name in its ids).

Every record keeps its source id (`id`, and `source_id` when one record gives several timings) and
its timing form (`config.timed`: `per_call_events`, `back_to_back`, `gpu_time`; `config.runtime`
`graph` for CUDA-graph replays). A record ridge cannot model yet (an unknown device, dtype, GPU,
model or section) is listed in the file's `skipped` array with the reason, never dropped and never
a failed import. Bad input (a malformed line, a missing or non-numeric field,
a non-positive time) stops the conversion with one line naming the file, the line and the field,
exit 2, and nothing is written. The format is docs/validation.md, "Measurement files"; the mapping
of each section is docs/validation.md, "Imported data sets".
"""
import argparse
import copy
import csv
import functools
import json
import math
import os
import re
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")  # the source tree

VERSION = 1


class InputError(Exception):
    """One line: FILE:LINE: FIELD: what is wrong."""


def fail(path, line, field, what):
    raise InputError(f"{path}:{line}: {field}: {what}")


def num(rec, key, path, line, positive=True, integer=False):
    """A finite number field, positive when asked; an InputError naming the field otherwise."""
    if key not in rec or rec[key] is None or rec[key] == "":
        fail(path, line, key, "missing")
    v = rec[key]
    if isinstance(v, str):
        try:
            v = float(v)
        except ValueError:
            fail(path, line, key, f"not a number: {rec[key]!r}")
    if isinstance(v, int) and not isinstance(v, bool):
        try:
            v = float(v) if abs(v) > 2 ** 53 else v  # an integer past a double's range is not finite
        except OverflowError:
            v = math.inf
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        fail(path, line, key, f"not a finite number: {str(rec[key])[:40]!r}")
    if positive and v <= 0:
        fail(path, line, key, f"not positive: {rec[key]!r}")
    if integer:
        if v != int(v):
            fail(path, line, key, f"not an integer: {rec[key]!r}")
        v = int(v)
    return v


def text(rec, key, path, line):
    v = rec.get(key)
    if not isinstance(v, str) or not v:
        fail(path, line, key, "missing or not a string")
    # an id part: no control character (a NUL ridge's reader refuses) nor lone surrogate (not UTF-8)
    if any(ord(ch) < 0x20 or ord(ch) == 0x7f or 0xD800 <= ord(ch) <= 0xDFFF for ch in v):
        fail(path, line, key, "holds a control character or a lone surrogate")
    return v


def timing(seconds, mn=None, mx=None):
    t = {"median": seconds}
    if mn is not None:
        t["min"] = mn
    if mx is not None:
        t["max"] = mx
    return t


def measurement(mid, group, seconds, op=None, ops=None, timed="per_call_events", runtime="eager",
                framework=None, extra=None, source_id=None, gpu=None, flops=None, bytes_=None, tmin=None,
                tmax=None, reps=None):
    cfg = {}
    if op is not None:
        cfg["op"] = op
    if ops is not None:
        cfg["ops"] = ops
    cfg["timed"] = timed
    cfg["runtime"] = runtime
    if framework:
        cfg["framework"] = framework
    if gpu:
        cfg["gpu"] = gpu
    if extra:
        cfg.update(extra)
    m = {"id": mid, "group": group, "time_s": timing(seconds, mn=tmin, mx=tmax) if seconds is not None else None}
    if source_id:
        m["source_id"] = source_id
    if reps is not None:
        m["reps"] = reps
    m["flops"] = flops
    m["bytes"] = bytes_
    m["checked"] = False
    m["check"] = {"status": "none", "metric": None, "value": None, "tolerance": None}
    m["config"] = cfg
    return m


# ---------------------------------------------------------------- h200-2026-11-29/dev.jsonl

H200_PREC = {"bf16": "bf16", "fp16": "fp16", "tf32": "tf32", "fp32": "fp32", "fp8_e4m3": "fp8", "int8": "int8"}


def sval(rec, key, default=None):
    """A string field as it is; anything else (absent, a number, a list) as `default`: a key for
    the tables below, which then treat it as unknown."""
    v = rec.get(key, default)
    return v if isinstance(v, str) else default


def ms(rec, key, path, line):
    return num(rec, key, path, line) * 1e-3


def spread(rec, path, line):
    """(min, max, reps) of a record's timing: seconds, seconds, repetitions; None where absent."""
    tmin = ms(rec, "min_ms", path, line) if "min_ms" in rec else None
    tmax = ms(rec, "max_ms", path, line) if "max_ms" in rec else None
    reps = num(rec, "iters", path, line, integer=True) if "iters" in rec else None
    return tmin, tmax, reps


def h200_kernel(rec, path, line, sid, out, skipped):
    """The measurements of one kernel record (one per timing it holds)."""
    sec = rec["section"]
    prec = sval(rec, "precision")
    tmin, tmax, reps = spread(rec, path, line)

    def add(op=None, ops=None, **kw):
        out.append(measurement(sid, sec, ms(rec, "median_ms", path, line), op=op, ops=ops, framework="pytorch",
                               tmin=tmin, tmax=tmax, reps=reps, **kw))

    if sec == "copy":
        n = num(rec, "bytes_read", path, line, integer=True)
        add(op={"op": "copy", "bytes": n, "kind": "d2d"}, bytes_=n + num(rec, "bytes_written", path, line, integer=True))
    elif sec in ("gemm_peak", "gemm", "bmm"):
        if prec not in H200_PREC:
            fail(path, line, "precision", f"unknown GEMM precision {prec!r}")
        m, n, k = (num(rec, x, path, line, integer=True) for x in ("m", "n", "k"))
        # measure.py: torch.matmul(A[m,k], B[k,n]) both row-major; _scaled_mm takes B column-major;
        # _int_mm both row-major; torch.bmm row-major.
        op = {"op": "gemm", "dtype": H200_PREC[prec], "m": m, "n": n, "k": k,
              "layout": "nt" if prec == "fp8_e4m3" else "nn"}
        if sec == "bmm":
            op["batch"] = num(rec, "batch", path, line, integer=True)
        add(op=op, flops=num(rec, "flops", path, line), extra={"api": {"fp8_e4m3": "torch._scaled_mm",
                                                                     "int8": "torch._int_mm"}.get(prec, "torch." + ("bmm" if sec == "bmm" else "matmul"))})
    elif sec == "elementwise":
        n = num(rec, "elements", path, line, integer=True)
        op = {"op": "elementwise", "dtype": "fp32", "elements": n, "inputs": 2, "outputs": 1, "flops_per_element": 1}
        b = num(rec, "bytes", path, line, integer=True)
        add(op=op, bytes_=b, extra={"cache": "warm"})
        if "back_to_back_ms" in rec:
            out.append(measurement(sid + "/back_to_back", sec, ms(rec, "back_to_back_ms", path, line), op=op,
                                   timed="back_to_back", framework="pytorch", source_id=sid, bytes_=b,
                                   extra={"calls": 100 if n <= (1 << 22) else 10}))
        if "graph_ms" in rec and rec["graph_ms"] is not None:
            out.append(measurement(sid + "/graph", sec, ms(rec, "graph_ms", path, line), op=op, timed="back_to_back",
                                   runtime="graph", source_id=sid, bytes_=b, extra={"graph_nodes": 100}))
    elif sec == "normlike":
        kind = text(rec, "op", path, line)
        if kind == "reduce_sum":
            n = num(rec, "elements", path, line, integer=True)
            add(op={"op": "reduce", "dtype": "fp32", "rows": 1, "cols": n}, bytes_=num(rec, "min_bytes", path, line))
            return
        rows, cols = num(rec, "rows", path, line, integer=True), num(rec, "cols", path, line, integer=True)
        if kind in ("softmax", "layernorm"):
            add(op={"op": kind, "dtype": "bf16", "rows": rows, "cols": cols})
        elif kind == "gelu":
            add(op={"op": "elementwise", "dtype": "bf16", "elements": rows * cols, "inputs": 1, "outputs": 1,
                    "flops_per_element": 1, "function": "gelu_erf"})
        elif kind == "silu_mul":
            # F.silu(g) * h on the two column halves of x: silu reads a strided half (row stride
            # cols, cols/2 contiguous) into a new tensor, then the multiply reads it and h.
            half = rows * cols // 2
            add(ops=[{"op": "elementwise", "dtype": "bf16", "elements": half, "inputs": 1, "outputs": 1,
                      "flops_per_element": 1, "function": "silu", "strided_inputs": 1},
                     {"op": "elementwise", "dtype": "bf16", "elements": half, "inputs": 2, "outputs": 1,
                      "flops_per_element": 1, "strided_inputs": 1}])
        else:
            fail(path, line, "op", f"unknown normlike op {kind!r}")
    elif sec == "conv":
        if prec not in ("fp16", "fp32"):
            fail(path, line, "precision", f"unknown convolution precision {prec!r}")
        hw = num(rec, "hw", path, line, integer=True)
        r = num(rec, "kernel", path, line, integer=True)
        # cuDNN runs FP32 convolutions as TF32 when the record says allow_tf32 was on
        tf32 = bool(rec.get("cudnn_tf32", False))
        op = {"op": "conv2d", "dtype": "tf32" if prec == "fp32" and tf32 else prec,
              "n": num(rec, "batch", path, line, integer=True),
              "c": num(rec, "cin", path, line, integer=True), "h": hw, "w": hw,
              "k": num(rec, "cout", path, line, integer=True), "r": r, "s": r,
              "stride": num(rec, "stride", path, line, integer=True),
              "pad": num(rec, "pad", path, line, positive=False, integer=True), "pass": "fwd",
              "memory_format": "nhwc"}  # measure.py: channels_last input and weights
        add(op=op, flops=num(rec, "flops", path, line),
            extra={"memory_format": "channels_last", "cudnn_benchmark": True, "tf32_cudnn": tf32})
    elif sec == "attention":
        kind = text(rec, "op", path, line)
        b, h, d = (num(rec, x, path, line, integer=True) for x in ("batch", "heads", "head_dim"))
        if kind in ("attention_fwd", "attention_fwd_bwd"):
            s = num(rec, "seq", path, line, integer=True)
            op = {"op": "attention", "dtype": "bf16", "batch": b, "heads": h, "q_len": s, "kv_len": s,
                  "head_dim": d, "causal": bool(rec.get("causal")), "pass": "fwd" if kind == "attention_fwd" else "fwd_bwd"}
        elif kind == "attention_decode":
            op = {"op": "attention", "dtype": "bf16", "batch": b, "heads": h, "q_len": 1,
                  "kv_len": num(rec, "kv_len", path, line, integer=True), "head_dim": d, "causal": False, "pass": "fwd"}
        else:
            fail(path, line, "op", f"unknown attention op {kind!r}")
        add(op=op, extra={"api": "F.scaled_dot_product_attention"})
    elif sec == "lstm":
        kind = text(rec, "op", path, line)
        if prec not in ("fp32", "fp16"):
            fail(path, line, "precision", f"unknown LSTM precision {prec!r}")
        tf32 = bool(rec.get("cudnn_tf32", False))
        op = {"op": "lstm", "dtype": "tf32" if prec == "fp32" and tf32 else prec,
              "batch": num(rec, "batch", path, line, integer=True),
              "seq": num(rec, "seq", path, line, integer=True), "input": num(rec, "input", path, line, integer=True),
              "hidden": num(rec, "hidden", path, line, integer=True),
              "layers": num(rec, "layers", path, line, integer=True),
              "pass": "fwd" if kind == "lstm_fwd" else "fwd_bwd"}
        # measure.py: the record's cudnn_tf32 (FP32 runs as TF32 when on); the training rows carry
        # none and run in the same section, whose flag convert_h200 gives them (off when no record
        # of the run's section says).
        add(op=op, extra={"tf32_cudnn": tf32, "api": "nn.LSTM (cuDNN)"})
    else:
        skipped.append({"id": sid, "group": sec, "reason": f"section {sec!r} is not a kernel"})


# Model names of measure.py's records and the ridge presets that are the same network.
HF_PRESETS = {"bert-base": "bert-base", "bert-large": "bert-large", "gpt2-124m": "gpt2"}
TORCHVISION_PRESETS = {"resnet50": "resnet50", "vgg16": "vgg16", "mobilenet_v2": "mobilenet-v2", "vit_b_16": "vit-b16"}


@functools.lru_cache(maxsize=None)
def _vit_b_16_doc():
    """torchvision's vit_b_16 as a ridge model document, read once: the vit-b16 preset with dropout
    off (VisionTransformer's dropout and attention_dropout default to 0.0, and PyTorch's dropout
    with p = 0 launches nothing)."""
    with open(os.path.join(ROOT, "workloads", TORCHVISION_PRESETS["vit_b_16"] + ".json"), encoding="utf-8") as f:
        doc = json.load(f)
    doc["arch"]["dropout"] = False
    doc["name"] = "vit_b_16"
    doc["source"] = ("torchvision.models.vit_b_16() (dropout=0.0, attention_dropout=0.0); "
                     "hyper-parameters of ridge's vit-b16 preset")
    doc.pop("description", None)
    return doc


def torchvision_workload(arch):
    """config.workload of a torchvision model: its preset id, except vit_b_16 (_vit_b_16_doc), a
    copy of which each record gets."""
    return copy.deepcopy(_vit_b_16_doc()) if arch == "vit_b_16" else TORCHVISION_PRESETS[arch]


# measure.py's Decoder configurations that are ridge presets (the same hyper-parameters): converted
# by id, the others as a model document from the record's own hyper-parameters.
DECODER_PRESETS = {"llama2-7b": (4096, 32, 32, 32, 11008, 32000)}


def decoder_workload(rec, path, line, sid, gqa_native, length):
    """config.workload of a record of measure.py's Decoder: its preset id, or a ridge model document
    of the record's d_model, layers, heads, kv_heads, ffn and vocab (fused QKV and gate-up, RMSNorm,
    rotary positions, SwiGLU, no biases, untied head). Grouped-query K and V are repeated before every
    SDPA call, decode included, when SDPA had no enable_gqa (gqa_native false: repeat_interleave)."""
    keys = ("d_model", "layers", "heads", "kv_heads", "ffn", "vocab")
    model = sval(rec, "model")
    if model in DECODER_PRESETS and not any(k in rec for k in keys):
        return model
    hp = tuple(num(rec, k, path, line, integer=True) for k in keys)
    d, layers, heads, kv_heads, ffn, vocab = hp
    if DECODER_PRESETS.get(model) == hp:
        return model
    if d % heads or heads % kv_heads:
        fail(path, line, "heads", f"{heads} heads and {kv_heads} KV heads do not divide d_model {d}")
    arch = {"d_model": d, "layers": layers, "heads": heads, "kv_heads": kv_heads, "ffn": ffn, "vocab": vocab,
            "max_seq": max(4096, length), "ffn_act": "swiglu", "norm": "rmsnorm", "position": "rope",
            "tied_embeddings": False, "bias": False}
    if kv_heads < heads:
        arch["gqa_impl"] = "grouped" if gqa_native else "repeat_all"
    name = model or "decoder"
    return {"schema_version": 1, "name": name[:95], "family": "transformer",
            "source": f"measure.py Decoder, hyper-parameters of {sid}", "arch": arch}


def h200_model(rec, path, line, sid, out, skipped, gqa_native=False):
    """Whole-model records as measurements (config.workload a preset id or a model document, time_s
    the step). gqa_native: whether SDPA took enable_gqa when the record ran."""
    sec = rec["section"]
    # how measure.py's model code is written (docs/workloads.md, "How the code is written"):
    # Hugging Face transformers for hf_train, plain PyTorch modules (its Decoder, torchvision) else
    base = {"kind": "latency", "code": "hf" if sec == "hf_train" else "torch"}
    tmin, tmax, reps = spread(rec, path, line)

    def skip(why):
        skipped.append({"id": sid, "group": sec, "reason": why})

    if sec in ("resnet50", "resnet_bs_sweep", "cnn_more"):
        # (resnet50 and its batch sweep are ResNet-50 by section; cnn_more names its model)
        default = None if sec == "cnn_more" else "resnet50"
        arch = sval(rec, "model", default) if "model" not in rec or isinstance(rec["model"], str) else repr(rec["model"])
        if arch not in TORCHVISION_PRESETS:
            return skip(f"torchvision model {arch!r} is not a ridge preset")
        mode = text(rec, "mode", path, line)
        prec = text(rec, "precision", path, line)
        cfg = dict(base, workload=torchvision_workload(arch), mode=mode,
                   batch=num(rec, "batch", path, line, integer=True))
        if arch != "vit_b_16":  # (the transformer takes its image size from the preset)
            cfg.update(image=num(rec, "image", path, line, integer=True), layout="nhwc")
        if mode == "train":
            # torch.optim.SGD(momentum=0.9) with no foreach/fused argument: the foreach path on CUDA
            cfg.update(precision=prec, optimizer="sgd", optimizer_impl="foreach")
            if prec in ("bf16", "fp16"):
                cfg["amp"] = True  # autocast over fp32 weights (measure.py)
        elif mode == "infer":
            cfg.update(precision=prec)  # the model cast to fp16
        else:
            fail(path, line, "mode", f"unknown mode {mode!r}")
    elif sec == "hf_train":
        model = HF_PRESETS.get(sval(rec, "model"))
        if not model:
            return skip(f"Hugging Face model {rec.get('model')!r} is not a ridge preset")
        cfg = dict(base, workload=model, mode="train", batch=num(rec, "batch", path, line, integer=True),
                   seq=num(rec, "seq", path, line, integer=True), precision="bf16", amp=True, optimizer="adamw",
                   optimizer_impl="fused")
    elif sec in ("llm_infer", "gqa_decode"):
        mode = text(rec, "mode", path, line)
        batch = num(rec, "batch", path, line, integer=True)
        if mode == "prefill":
            # measure.py's prefill is m(ids, cos, sin, last_only=True) with no cache (caches=None): a
            # forward pass of the prompt, the LM head on the last token, no K/V written. That is
            # ridge's infer mode; its prefill mode writes the KV cache, as an engine's does.
            mode = "infer"
            run = {"seq": num(rec, "prompt", path, line, integer=True)}
            length = run["seq"]
        elif mode == "decode":
            run = {"context": num(rec, "context", path, line, integer=True)}
            length = run["context"] + 1
        else:
            fail(path, line, "mode", f"unknown mode {mode!r}")
        native = bool(rec.get("gqa_native", gqa_native)) if sec == "gqa_decode" else gqa_native
        cfg = dict(base, workload=decoder_workload(rec, path, line, sid, native, length), mode=mode, batch=batch,
                   precision="bf16", **run)
    elif sec == "llm_train":
        # measure.py: autocast bf16 over fp32 weights, fused AdamW, the loss over fp32 logits
        seq = num(rec, "seq", path, line, integer=True)
        cfg = dict(base, workload=decoder_workload(rec, path, line, sid, gqa_native, seq), mode="train",
                   batch=num(rec, "batch", path, line, integer=True), seq=seq, precision="bf16", amp=True,
                   optimizer="adamw", optimizer_impl="fused")
    else:
        return skip(f"section {sec!r} not converted")
    out.append(measurement(sid, sec, ms(rec, "median_ms", path, line), timed="per_call_events", runtime="eager",
                           extra=cfg, tmin=tmin, tmax=tmax, reps=reps))
    if rec.get("graph_ms") is not None:
        g = measurement(sid + "/graph", sec, ms(rec, "graph_ms", path, line), timed="per_call_events",
                        runtime="graph", extra=cfg, source_id=sid)
        out.append(g)
    if rec.get("back_to_back_ms") is not None:
        # measure.py's bench_loop(fn, 10): ten calls between two events, after a synchronize
        out.append(measurement(sid + "/back_to_back", sec, ms(rec, "back_to_back_ms", path, line),
                               timed="back_to_back", extra=dict(cfg, calls=10), source_id=sid))


# measure.py's serving section: ResNet-50 (torchvision, fp16, channels_last, eager) behind a FIFO
# queue of Poisson arrivals, one Python worker thread taking every waiting request up to
# max_batch (no timeout), the latency from each scheduled arrival to the batch's completion.
SERVING_ASSUMED = ("image 224 and torchvision's resnet50, as measure.py's serving section runs them (the "
                   "records name neither); Python threads, whose scheduling ridge does not model")
QUEUE_STATS = (("mean", "mean_s"), ("p50", "p50_s"), ("p90", "p90_s"), ("p99", "p99_s"))


def h200_serving(rec, path, line, sid, out, skipped):
    """measure.py's serving records: service_bs1 (one batch-1 pass, launch to synchronize, on the
    host clock) as a ResNet-50 latency record; each queue point as one `queue` record per latency
    statistic it holds (ridge serve --rate --max-batch; docs/validation.md, "Serving queues")."""
    name = rec["name"]
    run = {"workload": "resnet50", "mode": "infer", "precision": "fp16", "image": 224, "layout": "nhwc",
           "code": "torch", "assumed": SERVING_ASSUMED}
    if name == "service_bs1":
        out.append(measurement(sid, "serving", num(rec, "service_s", path, line), timed="host_clock_sync",
                               extra=dict(run, kind="latency", batch=1)))
        return
    if sval(rec, "model", "resnet50") != "resnet50" or sval(rec, "arrival", "poisson") != "poisson":
        skipped.append({"id": sid, "group": "serving", "reason": "not a ResNet-50 queue of Poisson arrivals"})
        return
    prec = text(rec, "precision", path, line)
    if prec != "fp16":
        fail(path, line, "precision", f"the serving section runs fp16, not {prec!r}")
    q = dict(run, kind="queue", rate_per_s=num(rec, "rate_per_s", path, line),
             max_batch=num(rec, "max_batch", path, line, integer=True),
             batch_timeout_ms=num(rec, "batch_timeout_ms", path, line, positive=False),
             requests=num(rec, "requests", path, line, integer=True, positive=False),
             duration_s=num(rec, "duration_s", path, line))
    if q["requests"] == 0:
        skipped.append({"id": sid, "group": "serving", "reason": "no request completed"})
        return
    for stat, key in QUEUE_STATS:
        out.append(measurement(f"{sid}/{stat}", "serving", num(rec, key, path, line), timed="host_clock",
                               extra=dict(q, statistic=stat), source_id=sid))


KERNEL_SECTIONS = {"copy", "gemm_peak", "gemm", "bmm", "elementwise", "normlike", "conv", "attention", "lstm"}
MODEL_SECTIONS = {"resnet50", "hf_train", "llm_infer", "cnn_more", "resnet_bs_sweep", "llm_train", "gqa_decode"}
DEFAULT_SET = "h200-2026-11-29"


def set_name(path):
    """The record ids' prefix: the data set's folder (GPU-date, as shared/data/h200-2026-11-29/), or
    h200-2026-11-29 for a file outside such a folder."""
    folder = os.path.basename(os.path.dirname(os.path.abspath(path)))
    return folder if re.fullmatch(r"[a-z0-9][a-z0-9.]*(-[a-z0-9.]+)*-\d{4}-\d{2}-\d{2}", folder) else DEFAULT_SET


def convert_h200(path):
    out, skipped, env, env_end, gqa_runs, lstm_tf32 = [], [], {}, {}, set(), {}
    prefix = set_name(path)
    recs = []
    with open(path, "rb") as f:
        for line, braw in enumerate(f, 1):
            try:
                raw = braw.decode("utf-8")
            except UnicodeDecodeError:
                fail(path, line, "line", "not UTF-8")
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw)
            except json.JSONDecodeError as e:
                fail(path, line, "line", f"malformed JSON ({e.msg})")
            except (ValueError, RecursionError) as e:  # a number of 4,300+ digits, nesting past the stack
                fail(path, line, "line", f"malformed JSON ({type(e).__name__})")
            if not isinstance(rec, dict):
                fail(path, line, "line", "not a JSON object")
            run, sec = text(rec, "run", path, line), text(rec, "section", path, line)
            name = text(rec, "name", path, line)
            if sec == "env":
                (env if name == "env" else env_end)[run] = rec
            elif sec == "lstm" and "cudnn_tf32" in rec:
                lstm_tf32[run] = rec["cudnn_tf32"]  # one flag for the section's records
            elif sec == "gqa_decode":
                gqa_runs.add(run)
            recs.append((line, run, sec, name, rec))
    seen = {}
    for line, run, sec, name, rec in recs:
        sid = f"{prefix}/{run}/{name}"
        if sec == "env":
            continue
        if sid in seen and seen[sid] != sec:
            # the same name in another section (resnet_bs_sweep's resnet50_infer_fp16_bs1 beside
            # resnet50's): the later record's id names its section
            sid = f"{prefix}/{run}/{sec}/{name}"
        if "error" in rec:
            skipped.append({"id": sid, "group": sec, "reason": "the record holds an error: " + str(rec["error"])[:200]})
            continue
        if sid in seen:
            fail(path, line, "name", f"duplicate record {sid}")
        seen[sid] = sec
        try:
            if sec in KERNEL_SECTIONS:
                if sec == "lstm" and "cudnn_tf32" not in rec and run in lstm_tf32:
                    rec = dict(rec, cudnn_tf32=lstm_tf32[run])
                h200_kernel(rec, path, line, sid, out, skipped)
            elif sec == "serving":
                h200_serving(rec, path, line, sid, out, skipped)
            elif sec in MODEL_SECTIONS:
                # measure.py detects SDPA's enable_gqa at start-up and env_end reports the flag at
                # the end; its gqa_decode section sets it before running, so a run with gqa_decode
                # records says nothing of the earlier sections: they are taken as without it
                # (torch 2.11's builtin has no inspectable signature, so runs a and c ran without).
                native = run not in gqa_runs and bool(env_end.get(run, {}).get("gqa_native"))
                h200_model(rec, path, line, sid, out, skipped, gqa_native=native)
            else:
                skipped.append({"id": sid, "group": sec, "reason": f"section {sec!r} not converted"})
        except (TypeError, ValueError, AttributeError, KeyError) as e:  # a field of a shape no check foresaw
            fail(path, line, "record", f"a field of the wrong type ({type(e).__name__}: {e})")
    a = env.get("a") or (env[sorted(env)[0]] if env else {})
    date = prefix[-10:]
    # the GPU as the env record names it; the H200 of h200-2026-11-29 where it does not, no GPU
    # (ridge validate: "GPU not mapped") for any other data set
    prov = {"gpu_name": a.get("gpu", "NVIDIA H200" if prefix == DEFAULT_SET else None), "sm_count": a.get("sm_count"), "l2_bytes": a.get("l2_bytes"),
            "torch": a.get("torch"), "cuda_runtime": a.get("cuda"), "cudnn": a.get("cudnn"),
            "date": date, "source": (f"shared/data/{prefix}/{os.path.basename(path)} (README beside it)"
                                     if prefix != DEFAULT_SET or os.path.basename(path) != "dev.jsonl" else
                                     "shared/data/h200-2026-11-29/dev.jsonl (runs a and c; README beside it)"),
            "nvidia_smi": a.get("nvidia_smi")}
    return prov, out, skipped


# ---------------------------------------------------------------- aiconfigurator-gemm/gemm.csv

GPUS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "model", "gpus")


@functools.lru_cache(maxsize=None)
def device_ids():
    """The CUDA driver's device names -> catalogue ids: the `device_names` of model/gpus/*.json,
    the map `ridge validate` applies to a measurement file's provenance.gpu_name
    (docs/gpu-schema.md). A name in two files is an error."""
    out = {}
    for f in sorted(os.listdir(GPUS_DIR)):
        if not f.endswith(".json"):
            continue
        path = os.path.join(GPUS_DIR, f)
        with open(path, encoding="utf-8") as fh:
            g = json.load(fh)
        for name in g.get("device_names", []):
            if name in out:
                sys.exit(f"{path}: device_names: {name!r} is also in {out[name]}.json")
            out[name] = g["id"]
    return out


# The AIConfigurator systems folder of a catalogue GPU, for a row whose source names none.
AIC_SHORT = {"h100-sxm5-80gb": "h100_sxm", "l40s": "l40s", "h200-sxm-141gb": "h200_sxm", "a100-sxm4-80gb": "a100_sxm",
             "a100-sxm4-40gb": "a100_sxm", "b200": "b200_sxm", "h100-pcie-80gb": "h100_pcie",
             "a100-pcie-80gb": "a100_pcie", "a100-pcie-40gb": "a100_pcie", "a10": "a10", "a40": "a40", "l4": "l4",
             "l40": "l40"}
# The linear layers ridge models: F.linear (cuBLAS) in bf16 or fp16, vLLM's CUTLASS FP8 scaled-mm.
AIC_DTYPES = ("bf16", "fp16", "fp8")


def aic_short(source, default):
    """The systems folder a row came from (.../systems/data/<gpu>/gemm/...), else the default."""
    hit = re.search(r"systems/data/([A-Za-z0-9_.-]+)/gemm/", source or "")
    return hit.group(1) if hit else default


def convert_aic(path):
    out, seen, skipped = [], {}, []
    need = ("source", "gpu", "device_name", "framework", "kernel_source", "dtype", "m", "n", "k", "latency_ms")
    for line, r, _ in csv_rows(path, need, ids=False):
        dev, dt = r["device_name"], r["dtype"]
        m, n, k = (num(r, x, path, line, integer=True) for x in ("m", "n", "k"))
        t = num(r, "latency_ms", path, line) * 1e-3
        gid = device_ids().get(dev)
        short = AIC_SHORT.get(gid)
        short = aic_short(r["source"], short or re.sub(r"[^a-z0-9]+", "_", dev.lower()).strip("_"))
        mid = f"aiconfigurator-gemm/{short}/{dt}/{m}x{n}x{k}"
        if mid in seen and seen[mid] != dev:
            # another device of the same systems folder (the A100's 40 and 80 GB): its id names it
            mid = f"aiconfigurator-gemm/{short}-{re.sub(r'[^a-z0-9]+', '_', dev.lower()).strip('_')}/{dt}/{m}x{n}x{k}"
        if mid in seen:
            fail(path, line, "m,n,k", f"duplicate record {mid}")
        seen[mid] = dev
        if not gid:
            skipped.append({"id": mid, "group": "gemm", "reason": f"device {dev!r} is not in the catalogue"})
            continue
        if dt not in AIC_DTYPES:
            skipped.append({"id": mid, "group": "gemm", "reason": f"dtype {dt!r}: not a linear layer ridge models "
                                                                  f"(bf16, fp16, fp8)"})
            continue
        # y = x W^T, x[m,k] and W[n,k] row-major (nn.Linear / vLLM's linear layer): B is stored
        # transposed. Timed in a CUDA graph: GPU time per GEMM.
        # The weight W comes from DRAM on every call, x and y from L2 when they fit: W-bound rows
        # run at DRAM rates although W fits in half the L2 (l40s/bf16/1x4096x4096: 33.6 MB at
        # 667 GB/s, below the 864 GB/s DRAM peak; h100_sxm/bf16/1x4096x4096 at 2.2 TB/s), while
        # rows whose bytes are x or y run faster than DRAM allows (l40s/bf16/16384x128x2048: 72 MB
        # in 36 us, 2.0 TB/s; l40s/bf16/4096x4096x128: 1.2 TB/s) until x and y outgrow the L2
        # (l40s/bf16/16384x128x4096, 138 MB: 631 GB/s). So W is cold (never reused in L2).
        wbytes = n * k * (1 if dt == "fp8" else 2)
        op = {"op": "gemm", "dtype": dt, "m": m, "n": n, "k": k, "layout": "nt",
              "cold_bytes": wbytes, "reuse_bytes": 1e18}
        ops = None
        if dt == "fp8":
            # vLLM's FP8 linear quantises x first (dynamic per-tensor scale): a max-reduction
            # kernel and a quantising kernel, each one CTA of 1024 threads per row of x, then
            # the CUTLASS scaled-mm, whose fixed tile configurations never split K and are
            # dispatched on m (docs/model.md §2, "Tiles by m").
            ops = [{"op": "reduce", "dtype": "bf16", "rows": m, "cols": k, "row_kernel": "cta",
                    "name": "segmented_max_reduction"},
                   {"op": "elementwise", "dtype": "bf16", "elements": m * k, "inputs": 1, "outputs": 1,
                    "flops_per_element": 1, "rows": m, "name": "scaled_fp8_quant"},
                   dict(op, name="cutlass_scaled_mm", no_split_k=True, tiles_by_m=True)]
            op = None
        out.append(measurement(mid, "gemm", t, op=op, ops=ops, timed="gpu_time", runtime="graph", gpu=gid,
                               flops=2 * m * n * k,
                               extra={"api": r["kernel_source"], "framework_version": r["framework"]}))
    prov = {"gpu_name": None, "date": None,
            "source": "shared/data/aiconfigurator-gemm/gemm.csv (ai-dynamo/aiconfigurator@095f58a51; README beside it)"}
    return prov, out, skipped


# ---------------------------------------------------------------- published-microbench.csv

# The row's GPU as published -> (catalogue id, what was assumed where the row leaves it open).
PUB_GPU = {
    "A40 48GB PCIe": ("a40", None),
    "A100 SXM4 (memory variant not stated)": ("a100-sxm4-80gb", "memory variant not stated: the 80 GB part (same SMs and clocks)"),
    "A100 PCIe (memory variant not stated)": ("a100-pcie-80gb", "memory variant not stated: the 80 GB part (same SMs and clocks)"),
    "A100 40GB (form factor not stated)": ("a100-sxm4-40gb", "form factor not stated: the SXM4 part"),
    "A100 40GB (form factor not stated in file)": ("a100-sxm4-40gb", "form factor not stated: the SXM4 part (same bandwidth as PCIe)"),
    "A100 80GB (form factor not stated in file)": ("a100-sxm4-80gb", "form factor not stated: the SXM4 part"),
    "H100 80GB SXM5": ("h100-sxm5-80gb", None),
    "H100 80GB PCIe": ("h100-pcie-80gb", None),
    "H200 141GB SXM": ("h200-sxm-141gb", None),
    "L40 48GB": ("l40", None),
    "H200 141GB (form factor not stated in file)": ("h200-sxm-141gb", "form factor not stated: the SXM part"),
    "V100 (memory variant not stated in file)": ("v100-sxm2-32gb", "memory variant not stated: the SXM2 32 GB part (same bandwidth as 16 GB)"),
}
def pub_gpu(name):
    """(catalogue id, what was assumed) of a published row's GPU: the table above, else the part
    its name reads as (a variant the name leaves open is the table's choice: SXM, the larger
    memory); (None, None) for a GPU outside the catalogue (an H100 NVL, a V100 PCIe)."""
    if name in PUB_GPU:
        return PUB_GPU[name]
    n = name.lower()
    words = set(re.findall(r"[a-z0-9]+", n))
    if "nvl" in words:  # H100/H200 NVL (other memory and power): not in the catalogue
        return None, None
    if ("v100" in words and "pcie" in words) or ("4090" in words and "d" in words):
        return None, None  # a V100 PCIe, an RTX 4090 D: other parts than the catalogue's
    rules = [("h200" in words, "h200-sxm-141gb"), ("h100" in words and "pcie" in words, "h100-pcie-80gb"),
             ("h100" in words, "h100-sxm5-80gb"),
             ("a100" in words and "pcie" in words and ("40gb" in words or "40" in words), "a100-pcie-40gb"),
             ("a100" in words and "pcie" in words, "a100-pcie-80gb"),
             ("a100" in words and ("40gb" in words or "40" in words), "a100-sxm4-40gb"),
             ("a100" in words, "a100-sxm4-80gb"), ("l40s" in words, "l40s"), ("l40" in words, "l40"),
             ("a40" in words, "a40"),
             ("a30" in words, "a30"), ("a10" in words, "a10"), ("l4" in words, "l4"), ("t4" in words, "t4"),
             ("v100" in words, "v100-sxm2-32gb"), ("b200" in words, "b200"), ("mi300x" in words, "mi300x"),
             ("mi250x" in words, "mi250x"), ("4090" in words, "rtx-4090"), ("3090" in words, "rtx-3090")]
    for hit, gid in rules:
        if hit:
            return gid, f"mapped by its name {name!r} (variants it leaves open: SXM, the larger memory)"
    return None, None


PUB_PREC = {"BF16": "bf16", "FP16": "fp16", "TF32": "tf32", "FP32": "fp32", "FP8 (e4m3)": "fp8", "FP64": "fp64"}
# gpu-stream kernels over fp64 arrays (te42kyfo/gpu-benches): read sum += A[i]; scale A = B*c;
# triad A = B + c*C; init A = c. The source's largest array size is not in the row: 2^28
# elements (2 GiB per array), far past every L2, where the rate no longer depends on the size.
STREAM_N = 1 << 28
STREAM_OPS = {
    "read": {"op": "reduce", "dtype": "fp64", "rows": 1, "cols": STREAM_N},
    "scale": {"op": "elementwise", "dtype": "fp64", "elements": STREAM_N, "inputs": 1, "outputs": 1, "flops_per_element": 1},
    "triad": {"op": "elementwise", "dtype": "fp64", "elements": STREAM_N, "inputs": 2, "outputs": 1, "flops_per_element": 2},
    "init": {"op": "elementwise", "dtype": "fp64", "elements": STREAM_N, "inputs": 0, "outputs": 1, "flops_per_element": 0},
    # the other STREAM kernels as such benchmarks name them (STREAM's copy and add; BabelStream's
    # mul is STREAM's scale)
    "copy": {"op": "elementwise", "dtype": "fp64", "elements": STREAM_N, "inputs": 1, "outputs": 1, "flops_per_element": 0},
    "mul": {"op": "elementwise", "dtype": "fp64", "elements": STREAM_N, "inputs": 1, "outputs": 1, "flops_per_element": 1},
    "add": {"op": "elementwise", "dtype": "fp64", "elements": STREAM_N, "inputs": 2, "outputs": 1, "flops_per_element": 1},
}


def csv_rows(path, cols, ids=True):
    """(line, row, id) of a CSV file that has the columns cols, each row with an id (None, and
    not checked, when ids is False)."""
    with open(path, newline="", encoding="utf-8") as f:
        rd = csv.DictReader(f)
        for c in cols:
            if c not in (rd.fieldnames or []):
                fail(path, 1, c, "column missing")
        for line, r in enumerate(rd, 2):
            if ids and not r["id"]:
                fail(path, line, "id", "missing")
            yield line, r, r["id"] if ids else None


def convert_pub(path):
    out, skipped = [], []
    for line, r, rid in csv_rows(path, ("id", "source", "gpu", "model", "precision", "seq_or_image", "unit",
                                        "value")):
        v = num(r, "value", path, line)
        gpu, assumed = pub_gpu(r["gpu"])
        if not gpu:
            skipped.append({"id": rid, "group": "published", "reason": f"GPU {r['gpu']!r} is not in the catalogue"})
            continue

        def skip(why):
            skipped.append({"id": rid, "group": "published", "reason": why})
        extra = {"kind": "rate", "source": r["source"]}
        if assumed:
            extra["gpu_assumed"] = assumed
        unit = r["unit"]
        stream = re.match(r'STREAM-like kernel "(\w+)"', r["model"])
        if unit == "TFLOPS" and r["model"].startswith("GEMM"):
            prec = PUB_PREC.get(r["precision"])
            if not prec:
                skip(f"GEMM precision {r['precision']!r} is not one ridge models")
                continue
            shape = re.search(r"(\d+)x(\d+)x(\d+)", r["seq_or_image"]) or re.search(r"n=(\d+)", r["seq_or_image"])
            if not shape:
                skip(f"no GEMM shape in {r['seq_or_image']!r}")
                continue
            g = [int(x) for x in shape.groups()]
            m, n, k = g if len(g) == 3 else (g[0], g[0], g[0])
            # torch.matmul of two row-major tensors (mamf-finder.py, busy_pytorch_blas.py)
            op = {"op": "gemm", "dtype": prec, "m": m, "n": n, "k": k, "layout": "nn"}
            if prec == "fp8":
                op["layout"] = "nt"  # torch._scaled_mm takes B column-major
            me = measurement(rid, "published", None, op=op, timed="back_to_back", framework="pytorch", gpu=gpu,
                             extra=extra)
        elif unit == "GB/s" and stream and stream.group(1) in STREAM_OPS:
            me = measurement(rid, "published", None, op=STREAM_OPS[stream.group(1)], timed="back_to_back", gpu=gpu,
                             extra=dict(extra, size_assumed="2^28 fp64 elements per array"))
        else:
            skip(f"neither a GEMM in TFLOPS nor a gpu-stream kernel in GB/s: {r['model']!r}")
            continue
        del me["time_s"]
        me["value"], me["unit"] = v, unit
        out.append(me)
    prov = {"gpu_name": None, "date": None, "source": "shared/data/published-microbench.csv (each row's source)"}
    return prov, out, skipped


# ---------------------------------------------------------------- megatron-dev.csv

MEGATRON_GPU = {"A100-SXM4-80GB (Selene DGX A100)": ("a100-sxm4-80gb", "dgx-a100", 8)}


def megatron_gpu(name):
    """(GPU id, cluster id, GPUs per node) of a published multi-GPU row's machine: the table above,
    else a DGX/HGX node its name reads as (the built-in clusters: DGX A100 80 GB, DGX H100, HGX
    H200, and the DGX-2 of 16 V100 SXM3 32 GB: a V100 named SXM3, DGX-2 or DGX-2H); (None, None,
    None) for any other machine (a DGX-1's V100s: no built-in cluster has its NVLink mesh)."""
    if name in MEGATRON_GPU:
        return MEGATRON_GPU[name]
    words = set(re.findall(r"[a-z0-9]+", name.lower()))
    if "v100" in words and ("sxm3" in words or "dgx2" in words or "dgx2h" in words
                            or ("dgx" in words and ("2" in words or "2h" in words))):
        return "v100-sxm2-32gb", "dgx-2", 16
    if "a100" in words and "40gb" not in words and "pcie" not in words:
        return "a100-sxm4-80gb", "dgx-a100", 8
    if "h100" in words and "pcie" not in words and "nvl" not in words:
        return "h100-sxm5-80gb", "dgx-h100", 8
    if "h200" in words and "nvl" not in words:
        return "h200-sxm-141gb", "hgx-h200", 8
    return None, None, None


def opt_int(r, keys, path, line, default):
    """The first of `keys` that the row has and fills, as a whole number; default when none."""
    for k in keys:
        if r.get(k) not in (None, ""):
            return num(r, k, path, line, positive=False, integer=True)
    return default


# Recomputation as rows may name it: Megatron's --recompute-granularity / --recompute-method.
MEGATRON_RECOMPUTE = {"full": "full", "uniform": "full", "block": "full", "selective": "selective",
                      "none": "none", "no": "none", "": "none",
                      # as other papers' tables say it: activation checkpointing is full recomputation
                      "yes": "full", "checkpointing": "full", "activation checkpointing": "full",
                      "activation_checkpointing": "full"}


def megatron_virtual_stages(layers, pp, microbatches):
    """Megatron's interleaved schedule, which the rows' notes say the runs used: the fewest model
    chunks (>= 2) that divide a stage's layers; it needs the microbatches to be a multiple of pp.
    1F1B (1) when pp is 1 or neither holds. Not a fitted choice: the smallest interleaving."""
    per_stage = layers // pp
    if pp < 2 or microbatches % pp:
        return 1
    for v in range(2, per_stage + 1):
        if per_stage % v == 0:
            return v
    return 1


def convert_megatron(path):
    out, skipped = [], []
    cols = ("id", "paper", "model", "params_b", "hidden", "ffn", "layers", "heads", "seq_len", "vocab", "gpu",
            "num_gpus", "tp", "pp", "dp", "global_batch", "recompute", "iteration_time_s")
    for line, r, rid in csv_rows(path, cols):
        h, ffn, layers, heads, seq, vocab, n, tp, pp, dp, gb = (
            num(r, k, path, line, integer=True)
            for k in ("hidden", "ffn", "layers", "heads", "seq_len", "vocab", "num_gpus", "tp", "pp", "dp",
                      "global_batch"))
        t = num(r, "iteration_time_s", path, line)
        params_b = num(r, "params_b", path, line)
        if tp * pp * dp != n:
            fail(path, line, "dp", f"tp {tp} x pp {pp} x dp {dp} is not num_gpus {n}")

        def skip(why):
            skipped.append({"id": rid, "group": "published-multi-gpu", "reason": why})

        gpu, cluster, per_node = megatron_gpu(r["gpu"])
        if not gpu:
            skip(f"machine {r['gpu']!r} is not one of ridge's clusters")
            continue
        if n % per_node:
            skip(f"{n} GPUs are not whole nodes of {per_node}")
            continue
        mb = opt_int(r, ("microbatch", "micro_batch"), path, line, 1)
        if layers % pp or heads % tp or mb < 1 or gb % (dp * mb):
            skip(f"layers {layers} / pp {pp}, heads {heads} / tp {tp} or batch {gb} / (dp {dp} x microbatch {mb}) "
                 "does not divide")
            continue
        recompute = MEGATRON_RECOMPUTE.get(r["recompute"].strip().lower())
        if not recompute:
            fail(path, line, "recompute", f"unknown {r['recompute']!r}")
        # GPT (Eq. 2 of the paper, with the MLP width ffn): l (4h^2 + 2h ffn + 9h + ffn) + (V + s) h,
        # = 12 l h^2 (1 + 13 / 12h + (V + s) / 12lh) for ffn = 4h
        counted = (layers * (4 * h * h + 2 * h * ffn + 9 * h + ffn) + (vocab + seq) * h) / 1e9
        if abs(counted / params_b - 1) > 0.05:  # the table rounds to 0.1 B (1.65 -> 1.7)
            skip(f"params_b {params_b} B, but a GPT of this shape has {counted:.2f} B: another architecture")
            continue
        zero = opt_int(r, ("zero", "zero_stage"), path, line, 0)
        v = opt_int(r, ("virtual_stages",), path, line, 0) or megatron_virtual_stages(layers, pp, gb // (dp * mb))
        par = {"tp": tp, "pp": pp, "dp": dp, "microbatch": mb, "global_batch": gb,
               "schedule": "interleaved" if v > 1 else "1f1b", "virtual_stages": v,
               "dp_overlap": "none", "grad_reduce": "param"}
        if zero:
            par["zero"] = zero
        if str(r.get("sequence_parallel", "")).strip().lower() in ("1", "true", "yes"):
            par["sequence_parallel"] = True
        model = {"schema_version": 1, "name": rid.lower(), "family": "transformer",
                 "source": f"{r['paper']}, {r['model']}",
                 "arch": {"d_model": h, "layers": layers, "heads": heads, "ffn": ffn, "vocab": vocab,
                          "max_seq": seq, "ffn_act": "gelu", "norm": "layernorm", "position": "learned",
                          "tied_embeddings": True, "bias": True, "dropout": True}}
        extra = {"cluster": cluster, "nodes": n // per_node, "parallel": par, "workload": model, "mode": "train",
                 "seq": seq, "precision": (r.get("precision") or "fp16").strip().lower(), "recompute": recompute,
                 "attention": "unfused",
                 "code": "megatron",
                 "optimizer": "adamw", "kind": "latency", "source": r["paper"],
                 "assumed": "microbatch 1 and the smallest interleaving (not in the table); fp16 mixed "
                            "precision; Megatron's 2021 kernels: unfused attention (QK^T, fused softmax, PV); "
                            "local DDP: fp16 gradients (--accumulate-allreduce-grads-in-fp32 off) all-reduced after the backward"}
        me = measurement(rid, "published-multi-gpu", t, timed="back_to_back", gpu=gpu, extra=extra)
        del me["config"]["timed"], me["config"]["runtime"]
        me["value"], me["unit"] = num(r, "tflops_per_gpu", path, line), "TFLOP/s per GPU (paper's Eq. 3)"
        out.append(me)
    prov = {"gpu_name": None, "date": None,
            "source": "shared/data/megatron-dev.csv (Narayanan et al. 2021, Table 1; iteration times derived from the "
                      "published TFLOP/s, the rows' notes)"}
    return prov, out, skipped


# ---------------------------------------------------------------- output

def write_file(path, prov, ms_, skipped):
    """One measurement a line (docs/validation.md), written to a temporary file and renamed."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    head = {"schema_version": 1, "kind": "ridge-measurements", "provenance": dict(prov, converter=f"validation/import_shared.py v{VERSION}")}
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".import-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("{" + json.dumps(head)[1:-1] + ",\n\"measurements\": [\n")
            for i, m in enumerate(ms_):
                f.write(json.dumps(m, sort_keys=False) + (",\n" if i + 1 < len(ms_) else "\n"))
            f.write("],\n\"skipped\": " + json.dumps(skipped, indent=None) + ",\n\"errors\": [],\n")
            f.write("\"summary\": " + json.dumps({"measurements": len(ms_), "skipped": len(skipped), "errors": 0}) + "\n}\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


SOURCES = {
    "h200-2026-11-29": ("h200-2026-11-29/dev.jsonl", convert_h200),
    "aiconfigurator-gemm": ("aiconfigurator-gemm/gemm.csv", convert_aic),
    "published-microbench": ("published-microbench.csv", convert_pub),
    "megatron-dev": ("megatron-dev.csv", convert_megatron),
}


def measure_sets(shared):
    """Other runs of measure.py beside the H200's: every folder of `shared` named like a data set
    (NAME-YYYY-MM-DD, set_name) that holds a dev.jsonl, as SOURCES entries of their own."""
    try:
        entries = sorted(os.listdir(shared))
    except OSError:
        return {}
    return {e: (e + "/dev.jsonl", convert_h200) for e in entries
            if e not in SOURCES and os.path.isfile(os.path.join(shared, e, "dev.jsonl"))
            and set_name(os.path.join(shared, e, "dev.jsonl")) == e}


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default=os.path.join(here, "..", "..", "shared", "data"))
    ap.add_argument("--out", default=os.path.join(here, "data"))
    ap.add_argument("--only", action="append",
                    help="one data set: " + ", ".join(sorted(SOURCES)) + ", or a measure.py run's folder of --shared")
    ap.add_argument("--input", help="with one --only: read this file instead of the data set's own")
    a = ap.parse_args(argv)
    sources = dict(SOURCES, **measure_sets(a.shared))
    for name in a.only or []:
        if name not in sources:
            ap.error(f"argument --only: invalid choice: {name!r} (choose from {', '.join(sorted(sources))})")
    names = a.only or sorted(sources)
    if a.input and len(names) != 1:
        ap.error("--input needs exactly one --only")
    try:
        # Every data set is converted before any file is written: bad input in one leaves the
        # output folder as it was.
        done = []
        for name in names:
            rel, conv = sources[name]
            src = a.input or os.path.join(a.shared, rel)
            if not os.path.isfile(src):
                raise InputError(f"{src}: cannot read (no such file)")
            done.append((name, conv(src)))
        for name, (prov, ms_, skipped) in done:
            dst = os.path.join(a.out, name + ".json")
            write_file(dst, prov, ms_, skipped)
            print(f"{dst}: {len(ms_)} measurements, {len(skipped)} listed as skipped")
    except InputError as e:
        print(f"import_shared.py: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"import_shared.py: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
