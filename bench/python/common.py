"""Shared helpers of the Python baselines (cuda.core, cuda.bindings, pyarrow.cuda / cupy).

Each suite script runs its rows, one at a time, and rewrites the JSON result file after every
row, so a crash keeps the rows already measured. A row that raises records its error and the
script goes on. Usage of every suite: python3 bench/python/<suite>.py --out FILE
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import traceback

from process_gate import fast_mode_now, process_gate


def import_cuda_core():
    """cuda.core 1.x exports its classes at the top level; 0.x had them under .experimental."""
    errors = []
    for name in ("cuda.core", "cuda.core.experimental"):
        try:
            module = __import__(name, fromlist=["Device"])
            if hasattr(module, "Device"):
                return module, name
        except Exception as error:  # noqa: BLE001 - report every failed import path
            errors.append(f"{name}: {error}")
    raise ImportError("cuda.core not importable: " + "; ".join(errors))


def import_driver():
    """The cuda.bindings driver module (cuda-python >= 12.6), or the older cuda.cuda path."""
    try:
        from cuda.bindings import driver

        return driver, "cuda.bindings.driver"
    except ImportError:
        from cuda import cuda as driver  # type: ignore[no-redef]

        return driver, "cuda.cuda"


def check(driver, result):
    """Raises on a CUresult other than CUDA_SUCCESS; returns the call's outputs."""
    if not isinstance(result, tuple):
        result = (result,)
    code = result[0]
    if code != driver.CUresult.CUDA_SUCCESS:
        name = getattr(code, "name", str(code))
        raise RuntimeError(f"driver call failed: {name} ({int(code)})")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


def cuda_core_version(module) -> str:
    for source in (module, sys.modules.get("cuda.core")):
        version = getattr(source, "__version__", None)
        if version:
            return str(version)
    try:
        from importlib.metadata import version

        return version("cuda-core")
    except Exception:  # noqa: BLE001
        return "unknown"


def median_result(samples, unit, **extra):
    result = {"value": statistics.median(samples), "unit": unit, "samples": samples}
    result.update(extra)
    return result


# Repetitions of the small-call rows, the same in bench/c/bench.h and bench/js/harness.mjs: one
# untimed repetition (warm-up), then the median of CALL_REPS timed repetitions of a fixed count.
CALL_REPS = 11
CALL_WARMUP_REPS = 1


def _cap(name):
    """A cap from the environment (bench/repetitions.mjs): a positive number, else none."""
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return float("inf")
    return value if value > 0 else float("inf")


def capped_reps(reps):
    """Timed repetitions under BENCH_MAX_REPS (bench/repetitions.mjs), at least 1."""
    cap = _cap("BENCH_MAX_REPS")
    return max(1, int(min(reps, cap)))


def capped_warmup_ms(warmup_ms):
    """A row's time-based warm-up under BENCH_MAX_WARMUP_MS (bench/repetitions.mjs)."""
    return min(warmup_ms, _cap("BENCH_MAX_WARMUP_MS"))


# Repetitions the rows with a warm-up skip at most, per process, while the host is in its slow
# mode (SLOW_REPS_SKIPPED_MAX in bench/js/harness.mjs, which says why).
SLOW_REPS_SKIPPED_MAX = 24
_slow_reps_left = [SLOW_REPS_SKIPPED_MAX]


def calls_ns(batch, iterations, warmup_ms=0):
    """Nanoseconds per operation: `batch(n)` runs n operations and waits. Returns (samples,
    protocol); `iterations` must be the row's count in bench/rows.mjs. Untimed repetitions go on
    for at least `warmup_ms` (callsNs's warmupMs in bench/js/harness.mjs); with a warm-up, each
    timed repetition waits for the host's fast mode as callsNs's do."""
    warmup_ms = capped_warmup_ms(warmup_ms)
    reps = capped_reps(CALL_REPS)
    warm = time.perf_counter_ns() + warmup_ms * 1_000_000
    done = 0
    while done < CALL_WARMUP_REPS or time.perf_counter_ns() < warm:
        batch(iterations)
        done += 1
    samples = []
    slow_reps_skipped = 0
    while len(samples) < reps:
        if warmup_ms > 0 and _slow_reps_left[0] > 0 and not fast_mode_now():
            _slow_reps_left[0] -= 1
            slow_reps_skipped += 1
            batch(iterations)
            continue
        start = time.perf_counter_ns()
        batch(iterations)
        samples.append((time.perf_counter_ns() - start) / iterations)
    protocol = {"iterations": iterations, "reps": reps, "warmupReps": CALL_WARMUP_REPS}
    if warmup_ms > 0:
        protocol["warmupMs"] = warmup_ms
        protocol["slowRepsSkipped"] = slow_reps_skipped
    return samples, protocol


