"""The eager host cost carries over between GPUs (validation/published/host_transfer.py):
framework_op_s fitted on one V100 batch-1 row of NVIDIA's ConvNets benchmark predicts the T4
batch-1 rows of the same benchmark software, which no fit saw.  No GPU needed.

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
        self.assertTrue(20 < fitted < 100, fitted)  # tens of microseconds per operator, far above 3
        rows = {}
        for line in out.stdout.splitlines():
            m = re.match(r"(pub\d+) +(\S+) .* ([+-][0-9.]+)% +([+-][0-9.]+)%", line)
            if m:
                rows[m.group(1)] = (m.group(2), float(m.group(3)), float(m.group(4)))
        for held_out in ("pub0231", "pub0234"):  # T4, batch 1, FP32 and AMP
            gpu, default, fitted_err = rows[held_out]
            self.assertEqual(gpu, "t4")
            self.assertGreater(default, 100)  # the default host cost is far too cheap for these rows
            self.assertLess(abs(fitted_err), 10)
        # the GPU-bound rows barely move: a host cost does not change a large batch
        gpu, default, fitted_err = rows["pub0233"]
        self.assertLess(abs(fitted_err - default), 1)


if __name__ == "__main__":
    unittest.main()
