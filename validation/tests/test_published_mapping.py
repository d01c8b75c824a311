"""The two published-row scripts map every row alike: compare_published.py (one `ridge predict`
per row) and to_measurements.py + `ridge validate` give the same error per row, host profile
included (docs/validation.md, "Published measurements"). Five rows of shared/data/published-dev.csv
in validation/tests/published-dev-sample.csv, one per host profile (torch-eager-ngc21 on a
GPU-bound and a host-bound row, engine, trtllm-session) and one row ridge does not model.
No GPU needed.

  RIDGE=build/cli/ridge python3 -m unittest discover -s validation/tests
"""

import csv
import io
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
        out = subprocess.run([sys.executable, os.path.join(PUB, "compare_published.py"), "--ridge", RIDGE,
                              "--csv", SAMPLE, "--format", "csv"], cwd=ROOT, capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        direct = {r["id"]: float(r["error_percent"]) for r in csv.DictReader(io.StringIO(out.stdout))}
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "sample.json")
            conv = subprocess.run([sys.executable, os.path.join(PUB, "to_measurements.py"), "--csv", SAMPLE,
                                   "--out", path], cwd=ROOT, capture_output=True, text=True)
            self.assertEqual(conv.returncode, 0, conv.stderr)
            val = subprocess.run([RIDGE, "validate", path, "--format", "csv"], cwd=ROOT, capture_output=True,
                                 text=True)
            self.assertEqual(val.returncode, 0, val.stderr)
        via_file = {r["id"]: float(r["error_percent"]) for r in csv.DictReader(io.StringIO(val.stdout))}
        self.assertEqual(len(direct), 4)  # the RNN-T row is not modelled by either
        self.assertEqual(sorted(direct), sorted(via_file))
        for rid, err in direct.items():
            self.assertAlmostEqual(err, via_file[rid], delta=0.011, msg=rid)
        # the host-bound V100 batch-1 row is within reach only with the profile of its software
        self.assertLess(abs(direct["pub0225"]), 10)


if __name__ == "__main__":
    unittest.main()
