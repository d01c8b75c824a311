"""Tests of validation/collect.py: merging parts, salvaging a file cut short,
reading nvidia-smi snapshots.  Standard library only; no GPU.

  python3 -m unittest discover -s validation/tests
"""

import argparse
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))
import collect  # noqa: E402


def measurement(id_, median=2.385e-3, status="passed"):
    return {"id": id_, "group": "gemm",
            "time_s": {"min": median * 0.99, "median": median,
                       "max": median * 1.07, "mean": median, "stddev": 0.0},
            "reps": 7, "inner_reps": 1, "warmup": 3, "timer": "cuda_event",
            "flops": 1099511627776, "bytes": 402653184,
            "rate": {"flop_per_s": 1099511627776 / median,
                     "bytes_per_s": 402653184 / median},
            "checked": status == "passed",
            "check": {"status": status, "metric": "rel_l2_error_sampled",
                      "value": 0.0021, "tolerance": 0.02},
            "config": {"op": {"op": "gemm", "dtype": "bf16", "m": 8192,
                              "n": 8192, "k": 8192}, "runtime": "eager"}}


def document(prov, ms, skipped=()):
    lines = ['{"schema_version":1,"kind":"ridge-measurements","provenance":%s,'
             '"measurements":[' % json.dumps(prov)]
    body = ",\n".join(json.dumps(m) for m in ms)
    return (lines[0] + "\n" + body + '\n],"skipped":%s,"errors":[],'
            '"summary":{}}\n' % json.dumps(list(skipped)))


class MergeTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.p = self.dir.name
        cuda_prov = {"gpu_name": "NVIDIA H200", "sm_count": 132,
                     "sm_clock_max_hz": 1980000000, "cuda_runtime": "13.0",
                     "cublas": "13.1.0", "host": "gpu1"}
        with open(os.path.join(self.p, "cuda-gemm.json"), "w") as f:
            f.write(document(cuda_prov, [measurement("gemm/bf16/8192"),
                                         measurement("gemm/fp8/8192",
                                                     status="failed")],
                             [{"id": "gemm/int8/8192", "group": "gemm",
                               "reason": "no algorithm"}]))
        full = document({"torch": "2.11.0", "gpu_name": "NVIDIA H200"},
                        [measurement("torch/a/eager"),
                         measurement("torch/b/eager"),
                         measurement("torch/c/eager")])
        cut = full[:full.index('{"id": "torch/c/eager"') + 40]
        with open(os.path.join(self.p, "torch-x.json"), "w") as f:
            f.write(cut)
        with open(os.path.join(self.p, "nvsmi-start.txt"), "w") as f:
            f.write(",".join(collect.NVSMI_FIELDS) + "\n"
                    "NVIDIA H200, 580.159.03, 345, 3201, 1980, 3201, 74.61, "
                    "700.00, 29, 143771, P0\n")
        rows = [("build", "build", "-", "0", "21.5", "0", ""),
                ("cuda-gemm", "cuda", "cuda-gemm.json", "1", "9.3", "0", ""),
                ("torch-x", "torch", "torch-x.json", "124", "95.0", "1", ""),
                ("torch-y", "torch", "torch-y.json", "", "0", "0",
                 "skipped: overall time budget exhausted")]
        with open(os.path.join(self.p, "parts.tsv"), "w") as f:
            f.write("name\tkind\tfile\texit_status\telapsed_s\ttimed_out\t"
                    "note\n")
            for r in rows:
                f.write("\t".join(r) + "\n")
        out = os.path.join(self.p, "m.json")
        args = argparse.Namespace(
            parts=self.p, out=out, summary=os.path.join(self.p, "s.txt"),
            command="bash validation/run_all.sh /tmp/o",
            started="2026-11-29T20:00:00Z", elapsed_s=412.0,
            run_info='{"quick": false}')
        devnull = open(os.devnull, "w")
        old, sys.stdout = sys.stdout, devnull
        try:
            collect.merge(args)
        finally:
            sys.stdout = old
            devnull.close()
        with open(out) as f:
            self.doc = json.load(f)

    def tearDown(self):
        self.dir.cleanup()

    def test_measurements_merged_and_salvaged(self):
        ids = [m["id"] for m in self.doc["measurements"]]
        self.assertEqual(ids, ["gemm/bf16/8192", "gemm/fp8/8192",
                               "torch/a/eager", "torch/b/eager"])
        parts = {p["name"]: p for p in self.doc["parts"]}
        self.assertTrue(parts["torch-x"]["salvaged"])
        self.assertFalse(parts["cuda-gemm"]["salvaged"])
        self.assertEqual(parts["torch-x"]["measurements"], 2)

    def test_numbers_copied_unchanged(self):
        m = self.doc["measurements"][0]
        self.assertEqual(m, measurement("gemm/bf16/8192"))

    def test_summary_counts(self):
        s = self.doc["summary"]
        self.assertEqual(s["measurements"], 4)
        self.assertEqual(s["failed_checks"], 1)
        self.assertEqual(s["elapsed_s"], 412.0)
        reasons = [x["reason"] for x in self.doc["skipped"]]
        self.assertIn("no algorithm", reasons)
        self.assertIn("overall time budget exhausted", reasons)
        msgs = " ".join(e["message"] for e in self.doc["errors"])
        self.assertIn("torch-x timed out", msgs)
        self.assertIn("cuda-gemm exited with status 1", msgs)
        self.assertNotIn("build", msgs)

    def test_provenance(self):
        p = self.doc["provenance"]
        self.assertEqual(p["gpu_name"], "NVIDIA H200")
        self.assertEqual(p["sm_count"], 132)
        self.assertEqual(p["driver"], "580.159.03")
        self.assertEqual(p["sm_clock_max_hz"], 1980000000)
        self.assertEqual(p["mem_clock_max_hz"], 3201000000)
        self.assertEqual(p["sm_clock_max_hz_cuda_attr"], 1980000000)
        self.assertEqual(p["gpu_state_start"]["sm_clock_hz"], 345000000)
        self.assertEqual(p["torch"], "2.11.0")
        self.assertEqual(p["cublas"], "13.1.0")
        self.assertEqual(p["run"], {"quick": False})
        for key in ("cuda_runtime", "date", "host", "command",
                    "mem_clock_max_hz"):
            self.assertIn(key, p)


class NvsmiTest(unittest.TestCase):
    def test_missing_file(self):
        self.assertIsNone(collect.read_nvsmi("/nonexistent/nvsmi.txt"))

    def test_not_available_fields(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt",
                                         delete=False) as f:
            f.write("name,driver_version,clocks.sm\nX, 1.0, [N/A]\n")
        try:
            s = collect.read_nvsmi(f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(s["name"], "X")
        self.assertIsNone(s["sm_clock_hz"])


if __name__ == "__main__":
    unittest.main()
