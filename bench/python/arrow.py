"""@cumem/interop-arrow rows in Python: a 100-million-row table (int32 + float64) to the device and
back, through pyarrow.cuda (serialize_record_batch / copy_to_host + read_record_batch) when this
pyarrow was built with CUDA, else through cupy (numpy columns in pageable memory)."""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import Suite, median_result  # noqa: E402

ROWS = 100_000_000
TABLE_BYTES = ROWS * (4 + 8)
REPS = 3


def make_columns():
    import numpy as np

    generator = np.random.default_rng(42)
    integers = generator.integers(-(2**31), 2**31 - 1, size=ROWS, dtype=np.int32)
    floats = generator.random(ROWS, dtype=np.float64)
    return integers, floats


def timed(function, reps=REPS):
    """Runs `function` once to warm up, then `reps` times; returns (samples in GB/s, last result)."""
    result = function()
    samples = []
    for _ in range(reps):
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
    import cupy
    import numpy as np

    def to_device():
        columns = (cupy.asarray(integers), cupy.asarray(floats))
        cupy.cuda.runtime.deviceSynchronize()
        return columns

    to_samples, columns = timed(to_device)

    def from_device():
        return tuple(cupy.asnumpy(column) for column in columns)

    from_samples, back = timed(from_device)
    if not (np.array_equal(back[0], integers) and np.array_equal(back[1], floats)):
        raise RuntimeError("the columns read back differ from those written")
    via = f"cupy {cupy.__version__} asarray/asnumpy of numpy columns (pyarrow.cuda unavailable)"
    return median_result(to_samples, "GB/s", via=via), median_result(from_samples, "GB/s", via=via)


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
