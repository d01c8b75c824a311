"""The two published-row scripts map every row alike: compare_published.py (one `ridge predict`
per row) and to_measurements.py + `ridge validate` give the same error per row, host profile
included (docs/validation.md, "Published measurements"). Seven rows of
shared/data/published-dev.csv in validation/tests/published-dev-sample.csv: one per host profile
(torch-eager-ngc21 on a GPU-bound and a host-bound row, engine, trtllm-session), one row ridge does
not model, two multi-GPU TensorRT-LLM rows (pub0444, a TP-2 generation per GPU; pub0468, a TP-4
first-token latency: `ridge predict --cluster` against `ridge validate`'s cluster records), and
two trtllm-bench offline serving rows (pub0471, Llama-3.1-8B on one H100; pub0491, Llama-3.3-70B
on two: `ridge serve --offline` against `ridge validate`'s serving records).
DleTfMxnetMapping checks the TensorFlow 1.15 and MXNet DeepLearningExamples ResNet-50 branches
on ten rows of the same file (their values, abridged notes), the host profiles they imply
(tf1-graph, tf1-xla, mxnet-hybrid; docs/model.md §7) and the rows left unmapped on purpose.
TrtllmModels checks made-up rows in the formats of the two TensorRT-LLM documents for the models
and GPUs beyond the dev rows' (Falcon 180B, LLaMA 13B, Llama 3.1 405B / 70B, Mixtral 8x7B, the H200
node): each maps to its preset and predicts.
No GPU needed.

  RIDGE=build/cli/ridge python3 -m unittest discover -s validation/tests
"""

import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
RIDGE = os.path.abspath(os.environ.get("RIDGE") or os.path.join(ROOT, "build", "cli", "ridge"))
SAMPLE = os.path.join(HERE, "published-dev-sample.csv")
PUB = os.path.join(ROOT, "validation", "published")


class PublishedMapping(unittest.TestCase):
    def test_compare_and_validate_agree(self):
        with open(SAMPLE, newline="") as f:
            out, _, val = convert_and_validate(self, list(csv.DictReader(f)), compare=True)
        direct = {r["id"]: float(r["error_percent"]) for r in csv.DictReader(io.StringIO(out.stdout))}
        via_file = {r["id"]: float(r["error_percent"]) for r in csv.DictReader(io.StringIO(val.stdout))}
        self.assertEqual(len(direct), 8)  # the RNN-T row is not modelled by either
        self.assertIn("pub0491", direct)  # a two-GPU serving replica (ridge serve --cluster --tp 2)
        self.assertEqual(sorted(direct), sorted(via_file))
        for rid, err in direct.items():
            self.assertAlmostEqual(err, via_file[rid], delta=0.011, msg=rid)
        # the host-bound V100 batch-1 row is within reach only with the profile of its software
        self.assertLess(abs(direct["pub0225"]), 10)


DLE_TF = "NVIDIA/DeepLearningExamples:TensorFlow/Classification/ConvNets/resnet50v1.5/README.md"
DLE_MX = "NVIDIA/DeepLearningExamples:MxNet/Classification/RN50v1.5/README.md"
TF_XLA = "TensorFlow 1.15 (NGC 20.06-tf1-py3) + XLA, DLE"
TF_INF = "TensorFlow 1.15 (NGC 20.06-tf1-py3), DLE inference_benchmark.sh"
RN_TF, RN_MX = "ResNet-50 v1.5 (TensorFlow)", "ResNet-50 v1.5 (MXNet)"
FIELDS = ["id", "source", "gpu", "gpu_count", "framework", "model", "task", "precision", "batch_per_gpu",
          "seq_or_image", "metric", "unit", "value", "notes"]
