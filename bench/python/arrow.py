"""@cumem/interop-arrow rows in Python: a 100-million-row table (int32 + float64) to the device and
back, through pyarrow.cuda (serialize_record_batch / copy_to_host + read_record_batch) when this
pyarrow was built with CUDA, else through cupy (numpy columns in page-locked memory as the value,
pageable ones as variants, like the JS rows)."""

from __future__ import annotations

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import BANDWIDTH_WARMUP_NS, Suite, capped_reps, median_result  # noqa: E402

ROWS = 100_000_000
TABLE_BYTES = ROWS * (4 + 8)
# As the JS rows' repetitions (bench/js/arrow.mjs); capped by BENCH_MAX_REPS.
REPS = 7


def make_columns():
    import numpy as np

    generator = np.random.default_rng(42)
    integers = generator.integers(-(2**31), 2**31 - 1, size=ROWS, dtype=np.int32)
    floats = generator.random(ROWS, dtype=np.float64)
    return integers, floats


def timed(function, reps=REPS):
    """Warms up as every bandwidth row does (calls until BANDWIDTH_WARMUP_NS have passed), then
    times `reps` calls; returns (samples in GB/s, last result). Each call's result is released
    BEFORE the next call, untimed (issue 47: keeping it alive while the next one allocated put two
    tables in memory at once and made the allocator find new memory)."""
    result = None
    warm = time.perf_counter_ns() + BANDWIDTH_WARMUP_NS
    while result is None or time.perf_counter_ns() < warm:
        result = None
        result = function()
    samples = []
    for _ in range(capped_reps(reps)):
        result = None
        start = time.perf_counter_ns()
        result = function()
        samples.append(TABLE_BYTES / (time.perf_counter_ns() - start))
    return samples, result


def with_pyarrow_cuda(integers, floats):
    import pyarrow as pa
    from pyarrow import cuda

    context = cuda.Context(0)
    batch = pa.RecordBatch.from_arrays([pa.array(integers), pa.array(floats)], names=["id", "value"])

    def to_device():
        device_buffer = cuda.serialize_record_batch(batch, context)
        context.synchronize()
        return device_buffer

    to_samples, device_buffer = timed(to_device)

    def from_device():
        host = device_buffer.copy_to_host()
        return pa.ipc.read_record_batch(host, batch.schema)

    from_samples, back = timed(from_device)
    if back.num_rows != ROWS or not back.equals(batch):
        raise RuntimeError("the table read back differs from the one written")
    via = f"pyarrow {pa.__version__} pyarrow.cuda"
    return median_result(to_samples, "GB/s", via=via), median_result(from_samples, "GB/s", via=via)


def with_cupy(integers, floats):
    """Columns copied from page-locked numpy arrays (cupyx.empty_pinned) into cupy arrays and back
    into pinned arrays: the value, as the JS row's pinned columns / pinned output. The pageable
    numpy columns through cupy.asarray / cupy.asnumpy are recorded under `variants`."""
    import cupy
    import cupyx
    import numpy as np

    def pinned_copy(column):
        pinned = cupyx.empty_pinned(column.shape, column.dtype)
        pinned[...] = column
        return pinned

    pinned_columns = (pinned_copy(integers), pinned_copy(floats))
    # The JS rows' value copies into one output reused across calls ({ output }): the same here.
    reused_columns = tuple(cupy.empty(source.shape, source.dtype) for source in pinned_columns)

    def to_device_reused():
        for source, column in zip(pinned_columns, reused_columns):
            column.set(source)
        cupy.cuda.runtime.deviceSynchronize()
        return reused_columns

    def to_device_pinned():
        columns = []
        for source in pinned_columns:
            column = cupy.empty(source.shape, source.dtype)
            column.set(source)  # one DMA from page-locked memory
            columns.append(column)
        cupy.cuda.runtime.deviceSynchronize()
        return tuple(columns)

    def to_device_pageable():
        columns = (cupy.asarray(integers), cupy.asarray(floats))
        cupy.cuda.runtime.deviceSynchronize()
        return columns

    pageable_to_samples, _ = timed(to_device_pageable)
    new_to_samples, _ = timed(to_device_pinned)
    to_samples, columns = timed(to_device_reused)
    reused_outputs = tuple(cupyx.empty_pinned(column.shape, column.dtype) for column in columns)

    def from_device_reused():
        for column, out in zip(columns, reused_outputs):
            column.get(out=out)
        cupy.cuda.runtime.deviceSynchronize()
        return reused_outputs

    def from_device_pinned():
        outputs = []
        for column in columns:
            out = cupyx.empty_pinned(column.shape, column.dtype)
            column.get(out=out)
            outputs.append(out)
        cupy.cuda.runtime.deviceSynchronize()
        return tuple(outputs)

    def from_device_pageable():
        return tuple(cupy.asnumpy(column) for column in columns)

    pageable_from_samples, pageable_back = timed(from_device_pageable)
    new_from_samples, new_back = timed(from_device_pinned)
    from_samples, back = timed(from_device_reused)
    for result in (back, new_back, pageable_back):
        if not (np.array_equal(result[0], integers) and np.array_equal(result[1], floats)):
            raise RuntimeError("the columns read back differ from those written")
    via = (
        f"cupy {cupy.__version__}: ndarray.set / get(out=) between cupyx.empty_pinned numpy columns and "
        "arrays allocated once and reused, as the JS value (pyarrow.cuda unavailable); variants: a new "
        "allocation per call, the previous released first; pageable numpy through asarray / asnumpy"
    )
    to_variants = {
        "pinnedColumns": statistics.median(new_to_samples),
        "pageableColumns": statistics.median(pageable_to_samples),
    }
    from_variants = {
        "pinnedOutput": statistics.median(new_from_samples),
        "pageableOutput": statistics.median(pageable_from_samples),
    }
    return (
        median_result(to_samples, "GB/s", via=via, variants=to_variants),
        median_result(from_samples, "GB/s", via=via, variants=from_variants),
    )


def main():
    suite = Suite("arrow")
    try:
        integers, floats = make_columns()
    except Exception as error:  # noqa: BLE001
        suite.fatal(error)
        return 2
    results = {}
    errors = []
    for name, function in (("pyarrow.cuda", with_pyarrow_cuda), ("cupy", with_cupy)):
        try:
            results["arrow.tableToDevice"], results["arrow.tableFromDevice"] = function(integers, floats)
            break
        except Exception as error:  # noqa: BLE001 - try the next library
            errors.append(f"{name}: {type(error).__name__}: {error}")
    suite.data["info"] = {"triedFirst": errors}
    for row_id in ("arrow.tableToDevice", "arrow.tableFromDevice"):
        suite.row(row_id, "GB/s", lambda row_id=row_id: results.get(row_id) or {"error": "; ".join(errors)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