# Untimed warm-up of a bandwidth row (as BANDWIDTH_WARMUP_MS in bench/js/harness.mjs, which says
# why): batch(1) again and again until this many nanoseconds have passed.
BANDWIDTH_WARMUP_NS = 200_000_000


def bandwidth_gbps(batch, nbytes, per_rep, reps):
    """GB/s (1e9 bytes/s) of `batch(n)`, which moves `nbytes` n times and waits."""
    warm = time.perf_counter_ns() + BANDWIDTH_WARMUP_NS
    batch(1)
    while time.perf_counter_ns() < warm:
        batch(1)
    samples = []
    for _ in range(capped_reps(reps)):
        start = time.perf_counter_ns()
        batch(per_rep)
        samples.append(nbytes * per_rep / (time.perf_counter_ns() - start))
    return samples


def steps_us(timed, per_rep, reps, setup=None, steps=None, warmup_reps=1):
    """Microseconds per timed step (which must end by waiting): the median over `reps` of the
    mean of `per_rep` steps, after `warmup_reps` untimed repetitions. `setup(i)` runs untimed
    before each step; `i` counts steps from 0 across the measurement. When `steps` (a list) is
    given, each timed step's (i, microseconds) is appended. Same loop as bench/c/utils.c."""
    iteration = 0
    samples = []
    for rep in range(-warmup_reps, capped_reps(reps)):  # negative reps are the warm-up
        total = 0
        for _ in range(per_rep):
            if setup:
                setup(iteration)
            start = time.perf_counter_ns()
            timed(iteration)
            elapsed = time.perf_counter_ns() - start
            total += elapsed
            if rep >= 0 and steps is not None:
                steps.append((iteration, elapsed / 1000))
            iteration += 1
        if rep >= 0:
            samples.append(total / per_rep / 1000)
    return samples


class Suite:
    """Collects rows and rewrites `--out` after each one."""

    def __init__(self, suite: str):
        parser = argparse.ArgumentParser()
        parser.add_argument("--out", required=True)
        self.args = parser.parse_args()
        self.data = {"impl": "cudaCore", "suite": suite, "info": {}, "rows": {}}
        self.save()

    def save(self):
        with open(self.args.out, "w", encoding="utf-8") as handle:
            json.dump(self.data, handle, indent=1)

    def fatal(self, error: BaseException):
        self.data["error"] = f"{type(error).__name__}: {error}"
        self.data["traceback"] = traceback.format_exc()
        self.save()

    def row(self, row_id: str, unit: str, function):
        started = time.time()
        try:
            result = function()
            result.setdefault("unit", unit)
        except Exception as error:  # noqa: BLE001 - one failed row must not lose the run
            result = {"unit": unit, "error": f"{type(error).__name__}: {error}", "traceback": traceback.format_exc()}
        result["seconds"] = round(time.time() - started, 3)
        # Under BENCH_MAX_REPS (bench/repetitions.mjs) the repetitions timed are what the row reports.
        protocol = result.get("protocol")
        if isinstance(protocol, dict) and isinstance(protocol.get("reps"), int) and isinstance(result.get("samples"), list):
            result["protocol"] = {**protocol, "reps": len(result["samples"])}
        self.data["rows"][row_id] = result
        self.save()
        print(f"[python] {row_id}: {result.get('value', result.get('error'))}", file=sys.stderr, flush=True)


def setup_device(cc):
    """Device 0 current, one non-blocking stream (cuda.core streams are non-blocking by default)."""
    device = cc.Device(0)
    device.set_current()
    options_class = getattr(cc, "StreamOptions", None)
    stream = device.create_stream(options=options_class(nonblocking=True)) if options_class else device.create_stream()
    return device, stream


def fill(buffer, value, stream, wait=True):
    """Buffer.fill where this cuda.core has it, else cuMemsetD8Async through cuda.bindings.
    Fills with a non-zero byte so nothing is timed on zeros; waits for the fill unless `wait`
    is false."""
    if hasattr(buffer, "fill"):
        buffer.fill(value, stream=stream)
    else:
        driver, _ = import_driver()
        check(driver, driver.cuMemsetD8Async(int(buffer.handle), value, buffer.size, stream.handle))
    if wait:
        stream.sync()


# The process-mode gate runs when a suite imports this module, before the suite's own imports
# (cuda.core, CuPy): a process in the slow mode costs a restart, so it should cost little.
process_gate(import_driver, check)