# Rows of shared/data/published-dev.csv (values as published, notes abridged; bad0239 is made up, and
# pub0316's unit is written images/s, published "inferences/s (images/s)", so that only its framework
# keeps it out): id, source, gpu, framework, model, task, precision, batch, metric, value, notes.
DLE_ROWS = [
    ("pub0238", DLE_TF, "A100 40GB SXM4", TF_XLA, RN_TF, "training", "AMP (FP16)", "256", "training throughput",
     "2375", "1-GPU row, XLA enabled; averaged over an epoch"),
    ("bad0239", DLE_TF, "V100 16GB SXM2", TF_XLA, RN_TF, "training", "FP32", "128 (FP32) / 256 (AMP)",
     "training throughput", "412", "pub0239 with its batch column as the README prints it (bad input)"),
    ("pub0241", DLE_TF, "V100 32GB SXM3 (DGX-2)", TF_XLA, RN_TF, "training", "FP32", "128", "training throughput",
     "432", "1-GPU row, XLA enabled; averaged over an epoch"),
    ("pub0252", DLE_TF, "V100 16GB SXM2", TF_INF, RN_TF, "inference", "AMP (FP16)", "1", "inference throughput (avg)",
     "237.35", 'table "Mixed Precision Inference Latency" (no XLA); avg latency 4.25 ms'),
    ("pub0253", DLE_TF, "V100 16GB SXM2", TF_INF, RN_TF, "inference", "AMP (FP16)", "32", "inference throughput (avg)",
     "2356.17", 'table "Mixed Precision Inference Latency" (no XLA); avg latency 13.69 ms'),
    ("pub0264", DLE_TF, "T4 16GB", TF_INF, RN_TF, "inference", "AMP (FP16)", "1", "inference throughput (avg)",
     "211.04", 'table "Mixed Precision Inference Latency" (no XLA); avg latency 4.77 ms'),
    ("pub0267", DLE_MX, "A100 80GB SXM4", "MXNet (mxnet-22.10-py3), DLE", RN_MX, "training", "AMP (FP16)", "512",
     "training throughput (Total IPS incl. data)", "3410.52", "1-GPU row; benchmark.py -b 512 --dtype float16"),
    ("pub0268", DLE_MX, "A100 80GB SXM4", "MXNet (mxnet-22.10-py3), DLE", RN_MX, "training", "TF32", "512",
     "training throughput (Total IPS incl. data)", "1055.78", "1-GPU row; benchmark.py -b 512 --dtype float32"),
    ("pub0276", DLE_MX, "V100 16GB SXM2", "MXNet (mxnet-20.12-py3), DLE benchmark.py --mode val", RN_MX, "inference",
     "AMP (FP16)", "1", "inference throughput (Total IPS incl. data)", "286", "avg latency 3.48 ms, p99 3.86 ms"),
    ("pub0316", "NVIDIA/DeepLearningExamples:TensorFlow/Classification/ConvNets/triton/README.md", "A100 80GB SXM4",
     "Triton Inference Server + TensorFlow TF-TRT", RN_TF, "inference", "FP16", "1", "Triton offline throughput",
     "387.9", "Offline: NVIDIA DGX A100 (1x A100 80GB), TF-TRT with FP16"),
]


def dle_dicts():
    return [dict(zip(FIELDS, (r[0], r[1], r[2], "1", r[3], r[4], r[5], r[6], r[7], "224x224", r[8], "images/s",
                              r[9], r[10]))) for r in DLE_ROWS]


def convert_and_validate(test, rows, compare=False):
    """rows (dicts of FIELDS) as a CSV through compare_published.py (with compare), to_measurements.py
    and `ridge validate`: their three completed processes (None for the one not run)."""
    with tempfile.TemporaryDirectory() as tmp:
        csv_path, json_path = os.path.join(tmp, "rows.csv"), os.path.join(tmp, "rows.json")
        with open(csv_path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS)
            w.writeheader()
            w.writerows(rows)
        out = None
        if compare:
            out = subprocess.run([sys.executable, os.path.join(PUB, "compare_published.py"), "--ridge", RIDGE,
                                  "--csv", csv_path, "--format", "csv"], cwd=ROOT, capture_output=True, text=True)
            test.assertEqual(out.returncode, 0, out.stderr)
        conv = subprocess.run([sys.executable, os.path.join(PUB, "to_measurements.py"), "--csv", csv_path,
                               "--out", json_path], cwd=ROOT, capture_output=True, text=True)
        test.assertEqual(conv.returncode, 0, conv.stderr)
        val = subprocess.run([RIDGE, "validate", json_path, "--format", "csv"], cwd=ROOT, capture_output=True,
                             text=True)
        test.assertEqual(val.returncode, 0, val.stderr)
    return out, conv, val


