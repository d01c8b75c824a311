"""The eager host cost carries over between GPUs (validation/published/host_transfer.py): the
rows of NVIDIA's ConvNets benchmark run under the host profile their software implies,
torch-eager-ngc21 (its CPU factor fitted on the two V100 batch-1 rows), and predict the T4
batch-1 rows of the same benchmark software, which no fit saw; a framework_op_s fit on a V100
row then finds almost nothing left to fit.  No GPU needed.

  RIDGE=build/cli/ridge python3 -m unittest discover -s validation/tests
"""

import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
RIDGE = os.environ.get("RIDGE") or os.path.join(ROOT, "build", "cli", "ridge")


class HostTransfer(unittest.TestCase):
    def test_t4_batch1_rows_from_a_v100_fit(self):
        out = subprocess.run([sys.executable, os.path.join(ROOT, "validation", "published", "host_transfer.py"),
                              "--ridge", os.path.abspath(RIDGE)], cwd=ROOT, capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        fitted = float(re.search(r"fitted on pub0225 \(v100-sxm2-32gb\): ([0-9.]+) us", out.stdout).group(1))
        self.assertTrue(1.5 < fitted < 5, fitted)  # the profile explains the row: near the default 3 us
        rows = {}
        for line in out.stdout.splitlines():
            m = re.match(r"(pub\d+) +(\S+) .* ([+-][0-9.]+)% +([+-][0-9.]+)%", line)
            if m:
                rows[m.group(1)] = (m.group(2), float(m.group(3)), float(m.group(4)))
        for held_out in ("pub0231", "pub0234"):  # T4, batch 1, FP32 and AMP
            gpu, default, fitted_err = rows[held_out]
            self.assertEqual(gpu, "t4")
            self.assertLess(abs(default), 10)  # the profile alone, no fit on a T4 row
            self.assertLess(abs(fitted_err), 10)
        # the GPU-bound rows barely move: a host cost does not change a large batch
        gpu, default, fitted_err = rows["pub0233"]
        self.assertLess(abs(fitted_err - default), 1)


if __name__ == "__main__":
    unittest.main()
