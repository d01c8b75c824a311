#!/usr/bin/env python3
"""Output people can read (docs/cli.md, "Output"): CTest readable_output.

    tests/run_readable.py RIDGE_BINARY MEASUREMENTS.json

1. Every `ridge ...` example of README.md and docs/*.md (run by tests/run_doc_examples.sh through a
   wrapper that keeps each run's stdout) prints text lines of at most 120 columns, but for the
   exceptions listed in WIDTH_EXCEPTIONS with their reason.
2. JSON and CSV of each command in KEY_CASES carry the same keys for the same rows (a nested JSON
   object flattened by the rule of docs/cli.md: `ttft_s.p50` -> `ttft_p50_s`, `price.usd_per_hour`
   -> `price_usd_per_hour`), every key follows the naming rule (no scaled unit such as `_us`,
   `_ms`, `_gib`, `_gb`, `_tflop`), and no value is yes/no (booleans are true/false).
3. The numbers of the text tables this rule changed (gpus, collective, compare, serve, predict) have
   at most 4 significant digits (whole numbers excepted: counts and ids print exactly).
SPDX-License-Identifier: GPL-3.0-or-later
"""
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile

TEXT_COLUMNS = 120

# Command prefixes whose default text may be wider, with the reason.
WIDTH_EXCEPTIONS = {}

# Where a JSON document keeps its rows (None: the document is one row).
KEY_CASES = [
    (["gpus"], "gpus", set()),
    (["clusters"], "clusters", set()),
    (["workloads"], "workloads", set()),
    (["collective", "--cluster", "dgx-h100", "--op", "allreduce", "--bytes", "1GiB", "--gpus", "8"], "results", set()),
    (["compare", "a40", "a100-sxm4-80gb", "--workload", "resnet50", "--mode", "train", "--batch", "64",
      "--price", "a40=0.44"], "gpus", set()),
    (["serve", "--gpu", "a40", "--workload", "resnet50", "--sweep-rate", "100:1000:4"], "points", set()),
    # validate: JSON names the case and its family besides the CSV's columns (the CSV is the flat
    # file validation/ reads; its columns stay).
    (["validate", "tests/data/validate/torch-e2e-sample.json"], "cases", {"case", "family"}),
]

# Keys and CSV columns of every format to check the naming rule on (rows may differ).
NAME_CASES = [
    ["predict", "--gpu", "a100-sxm4-80gb", "--workload", "workloads/examples/transformer-layer.json"],
    ["predict", "--gpu", "a100-sxm4-80gb", "--workload", "llama2-7b"],
    ["serve", "--gpu", "a100-sxm4-80gb", "--workload", "llama2-7b", "--rate", "5"],
    ["serve", "--gpu", "a100-sxm4-80gb", "--workload", "resnet50", "--rate", "200"],
    ["compare", "a40", "a100-sxm4-80gb"],
    ["gpu", "show", "a40"],
]

# Text tables whose numbers keep to 4 significant digits.
DIGIT_CASES = [
    ["gpus"],
    ["collective", "--cluster", "dgx-h100", "--op", "allreduce", "--sweep", "--gpus", "8"],
    ["compare", "a40", "a100-sxm4-80gb", "l40s"],
    ["serve", "--gpu", "a100-sxm4-80gb", "--workload", "llama2-7b", "--rate", "20"],
    ["predict", "--gpu", "a100-sxm4-80gb", "--workload", "workloads/examples/transformer-layer.json"],
]

