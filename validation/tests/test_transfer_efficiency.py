"""Tests of validation/transfer_efficiency.py: the file it writes loads as a GPU file (a share for a
peak the target lacks is left out, the source fits its 239 bytes), and an unwritable output is one
line and exit 3, with nothing left behind. With RIDGE set, the output is read back by ridge."""
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(HERE, ".."))
import transfer_efficiency  # noqa: E402


class TransferTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name
        self.cal = os.path.join(self.d, "cal.json")
        with open(os.path.join(ROOT, "model", "gpus", "h200-sxm-141gb.json")) as f:
            g = json.load(f)
        g["efficiency"] = {"dram_fraction": 0.9, "fraction_by_peak": {"bf16": 0.78, "fp8": 0.78},
                           "source": "x" * 239}
        with open(self.cal, "w") as f:
            json.dump(g, f)

    def tearDown(self):
        self.tmp.cleanup()

    def test_a_peak_the_target_lacks(self):
        out = os.path.join(self.d, "a100.json")
        target = os.path.join(ROOT, "model", "gpus", "a100-sxm4-80gb.json")
        self.assertEqual(transfer_efficiency.main([self.cal, target, "-o", out]), 0)
        with open(out) as f:
            eff = json.load(f)["efficiency"]
        self.assertEqual(eff["fraction_by_peak"], {"bf16": 0.78})  # the A100 has no fp8
        self.assertLessEqual(len(eff["source"].encode()), 239)
        ridge = os.environ.get("RIDGE")
        if ridge:
            p = subprocess.run([ridge, "gpu", "show", "--gpu-file", out], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)

    def test_unwritable_output(self):
        out = os.path.join(self.d, "no", "such", "dir", "x.json")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = transfer_efficiency.main([self.cal, self.cal, "-o", out])
        self.assertEqual(rc, 3)
        self.assertEqual(err.getvalue().count("\n"), 1, err.getvalue())
        self.assertFalse(os.path.exists(os.path.dirname(out)))


if __name__ == "__main__":
    unittest.main()
