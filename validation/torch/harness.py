"""Timing, checking and recording for ridge's PyTorch end-to-end measurements.

The habits are those of the CUDA microbenchmarks (validation/cuda): a warm-up
that is discarded, many timed repetitions with CUDA events, min/median/max,
a check of every result, and the exact configuration stored with each
number.  The output follows docs/validation.md ("Measurement files"): one
JSON document whose measurements are written one per line, so a file cut
short by a time-out can still be read line by line.

Nothing is downloaded: every model is built locally with random weights and
fed random data.
"""

import datetime
import gc
import json
import math
import os
import platform
import shlex
import signal
import socket
import sys
import time
import traceback

import torch

SCHEMA_VERSION = 1
GROUP = "torch_e2e"


class Terminated(Exception):
    """Raised from the SIGTERM handler so the output file can be closed."""


def _on_sigterm(signum, frame):  # pragma: no cover - needs a signal
    raise Terminated("terminated by signal %d" % signum)


def sanitize(x):
    """Make a value JSON-safe: non-finite floats become None, tuples lists,
    torch/numpy scalars plain numbers."""
    if isinstance(x, dict):
        return {str(k): sanitize(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [sanitize(v) for v in x]
    if isinstance(x, bool) or x is None or isinstance(x, str):
        return x
    if isinstance(x, int):
        return x
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, torch.dtype):
        return str(x).replace("torch.", "")
    if hasattr(x, "item"):
        try:
            return sanitize(x.item())
        except Exception:
            return str(x)
    return str(x)


def dumps(x):
    return json.dumps(sanitize(x), allow_nan=False, separators=(",", ":"),
                      sort_keys=False)


def stats(samples):
    s = sorted(samples)
    n = len(s)
    mean = sum(s) / n
    var = sum((v - mean) ** 2 for v in s) / (n - 1) if n > 1 else 0.0
    med = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    return {"min": s[0], "median": med, "max": s[-1], "mean": mean,
            "stddev": math.sqrt(var)}


def driver_version():
    try:
        with open("/proc/driver/nvidia/version") as f:
            line = f.readline()
        key = "Kernel Module"
        if key in line:
            return line.split(key, 1)[1].split()[0]
    except (OSError, IndexError):
        pass
    return None


def provenance(args, device):
    prov = {
        "tool": "ridge-bench-torch",
        "gpu_name": None, "sm_count": None, "sm_clock_max_hz": None,
        "mem_clock_max_hz": None, "driver": driver_version(),
        "cuda_runtime": torch.version.cuda, "cublas": None,
        "torch": torch.__version__,
        "date": datetime.datetime.now(datetime.timezone.utc)
                .strftime("%Y-%m-%dT%H:%M:%SZ"),
        "host": socket.gethostname(),
        "command": " ".join(shlex.quote(a) for a in [sys.executable] + sys.argv),
        "python": platform.python_version(),
        "device": str(device),
        "quick": bool(args.quick),
    }
    try:
        import torchvision  # noqa: F401  (version only)
        prov["torchvision"] = torchvision.__version__
    except Exception:
        prov["torchvision"] = None
    if device.type == "cuda":
        p = torch.cuda.get_device_properties(device)
        prov["gpu_name"] = p.name
        prov["sm_count"] = p.multi_processor_count
        prov["global_mem_bytes"] = p.total_memory
        prov["compute_capability"] = "%d.%d" % (p.major, p.minor)
        prov["cudnn"] = torch.backends.cudnn.version()
    return prov


class Writer:
    """Streams one measurement document to a file."""

    def __init__(self, path, prov):
        self.f = open(path, "w")
        self.n = 0
        self.f.write('{"schema_version":%d,"kind":"ridge-measurements",'
                     '"provenance":%s,"measurements":[' % (SCHEMA_VERSION,
                                                          dumps(prov)))
        self.f.flush()

    def measurement(self, m):
        self.f.write(("\n" if self.n == 0 else ",\n") + dumps(m))
        self.f.flush()
        self.n += 1

    def _lines(self, key, items):
        self.f.write('"%s":[' % key)
        for i, it in enumerate(items):
            self.f.write(("\n" if i == 0 else ",\n") + dumps(it))
        self.f.write("\n]")

    def close(self, skipped, errors, summary):
        self.f.write("\n],")
        self._lines("skipped", skipped)
        self.f.write(",")
        self._lines("errors", errors)
        self.f.write(',"summary":%s}\n' % dumps(summary))
        self.f.close()


class Case:
    """One configuration, measured under one or more runtimes.

    name      id prefix; the id is name + "/" + runtime
    config    dict recorded with the measurement (the harness adds runtime)
    setup     callable(ctx) -> Prepared
    runtimes  ("eager",) or ("eager", "graph")
    items     samples (or tokens) one step processes, for items_per_s
    """

    def __init__(self, name, config, setup, runtimes=("eager",), items=1,
                 item="samples", time_s=3.0):
        self.name = name
        self.config = config
        self.setup = setup
        self.runtimes = tuple(runtimes)
        self.items = items
        self.item = item
        self.time_s = time_s


class Prepared:
    """What a workload hands the harness: step() runs one iteration and
    returns a tensor to check; inference steps leave weights unchanged, so
    a CUDA-graph replay must reproduce the eager output."""

    def __init__(self, step, inference, flops=None, flops_source=None,
                 extra=None, flops_analytic=None):
        self.step = step
        self.inference = inference
        self.flops = flops
        self.flops_source = flops_source
        self.flops_analytic = flops_analytic
        self.extra = extra or {}


class Context:
    def __init__(self, device, quick):
        self.device = device
        self.quick = quick
        self.cuda = device.type == "cuda"

    def dtype(self, precision):
        """torch dtype for a precision name; on CPU fp16 runs as bf16."""
        if precision == "fp32":
            return torch.float32
        if precision == "bf16" or not self.cuda:
            return torch.bfloat16
        return torch.float16

    def autocast(self, precision):
        if precision == "fp32":
            return torch.autocast(device_type=self.device.type, enabled=False)
        return torch.autocast(device_type=self.device.type,
                              dtype=self.dtype(precision),
                              cache_enabled=False)


def _is_oom(e):
    oom = getattr(torch.cuda, "OutOfMemoryError", None)
    if oom is not None and isinstance(e, oom):
        return True
    return "out of memory" in str(e).lower()


def _rel_err(a, b):
    a = a.detach().float().reshape(-1)
    b = b.detach().float().reshape(-1)
    den = torch.linalg.vector_norm(b).item()
    num = torch.linalg.vector_norm(a - b).item()
    return num / den if den > 0 else num


def _finite(t):
    return bool(torch.isfinite(t.detach().float()).all().item())


def count_flops(step):
    """FLOPs of one step from torch.utils.flop_counter, or (None, reason)."""
    try:
        from torch.utils.flop_counter import FlopCounterMode
    except ImportError:
        return None, "unavailable (torch.utils.flop_counter missing)"
    try:
        with FlopCounterMode(display=False) as fc:
            step()
        total = int(fc.get_total_flops())
        return (total if total > 0 else None), "torch.utils.flop_counter"
    except Exception as e:  # counting is best-effort
        return None, "flop counter failed: %s" % type(e).__name__


class Bench:
    def __init__(self, args, device):
        self.args = args
        self.device = device
        self.ctx = Context(device, args.quick)
        self.prov = provenance(args, device)
        self.writer = Writer(args.out, self.prov)
        self.skipped = []
        self.errors = []
        self.failed_checks = 0
        self.t0 = time.perf_counter()
        self.warmup = 1 if args.quick else 3
        self.min_reps = 2 if args.quick else 5
        self.max_reps = 3 if args.quick else 30
        signal.signal(signal.SIGTERM, _on_sigterm)

    # ------------------------------------------------------------ helpers
    def sync(self):
        if self.ctx.cuda:
            torch.cuda.synchronize(self.device)

    def log(self, msg):
        print(msg, flush=True)

    def skip(self, id_, reason):
        self.log("  %-58s skipped: %s" % (id_, reason))
        self.skipped.append({"id": id_, "group": GROUP, "reason": reason})

    def error(self, id_, e):
        tb = traceback.format_exception(type(e), e, e.__traceback__)
        msg = "%s: %s: %s" % (id_, type(e).__name__, str(e)[:400])
        self.log("  %-58s ERROR %s" % (id_, msg))
        sys.stderr.write("".join(tb[-6:]))
        self.errors.append({"group": GROUP, "id": id_, "message": msg})

    def time_fn(self, fn, budget_s):
        """Per-call seconds of fn(); CUDA events on GPU, host clock on CPU."""
        times = []
        t_start = time.perf_counter()
        out = None
        if self.ctx.cuda:
            e0 = torch.cuda.Event(enable_timing=True)
            e1 = torch.cuda.Event(enable_timing=True)
        for i in range(self.max_reps):
            if self.ctx.cuda:
                e0.record()
                out = fn()
                e1.record()
                e1.synchronize()
                times.append(e0.elapsed_time(e1) * 1e-3)
            else:
                t = time.perf_counter()
                out = fn()
                times.append(time.perf_counter() - t)
            if (i + 1 >= self.min_reps
                    and time.perf_counter() - t_start > budget_s):
                break
        return times, out

    def common_config(self):
        return {
            "device": self.device.type,
            "tf32_matmul": torch.backends.cuda.matmul.allow_tf32,
            "tf32_cudnn": torch.backends.cudnn.allow_tf32,
            "cudnn_benchmark": torch.backends.cudnn.benchmark,
            "sync_each_step": True,
        }

    def emit(self, case, runtime, times, flops, flops_source, check, prep):
        st = stats(times)
        cfg = dict(case.config)
        cfg["runtime"] = runtime
        cfg.update(prep.extra)
        cfg.update(self.common_config())
        cfg["flops_source"] = flops_source
        med = st["median"]
        m = {
            "id": case.name + "/" + runtime,
            "group": GROUP,
            "time_s": st,
            "reps": len(times),
            "inner_reps": 1,
            "warmup": self.warmup,
            "timer": "cuda_event" if self.ctx.cuda else "host_clock",
            "flops": flops,
            "bytes": None,
            "rate": {
                "flop_per_s": (flops / med) if (flops and med > 0) else None,
                "bytes_per_s": None,
                "items_per_s": (case.items / med) if med > 0 else None,
                "item": case.item,
            },
            "checked": check["status"] == "passed",
            "check": check,
            "config": cfg,
        }
        if check["status"] == "failed":
            self.failed_checks += 1
        self.writer.measurement(m)
        rate = ""
        if m["rate"]["flop_per_s"]:
            rate = "%8.4g TFLOP/s" % (m["rate"]["flop_per_s"] * 1e-12)
        self.log("  %-58s median %10.3f ms [min %9.3f, max %9.3f] %s %s" % (
            m["id"], med * 1e3, st["min"] * 1e3, st["max"] * 1e3, rate,
            "ok" if m["checked"] else "CHECK " + check["status"]))

    # ------------------------------------------------------------ running
    def run_case(self, case, deadline):
        prep = case.setup(self.ctx)
        out = None
        for _ in range(self.warmup):
            out = prep.step()
        self.sync()
        flops, source = prep.flops, prep.flops_source
        if flops is None:
            flops, source = count_flops(prep.step)
            self.sync()
            prep.extra["flops_counter"] = flops
        ana = prep.flops_analytic
        if ana:
            prep.extra["flops_analytic"] = ana
            # the counter can miss fused ops; a count far below the
            # matmul-only analytic count is not trusted
            if flops is None or flops < 0.8 * ana:
                flops, source = ana, "analytic (matmuls and attention)"
        budget = max(0.5, min(case.time_s, deadline - time.perf_counter()))
        ref = None
        if "eager" in case.runtimes:
            times, out = self.time_fn(prep.step, budget)
            ok = _finite(out)
            check = {"status": "passed" if ok else "failed",
                     "metric": "finite_outputs", "value": 1.0 if ok else 0.0,
                     "tolerance": 1.0}
            self.emit(case, "eager", times, flops, source, check, prep)
            ref = out.detach().clone() if prep.inference else None
        if "graph" in case.runtimes:
            gid = case.name + "/graph"
            if not self.ctx.cuda:
                self.skip(gid, "CUDA graphs need a CUDA device")
            elif time.perf_counter() > deadline:
                self.skip(gid, "family time budget exhausted")
            else:
                if prep.inference and ref is None:
                    ref = prep.step().detach().clone()
                self.run_graph(case, prep, flops, source, ref, budget)
        del prep, out, ref

    def run_graph(self, case, prep, flops, source, ref, budget):
        gid = case.name + "/graph"
        try:
            s = torch.cuda.Stream(device=self.device)
            s.wait_stream(torch.cuda.current_stream(self.device))
            with torch.cuda.stream(s):
                for _ in range(3):  # warm-up on a side stream, as required
                    prep.step()
            torch.cuda.current_stream(self.device).wait_stream(s)
            self.sync()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                static_out = prep.step()
            self.sync()
        except Exception as e:
            if isinstance(e, Terminated):
                raise
            self.skip(gid, "graph capture failed: %s: %s" % (
                type(e).__name__, str(e).splitlines()[0][:200] if str(e)
                else ""))
            self.sync()
            return
        for _ in range(self.warmup):
            g.replay()
        self.sync()
        times, _ = self.time_fn(g.replay, budget)
        if prep.inference and ref is not None:
            err = _rel_err(static_out, ref)
            tol = 2e-2
            ok = _finite(static_out) and err <= tol
            check = {"status": "passed" if ok else "failed",
                     "metric": "rel_l2_vs_eager", "value": err,
                     "tolerance": tol}
        else:
            ok = _finite(static_out)
            check = {"status": "passed" if ok else "failed",
                     "metric": "finite_outputs", "value": 1.0 if ok else 0.0,
                     "tolerance": 1.0}
        self.emit(case, "graph", times, flops, source, check, prep)
        del g, static_out

    def run_family(self, family, cases, budget_s):
        t_fam = time.perf_counter()
        deadline = t_fam + budget_s
        self.log("== torch %s: %d configurations (budget %.0f s)" % (
            family, len(cases), budget_s))
        for case in cases:
            if time.perf_counter() > deadline - 1.0:
                for rt in case.runtimes:
                    self.skip(case.name + "/" + rt,
                              "family time budget exhausted")
                continue
            try:
                self.run_case(case, deadline)
            except Terminated:
                raise
            except Exception as e:
                if _is_oom(e):
                    for rt in case.runtimes:
                        self.skip(case.name + "/" + rt,
                                  "out of device memory")
                else:
                    self.error(case.name, e)
            finally:
                gc.collect()
                if self.ctx.cuda:
                    try:
                        torch.cuda.synchronize(self.device)
                        torch.cuda.empty_cache()
                    except Exception as e:  # a sticky CUDA error
                        self.error(case.name + " (cleanup)", e)
        self.log("== torch %s: done in %.1f s" % (
            family, time.perf_counter() - t_fam))

    def close(self, status_note=None):
        summary = {"measurements": self.writer.n,
                   "failed_checks": self.failed_checks,
                   "skipped": len(self.skipped), "errors": len(self.errors),
                   "elapsed_s": time.perf_counter() - self.t0}
        if status_note:
            summary["note"] = status_note
        self.writer.close(self.skipped, self.errors, summary)
        return summary


def env_flag(name):
    return os.environ.get(name, "") not in ("", "0")
