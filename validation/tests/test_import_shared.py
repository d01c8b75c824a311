"""Tests of validation/import_shared.py on a few records of each data set, made here (no shared/ needed).

Run by CTest (validation_python); with RIDGE set to the ridge binary, the converted files are also
read back through `ridge validate`.
"""
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import import_shared  # noqa: E402

MEGATRON_CSV = os.path.join(HERE, "megatron-dev-sample.csv")  # a copy of shared/data/megatron-dev.csv

H200 = [
    {"run": "a", "section": "env", "name": "env", "gpu": "NVIDIA H200", "sm_count": 132},
    {"run": "a", "section": "gemm", "name": "bf16_4096x2100x4096", "op": "gemm", "precision": "bf16", "m": 4096,
     "n": 2100, "k": 4096, "flops": 70464307200.0, "median_ms": 0.36501, "min_ms": 0.36294, "max_ms": 0.43821,
     "iters": 100},
    {"run": "c", "section": "gemm_peak", "name": "fp8_8192x8192x8192", "op": "gemm", "precision": "fp8_e4m3",
     "m": 8192, "n": 8192, "k": 8192, "flops": 1099511627776.0, "median_ms": 0.79763},
    {"run": "a", "section": "elementwise", "name": "add_fp32_2^10", "op": "add", "precision": "fp32",
     "elements": 1024, "bytes": 12288, "median_ms": 0.01867, "back_to_back_ms": 0.008207, "graph_ms": 0.001011},
    {"run": "a", "section": "normlike", "name": "silu_mul_bf16_4096x4096", "op": "silu_mul", "precision": "bf16",
     "rows": 4096, "cols": 4096, "min_bytes": 67108864, "median_ms": 0.05234},
    {"run": "a", "section": "llm_infer", "model": "llama2-7b", "name": "llama2-7b_decode_bs1_ctx1024",
     "mode": "decode", "batch": 1, "context": 1024, "median_ms": 32.8, "graph_ms": 6.34},
]
AIC_HEAD = "source,gpu,device_name,framework,kernel_source,dtype,m,n,k,latency_ms\n"
AIC = ("x,H100 80GB SXM5,NVIDIA H100 80GB HBM3,vLLM 0.24.0,torch.nn.functional.linear,bf16,4096,4096,4096,0.2\n"
       "x,H100 80GB SXM5,NVIDIA H100 80GB HBM3,vLLM 0.24.0,CutlassFP8ScaledMMLinearKernel,fp8,32768,128,128,0.238\n"
       "x,L40S,NVIDIA L40S,vLLM 0.24.0,torch.nn.functional.linear,bf16,1,128,128,0.00174\n")


class ImportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        p = os.path.join(self.d, name)
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
        return p

    def run_import(self, only, path):
        out = os.path.join(self.d, "out")
        rc = import_shared.main(["--only", only, "--input", path, "--out", out])
        return rc, os.path.join(out, only + ".json")

    def import_stderr(self, only, path):
        """run_import with stderr captured: (exit code, output path, what it printed)."""
        err = os.path.join(self.d, "err")
        with open(err, "w") as fe:
            old, sys.stderr = sys.stderr, fe
            try:
                rc, dst = self.run_import(only, path)
            finally:
                sys.stderr = old
        return rc, dst, open(err).read()

    def test_h200_ids_and_timing_forms(self):
        src = self.write("dev.jsonl", "\n".join(json.dumps(r) for r in H200) + "\n")
        rc, dst = self.run_import("h200-2026-11-29", src)
        self.assertEqual(rc, 0)
        doc = json.load(open(dst))
        self.assertEqual(doc["kind"], "ridge-measurements")
        ms = {m["id"]: m for m in doc["measurements"]}
        g = ms["h200-2026-11-29/a/bf16_4096x2100x4096"]
        self.assertEqual(g["config"]["op"]["layout"], "nn")
        self.assertEqual(g["config"]["timed"], "per_call_events")
        self.assertAlmostEqual(g["time_s"]["median"], 0.36501e-3)
        self.assertEqual(ms["h200-2026-11-29/c/fp8_8192x8192x8192"]["config"]["op"]["layout"], "nt")
        graph = ms["h200-2026-11-29/a/add_fp32_2^10/graph"]
        self.assertEqual(graph["source_id"], "h200-2026-11-29/a/add_fp32_2^10")
        self.assertEqual((graph["config"]["runtime"], graph["config"]["graph_nodes"]), ("graph", 100))
        self.assertEqual(ms["h200-2026-11-29/a/add_fp32_2^10/back_to_back"]["config"]["timed"], "back_to_back")
        self.assertEqual(len(ms["h200-2026-11-29/a/silu_mul_bf16_4096x4096"]["config"]["ops"]), 2)
        dec = ms["h200-2026-11-29/a/llama2-7b_decode_bs1_ctx1024"]["config"]
        self.assertEqual((dec["workload"], dec["mode"], dec["context"]), ("llama2-7b", "decode", 1024))
        self.assertEqual(ms["h200-2026-11-29/a/llama2-7b_decode_bs1_ctx1024/graph"]["config"]["runtime"], "graph")
        self.assertEqual(len(ms), 8)  # every record kept, none silently skipped
        self.assertEqual(doc["skipped"], [])
        self.validate(dst, 8)

    def test_h200_every_section(self):
        """The sections whose records are held back (measure.py's other models) convert too: Llama-3
        (grouped-query K/V repeated before SDPA without enable_gqa), BERT-large, torchvision CNNs
        and ViT, the batch sweep (whose names repeat the resnet50 section's), Llama training and
        native-GQA decode; what ridge does not compare is listed with its reason."""
        l3 = dict(model="llama3-8b", d_model=4096, layers=32, heads=32, kv_heads=8, ffn=14336, vocab=128256)
        recs = [
            {"run": "b", "section": "env", "name": "env", "gpu": "NVIDIA A100-SXM4-80GB"},
            {"run": "b", "section": "llm_infer", "name": "llama3-8b_decode_bs8_ctx1024", "mode": "decode",
             "batch": 8, "context": 1024, "median_ms": 30.0, "graph_ms": 9.0, **l3},
            {"run": "b", "section": "llm_infer", "name": "llama3-8b_prefill_bs1_T512", "mode": "prefill",
             "batch": 1, "prompt": 512, "median_ms": 40.0, **l3},
            {"run": "b", "section": "gqa_decode", "name": "llama3-8b_decode_gqa_bs1_ctx1024", "mode": "decode",
             "batch": 1, "context": 1024, "gqa_native": True, "median_ms": 30.0, **l3},
            {"run": "b", "section": "llm_train", "name": "llama-1.1b_train_bs4_T2048", "batch": 4, "seq": 2048,
             "median_ms": 300.0, "model": "llama-1.1b", "d_model": 2048, "layers": 22, "heads": 32, "kv_heads": 4,
             "ffn": 5632, "vocab": 32000},
            {"run": "b", "section": "hf_train", "name": "bert-large_train_bf16_bs8_seq512", "model": "bert-large",
             "batch": 8, "seq": 512, "median_ms": 50.0},
            {"run": "b", "section": "hf_train", "name": "t5_train", "model": "t5-small", "batch": 8, "seq": 512,
             "median_ms": 50.0},
            {"run": "b", "section": "cnn_more", "name": "vit_b_16_train_bf16_bs64", "model": "vit_b_16",
             "mode": "train", "precision": "bf16", "batch": 64, "image": 224, "median_ms": 50.0},
            {"run": "b", "section": "cnn_more", "name": "mobilenet_v2_infer_fp16_bs128", "model": "mobilenet_v2",
             "mode": "infer", "precision": "fp16", "batch": 128, "image": 224, "median_ms": 5.0},
            {"run": "b", "section": "resnet50", "name": "resnet50_infer_fp16_bs1", "model": "resnet50",
             "mode": "infer", "precision": "fp16", "batch": 1, "image": 224, "median_ms": 3.8},
            {"run": "b", "section": "resnet_bs_sweep", "name": "resnet50_infer_fp16_bs1", "model": "resnet50",
             "mode": "infer", "precision": "fp16", "batch": 1, "image": 224, "median_ms": 3.9,
             "back_to_back_ms": 3.1},
            {"run": "b", "section": "serving", "name": "service_bs1", "service_s": 0.004, "median_ms": 4.0},
            {"run": "b", "section": "serving", "name": "resnet50_fp16_maxbatch64_load2.0", "model": "resnet50",
             "precision": "fp16", "max_batch": 64, "batch_timeout_ms": 0, "arrival": "poisson",
             "rate_per_s": 500.0, "offered_load_vs_bs1": 2.0, "duration_s": 4.0, "requests": 2000,
             "mean_s": 0.006, "p50_s": 0.0055, "p90_s": 0.008, "p99_s": 0.01, "max_s": 0.02},
            {"run": "b", "section": "serving", "name": "resnet50_fp16_maxbatch1_load0.9", "model": "resnet50",
             "precision": "fp16", "max_batch": 1, "batch_timeout_ms": 0, "arrival": "poisson",
             "rate_per_s": 225.0, "duration_s": 4.0, "requests": 0, "mean_s": None, "p50_s": None,
             "p90_s": None, "p99_s": None},
            {"run": "b", "section": "env", "name": "env_end", "gqa_native": True},
        ]
        folder = os.path.join(self.d, "a100-2026-12-01")
        os.mkdir(folder)
        src = os.path.join(folder, "test.jsonl")
        with open(src, "w", encoding="utf-8") as f:
            f.write("\n".join(json.dumps(r) for r in recs) + "\n")
        rc, dst = self.run_import("h200-2026-11-29", src)
        self.assertEqual(rc, 0)
        doc = json.load(open(dst))
        self.assertEqual((doc["provenance"]["gpu_name"], doc["provenance"]["date"]),
                         ("NVIDIA A100-SXM4-80GB", "2026-12-01"))
        ms = {m["id"].split("/", 1)[1]: m["config"] for m in doc["measurements"]}
        self.assertTrue(all(m["id"].startswith("a100-2026-12-01/b/") for m in doc["measurements"]))
        dec = ms["b/llama3-8b_decode_bs8_ctx1024"]["workload"]
        # the run has gqa_decode records, so env_end's flag is gqa_decode's: the earlier sections ran
        # without enable_gqa
        self.assertEqual((dec["arch"]["kv_heads"], dec["arch"]["gqa_impl"]), (8, "repeat_all"))
        self.assertEqual(ms["b/llama3-8b_decode_bs8_ctx1024/graph"]["runtime"], "graph")
        # measure.py's prefill writes no KV cache (caches=None): ridge's infer mode, not its prefill
        pre = ms["b/llama3-8b_prefill_bs1_T512"]
        self.assertEqual((pre["mode"], pre["seq"], "prompt" in pre), ("infer", 512, False))
        self.assertEqual(ms["b/llama3-8b_decode_gqa_bs1_ctx1024"]["workload"]["arch"]["gqa_impl"], "grouped")
        tr = ms["b/llama-1.1b_train_bs4_T2048"]
        self.assertEqual((tr["mode"], tr["amp"], tr["optimizer_impl"], tr["workload"]["arch"]["layers"]),
                         ("train", True, "fused", 22))
        self.assertEqual((ms["b/bert-large_train_bf16_bs8_seq512"]["workload"],
                          ms["b/bert-large_train_bf16_bs8_seq512"]["code"]), ("bert-large", "hf"))
        # torchvision's ViT has no dropout: the vit-b16 preset as a document with dropout off
        vit = ms["b/vit_b_16_train_bf16_bs64"]["workload"]
        self.assertEqual((vit["name"], vit["arch"]["dropout"], vit["arch"]["d_model"], vit["arch"]["patch"]),
                         ("vit_b_16", False, 768, 16))
        self.assertEqual(ms["b/mobilenet_v2_infer_fp16_bs128"]["layout"], "nhwc")
        self.assertEqual(ms["b/resnet_bs_sweep/resnet50_infer_fp16_bs1"]["batch"], 1)
        self.assertIn("b/resnet50_infer_fp16_bs1", ms)
        # the serving section: the batch-1 service time as a latency record, each queue point as one
        # queue record per latency statistic (ridge serve --rate --max-batch), its source id kept
        self.assertEqual((ms["b/service_bs1"]["kind"], ms["b/service_bs1"]["batch"]), ("latency", 1))
        q = {st: ms[f"b/resnet50_fp16_maxbatch64_load2.0/{st}"] for st in ("mean", "p50", "p90", "p99")}
        self.assertEqual({(c["kind"], c["statistic"], c["max_batch"], c["rate_per_s"]) for c in q.values()},
                         {("queue", st, 64, 500.0) for st in q})
        src_ids = {m["id"]: m.get("source_id") for m in doc["measurements"]}
        self.assertEqual(src_ids["a100-2026-12-01/b/resnet50_fp16_maxbatch64_load2.0/p99"],
                         "a100-2026-12-01/b/resnet50_fp16_maxbatch64_load2.0")
        times = {m["id"].split("/", 1)[1]: m["time_s"]["median"] for m in doc["measurements"]}
        self.assertEqual(times["b/resnet50_fp16_maxbatch64_load2.0/p90"], 0.008)
        why = {s["id"].split("/", 1)[1]: s["reason"] for s in doc["skipped"]}
        self.assertEqual(set(why), {"b/t5_train", "b/resnet50_fp16_maxbatch1_load0.9"})
        # a whole model's back_to_back_ms: ten calls between two events, the source id kept
        b2b = ms["b/resnet_bs_sweep/resnet50_infer_fp16_bs1/back_to_back"]
        self.assertEqual((b2b["timed"], b2b["calls"], b2b["batch"]), ("back_to_back", 10, 1))
        self.assertAlmostEqual(times["b/resnet_bs_sweep/resnet50_infer_fp16_bs1/back_to_back"], 0.0031, places=12)
        self.assertIn("not a ridge preset", why["b/t5_train"])
        self.assertIn("no request completed", why["b/resnet50_fp16_maxbatch1_load0.9"])
        self.validate(dst, 16)

    def test_h200_wrong_types(self):
        """A field of an unexpected JSON type (a list for a precision or a model name) is a one-line
        error naming the line, or an unknown value listed in skipped, never a traceback."""
        cases = [dict(H200[1], precision=["bf16"]),
                 {"run": "a", "section": "cnn_more", "name": "x", "model": ["vgg16"], "mode": "infer",
                  "precision": "fp16", "batch": 1, "image": 224, "median_ms": 1.0}]
        for rec in cases:
            with self.subTest(rec=rec["section"]):
                src = self.write("dev.jsonl", json.dumps(rec) + "\n")
                rc, dst, msg = self.import_stderr("h200-2026-11-29", src)
                self.assertIn(rc, (0, 2))
                self.assertNotIn("Traceback", msg)
                self.assertLessEqual(msg.count("\n"), 1, msg)
                if rc == 0:
                    self.assertEqual(len(json.load(open(dst))["skipped"]), 1)
                else:
                    self.assertIn(src + ":1: ", msg)

    def test_h200_hostile_lines(self):
        """Bad bytes and values of every kind stop the import with one line naming the line (a huge
        integer, 5,000 digits, deep nesting, bytes that are not UTF-8, a NUL or a lone surrogate in
        an id), never a traceback and never a file ridge validate would refuse whole."""
        good = json.dumps(H200[1])
        cases = [
            (good + "\n" + json.dumps(dict(H200[1], name="x", m=10 ** 400)) + "\n", ":2: m: not a finite number"),
            (good + '\n{"run": "a", "m": ' + "9" * 5000 + "}\n", ":2: line: malformed JSON"),
            (good + "\n" + "[" * 100000 + "\n", ":2: line: malformed JSON"),
            (good + "\n" + json.dumps(dict(H200[1], name="a\u0000b")) + "\n", ":2: name: holds a control character"),
            (good + '\n{"run": "a", "section": "gemm", "name": "\\ud800"}\n', ":2: name: holds a control character"),
        ]
        for text, want in cases:
            with self.subTest(want=want):
                src = self.write("dev.jsonl", text)
                rc, dst, msg = self.import_stderr("h200-2026-11-29", src)
                self.assertEqual(rc, 2)
                self.assertEqual(msg.count("\n"), 1, msg)
                self.assertIn(src + want, msg)
        src = os.path.join(self.d, "bytes.jsonl")
        with open(src, "wb") as f:
            f.write(good.encode() + b"\n{\"run\": \"a\xff\"}\n")
        rc, dst, msg = self.import_stderr("h200-2026-11-29", src)
        self.assertEqual(rc, 2)
        self.assertIn(src + ":2: line: not UTF-8", msg)

    def test_h200_no_guesses(self):
        """A cnn_more record without a model is not taken as ResNet-50, and a data set of another GPU
        whose env record names none is not predicted on the H200."""
        folder = os.path.join(self.d, "a100-2026-12-05")
        os.mkdir(folder)
        src = os.path.join(folder, "test.jsonl")
        with open(src, "w", encoding="utf-8") as f:
            f.write(json.dumps({"run": "a", "section": "env", "name": "env"}) + "\n")
            f.write(json.dumps({"run": "a", "section": "cnn_more", "name": "vgg16_train_bf16_bs64", "mode": "train",
                                "precision": "bf16", "batch": 64, "image": 224, "median_ms": 50.0}) + "\n")
            f.write(json.dumps(H200[1]) + "\n")
        rc, dst = self.run_import("h200-2026-11-29", src)
        self.assertEqual(rc, 0)
        doc = json.load(open(dst))
        self.assertIsNone(doc["provenance"]["gpu_name"])
        self.assertEqual([x["id"] for x in doc["skipped"]], ["a100-2026-12-05/a/vgg16_train_bf16_bs64"])

    def test_other_measure_runs(self):
        """A measure.py run in a NAME-YYYY-MM-DD folder of --shared is a data set of its own: --only
        takes its name, the output is NAME-YYYY-MM-DD.json with ids under that name and the GPU its
        env record names; a name that is no data set is a usage error (exit 2)."""
        shared = os.path.join(self.d, "shared")
        folder = os.path.join(shared, "a100-2026-12-10")
        os.makedirs(folder)
        with open(os.path.join(folder, "dev.jsonl"), "w", encoding="utf-8") as f:
            f.write(json.dumps({"run": "a", "section": "env", "name": "env", "gpu": "NVIDIA A100-SXM4-80GB"}) + "\n")
            f.write(json.dumps(H200[1]) + "\n")
        os.makedirs(os.path.join(shared, "notes"))  # not a data set's name: not one
        out = os.path.join(self.d, "out")
        self.assertEqual(sorted(import_shared.measure_sets(shared)), ["a100-2026-12-10"])
        rc = import_shared.main(["--shared", shared, "--out", out, "--only", "a100-2026-12-10"])
        self.assertEqual(rc, 0)
        doc = json.load(open(os.path.join(out, "a100-2026-12-10.json")))
        self.assertEqual(doc["provenance"]["gpu_name"], "NVIDIA A100-SXM4-80GB")
        self.assertTrue(doc["measurements"])
        self.assertTrue(all(m["id"].startswith("a100-2026-12-10/a/") for m in doc["measurements"]))
        with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(io.StringIO()):
            import_shared.main(["--shared", shared, "--out", out, "--only", "a40-2026-12-10"])
        self.assertEqual(e.exception.code, 2)
        self.validate(os.path.join(out, "a100-2026-12-10.json"), len(doc["measurements"]))

    def test_aiconfigurator(self):
        rc, dst = self.run_import("aiconfigurator-gemm", self.write("gemm.csv", AIC_HEAD + AIC))
        self.assertEqual(rc, 0)
        ms = {m["id"]: m for m in json.load(open(dst))["measurements"]}
        self.assertEqual(set(ms), {"aiconfigurator-gemm/h100_sxm/bf16/4096x4096x4096",
                                   "aiconfigurator-gemm/h100_sxm/fp8/32768x128x128",
                                   "aiconfigurator-gemm/l40s/bf16/1x128x128"})
        b = ms["aiconfigurator-gemm/h100_sxm/bf16/4096x4096x4096"]["config"]
        self.assertEqual((b["timed"], b["gpu"], b["op"]["layout"]), ("gpu_time", "h100-sxm5-80gb", "nt"))
        f = ms["aiconfigurator-gemm/h100_sxm/fp8/32768x128x128"]["config"]
        self.assertEqual([o["op"] for o in f["ops"]], ["reduce", "elementwise", "gemm"])
        self.validate(dst, 3)

    def test_aiconfigurator_other_systems(self):
        """The systems held back (H200, A100, B200 tables) convert by their device names; a device
        outside the catalogue or a dtype ridge does not model is listed with its reason."""
        src = "ai-dynamo/aiconfigurator@095f58a51:aic-core/src/aiconfigurator_core/systems/data/{}/gemm/vllm/0.24.0/gemm_perf.parquet"
        rows = (f"{src.format('h200_sxm')},H200 141GB,NVIDIA H200,vLLM 0.24.0,CutlassFP8ScaledMMLinearKernel,fp8,64,4096,4096,0.02\n"
                f"{src.format('a100_sxm')},A100 80GB,NVIDIA A100-SXM4-80GB,vLLM 0.24.0,torch.nn.functional.linear,bf16,4096,4096,4096,0.6\n"
                f"{src.format('b200_sxm')},B200,NVIDIA B200,vLLM 0.24.0,torch.nn.functional.linear,fp16,2048,2048,2048,0.01\n"
                f"{src.format('gb200_sxm')},GB200,NVIDIA GB200,vLLM 0.24.0,torch.nn.functional.linear,bf16,128,128,128,0.01\n"
                f"{src.format('h200_sxm')},H200 141GB,NVIDIA H200,vLLM 0.24.0,MarlinLinearKernel,int4_wo,16,4096,4096,0.02\n")
        rc, dst = self.run_import("aiconfigurator-gemm", self.write("gemm.csv", AIC_HEAD + rows))
        self.assertEqual(rc, 0)
        doc = json.load(open(dst))
        ms = {m["id"]: m["config"] for m in doc["measurements"]}
        self.assertEqual(set(ms), {"aiconfigurator-gemm/h200_sxm/fp8/64x4096x4096",
                                   "aiconfigurator-gemm/a100_sxm/bf16/4096x4096x4096",
                                   "aiconfigurator-gemm/b200_sxm/fp16/2048x2048x2048"})
        self.assertEqual(ms["aiconfigurator-gemm/a100_sxm/bf16/4096x4096x4096"]["gpu"], "a100-sxm4-80gb")
        self.assertEqual(ms["aiconfigurator-gemm/b200_sxm/fp16/2048x2048x2048"]["op"]["dtype"], "fp16")
        why = {x["id"]: x["reason"] for x in doc["skipped"]}
        self.assertIn("not in the catalogue", why["aiconfigurator-gemm/gb200_sxm/bf16/128x128x128"])
        # both A100 sizes from one systems folder: the second device's ids name it, no collision
        two = (f"{src.format('a100_sxm')},A100 80GB,NVIDIA A100-SXM4-80GB,vLLM 0.24.0,torch.nn.functional.linear,bf16,1,4096,4096,0.02\n"
               f"{src.format('a100_sxm')},A100 40GB,NVIDIA A100-SXM4-40GB,vLLM 0.24.0,torch.nn.functional.linear,bf16,1,4096,4096,0.02\n")
        self.validate(dst, 3)
        rc, dst2 = self.run_import("aiconfigurator-gemm", self.write("gemm2.csv", AIC_HEAD + two))
        self.assertEqual(rc, 0)
        ids = {m["id"]: m["config"]["gpu"] for m in json.load(open(dst2))["measurements"]}
        self.assertEqual(ids, {"aiconfigurator-gemm/a100_sxm/bf16/1x4096x4096": "a100-sxm4-80gb",
                               "aiconfigurator-gemm/a100_sxm-nvidia_a100_sxm4_40gb/bf16/1x4096x4096": "a100-sxm4-40gb"})
        self.assertIn("int4_wo", why["aiconfigurator-gemm/h200_sxm/int4_wo/16x4096x4096"])
        self.validate(dst2, 2)

    def test_device_names_from_the_catalogue(self):
        """The driver names come from model/gpus/*.json (the map ridge validate applies too): the
        catalogue's parts by their exact names, none in two files (that is an error)."""
        ids = import_shared.device_ids()
        self.assertEqual(ids["NVIDIA H200"], "h200-sxm-141gb")
        self.assertEqual(ids["NVIDIA A100-SXM4-80GB"], "a100-sxm4-80gb")
        self.assertEqual(ids["NVIDIA A40"], "a40")
        self.assertNotIn("NVIDIA H100 NVL", ids)
        for name, gid in ids.items():
            self.assertTrue(os.path.isfile(os.path.join(import_shared.GPUS_DIR, gid + ".json")), name)
        with tempfile.TemporaryDirectory() as d:
            for gid in ("x1", "x2"):
                with open(os.path.join(d, gid + ".json"), "w") as f:
                    json.dump({"id": gid, "device_names": ["NVIDIA Same"]}, f)
            saved = import_shared.GPUS_DIR
            import_shared.GPUS_DIR = d
            import_shared.device_ids.cache_clear()
            try:
                with self.assertRaises(SystemExit) as e:
                    import_shared.device_ids()
                self.assertIn("x2.json: device_names: 'NVIDIA Same' is also in x1.json", str(e.exception.code))
            finally:
                import_shared.GPUS_DIR = saved
                import_shared.device_ids.cache_clear()

    def test_bad_input_names_file_line_field(self):
        cases = [
            ("gemm.csv", AIC_HEAD + AIC.replace("0.238", "-1"), "aiconfigurator-gemm", ":3: latency_ms: not positive"),
            ("gemm.csv", AIC_HEAD + AIC.replace("0.238", ""), "aiconfigurator-gemm", ":3: latency_ms: missing"),
            ("gemm.csv", AIC_HEAD + AIC.replace(",32768,", ",x,"), "aiconfigurator-gemm", ":3: m: not a number"),
            ("dev.jsonl", json.dumps(H200[1]) + "\n{not json\n", "h200-2026-11-29", ":2: line: malformed JSON"),
            ("dev.jsonl", json.dumps(dict(H200[1], median_ms=0)) + "\n", "h200-2026-11-29", ":1: median_ms: not positive"),
            ("dev.jsonl", json.dumps({k: v for k, v in H200[1].items() if k != "n"}) + "\n", "h200-2026-11-29",
             ":1: n: missing"),
        ]
        for name, text, only, want in cases:
            with self.subTest(want=want):
                src = self.write(name, text)
                rc, dst, msg = self.import_stderr(only, src)
                self.assertEqual(rc, 2)
                self.assertEqual(msg.count("\n"), 1, msg)
                self.assertIn(src + want, msg)
                self.assertFalse(os.path.exists(dst), "nothing is written on bad input")

    def test_cudnn_tf32(self):
        """An FP32 convolution or LSTM run with cuDNN's TF32 on (the record's cudnn_tf32) is a tf32
        op; the LSTM training row, which carries no flag, takes its run's section flag."""
        conv = {"run": "a", "section": "conv", "op": "conv2d_fwd", "precision": "fp32", "batch": 128, "cin": 64,
                "cout": 64, "hw": 56, "kernel": 3, "stride": 1, "pad": 1, "flops": 29595009024.0, "median_ms": 0.4}
        lstm = {"run": "a", "section": "lstm", "precision": "fp32", "hidden": 1024, "input": 1024, "layers": 2,
                "seq": 128, "batch": 64, "median_ms": 3.0}
        for flag, want in ((True, "tf32"), (False, "fp32")):
            with self.subTest(cudnn_tf32=flag):
                recs = [H200[0],
                        dict(conv, name="fp32_n128_c64_k64_hw56_r3_s1", cudnn_tf32=flag),
                        dict(lstm, name="lstm_train_fp32_h1024_l2_t128_b64", op="lstm_fwd_bwd"),
                        dict(lstm, name="lstm_fwd_fp32_h1024_l2_t128_b64", op="lstm_fwd", cudnn_tf32=flag)]
                src = self.write("dev.jsonl", "".join(json.dumps(r) + "\n" for r in recs))
                rc, dst = self.run_import("h200-2026-11-29", src)
                self.assertEqual(rc, 0)
                ms = {m["id"].split("/")[-1]: m for m in json.load(open(dst))["measurements"]}
                for name in ("fp32_n128_c64_k64_hw56_r3_s1", "lstm_fwd_fp32_h1024_l2_t128_b64",
                             "lstm_train_fp32_h1024_l2_t128_b64"):
                    self.assertEqual(ms[name]["config"]["op"]["dtype"], want, name)
                    self.assertEqual(ms[name]["config"]["tf32_cudnn"], flag, name)

    def test_bad_input_writes_nothing(self):
        """Every data set is converted before any is written: a bad row in the last one leaves the
        files of the earlier ones as they were (none here)."""
        shared = os.path.join(self.d, "shared")
        os.makedirs(os.path.join(shared, "aiconfigurator-gemm"))
        os.makedirs(os.path.join(shared, "h200-2026-11-29"))
        with open(os.path.join(shared, "aiconfigurator-gemm", "gemm.csv"), "w") as f:
            f.write(AIC_HEAD + AIC)
        with open(os.path.join(shared, "h200-2026-11-29", "dev.jsonl"), "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in H200))
        with open(MEGATRON_CSV) as f:
            mega = f.read()
        with open(os.path.join(shared, "megatron-dev.csv"), "w") as f:
            f.write(mega)
        with open(os.path.join(shared, "published-microbench.csv"), "w") as f:
            f.write("id,source\npub0500,x\n")  # columns missing: bad input
        out = os.path.join(self.d, "out")
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = import_shared.main(["--shared", shared, "--out", out])
        self.assertEqual(rc, 2, err.getvalue())
        self.assertFalse(os.path.exists(out) and os.listdir(out), "no data set written")

    def test_published_microbench_rows_held_back(self):
        """Published rows of other GPUs and kinds: a GPU named another way is mapped by its name (and
        says so), one outside the catalogue, an unknown precision and another kind of benchmark are
        listed with their reasons instead of failing the import."""
        head = "id,source,gpu,gpu_count,framework,model,task,precision,batch_per_gpu,seq_or_image,metric,unit,value,notes\n"
        rows = ("pub9001,x,NVIDIA A100 80GB PCIe,1,PyTorch,GEMM (torch.matmul),microbenchmark,BF16,,best shape MxNxK 2048x5120x6144,m,TFLOPS,250,\n"
                "pub9002,x,H100 NVL 94GB,1,PyTorch,GEMM (torch.matmul),microbenchmark,BF16,,best shape MxNxK 2048x2048x2048,m,TFLOPS,600,\n"
                "pub9003,x,A40 48GB PCIe,1,PyTorch,GEMM (square),microbenchmark,INT4,,n=8000,m,TFLOPS,40,\n"
                "pub9005,x,V100 PCIe 16GB,1,PyTorch,GEMM (square),microbenchmark,FP16,,n=8000,m,TFLOPS,90,\n"
                "pub9004,x,A40 48GB PCIe,1,nccl-tests,all_reduce_perf,microbenchmark,FP32,,1 GiB,busbw,GB/s,20,\n"
                "pub9006,x,L40 48GB,1,CUDA,STREAM-like kernel \"copy\",microbenchmark,FP64,,large array,m,GB/s,780,\n"
                "pub9007,x,A100 80GB SXM4,1,CUDA,STREAM-like kernel \"add\",microbenchmark,FP64,,large array,m,GB/s,1700,\n"
                "pub9008,x,A100 80GB SXM4,1,CUDA,STREAM-like kernel \"dot\",microbenchmark,FP64,,large array,m,GB/s,1700,\n")
        rc, dst = self.run_import("published-microbench", self.write("pm.csv", head + rows))
        self.assertEqual(rc, 0)
        doc = json.load(open(dst))
        ms = {m["id"]: m["config"] for m in doc["measurements"]}
        self.assertEqual(set(ms), {"pub9001", "pub9006", "pub9007"})
        self.assertEqual(ms["pub9001"]["gpu"], "a100-pcie-80gb")
        self.assertIn("mapped by its name", ms["pub9001"]["gpu_assumed"])
        # STREAM's copy and add: one and two streams in, one out (the L40 by its catalogue id)
        self.assertEqual((ms["pub9006"]["gpu"], ms["pub9006"]["op"]["inputs"], ms["pub9007"]["op"]["inputs"]),
                         ("l40", 1, 2))
        why = {x["id"]: x["reason"] for x in doc["skipped"]}
        self.assertEqual(set(why), {"pub9002", "pub9003", "pub9004", "pub9005", "pub9008"})
        self.assertIn("not in the catalogue", why["pub9002"])
        self.validate(dst, 3)

    def test_megatron(self):
        with open(MEGATRON_CSV, encoding="utf-8") as f:
            lines = f.read().splitlines()
        rc, dst = self.run_import("megatron-dev", self.write("megatron-dev.csv", "\n".join(lines[0:2] + lines[-1:]) + "\n"))
        self.assertEqual(rc, 0)
        ms = {m["id"]: m for m in json.load(open(dst))["measurements"]}
        self.assertEqual(set(ms), {"N-T1-1.7B", "N-T1-1008.0B"})
        small, big = ms["N-T1-1.7B"]["config"], ms["N-T1-1008.0B"]["config"]
        self.assertEqual((small["cluster"], small["nodes"], small["gpu"]), ("dgx-a100", 4, "a100-sxm4-80gb"))
        self.assertEqual(small["parallel"]["schedule"], "1f1b")  # pp 1
        self.assertEqual((small["parallel"]["dp_overlap"], small["parallel"]["grad_reduce"]), ("none", "param"))
        self.assertEqual(small["workload"]["arch"]["d_model"], 2304)
        # 128 layers over 64 stages: two layers a stage, two chunks of one
        self.assertEqual((big["parallel"]["schedule"], big["parallel"]["virtual_stages"]), ("interleaved", 2))
        self.assertAlmostEqual(ms["N-T1-1008.0B"]["time_s"]["median"], 102.63)
        self.assertEqual(import_shared.megatron_virtual_stages(105, 35, 280), 3)
        self.assertEqual(import_shared.megatron_virtual_stages(48, 2, 47), 1)  # microbatches not a multiple of pp
        self.validate(dst, 2)

    def test_megatron_rows_held_back(self):
        """Other published multi-GPU rows: optional microbatch and ZeRO columns are read; a DGX-2(H)
        of V100s maps to the dgx-2 cluster; a machine outside ridge's clusters (a TPU, a DGX-1) or a
        shape that is not a GPT of the row's size is listed with the reason instead of failing the
        import."""
        with open(MEGATRON_CSV, encoding="utf-8") as f:
            head, row = f.read().splitlines()[0:2]
        rows = [head + ",microbatch,zero_stage",
                row.replace("N-T1-1.7B", "X-1") + ",2,1",
                row.replace("N-T1-1.7B", "X-2").replace("A100-SXM4-80GB (Selene DGX A100)", "TPU v4") + ",,",
                row.replace("N-T1-1.7B", "X-3").replace(",1.7,2304,", ",17,2304,") + ",,",
                row.replace("N-T1-1.7B", "X-4").replace("A100-SXM4-80GB (Selene DGX A100)", "V100-SXM3-32GB (DGX-2H)")
                .replace(",full,", ",activation checkpointing,") + ",,",
                row.replace("N-T1-1.7B", "X-5").replace("A100-SXM4-80GB (Selene DGX A100)", "V100-SXM2-32GB (DGX-1)")
                + ",,"]
        rc, dst = self.run_import("megatron-dev", self.write("mt.csv", "\n".join(rows) + "\n"))
        self.assertEqual(rc, 0)
        doc = json.load(open(dst))
        ms = {m["id"]: m["config"] for m in doc["measurements"]}
        self.assertEqual(set(ms), {"X-1", "X-4"})
        self.assertEqual((ms["X-1"]["parallel"]["microbatch"], ms["X-1"]["parallel"]["zero"]), (2, 1))
        # 32 V100s of DGX-2(H) nodes: two nodes of 16 (the built-in dgx-2)
        self.assertEqual((ms["X-4"]["gpu"], ms["X-4"]["cluster"], ms["X-4"]["nodes"], ms["X-4"]["recompute"]),
                         ("v100-sxm2-32gb", "dgx-2", 2, "full"))
        why = {x["id"]: x["reason"] for x in doc["skipped"]}
        self.assertIn("not one of ridge's clusters", why["X-2"])
        self.assertIn("another architecture", why["X-3"])
        self.assertIn("not one of ridge's clusters", why["X-5"])  # a DGX-1: no built-in NVLink mesh
        self.validate(dst, 2)

    def test_megatron_bad_rows(self):
        with open(MEGATRON_CSV, encoding="utf-8") as f:
            head, row = f.read().splitlines()[0:2]
        cases = [
            (row.replace(",32,1,1,32,512,", ",32,1,1,16,512,"), ":2: dp: tp 1 x pp 1 x dp 16 is not num_gpus 32"),
            (row.replace(",2304,9216,", ",2304,x,"), ":2: ffn: not a number"),
            (row.replace(",3.5280,", ",-3.5,"), ":2: iteration_time_s: not positive"),
            (row.replace(",full,", ",sometimes,"), ":2: recompute: unknown 'sometimes'"),
        ]
        for text, want in cases:
            with self.subTest(want=want):
                src = self.write("megatron-dev.csv", head + "\n" + text + "\n")
                rc, dst, msg = self.import_stderr("megatron-dev", src)
                self.assertEqual(rc, 2)
                self.assertEqual(msg.count("\n"), 1, msg)
                self.assertIn(src + want, msg)
                self.assertFalse(os.path.exists(dst))

    def validate(self, path, n):
        ridge = os.environ.get("RIDGE")
        if not ridge:
            return
        out = subprocess.run([ridge, "validate", path, "--format", "json"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        doc = json.loads(out.stdout)
        self.assertEqual(len(doc["cases"]), n, doc["skipped"])
        self.assertTrue(all(c["family"] for c in doc["cases"]))


if __name__ == "__main__":
    unittest.main()
