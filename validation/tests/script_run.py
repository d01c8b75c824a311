"""Shared by the validation script tests: run one of validation/*.py against the built ridge."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
RIDGE = os.environ.get("RIDGE") or os.path.join(ROOT, "build", "cli", "ridge")


def run_script(name, ridge=None):
    """`python3 validation/NAME --ridge RIDGE` from the source root, its output captured."""
    return subprocess.run([sys.executable, os.path.join(ROOT, "validation", name), "--ridge",
                           os.path.abspath(ridge or RIDGE)], cwd=ROOT, capture_output=True, text=True)
