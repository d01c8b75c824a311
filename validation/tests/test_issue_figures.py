"""validation/issue_figures.py: one row per figure the accuracy issues (14, 15, 16) set a goal
for, each with its cases, value, goal and a status that follows from them (a missing ridge: exit 2,
test_model_groups.py). Needs the built ridge (RIDGE).

  RIDGE=build/cli/ridge python3 -m unittest discover -s validation/tests
"""

import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from script_run import RIDGE, run_script  # noqa: E402

ROW = re.compile(r"^ +(1[456]) (.{52}) +(\d+) +([0-9.]+|nan) +(\d+)  (met|NOT met)$")


@unittest.skipUnless(os.path.exists(RIDGE), "ridge is not built")
class IssueFigures(unittest.TestCase):
    def test_table(self):
        out = run_script("issue_figures.py")
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        self.assertTrue(lines[0].startswith("issue figure"), lines[0])
        figs = {}
        for line in lines[1:]:
            m = ROW.match(line)
            self.assertIsNotNone(m, line)
            value, goal = float(m.group(4)), float(m.group(5))
            self.assertEqual(m.group(6), "met" if value <= goal else "NOT met", line)
            self.assertGreater(int(m.group(3)), 0, line)
            figs[m.group(2).strip()] = (int(m.group(1)), int(m.group(3)), goal)
        # every issue's headline figures, on the sets and cuts the issues name
        self.assertEqual(figs["H200 kernels >= 50 us"][:1], (14,))
        self.assertEqual(figs["AIConfigurator h100_sxm fp8 >= 20 us"][2], 10)
        self.assertEqual(figs["AIConfigurator l40s bf16 >= 20 us"][2], 8)
        self.assertEqual(figs["H200 models, GPU-bound eager, run c"][1], 3)
        self.assertEqual(figs["Megatron rows, mean"], (16, 10, 4))
        self.assertEqual(figs["Megatron rows, the worst"], (16, 10, 6))
        self.assertTrue(any(f.startswith("family ") for f in figs))
        self.assertTrue(any(f.startswith("published-dev ") for f in figs))


if __name__ == "__main__":
    unittest.main()
