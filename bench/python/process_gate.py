"""The process-mode gate of the Python baselines (bench/process-gate.mjs explains it).

Called by Suite() before any row. Without BENCH_PROCESS_GATE it does nothing. With it, the
process times the two calibration loops (the same as bench/c/process-gate.h and
bench/js/process-mode.mjs) through cuda.bindings, the layer cuda.core calls, writes them as JSON
to BENCH_PROCESS_GATE_OUT, then exits 0 for BENCH_PROCESS_GATE=calibrate, exits 75 when a time is
above its threshold in BENCH_PROCESS_GATE={"poolPairNs": N, "vmmPairUs": N}, else returns.
"""

from __future__ import annotations

import json
import os
import sys
import time


def _best(loop, count, scale):
    loop(count)
    fastest = float("inf")
    for _ in range(3):
        started = time.perf_counter_ns()
        loop(count)
        fastest = min(fastest, (time.perf_counter_ns() - started) / count * scale)
    return round(fastest, 1)


# Set once the process passed the gate: whether the host is in its fast mode now (fast_mode_now).
_in_fast_mode = None


def fast_mode_now():
    """Whether the host is in its fast mode now (fastModeNow in bench/js/process-mode.mjs, which
    says why): the pool loop within this implementation's limit. True in a process not gated."""
    return _in_fast_mode is None or _in_fast_mode()


def _calibrate(driver, check):
    check(driver, driver.cuInit(0))
    device = check(driver, driver.cuDeviceGet(0))
    context = check(driver, driver.cuDevicePrimaryCtxRetain(device))
    check(driver, driver.cuCtxSetCurrent(context))
    stream = check(driver, driver.cuStreamCreate(1))  # CU_STREAM_NON_BLOCKING
    pool = check(driver, driver.cuDeviceGetDefaultMemPool(device))

    def pool_pairs(count):
        for _ in range(count):
            pointer = check(driver, driver.cuMemAllocFromPoolAsync(4096, pool, stream))
            check(driver, driver.cuMemFreeAsync(pointer, stream))
        check(driver, driver.cuStreamSynchronize(stream))

    times = {"poolPairNs": _best(pool_pairs, 5000, 1), "poolPairCheck": lambda: _best(pool_pairs, 5000, 1)}
    prop = driver.CUmemAllocationProp()
    prop.type = driver.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    prop.location.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    prop.location.id = 0
    access = driver.CUmemAccessDesc()
    access.location.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    access.location.id = 0
    access.flags = driver.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
    minimum = driver.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM
    size = max(2 << 20, int(check(driver, driver.cuMemGetAllocationGranularity(prop, minimum))))

    def vmm_pairs(count):
        for _ in range(count):
            base = check(driver, driver.cuMemAddressReserve(size, 0, 0, 0))
            chunk = check(driver, driver.cuMemCreate(size, prop, 0))
            check(driver, driver.cuMemMap(base, size, 0, chunk, 0))
            check(driver, driver.cuMemSetAccess(base, size, [access], 1))
            check(driver, driver.cuMemUnmap(base, size))
            check(driver, driver.cuMemRelease(chunk))
            check(driver, driver.cuMemAddressFree(base, size))

    try:
        times["vmmPairUs"] = _best(vmm_pairs, 50, 1e-3)
    except Exception as error:  # noqa: BLE001 - a driver without VMM gates on the pool pair alone
        times["vmmError"] = str(error)
    # fast_mode_now() goes on using the stream in a gated suite process.
    if os.environ.get("BENCH_PROCESS_GATE") == "calibrate":
        check(driver, driver.cuStreamDestroy(stream))
    return times


def process_gate(import_driver, check):
    gate = os.environ.get("BENCH_PROCESS_GATE")
    if not gate:
        return
    try:
        driver, _ = import_driver()
        times = _calibrate(driver, check)
    except Exception as error:  # noqa: BLE001 - no calibration: the run goes on ungated, and says why
        times = {"error": f"{type(error).__name__}: {error}"}
    pool_pair_check = times.pop("poolPairCheck", None)
    out = os.environ.get("BENCH_PROCESS_GATE_OUT")
    if out:
        with open(out, "w", encoding="utf-8") as handle:
            json.dump(times, handle)
    if gate == "calibrate":
        sys.exit(0)
    limits = json.loads(gate)
    over = [key for key, limit in limits.items() if isinstance(times.get(key), (int, float)) and times[key] > limit]
    if over:
        print(f"[process-gate] slow mode ({', '.join(f'{k} {times[k]}' for k in over)}): exit 75", file=sys.stderr)
        sys.exit(75)
    pool_limit = limits.get("poolPairNs")
    if isinstance(pool_limit, (int, float)) and pool_pair_check is not None:
        global _in_fast_mode
        _in_fast_mode = lambda: pool_pair_check() <= pool_limit  # noqa: E731
    # Processes this one starts are not gated.
    os.environ.pop("BENCH_PROCESS_GATE", None)
    os.environ.pop("BENCH_PROCESS_GATE_OUT", None)
