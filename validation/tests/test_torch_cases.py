"""The PyTorch convolution cases (validation/torch/wl_conv.py) describe
operators ridge accepts: every case's config goes through `ridge validate`
as a kernel measurement.  No GPU and no PyTorch needed: a stand-in `torch`
module satisfies the imports (the cases are only listed, never run).

  RIDGE=build/cli/ridge python3 -m unittest discover -s validation/tests
"""

import json
import os
import subprocess
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH_DIR = os.path.join(HERE, "..", "torch")
RIDGE = os.environ.get("RIDGE") or os.path.join(HERE, "..", "..", "build",
                                                 "cli", "ridge")


def import_with_stub_torch(name):
    """Import validation/torch/NAME with a stand-in torch if torch is absent."""
    try:
        # (validation/torch itself can pass for a namespace package "torch"
        # when validation/ is on sys.path: ask for a real submodule)
        import torch.nn.functional  # noqa: F401
    except ImportError:
        torch = types.ModuleType("torch")
        nn = types.ModuleType("torch.nn")
        fn = types.ModuleType("torch.nn.functional")
        nn.functional = fn
        torch.nn = nn
        torch.__path__ = nn.__path__ = []  # packages, for "import torch.nn.x"
        sys.modules.update({"torch": torch, "torch.nn": nn,
                            "torch.nn.functional": fn})
    if TORCH_DIR not in sys.path:
        sys.path.insert(0, TORCH_DIR)
    return __import__(name)


class ConvCases(unittest.TestCase):
    def setUp(self):
        if not os.access(RIDGE, os.X_OK):
            self.skipTest("no ridge binary at %s (set RIDGE)" % RIDGE)
        self.wl = import_with_stub_torch("wl_conv")

    def validate(self, quick):
        ctx = types.SimpleNamespace(quick=quick, cuda=True, device=None)
        cases = self.wl.cases(ctx)
        self.assertTrue(cases)
        ms = []
        for c in cases:
            cfg = dict(c.config, runtime="eager", cudnn_benchmark=True,
                       tf32_cudnn=False)
            ms.append({"id": c.name + "/eager", "group": "torch_e2e",
                       "time_s": {"median": 1e-3}, "checked": True,
                       "check": {"status": "passed"}, "config": cfg})
        doc = {"schema_version": 1, "kind": "ridge-measurements",
               "provenance": {"gpu_name": "NVIDIA H200",
                              "note": "test: configs only, times made up"},
               "measurements": ms}
        with tempfile.NamedTemporaryFile("w", suffix=".json",
                                         delete=False) as f:
            json.dump(doc, f)
            path = f.name
        try:
            r = subprocess.run([RIDGE, "validate", "--gpu", "h200-sxm-141gb",
                                "--format", "csv", path],
                               capture_output=True, text=True)
        finally:
            os.unlink(path)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [ln.split(",") for ln in r.stdout.splitlines()[1:] if ln]
        self.assertEqual(sorted(x[0] for x in rows),
                         sorted(m["id"] for m in ms))
        for x in rows:
            self.assertEqual(x[4], "kernel", x)  # kind: predicted as a kernel
        return {x[0]: float(x[6]) for x in rows}, cases

    def test_full_cases_map(self):
        pred, cases = self.validate(False)
        # the Winograd layers (fp32 3x3 stride 1) against their bf16 twins
        self.assertIn("torch/conv/fp32/s3_3x3/bwd_filter/n128/eager", pred)
        self.assertEqual(len(cases), 13)  # 8 fp32 + 5 bf16

    def test_quick_cases_map(self):
        self.validate(True)


if __name__ == "__main__":
    unittest.main()
