"""Contract-level rows in Python: cuda.bindings for the raw driver calls (cuda.core has no public
cuCtxGetDevice or pageable synchronous copy), cuda.core's DeviceMemoryResource for the pool row."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import Suite, calls_ns, check, cuda_core_version, import_cuda_core, import_driver, median_result, setup_device  # noqa: E402

# Operations per repetition: the same in bench/c/contract.c, bench/js/contract.mjs and rows.mjs.
CTX_GET_DEVICE_ITERATIONS = 1_000_000
POOL_ALLOC_FREE_ITERATIONS = 100_000
MEMCPY_DTOH_ITERATIONS = 10_000


def main():
    suite = Suite("contract")
    try:
        cc, core_path = import_cuda_core()
        driver, driver_path = import_driver()
        device, stream = setup_device(cc)
    except Exception as error:  # noqa: BLE001
        suite.fatal(error)
        return 2
    suite.data["info"] = {"cudaCore": core_path, "cudaCoreVersion": cuda_core_version(cc), "driverModule": driver_path}

    def ctx_get_device():
        call = driver.cuCtxGetDevice
        success = driver.CUresult.CUDA_SUCCESS

        def batch(n):
            for _ in range(n):
                if call()[0] != success:
                    raise RuntimeError("cuCtxGetDevice failed")

        samples, protocol = calls_ns(batch, CTX_GET_DEVICE_ITERATIONS)
        return median_result(samples, "ns", protocol=protocol, via=f"{driver_path}.cuCtxGetDevice")

    def pool_alloc_free():
        resource = cc.DeviceMemoryResource(device)
        pool = check(driver, driver.cuDeviceGetDefaultMemPool(device.device_id))
        stream_handle = stream.handle

        def core_batch(n):
            for _ in range(n):
                resource.allocate(4096, stream=stream).close(stream)
            stream.sync()

        def bindings_batch(n):
            allocate, free = driver.cuMemAllocFromPoolAsync, driver.cuMemFreeAsync
            for _ in range(n):
                error, pointer = allocate(4096, pool, stream_handle)
                if error != driver.CUresult.CUDA_SUCCESS:
                    raise RuntimeError(f"cuMemAllocFromPoolAsync failed: {error}")
                check(driver, free(pointer, stream_handle))
            stream.sync()

        # Like for like (issue 47): C and JS time the raw pool pair here, so Python's value is the
        # same pair through cuda.bindings; cuda.core's allocate().close() does more (a Buffer
        # object) and stays as the variant `cudaCoreAllocateClose` (memory.deviceAllocateClose4KiB
        # is the row where it meets cumem's allocate + close).
        core, _ = calls_ns(core_batch, POOL_ALLOC_FREE_ITERATIONS)
        samples, protocol = calls_ns(bindings_batch, POOL_ALLOC_FREE_ITERATIONS)
        result = median_result(
            samples, "ns", protocol=protocol, via=f"{driver_path}.cuMemAllocFromPoolAsync + cuMemFreeAsync"
        )
        result["variants"] = {"cudaCoreAllocateClose": sorted(core)[len(core) // 2]}
        return result

    def memcpy_dtoh():
        import numpy as np

        pointer = check(driver, driver.cuMemAlloc(8))
        try:
            expected = np.frombuffer(os.urandom(8), dtype=np.uint8).copy()
            expected[expected == 0] = 1
            check(driver, driver.cuMemcpyHtoD(pointer, expected.ctypes.data, 8))
            host = np.zeros(8, dtype=np.uint8)
            address = host.ctypes.data
            copy = driver.cuMemcpyDtoH
            success = driver.CUresult.CUDA_SUCCESS

            def batch(n):
                for _ in range(n):
                    if copy(address, pointer, 8)[0] != success:
                        raise RuntimeError("cuMemcpyDtoH failed")

            samples, protocol = calls_ns(batch, MEMCPY_DTOH_ITERATIONS)
            if not np.array_equal(host, expected):
                raise RuntimeError("the 8 bytes read back differ from those written")
            return median_result(samples, "ns", protocol=protocol, via=f"{driver_path}.cuMemcpyDtoH")
        finally:
            check(driver, driver.cuMemFree(pointer))

    suite.row("contract.ctxGetDevice", "ns", ctx_get_device)
    suite.row("contract.poolAllocFree4KiB", "ns", pool_alloc_free)
    suite.row("contract.memcpyDtoH8B", "ns", memcpy_dtoh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
