#!/usr/bin/env python3
"""Predict the rows of shared/data/published-dev.csv that ridge models, and print the error.

Usage: compare_published.py [--ridge build/cli/ridge] [--csv ../shared/data/published-dev.csv]
                            [--format text|csv]

Each modelled row is mapped to a `ridge predict` run from the row's own configuration (GPU,
precision, batch, sequence/image, mode), a multi-GPU TensorRT-LLM row to `ridge predict
--cluster` runs; rows ridge does not model (other models, other multi-GPU rows, serving at max
load) are skipped and counted. Published figures keep their source ids.
The mapping decisions are stated in MAPPING below and in docs/validation.md; MAPPING also says
which rows stay unmapped and why (the MXNet DLE inference rows: their figure includes the data
pipeline's GPU work, and their batch-1 rows fit no one host profile).
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from import_shared import pub_gpu  # noqa: E402  (the published-microbench converter's name rules)


def gpu_of(name):
    """The catalogue id of a row's GPU, by the published-microbench converter's name rules
    (import_shared.pub_gpu: "A100 80GB SXM4" -> a100-sxm4-80gb, "L40 48GB" -> l40; a variant the
    name leaves open is SXM and the larger memory: "A100 (variant not stated)" -> a100-sxm4-80gb,
    "V100 16GB SXM2" -> v100-sxm2-32gb, the same GV100 chip and clocks), else None (a part outside
    the catalogue: H100 NVL, V100 PCIe)."""
    return pub_gpu(name)[0]


# TensorRT-LLM performance-table models and the presets they map to (the original LLaMA 7B and 13B
# have Llama 2's shapes at a shorter context; Falcon 180B is a preset of its own).
LLM = {"LLaMA 7B": "llama2-7b", "LLaMA 13B": "llama2-13b", "GPT-J 6B": "gpt-j-6b", "LLaMA 70B": "llama2-70b",
       "Falcon 180B": "falcon-180b"}

# The node a multi-GPU TensorRT-LLM row ran on: one 8-GPU DGX/HGX (the perf tables' systems).
CLUSTER = {"h100-sxm5-80gb": "dgx-h100", "a100-sxm4-80gb": "dgx-a100", "h200-sxm-141gb": "hgx-h200"}

PRECISION = {"FP32": "fp32", "TF32": "tf32", "AMP (FP16)": "fp16", "FP16": "fp16", "FP8": "fp8", "BF16": "bf16",
             "INT8": "int8"}

MAPPING = """
ResNet-50 v1.5 (PyTorch DLE rows): resnet50, train or infer, the row's batch and precision, 224x224;
  layout NHWC for AMP and NCHW for FP32/TF32 (the rows' notes: "AMP uses NHWC"); AMP is autocast
  over FP32 weights (torch.cuda.amp; --amp: a weight cast per layer per forward, and in training
  one of each weight gradient back to FP32 and the GradScaler's unscale); training with SGD
  (momentum 0.875 in the DLE README; ridge's SGD has momentum), the default fused step.
BERT-large SQuAD v1.1 fine-tuning / inference (PyTorch DLE): bert-large-squad (the span head on
  every token, no MLM head or pooler), train / infer, seq 384, unfused attention (NGC pytorch 21.11
  predates fused attention kernels in PyTorch).
BERT-large pre-training with LAMB (PyTorch DLE, rows with a micro-batch): bert-large train at the
  row's micro-batch (batch_per_gpu) and sequence, --grad-accum from the row's "accumulation steps
  A and B" (A for the TF32/FP32 row, B for AMP), --optimizer lamb (apex FusedLAMB), the MLM head
  on the masked positions only (--mlm-positions 20 at sequence 128 and 80 at 512: the DLE scripts'
  max_predictions_per_seq), unfused attention; sequences/s per optimizer step.
ResNet-50 v1.5 MLPerf Inference v3.0 (TensorRT, closed division): resnet50 infer at the row's
  gpu_batch_size and precision with --fusion engine (BN folded, activation and residual add in the
  convolution epilogues, 8-bit activations) and CUDA graphs; Offline samples/s = throughput,
  SingleStream 90th-percentile latency = the batch-1 step time (LoadGen and the input copy are
  not modelled).
LLaMA 7B / 13B and GPT-J 6B prefill (TensorRT-LLM, batch 1): llama2-7b / llama2-13b / gpt-j-6b
  prefill, first-token latency = step time.
LLaMA 7B / 13B and GPT-J 6B generation (TensorRT-LLM peak throughput, batch B, input I, output O, one
  GPU): the same presets, time = prefill(B, I) + O x decode(B, context I + O/2); output
  tokens/s = B*O / time.
ResNet-50 v1.5, TensorFlow 1.15 DLE rows (NGC 20.06-tf1; dle_run): resnet50, the row's batch and
  precision, 224x224, eager kernels (--fusion engine refuses training and would fold BN, which
  training's batch statistics do not allow; XLA's own loop fusions are not modelled); AMP is
  --amp (TF's auto mixed precision graph rewrite: FP32 variables cast every step, FP32 gradients,
  dynamic loss scaling). With XLA (the training rows, "XLA enabled"): NHWC for AMP, NCHW for
  FP32/TF32 (XLA's layout assignment puts FP16 convolutions in NHWC on tensor-core GPUs and
  leaves FP32 ones NCHW); SGD with momentum, one update kernel per variable
  (--optimizer-impl forloop: TF's ApplyMomentum); host tf1-xla. Without XLA (the inference rows,
  "no XLA"): NCHW for every precision (TF 1.15's grappler layout optimizer runs GPU convolutions
  in NCHW; cuDNN transposes for the tensor cores); host tf1-graph.
ResNet-50 v1.5, MXNet DLE training rows (NGC mxnet 20.12 / 22.10, benchmark.py --dtype): resnet50
  train, the row's batch, eager kernels; --dtype float16 is a model cast to FP16 with FP32 master
  weights (multi-precision SGD: fp16 without --amp) in NHWC; float32 (TF32 on the A100) in NCHW;
  SGD with momentum, MXNet's aggregated multi-tensor update (fused); host mxnet-hybrid; NGC
  MXNet's fused BN+ReLU and BN+add+ReLU kernels (--bn-fusion fused).
Not mapped: the MXNet DLE inference rows (benchmark.py --mode val, "Total IPS incl. data"): the
  figure includes the DALI data pipeline (decoding and resizing on the same GPU), and the batch-1 rows
  contradict any one host profile per stack (V100 20.12 3.48 ms, T4 20.12 7.61 ms with the same
  software; A100 22.10 0.70 ms, below ridge's eager GPU time of 0.84 ms with no host cost at all);
  docs/validation.md.
Multi-GPU TensorRT-LLM gptSessionBenchmark rows (TP 2, 4 or 8 on one node; multi_gpu_config; LLaMA
  70B as llama2-70b, Falcon 180B as falcon-180b): the same runs through `ridge predict --cluster` on
  dgx-a100 / dgx-h100 / hgx-h200, the node's other GPUs as
  data-parallel replicas, host trtllm-session; first-token latency = the prefill step; generation
  per GPU, global batch x O / (prefill + O x decode at I + O/2) / GPUs.
TensorRT-LLM trtllm-bench rows (PyTorch backend, requests at an infinite rate, total output
  throughput; serving_config): Llama-3.1-8B, Llama-3.1/3.3-70B, Llama-3.1-405B and Mixtral-8x7B as
  llama3-8b, llama3-70b, llama3-405b and mixtral-8x7b, fp8, the row's ISL/OSL, `ridge serve
  --offline` (3,000 requests queued at 0 s, continuous batching of at most 1,024, host
  trtllm-bench: engine plus the Python executor's work per running sequence) on
  one replica: one GPU, or TP over the row's GPUs of one dgx-h100 / hgx-h200 / dgx-a100.
Other rows (Triton variants, TF-TRT, other MLPerf benchmarks, other multi-GPU rows, other models)
are skipped.
"""


def pretrain_args(r, prec):
    """--grad-accum and --mlm-positions of a DLE BERT pre-training row, or None (not stated)."""
    m = re.search(r"accumulation steps (\d+) and (\d+)", r["notes"])
    seq = int(r["seq_or_image"])
    if not m or not r["batch_per_gpu"].isdigit() or seq not in (128, 512):
        return None
    accum = m.group(2) if prec in ("fp16", "bf16") else m.group(1)
    return {"grad_accum": int(accum), "mlm_positions": 20 if seq == 128 else 80}


def dle_stack(r):
    """"tf1-xla", "tf1-graph" or "mxnet" for a ResNet-50 v1.5 row of the TensorFlow 1.15 / MXNet
    DeepLearningExamples READMEs, else None (Triton, TF-TRT and every other source)."""
    src, fw, model = r["source"], r["framework"], r["model"]
    if (model == "ResNet-50 v1.5 (TensorFlow)" and fw.startswith("TensorFlow 1.15")
            and src.startswith("NVIDIA/DeepLearningExamples:TensorFlow/Classification/ConvNets/resnet50v1.5/")):
        return "tf1-xla" if "XLA" in fw and "no XLA" not in r["notes"] else "tf1-graph"
    if (model == "ResNet-50 v1.5 (MXNet)" and fw.startswith("MXNet")
            and src.startswith("NVIDIA/DeepLearningExamples:MxNet/Classification/RN50v1.5/")):
        return "mxnet"
    return None


def dle_run(r, prec):
    """The run of a TF 1.15 / MXNet DLE ResNet-50 row (MAPPING), or None: mode, layout, amp,
    optimizer and its implementation. MXNet inference rows are not mapped (MAPPING)."""
    stack, task = dle_stack(r), r["task"]
    if stack is None or task not in ("training", "inference") or r["unit"] != "images/s":
        return None
    if not r["batch_per_gpu"].isdigit() or r["seq_or_image"] != "224x224":
        return None
    half = prec in ("fp16", "bf16")
    run = {"mode": "train" if task == "training" else "infer"}
    if stack == "mxnet":
        if run["mode"] != "train":
            return None  # "Total IPS incl. data" inference: DALI on the same GPU, batch-1 rows inconsistent
        # NGC MXNet's RN50 runs cuDNN's fused BN+ReLU and BN+add+ReLU kernels (--bn-fusion fused)
        return dict(run, layout="nhwc" if half else "nchw", amp=False, optimizer="sgd", optimizer_impl="fused",
                    bn_fusion="fused")
    run.update(layout="nhwc" if half and stack == "tf1-xla" else "nchw", amp=half)
    if run["mode"] == "train":
        run.update(optimizer="sgd", optimizer_impl="forloop")
    return run


def host_of(r):
    """The host profile the row's software implies (docs/model.md §7, docs/validation.md "Published
    measurements"): TensorRT-LLM's gptSessionBenchmark is an inference engine that also pays its
    session's per-request work (trtllm-session); trtllm-bench's PyTorch backend pays its Python
    executor's work per running sequence every iteration (trtllm-bench); TensorRT under the MLPerf
    harness is the plain engine; the PyTorch rows of NVIDIA DeepLearningExamples ran eager PyTorch of the NGC 21.x
    containers on the hosts of their READMEs (torch-eager-ngc21); anything else eager PyTorch 2.x."""
    fw = r["framework"]
    if fw.startswith("TensorRT-LLM") and "gptSessionBenchmark" in fw:
        return "trtllm-session"
    if fw.startswith("TensorRT-LLM trtllm-bench"):
        return "trtllm-bench"
    if fw.startswith("TensorRT"):
        return "engine"
    m = re.search(r"NGC pytorch[-:](\d\d)\.", fw)
    if m and 20 <= int(m.group(1)) <= 22:  # the PyTorch 1.x containers (PyTorch 1.6-1.13, Python 3.6-3.8)
        return "torch-eager-ngc21"
    stack = dle_stack(r)  # TF 1.15 with / without XLA, MXNet hybridized (DLE ResNet-50 READMEs)
    if stack:
        return "mxnet-hybrid" if stack == "mxnet" else stack
    return "torch-eager"


def io_tokens(r):
    """(input, output) tokens of a generation row: "input 128 / output 2048 tokens"."""
    nums = [int(t) for t in r["seq_or_image"].replace("/", " ").split() if t.isdigit()]
    return nums[0], nums[1]


def tensor_parallel(r):
    """The row's GPUs as one tensor-parallel group (ridge's TensorRT-LLM runs), or None where its
    notes say otherwise: a pipeline of two or more stages ("PP2"; ridge serve and these runs model
    none), or a TP size ("TP=4", "TP4") other than the row's GPU count."""
    if not r["gpu_count"].isdigit():
        return None
    n, notes = int(r["gpu_count"]), r.get("notes", "")
    pp = re.search(r"\bPP\s*=?\s*(\d+)", notes, re.I)
    tp = re.search(r"\bTP\s*=?\s*(\d+)", notes, re.I)
    if (pp and int(pp.group(1)) > 1) or (tp and int(tp.group(1)) != n):
        return None
    return n


def multi_gpu_config(r):
    """The run of a multi-GPU TensorRT-LLM gptSessionBenchmark row, or None: tensor parallelism over
    gpu_count GPUs of one 8-GPU node (the other GPUs of the node as data-parallel replicas, which
    change nothing per replica), the row's batch per replica (its notes: "batch is per model
    replica, shared across the TP group"). Generation rows are compared per GPU (config.per_gpu):
    the H100 table's header says out tok/s/GPU; the A100 table's is transcribed as out tok/s, but
    read per replica its 70B rows would need far less than the A100's compute (pub0453: 120 x 2048
    prompt tokens of a 70B model in 194 s, 17 % of four A100s' FP16 peak on the prefill alone), so
    both are read per GPU (docs/validation.md, "Published measurements")."""
    fw, gpu, prec = r["framework"], gpu_of(r["gpu"]), PRECISION.get(r["precision"])
    if not (fw.startswith("TensorRT-LLM") and "gptSessionBenchmark" in fw) or r["gpu_count"] in ("", "1"):
        return None
    tp = tensor_parallel(r)
    if tp is None or gpu not in CLUSTER or not prec or r["model"] not in LLM:
        return None
    if 8 % tp or not r["batch_per_gpu"].isdigit():
        return None
    b, dp = int(r["batch_per_gpu"]), 8 // tp
    base = {"gpu": gpu, "cluster": CLUSTER[gpu], "nodes": 1,
            "parallel": {"tp": tp, "pp": 1, "dp": dp, "microbatch": b, "global_batch": b * dp},
            "workload": LLM[r["model"]], "precision": prec, "host": host_of(r), "source": r["source"]}
    if r["task"] == "inference (LLM prefill)" and r["unit"] == "ms":
        p = int(r["seq_or_image"].split()[1])
        return dict(base, mode="prefill", prompt=p, seq=p, kind="latency")
    if r["task"] == "inference (LLM generation)" and r["unit"].startswith("output tokens/s"):
        inp, outp = io_tokens(r)
        return dict(base, mode="generate", prompt=inp, output=outp, context=inp + outp // 2, kind="generation",
                    per_gpu=True)
    return None


# The models of the trtllm-bench rows (the nvidia FP8 checkpoints of these architectures), by the
# start of the row's model name: Llama 3.1 and 3.3 share Llama 3's shapes per size.
SERVE_LLM = {"Llama-3.1-8B": "llama3-8b", "Llama-3.1-70B": "llama3-70b", "Llama-3.3-70B": "llama3-70b",
             "Llama-3.1-405B": "llama3-405b", "Mixtral-8x7B": "mixtral-8x7b"}
# Requests per offline run: the rows do not say how many trtllm-bench fed; the prediction moves
# by at most 1 % between 1,000 and 10,000 (docs/validation.md, "Serving benchmarks").
SERVE_REQUESTS = 3000
# TensorRT-LLM's default max_batch_size is 2048; ridge serve's continuous batching runs at most
# RIDGE_SERVE_MAX_BATCH = 1024 requests, which binds only where the KV cache holds more.
SERVE_MAX_BATCH = 1024


def serving_config(r):
    """The offline run of a trtllm-bench row (TensorRT-LLM's PyTorch backend, in-flight batching,
    requests fed at an infinite rate, total output throughput), or None: `ridge serve --offline`
    with the row's ISL/OSL on one replica (TP1 on one GPU, TP over the row's GPUs of one node), the
    trtllm-bench host profile (the engine's CUDA-graph decode and GQA-packed decode attention, plus
    the Python executor's work per running sequence each iteration), fp8 weights
    and KV cache. The value is the replica's output tokens/s (the 2-GPU rows' "total")."""
    fw, gpu, prec = r["framework"], gpu_of(r["gpu"]), PRECISION.get(r["precision"])
    if not fw.startswith("TensorRT-LLM trtllm-bench") or not gpu or not prec:
        return None
    model = next((v for k, v in SERVE_LLM.items() if r["model"].startswith(k)), None)
    tp = tensor_parallel(r)
    if model is None or not r["unit"].startswith("output tokens/s") or tp is None:
        return None
    inp, outp = io_tokens(r)
    cfg = {"gpu": gpu, "workload": model, "kind": "serving", "precision": prec, "host": host_of(r),
           "prompt": inp, "output": outp, "requests": SERVE_REQUESTS, "max_batch": SERVE_MAX_BATCH,
           "source": r["source"],
           "assumed": (f"{SERVE_REQUESTS} requests queued at 0 s (not in the row); at most {SERVE_MAX_BATCH} "
                       "running (ridge's limit; TensorRT-LLM's default max_batch_size is 2048); fp8 KV cache")}
    if tp > 1:
        if gpu not in CLUSTER or 8 % tp:
            return None
        cfg.update(cluster=CLUSTER[gpu], nodes=1, tp=tp)
    return cfg


def predict_serving(binary, cfg):
    """A serving_config run through `ridge serve --offline`: the replica's output tokens/s."""
    where = (["--cluster", cfg["cluster"], "--nodes", str(cfg["nodes"]), "--tp", str(cfg["tp"]), "--replicas", "1"]
             if "cluster" in cfg else ["--gpu", cfg["gpu"]])
    out = subprocess.run([binary, "serve", "--format", "json", "--offline"] + where +
                         ["--workload", cfg["workload"], "--precision", cfg["precision"], "--host", cfg["host"],
                          "--prompt", str(cfg["prompt"]), "--output", str(cfg["output"]),
                          "--requests", str(cfg["requests"]), "--max-batch", str(cfg["max_batch"])],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    tp = cfg.get("tp", 1)
    return (json.loads(out.stdout)["output_tokens_per_s"],
            f"{cfg['workload']} serve tp{tp} in{cfg['prompt']} out{cfg['output']} {cfg['precision']} (offline)")


def predict_multi(binary, cfg):
    """A multi_gpu_config run through `ridge predict --cluster`: the prefill step (first-token
    latency, the profile's per-request work included), or the generation per GPU,
    global batch x output / (prefill + output x decode at the mean context) / GPUs."""
    p = cfg["parallel"]
    base = ["--cluster", cfg["cluster"], "--nodes", str(cfg["nodes"]), "--tp", str(p["tp"]), "--pp", "1",
            "--dp", str(p["dp"]), "--microbatch", str(p["microbatch"]), "--global-batch", str(p["global_batch"]),
            "--workload", cfg["workload"], "--precision", cfg["precision"], "--host", cfg["host"]]
    what = f"{cfg['workload']} tp{p['tp']} b{p['microbatch']} {cfg['precision']}"
    pre = ridge(binary, base + ["--mode", "prefill", "--prompt", str(cfg["prompt"])])
    if cfg["kind"] == "latency":
        return pre["step_time_s"] * 1e3, f"{what} prefill p{cfg['prompt']}"
    dec = ridge(binary, base + ["--mode", "decode", "--context", str(cfg["context"])])
    t = pre["step_time_s"] + cfg["output"] * dec["step_time_s"]
    gpus = p["tp"] * p["pp"] * p["dp"]
    return p["global_batch"] * cfg["output"] / t / gpus, f"{what} generate in{cfg['prompt']} out{cfg['output']} per GPU"


def ridge(binary, args):
    out = subprocess.run([binary, "predict", "--format", "json"] + args, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return json.loads(out.stdout)


def predict_row(binary, r):
    model, task, gpu = r["model"], r["task"], gpu_of(r["gpu"])
    host = ["--host", host_of(r)]
    prec = PRECISION.get(r["precision"])
    mc = multi_gpu_config(r)
    if mc:
        return predict_multi(binary, mc)
    sc = serving_config(r)
    if sc:
        return predict_serving(binary, sc)
    if not gpu or not prec or r["gpu_count"] != "1":
        return None
    batch = r["batch_per_gpu"]
    if model == "ResNet-50 v1.5" and task in ("training", "inference") and "images/s" == r["unit"]:
        mode = "train" if task == "training" else "infer"
        layout = "nhwc" if prec in ("fp16", "bf16") else "nchw"
        amp = ["--amp"] if prec in ("fp16", "bf16") else []
        opt = ["--optimizer", "sgd"] if mode == "train" else []  # DLE ConvNets: SGD with momentum
        p = ridge(binary, host + ["--gpu", gpu, "--workload", "resnet50", "--mode", mode, "--batch", batch,
                           "--precision", prec, "--layout", layout] + amp + opt)
        return p["throughput"], f"resnet50 {mode} b{batch} {prec} {layout}"
    dle = dle_run(r, prec)
    if dle is not None:  # TensorFlow 1.15 / MXNet DLE ResNet-50 (MAPPING)
        args = ["--gpu", gpu, "--workload", "resnet50", "--mode", dle["mode"], "--batch", batch, "--precision", prec,
                "--layout", dle["layout"]] + (["--amp"] if dle["amp"] else []) + \
            (["--bn-fusion", dle["bn_fusion"]] if "bn_fusion" in dle else [])
        if dle["mode"] == "train":
            args += ["--optimizer", dle["optimizer"], "--optimizer-impl", dle["optimizer_impl"]]
        p = ridge(binary, host + args)
        return p["throughput"], f"resnet50 {dle['mode']} b{batch} {prec} {dle['layout']} ({dle_stack(r)})"
    if model == "BERT-large pre-training (LAMB)" and r["unit"] == "sequences/s":
        pa = pretrain_args(r, prec)
        if pa is None:
            return None
        p = ridge(binary, host + ["--gpu", gpu, "--workload", "bert-large", "--mode", "train", "--batch", batch,
                           "--seq", r["seq_or_image"], "--precision", prec, "--attention", "unfused",
                           "--optimizer", "lamb", "--grad-accum", str(pa["grad_accum"]),
                           "--mlm-positions", str(pa["mlm_positions"])])
        return p["throughput"], (f"bert-large pretrain b{batch}x{pa['grad_accum']} s{r['seq_or_image']} {prec} "
                                 f"lamb mlm{pa['mlm_positions']}")
    if model == "ResNet-50 v1.5 (MLPerf, ImageNet)" and task == "inference" and r["framework"].startswith("TensorRT"):
        args = host + ["--gpu", gpu, "--workload", "resnet50", "--mode", "infer", "--batch", batch, "--precision", prec,
                "--fusion", "engine", "--runtime", "graph"]
        p = ridge(binary, args)
        if r["unit"].startswith("samples/s"):  # Offline
            return p["throughput"], f"resnet50 infer b{batch} {prec} engine (MLPerf Offline)"
        if r["unit"] == "ms":  # SingleStream 90th-percentile latency
            return p["time_s"] * 1e3, f"resnet50 infer b{batch} {prec} engine (MLPerf SingleStream)"
        return None
    if model.startswith("BERT-large SQuAD v1.1") and r["unit"] == "sequences/s":
        mode = "train" if task == "training" else "infer"
        p = ridge(binary, host + ["--gpu", gpu, "--workload", "bert-large-squad", "--mode", mode, "--batch", batch,
                           "--seq", r["seq_or_image"], "--precision", prec, "--attention", "unfused"])
        return p["throughput"], f"bert-large-squad {mode} b{batch} s{r['seq_or_image']} {prec} unfused"
    if model in LLM and task == "inference (LLM prefill)" and r["unit"] == "ms":
        prompt = r["seq_or_image"].split()[1]
        p = ridge(binary, host + ["--gpu", gpu, "--workload", LLM[model], "--mode", "prefill", "--batch", batch,
                           "--prompt", prompt, "--precision", prec])
        return p["time_s"] * 1e3, f"{LLM[model]} prefill b{batch} p{prompt} {prec}"
    if model in LLM and task == "inference (LLM generation)" and r["unit"].startswith("output tokens/s"):
        inp, outp = io_tokens(r)
        pre = ridge(binary, host + ["--gpu", gpu, "--workload", LLM[model], "--mode", "prefill", "--batch", batch,
                             "--prompt", str(inp), "--precision", prec])
        dec = ridge(binary, host + ["--gpu", gpu, "--workload", LLM[model], "--mode", "decode", "--batch", batch,
                             "--context", str(inp + outp // 2), "--precision", prec])
        t = pre["time_s"] + outp * dec["time_s"]
        return int(batch) * outp / t, f"{LLM[model]} generate b{batch} in{inp} out{outp} {prec}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ridge", default="build/cli/ridge")
    ap.add_argument("--csv", default="../shared/data/published-dev.csv")
    ap.add_argument("--format", choices=["text", "csv"], default="text")
    a = ap.parse_args()
    rows = list(csv.DictReader(open(a.csv, newline="")))
    done, skipped, errors = [], 0, []
    for r in rows:
        try:
            res = predict_row(a.ridge, r)
        except RuntimeError as e:
            errors.append((r["id"], str(e)))
            continue
        if res is None:
            skipped += 1
            continue
        pred, what = res
        meas = float(r["value"])
        done.append((r["id"], r["gpu"], what, meas, pred, 100.0 * (pred - meas) / meas, r["unit"], r["source"]))
    if a.format == "csv":
        w = csv.writer(sys.stdout)
        w.writerow(["id", "gpu", "case", "published", "predicted", "error_percent", "unit", "source"])
        for d in done:
            w.writerow([d[0], d[1], d[2], d[3], f"{d[4]:.6g}", f"{d[5]:.2f}", d[6], d[7]])
        return 0
    print(f"{'id':8} {'gpu':26} {'case':44} {'published':>10} {'predicted':>10} {'error':>8}")
    for d in done:
        print(f"{d[0]:8} {d[1]:26} {d[2]:44} {d[3]:10.4g} {d[4]:10.4g} {d[5]:+7.1f}%")
    by_gpu = {}
    for d in done:
        by_gpu.setdefault(d[1], []).append(abs(d[5]))
    print()
    for gpu, errs in sorted(by_gpu.items()):
        print(f"{gpu:26} rows {len(errs):3}  MAPE {statistics.mean(errs):6.1f}%  median {statistics.median(errs):6.1f}%"
              f"  worst {max(errs):6.1f}%")
    if done:
        errs = [abs(d[5]) for d in done]
        print(f"{'all':26} rows {len(errs):3}  MAPE {statistics.mean(errs):6.1f}%  median {statistics.median(errs):6.1f}%")
    print(f"skipped {skipped} rows ridge does not model; {len(errors)} errors")
    for e in errors:
        print("  error", e[0], e[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