BAD_KEY = re.compile(r"(^|_)(us|ms|ns|min|gib|mib|kib|gb|mb|kb|tb|tflop|tflops|gflop|gflops|tops|kwh)(_|$)")
KEY = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$")  # gpu show: dotted figure paths
UNIT_SUFFIX = re.compile(r"^(.*?)_(s|bytes|bytes_per_s|flops_per_s|w|usd|usd_per_hour|percent)$")

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def run(ridge, args):
    p = subprocess.run([ridge] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=SRC)
    if p.returncode != 0:
        fail("ridge %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.decode()[:200]))
    return p.stdout.decode("utf-8")


def flat_keys(row, prefix=""):
    """A JSON row's keys as CSV names them: a nested object's keys joined to its own, the unit
    suffix of the object's key last (ttft_s.p50 -> ttft_p50_s)."""
    keys = set()
    for k, v in row.items():
        if isinstance(v, dict):
            m = UNIT_SUFFIX.match(k)
            for sub in flat_keys(v):
                keys.add("%s_%s_%s" % (m.group(1), sub, m.group(2)) if m else "%s_%s" % (k, sub))
        else:
            keys.add(k)
    return keys


def all_keys(doc):
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield k
            yield from all_keys(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from all_keys(v)


def all_strings(doc):
    if isinstance(doc, dict):
        for v in doc.values():
            yield from all_strings(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from all_strings(v)
    elif isinstance(doc, str):
        yield doc


def check_names(where, keys):
    for k in keys:
        # ids as CSV columns (compare's GPUs, ratio_<id>) are data, not names
        if re.match(r"^(ratio_)?[a-z0-9]+(-[a-z0-9.:]+)+$", k):
            continue
        if not KEY.match(k) or BAD_KEY.search(k):
            fail("%s: key '%s' breaks the naming rule (snake_case, SI unit in the key)" % (where, k))


def check_keys(ridge):
    for args, array, json_only in KEY_CASES:
        where = "ridge " + " ".join(args)
        doc = json.loads(run(ridge, args + ["--format", "json"]))
        rows = doc[array] if array else [doc]
        table = list(csv.reader(io.StringIO(run(ridge, args + ["--format", "csv"]))))
        header, body = table[0], table[1:]
        if len(rows) != len(body):
            fail("%s: %d JSON rows, %d CSV rows" % (where, len(rows), len(body)))
        jkeys = set()
        for r in rows:
            jkeys |= flat_keys(r)
        if jkeys - json_only != set(header):
            fail("%s: JSON keys and CSV columns differ: JSON only %s, CSV only %s" %
                 (where, sorted(jkeys - json_only - set(header)), sorted(set(header) - jkeys)))
        check_names(where, set(all_keys(doc)) | set(header))
        for r in body:
            for cell in r:
                if cell in ("yes", "no"):
                    fail("%s: CSV value '%s' (booleans are true/false)" % (where, cell))
        for s in all_strings(doc):
            if s in ("yes", "no"):
                fail("%s: JSON value '%s' (booleans are true/false)" % (where, s))
    for args in NAME_CASES:
        where = "ridge " + " ".join(args)
        doc = json.loads(run(ridge, args + ["--format", "json"]))
        keys = set(all_keys(doc))
        text = run(ridge, args + ["--format", "csv"])
        header = next(csv.reader(io.StringIO(text)), [])
        check_names(where, keys | set(header))


DECIMAL = re.compile(r"(?<![\w.:/-])-?(\d+\.\d+)(?![\w.:/-]|x\b)")


def check_digits(ridge):
    for args in DIGIT_CASES:
        where = "ridge " + " ".join(args)
        for n, line in enumerate(run(ridge, args).splitlines(), 1):
            if "(shared/" in line or "Guide" in line:  # price sources quote titles and dates
                continue
            for m in DECIMAL.finditer(line):
                digits = m.group(1).replace(".", "").lstrip("0")
                if len(digits) > 4:
                    fail("%s: line %d: '%s' has %d significant digits: %s" % (where, n, m.group(1), len(digits), line))


WRAPPER = r'''#!/usr/bin/env bash
n=$(ls "$RD_LOG" | wc -l)
printf '%s\n' "$*" > "$RD_LOG/$n.args"
"$RD_REAL" "$@" > "$RD_LOG/$n.out"
rc=$?
cat "$RD_LOG/$n.out"
exit $rc
'''


def check_widths(ridge, measurements):
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "log")
        os.mkdir(log)
        wrapper = os.path.join(tmp, "ridge")
        with open(wrapper, "w") as f:
            f.write(WRAPPER)
        os.chmod(wrapper, 0o755)
        env = dict(os.environ, RD_LOG=log, RD_REAL=ridge, LC_ALL="C")
        p = subprocess.run(["bash", os.path.join(SRC, "tests", "run_doc_examples.sh"), wrapper, measurements],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=SRC)
        if p.returncode != 0:
            fail("run_doc_examples.sh: exit %d\n%s" % (p.returncode, p.stdout.decode()[-2000:]))
        runs = 0
        for name in sorted(os.listdir(log)):
            if not name.endswith(".args"):
                continue
            with open(os.path.join(log, name)) as f:
                args = f.read().strip()
            if re.search(r"--format[= ](json|jsonl|csv)", args):
                continue
            runs += 1
            exc = next((k for k in WIDTH_EXCEPTIONS if args.startswith(k + " ")), None)
            with open(os.path.join(log, name[:-5] + ".out"), encoding="utf-8", errors="replace") as f:
                for n, line in enumerate(f.read().splitlines(), 1):
                    if len(line) > TEXT_COLUMNS and not exc:
                        fail("ridge %s: line %d is %d columns wide: %s" % (args, n, len(line), line[:140]))
        if runs < 40:
            fail("only %d text examples ran: is the wrapper broken?" % runs)
        print("%d text examples checked for %d columns; exceptions: %s" %
              (runs, TEXT_COLUMNS, "; ".join("%s (%s)" % kv for kv in WIDTH_EXCEPTIONS.items())))


def main():
    global SRC
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    ridge = os.path.abspath(sys.argv[1])
    measurements = os.path.abspath(sys.argv[2])
    SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    check_keys(ridge)
    check_digits(ridge)
    check_widths(ridge, measurements)
    print("readable output: %d failures" % len(failures))
    return 1 if failures else 0


SRC = "."
if __name__ == "__main__":
    sys.exit(main())
