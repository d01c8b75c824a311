"""validation/scatter_floor.py: a record's neighbours in a GEMM sweep predict it exactly when the
times are proportional to the FLOPs, and miss it by what one record scatters. No GPU needed.

  python3 -m unittest discover -s validation/tests
"""

import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import scatter_floor  # noqa: E402


def sweep(slow=None):
    """A measurement file of m = 1024 GEMMs at 100 TFLOP/s; `slow` (m, n, k) runs 1.5x longer."""
    ms = []
    for n in (1024, 2048, 4096):
        for k in (1024, 2048, 4096):
            t = 2.0 * 1024 * n * k / 100e12
            if (1024, n, k) == slow:
                t *= 1.5
            ms.append({"id": f"aiconfigurator-gemm/gpu_x/bf16/1024x{n}x{k}", "time_s": {"median": t},
                       "config": {"op": {"op": "gemm", "dtype": "bf16", "m": 1024, "n": n, "k": k}}})
    return {"schema_version": 1, "measurements": ms}


def run(doc, *args):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(doc, f)
    try:
        out = io.StringIO()
        with redirect_stdout(out):
            rc = scatter_floor.main([f.name, "--min-time", "0", *args])
        return rc, out.getvalue()
    finally:
        os.unlink(f.name)


def mape(text, label):
    for line in text.splitlines():
        tokens = label.split()
        if line.startswith("gpu_x") and line.split()[2:2 + len(tokens)] == tokens:
            return float(line.split()[-2])
    raise AssertionError(f"no row {label!r} in:\n{text}")


class ScatterFloor(unittest.TestCase):
    def test_proportional_sweep_has_no_floor(self):
        rc, out = run(sweep())
        self.assertEqual(rc, 0)
        self.assertAlmostEqual(mape(out, "m >= 512"), 0.0, places=6)

    def test_one_slow_record_shows(self):
        rc, out = run(sweep(slow=(1024, 2048, 2048)))
        self.assertEqual(rc, 0)
        # the slow record is predicted 1/1.5 of its time (33 %), and it spoils its neighbours'
        self.assertGreater(mape(out, "m >= 512"), 5.0)

    def test_bad_file(self):
        with redirect_stdout(io.StringIO()):
            self.assertEqual(scatter_floor.main(["/nonexistent/file.json"]), 2)

    def test_bad_record(self):
        doc = sweep()
        doc["measurements"][3]["config"]["op"]["k"] = "many"
        err = io.StringIO()
        with redirect_stderr(err):
            rc, _ = run(doc)
        self.assertEqual(rc, 2)
        self.assertIn("1024x2048x1024: the gemm op's k: not a positive number", err.getvalue())
        doc = sweep()
        doc["measurements"][0]["time_s"]["median"] = -1
        with redirect_stderr(io.StringIO()):
            self.assertEqual(run(doc)[0], 2)


if __name__ == "__main__":
    unittest.main()
