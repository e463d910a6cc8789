"""Pageable host memory rows in Python: what a cuda.core / cuda.bindings user does with a NumPy
array in ordinary memory. cuda.core has no copy from pageable host memory, so copies use
cuda.bindings' cuMemcpyHtoD / cuMemcpyDtoH on the array's memory (what cupy's asnumpy and
ndarray.set do too); registered rows pin the array in place with cuMemHostRegister (CuPy:
cupy.cuda.runtime.hostRegister), as PyTorch users would with cudaHostRegister.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import Suite, bandwidth_gbps, capped_reps, check, cuda_core_version, import_cuda_core, import_driver, median_result, setup_device  # noqa: E402

COPY_BYTES = 256 << 20
REPS = 7


def main():
    suite = Suite("pageable")
    try:
        import numpy as np

        cc, core_path = import_cuda_core()
        driver, driver_path = import_driver()
        device, stream = setup_device(cc)
    except Exception as error:  # noqa: BLE001
        suite.fatal(error)
        return 2
    suite.data["info"] = {"cudaCore": core_path, "cudaCoreVersion": cuda_core_version(cc), "driver": driver_path}
    resource = cc.DeviceMemoryResource(device)
    on_device = resource.allocate(COPY_BYTES, stream=stream)
    stream.sync()
    pointer = int(on_device.handle)
    host = np.frombuffer(np.random.default_rng(3).bytes(COPY_BYTES), dtype=np.uint8).copy()
    host |= 1
    address = host.ctypes.data

    def htod(n):
        for _ in range(n):
            check(driver, driver.cuMemcpyHtoD(pointer, address, COPY_BYTES))

    def dtoh(n):
        for _ in range(n):
            check(driver, driver.cuMemcpyDtoH(address, pointer, COPY_BYTES))

    def pageable_htod():
        result = median_result(bandwidth_gbps(htod, COPY_BYTES, 2, REPS), "GB/s", via="cuda.bindings cuMemcpyHtoD from a NumPy array")
        start = time.perf_counter_ns()
        check(driver, driver.cuMemHostRegister(address, COPY_BYTES, 0))
        check(driver, driver.cuMemcpyHtoD(pointer, address, COPY_BYTES))
        check(driver, driver.cuMemHostUnregister(address))
        result["variants"] = {"registerCopyUnregister": COPY_BYTES / (time.perf_counter_ns() - start)}
        return result

    def pageable_dtoh_touched():
        return median_result(bandwidth_gbps(dtoh, COPY_BYTES, 2, REPS), "GB/s", via="cuda.bindings cuMemcpyDtoH into a NumPy array")

    def pageable_dtoh_new():
        samples = []
        for rep in range(-1, capped_reps(REPS)):
            start = time.perf_counter_ns()
            fresh = np.empty(COPY_BYTES, dtype=np.uint8)
            check(driver, driver.cuMemcpyDtoH(fresh.ctypes.data, pointer, COPY_BYTES))
            elapsed = time.perf_counter_ns() - start
            del fresh
            if rep >= 0:
                samples.append(COPY_BYTES / elapsed)
        return median_result(samples, "GB/s", via="np.empty + cuda.bindings cuMemcpyDtoH")

    registered = {}

    def registered_htod():
        start = time.perf_counter_ns()
        check(driver, driver.cuMemHostRegister(address, COPY_BYTES, 0))
        register_ms = (time.perf_counter_ns() - start) / 1e6
        try:
            up = bandwidth_gbps(htod, COPY_BYTES, 4, REPS)
            registered["down"] = bandwidth_gbps(dtoh, COPY_BYTES, 4, REPS)
        finally:
            check(driver, driver.cuMemHostUnregister(address))
        return median_result(up, "GB/s", via="cuMemHostRegister + cuMemcpyHtoD", variants={"registerMs": register_ms})

    def registered_dtoh():
        if "down" not in registered:
            raise RuntimeError("measured with registered.htod256MiB, which failed")
        return median_result(registered["down"], "GB/s", via="cuMemHostRegister + cuMemcpyDtoH")

    suite.row("pageable.htod256MiB", "GB/s", pageable_htod)
    suite.row("pageable.dtohTouched256MiB", "GB/s", pageable_dtoh_touched)
    suite.row("pageable.dtohNew256MiB", "GB/s", pageable_dtoh_new)
    suite.row("registered.htod256MiB", "GB/s", registered_htod)
    suite.row("registered.dtoh256MiB", "GB/s", registered_dtoh)
    on_device.close(stream)
    stream.sync()
    return 0


if __name__ == "__main__":
    sys.exit(main())
