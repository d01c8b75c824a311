"""validation/model_groups.py: every H200 whole-model record falls in one of issue 15's groups
(graph; GPU-bound and host-bound eager; runs a and c apart), each group's MAPE is the mean of its
records' absolute errors, and a missing ridge is an error. Needs the built ridge (RIDGE).

  RIDGE=build/cli/ridge python3 -m unittest discover -s validation/tests
"""

import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from script_run import RIDGE, run_script  # noqa: E402


@unittest.skipUnless(os.path.exists(RIDGE), "ridge is not built")
class ModelGroups(unittest.TestCase):
    def test_groups(self):
        out = run_script("model_groups.py")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertNotIn("in no group", out.stdout)
        rows = {}
        for line in out.stdout.splitlines()[1:]:
            m = re.match(r"(\S+(?: \S+)?(?: eager)?) +([ac]) +(\d+) +([0-9.]+) +(\d+) +(.*)$", line)
            self.assertIsNotNone(m, line)
            errs = [float(x) for x in m.group(6).split()]
            self.assertEqual(len(errs), int(m.group(3)), line)
            self.assertAlmostEqual(float(m.group(4)), sum(abs(x) for x in errs) / len(errs), delta=0.06)
            rows[(m.group(1), m.group(2))] = int(m.group(3))
        self.assertEqual(rows, {("graph", "a"): 3, ("GPU-bound eager", "a"): 5, ("GPU-bound eager", "c"): 3,
                                ("host-bound eager", "a"): 8, ("host-bound eager", "c"): 2})

    def test_no_ridge(self):
        # model_groups.py and issue_figures.py (which takes its groups): exit 2, naming the binary
        for script in ("model_groups.py", "issue_figures.py"):
            out = run_script(script, "/nonexistent/ridge")
            self.assertEqual(out.returncode, 2, script)
            self.assertIn(script + ": /nonexistent/ridge:", out.stderr)


if __name__ == "__main__":
    unittest.main()
