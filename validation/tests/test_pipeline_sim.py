"""validation/pipeline_sim.py: Megatron's pipeline schedules simulated event by event agree with
ridge's closed form (docs/parallel.md): exactly without communication, within ridge's
conservative p2p term with it, and on ridge's own figures for a pipelined cluster run; timing
noise lengthens a pipelined step and not a one-stage one. The ridge case needs the built ridge.

  RIDGE=build/cli/ridge python3 -m unittest discover -s validation/tests
"""

import os
import random
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from script_run import RIDGE, ROOT  # noqa: E402
import pipeline_sim  # noqa: E402

SCRIPT = os.path.join(ROOT, "validation", "pipeline_sim.py")


class Schedules(unittest.TestCase):
    def test_no_communication_is_the_bubble_formula(self):
        # (P - 1) / (V m) bubble: Narayanan et al. 2021, Sec. 2.2, for 1F1B and interleaved
        for P, V, m in [(1, 1, 16), (2, 1, 8), (4, 1, 8), (8, 1, 64), (2, 2, 48), (4, 3, 56), (8, 2, 96),
                        (4, 2, 4)]:
            f, b = 1.0, 2.7
            sim = pipeline_sim.simulate(P, V, m, f, b, 0.0)
            ideal, _ = pipeline_sim.closed_forms(P, V, m, f, b, 0.0)
            self.assertAlmostEqual(sim, ideal, places=9, msg=(P, V, m))

    def test_blocking_sends(self):
        # each exchange costs x on the critical path; ridge counts 2 (V m + P - 1) of them, which
        # the interleaved schedule's two-way exchanges overlap in part: ridge is the upper bound
        for P, V, m in [(4, 1, 8), (8, 1, 64), (4, 3, 56), (8, 2, 96)]:
            f, b, x = 1.0, 3.0, 0.05
            sim = pipeline_sim.simulate(P, V, m, f, b, x)
            ideal, ridge = pipeline_sim.closed_forms(P, V, m, f, b, x)
            self.assertGreater(sim, ideal, (P, V, m))
            self.assertLessEqual(sim, ridge * (1 + 1e-12), (P, V, m))
            self.assertGreater(sim, 0.98 * ridge, (P, V, m))

    def test_noise_costs_a_pipeline(self):
        rng = random.Random(3)
        one = sum(pipeline_sim.simulate(1, 1, 64, 1.0, 3.0, 0.0, 0.05, rng) for _ in range(3)) / 3
        self.assertLess(abs(one / (64 * 4.0) - 1), 0.015)  # one stage: noise averages out
        many = sum(pipeline_sim.simulate(8, 2, 96, 1.0, 3.0, 0.0, 0.05, rng) for _ in range(3)) / 3
        ideal, _ = pipeline_sim.closed_forms(8, 2, 96, 1.0, 3.0, 0.0)
        self.assertGreater(many / ideal, 1.02)  # coupled stages wait for the slowest

    def test_bad_input(self):
        out = subprocess.run([sys.executable, SCRIPT, "--pp", "4", "--virtual-stages", "2", "--microbatches", "6",
                              "--fwd", "1", "--bwd", "2"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        self.assertIn("multiple of P", out.stderr)


@unittest.skipUnless(os.path.exists(RIDGE), "ridge is not built")
class OnRidge(unittest.TestCase):
    def test_ridge_cluster_run(self):
        out = subprocess.run([sys.executable, SCRIPT, "--ridge", os.path.abspath(RIDGE), "--", "--cluster",
                              "dgx-a100", "--nodes", "4", "--tp", "8", "--pp", "4", "--dp", "1", "--microbatch", "1",
                              "--global-batch", "16", "--schedule", "interleaved", "--virtual-stages", "2",
                              "--workload", "llama2-7b", "--seq", "2048", "--recompute", "full"],
                             cwd=ROOT, capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        m = re.search(r"ridge closed form +[0-9.e+-]+ s +\(simulated / this = ([0-9.]+)\)", out.stdout)
        self.assertIsNotNone(m, out.stdout)
        self.assertGreater(float(m.group(1)), 0.98)
        self.assertLessEqual(float(m.group(1)), 1.0 + 1e-9)


if __name__ == "__main__":
    unittest.main()