def predict_throughput(args):
    out = subprocess.run([RIDGE, "predict", "--format", "json", "--workload", "resnet50"] + args, cwd=ROOT,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise AssertionError(out.stderr)
    return json.loads(out.stdout)["throughput"]


class DleTfMxnetMapping(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, PUB)
        import compare_published
        import to_measurements
        cls.cp, cls.tm = compare_published, to_measurements

    def test_stacks_hosts_and_configs(self):
        rows = {r["id"]: r for r in dle_dicts()}
        hosts = {rid: self.cp.host_of(r) for rid, r in rows.items()}
        self.assertEqual(hosts["pub0238"], "tf1-xla")
        self.assertEqual(hosts["pub0252"], "tf1-graph")
        self.assertEqual(hosts["pub0267"], "mxnet-hybrid")
        self.assertEqual(hosts["pub0276"], "mxnet-hybrid")  # stated, though the row is not mapped
        self.assertEqual(hosts["pub0316"], "torch-eager")  # Triton TF-TRT: not a DLE TF 1.15 row
        cfg = {rid: self.tm.config_of(r) for rid, r in rows.items()}
        # not mapped: a batch that is not a number, MXNet inference ("incl. data"), Triton TF-TRT
        self.assertEqual(sorted(k for k, v in cfg.items() if v is None), ["bad0239", "pub0276", "pub0316"])
        xla = cfg["pub0238"]  # XLA training, AMP: NHWC, autocast-style casts, SGD one kernel per variable
        self.assertEqual((xla["mode"], xla["layout"], xla.get("amp"), xla["optimizer"], xla["optimizer_impl"]),
                         ("train", "nhwc", True, "sgd", "forloop"))
        self.assertEqual((cfg["pub0241"]["gpu"], cfg["pub0241"]["layout"], cfg["pub0241"].get("amp")),
                         ("v100-sxm2-32gb", "nchw", None))  # DGX-2's SXM3 V100 as the SXM2 part
        inf = cfg["pub0253"]  # no XLA: NCHW even for AMP, no optimizer
        self.assertEqual((inf["mode"], inf["layout"], inf.get("amp"), inf["host"], "optimizer" in inf),
                         ("infer", "nchw", True, "tf1-graph", False))
        mx16, mx32 = cfg["pub0267"], cfg["pub0268"]  # --dtype float16: a model cast, FP32 master weights
        self.assertEqual((mx16["layout"], mx16.get("amp"), mx16["precision"], mx16["optimizer_impl"]),
                         ("nhwc", None, "fp16", "fused"))
        self.assertEqual((mx32["layout"], mx32["precision"]), ("nchw", "tf32"))
        for rid in ("bad0239", "pub0276", "pub0316"):
            self.assertIsNone(self.cp.predict_row(RIDGE, rows[rid]), rid)

    def test_compare_and_validate_agree(self):
        out, conv, val = convert_and_validate(self, dle_dicts(), compare=True)
        self.assertIn("7 measurements, 3 rows not mapped", conv.stdout)
        direct = {r["id"]: float(r["error_percent"]) for r in csv.DictReader(io.StringIO(out.stdout))}
        via_file = {r["id"]: float(r["error_percent"]) for r in csv.DictReader(io.StringIO(val.stdout))}
        self.assertEqual(sorted(direct), ["pub0238", "pub0241", "pub0252", "pub0253", "pub0264", "pub0267",
                                          "pub0268"])
        self.assertEqual(sorted(direct), sorted(via_file))
        for rid, err in direct.items():
            self.assertAlmostEqual(err, via_file[rid], delta=0.011, msg=rid)
        self.assertLess(abs(direct["pub0252"]), 2)  # tf1-graph's fit row
        self.assertLess(abs(direct["pub0264"]), 15)  # held out: the T4 server, same software (+11 %)
        self.assertLess(abs(direct["pub0253"]), 5)  # GPU-bound, NCHW with cuDNN's transposes

    def test_host_profiles(self):
        v100_b1 = ["--gpu", "v100-sxm2-32gb", "--mode", "infer", "--batch", "1", "--precision", "fp16",
                   "--layout", "nchw", "--amp"]
        # tf1-graph: 7.6 us per op + the 5 us launch; pub0252 published 237.35 images/s at batch 1
        self.assertAlmostEqual(predict_throughput(v100_b1 + ["--host", "tf1-graph"]), 237.35, delta=0.02 * 237.35)
        # without the executor cost (tf1-xla: launches only) the same row would be about twice as fast
        self.assertGreater(predict_throughput(v100_b1 + ["--host", "tf1-xla"]), 1.8 * 237.35)
        # the training rows these profiles price are GPU-bound: the profile moves them < 0.5 %
        train = ["--gpu", "v100-sxm2-32gb", "--mode", "train", "--batch", "128", "--precision", "fp32",
                 "--layout", "nchw", "--optimizer", "sgd"]
        a, b, c = (predict_throughput(train + ["--host", h]) for h in ("tf1-xla", "tf1-graph", "mxnet-hybrid"))
        self.assertLess(abs(a / b - 1), 0.005)
        self.assertLess(abs(c / b - 1), 0.005)
        bad = subprocess.run([RIDGE, "predict", "--workload", "resnet50", "--gpu", "t4", "--host", "tf1-grahp"],
                             cwd=ROOT, capture_output=True, text=True)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("tf1-graph", bad.stderr)


TRT_PERF = "NVIDIA/TensorRT-LLM:docs/source/performance.md@138f96d45f90b9667426f7c47297d8c06bafac73"
TRT_BENCH = "NVIDIA/TensorRT-LLM:docs/source/performance/perf-overview.md@00f37686aa854010d68bcbd0f4ab000221541ca6"
SESSION = "TensorRT-LLM (gptSessionBenchmark, static batching)"
BENCH = "TensorRT-LLM trtllm-bench (PyTorch backend, in-flight batching, CUDA graphs)"
SERVE_TASK, GEN_TASK = "inference (LLM serving, max load)", "inference (LLM generation)"
# Made-up rows (new0001...: no published value is copied or invented into validation/data; the values
# here only give the converter a number) in the formats of the dev rows of the same two TensorRT-LLM
# documents, for models and GPUs those documents also cover: id, source, gpu, GPUs, framework, model,
# task, precision, batch, sequences, unit.
MODEL_ROWS = [
    ("new0001", TRT_PERF, "H100 80GB SXM5", "4", SESSION, "Falcon 180B", GEN_TASK, "FP8", "1024",
     "input 128 / output 128 tokens", "output tokens/s (out tok/s/GPU per table header)"),
    ("new0002", TRT_PERF, "A100 (variant not stated)", "1", "TensorRT-LLM (gptSessionBenchmark)", "LLaMA 13B",
     "inference (LLM prefill)", "FP16", "1", "input 128 tokens", "ms"),
    ("new0003", TRT_BENCH, "H200 141GB SXM", "8", BENCH, "Llama-3.1-405B-Instruct (nvidia FP8 checkpoint)",
     SERVE_TASK, "FP8", "", "input 128 / output 128 tokens", "output tokens/s"),
    ("new0004", TRT_BENCH, "H100 80GB SXM5", "1", BENCH, "Mixtral-8x7B-Instruct-v0.1 (nvidia FP8 checkpoint)",
     SERVE_TASK, "FP8", "", "input 128 / output 128 tokens", "output tokens/s"),
    ("new0005", TRT_BENCH, "H200 141GB SXM", "2", BENCH, "Llama-3.1-70B-Instruct (nvidia FP8 checkpoint)",
     SERVE_TASK, "FP8", "", "input 1000 / output 1000 tokens", "output tokens/s"),
    ("new0006", TRT_BENCH, "H100 80GB SXM5", "1", BENCH, "Qwen3-8B (FP8)", SERVE_TASK, "FP8", "",
     "input 128 / output 128 tokens", "output tokens/s"),  # no preset: not mapped
    ("new0007", TRT_PERF, "L40 48GB", "1", SESSION, "GPT-J 6B", GEN_TASK, "FP8", "64",
     "input 128 / output 128 tokens", "output tokens/s"),  # a GPU by its name's rules (gpu_of)
    ("new0008", TRT_PERF, "H100 NVL 94GB", "1", SESSION, "GPT-J 6B", GEN_TASK, "FP8", "64",
     "input 128 / output 128 tokens", "output tokens/s"),  # a part outside the catalogue: not mapped
]


class TrtllmModels(unittest.TestCase):
    """The TensorRT-LLM rows of models beyond the dev rows' (Falcon 180B, LLaMA 13B, Llama 3.1 405B and
    70B, Mixtral 8x7B), the H200 node (hgx-h200) and a GPU named outside the GPU table (the L40) map
    to their presets and parts, and run."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, PUB)
        import compare_published
        import to_measurements
        cls.cp, cls.tm = compare_published, to_measurements
        cls.rows = {r[0]: dict(zip(FIELDS, r[:10] + ("test", r[10], "1", "made-up row (test)")))
                    for r in MODEL_ROWS}

    def test_pipelines_stay_unmapped(self):
        # ridge's TensorRT-LLM runs are one tensor-parallel group: a row whose notes give a pipeline,
        # or a TP size other than its GPU count, is not mapped; a TP size that matches is
        tp8 = dict(self.rows["new0003"], notes="H200 TP8; made-up row (test)")
        self.assertEqual(self.cp.serving_config(tp8)["tp"], 8)
        for notes in ("H200 TP4 PP2; made-up row (test)", "H200 TP4; made-up row (test)", "tp 8, pp 2 (test)"):
            self.assertIsNone(self.cp.serving_config(dict(tp8, notes=notes)), notes)
        falcon = dict(self.rows["new0001"], notes="TP=4 (batch is per model replica); made-up row (test)")
        self.assertEqual(self.cp.multi_gpu_config(falcon)["parallel"]["tp"], 4)
        self.assertIsNone(self.cp.multi_gpu_config(dict(falcon, notes="TP=2, PP=2; made-up row (test)")))

    def test_configs(self):
        falcon = self.cp.multi_gpu_config(self.rows["new0001"])
        self.assertEqual((falcon["workload"], falcon["cluster"], falcon["parallel"]["tp"], falcon["host"]),
                         ("falcon-180b", "dgx-h100", 4, "trtllm-session"))
        self.assertEqual(self.tm.config_of(self.rows["new0002"])["workload"], "llama2-13b")
        big = self.cp.serving_config(self.rows["new0003"])
        self.assertEqual((big["workload"], big["cluster"], big["tp"]), ("llama3-405b", "hgx-h200", 8))
        # trtllm-bench's PyTorch backend: its executor's work per running sequence (docs/model.md §7)
        self.assertEqual((big["host"], self.cp.host_of(self.rows["new0003"])), ("trtllm-bench", "trtllm-bench"))
        self.assertEqual(self.cp.serving_config(self.rows["new0004"])["workload"], "mixtral-8x7b")
        l70 = self.cp.serving_config(self.rows["new0005"])
        self.assertEqual((l70["workload"], l70["cluster"], l70["tp"]), ("llama3-70b", "hgx-h200", 2))
        self.assertIsNone(self.cp.serving_config(self.rows["new0006"]))
        self.assertEqual(self.tm.config_of(self.rows["new0007"])["gpu"], "l40")
        self.assertIsNone(self.tm.config_of(self.rows["new0008"]))
        self.assertEqual((self.cp.gpu_of("A30 24GB"), self.cp.gpu_of("V100 16GB PCIe")), ("a30", None))

    def test_converted_rows_predict(self):
        _, conv, val = convert_and_validate(self, self.rows.values())
        self.assertIn("6 measurements, 2 rows not mapped", conv.stdout)
        pred = {r["id"]: (r["workload"], float(r["predicted"])) for r in csv.DictReader(io.StringIO(val.stdout))}
        self.assertEqual(sorted(pred), ["new0001", "new0002", "new0003", "new0004", "new0005", "new0007"])
        for rid, (workload, value) in pred.items():
            self.assertTrue(value > 0 and value == value and value != float("inf"), (rid, value))
        self.assertEqual(pred["new0003"][0], "llama3-405b")
        # 405 B parameters over 8 GPUs serve fewer tokens per second than 70 B over 2
        self.assertLess(pred["new0003"][1], pred["new0005"][1])


if __name__ == "__main__":
    unittest.main()
