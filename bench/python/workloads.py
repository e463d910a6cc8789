"""Workload rows in Python (issue 47): workload.arrowFromDisk with pyarrow + CuPy, as a user who
cares about speed would write it: the file read into page-locked memory (cupyx.empty_pinned),
opened there with pyarrow (no copy), the columns uploaded with ndarray.set from that memory, the
predicate as CuPy boolean indexing, the kept rows brought back into a pyarrow table. The page
cache is dropped before each read (os.posix_fadvise DONTNEED), as in C and JS. The inference
rows have no Python version yet (bench/rows-workloads.mjs says so)."""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import Suite, capped_reps, median_result  # noqa: E402

# As bench/js/workloads.mjs and bench/c/workloads.c.
REPS = 5


def drop_from_page_cache(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def read_into(path, view):
    with open(path, "rb", buffering=0) as handle:
        done = 0
        while done < len(view):
            got = handle.readinto(view[done : done + (64 << 20)])
            if not got:
                raise EOFError(f"{path} ended after {done} of {len(view)} bytes")
            done += got


def arrow_from_disk():
    import cupy
    import cupyx
    import numpy as np
    import pyarrow as pa

    path = os.environ.get("BENCH_ARROW_FILE")
    if not path:
        raise RuntimeError("BENCH_ARROW_FILE is not set (bench/run.mjs makes the file)")
    with open(path + ".layout", encoding="utf-8") as handle:
        rows_text, _, _, bytes_text, threshold_text = handle.read().split()
    rows, file_bytes, threshold = int(rows_text), int(bytes_text), float(threshold_text)
    pinned = cupyx.empty_pinned(file_bytes, np.uint8)
    view = memoryview(pinned)
    stream = cupy.cuda.Stream(non_blocking=True)
    samples = []
    kept_rows = 0
    for rep in range(-1, capped_reps(REPS)):
        drop_from_page_cache(path)
        start = time.perf_counter_ns()
        read_into(path, view)
        table = pa.ipc.open_file(pa.py_buffer(pinned)).read_all()
        ids = table.column("id").chunk(0).to_numpy(zero_copy_only=True)
        values = table.column("value").chunk(0).to_numpy(zero_copy_only=True)
        with stream:
            device_ids = cupy.empty(rows, np.int32)
            device_ids.set(ids, stream=stream)
            device_values = cupy.empty(rows, np.float64)
            device_values.set(values, stream=stream)
            mask = device_values > threshold
            kept = pa.table({"id": device_ids[mask].get(stream=stream), "value": device_values[mask].get(stream=stream)})
        stream.synchronize()
        elapsed = time.perf_counter_ns() - start
        kept_rows = kept.num_rows
        del table, ids, values, device_ids, device_values, mask, kept
        if rep >= 0:
            samples.append(file_bytes / elapsed)
    return median_result(
        samples,
        "GB/s",
        protocol={"reps": len(samples), "warmupReps": 1, "pageCache": "dropped"},
        variants={"fileBytes": file_bytes, "keptRows": kept_rows},
        via=f"pyarrow {pa.__version__} ipc.open_file over cupyx.empty_pinned memory + cupy {cupy.__version__} set / boolean mask / get",
    )


def main():
    suite = Suite("workloads")
    suite.row("workload.arrowFromDisk", "GB/s", arrow_from_disk)
    return 0


if __name__ == "__main__":
    sys.exit(main())
