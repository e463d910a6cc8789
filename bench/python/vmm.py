"""VirtualMemoryResource rows (bench/rows-vmm.mjs) with cuda.core's VirtualMemoryResource."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Suite, bandwidth_gbps, cuda_core_version, fill, import_cuda_core, median_result, setup_device, steps_us  # noqa: E402

MIB = 1024 * 1024
GIB = 1024 * MIB
COPY_BYTES = 256 * MIB


def protocol(per_rep, reps):
    return {"stepsPerRep": per_rep, "reps": reps, "warmupReps": 1, "reset": "none"}


def main():
    suite = Suite("vmm")
    try:
        cc, core_path = import_cuda_core()
        device, stream = setup_device(cc)
        if not hasattr(cc, "VirtualMemoryResource"):
            raise ImportError("this cuda.core has no VirtualMemoryResource")
    except Exception as error:  # noqa: BLE001
        suite.fatal(error)
        return 2
    suite.data["info"] = {"cudaCore": core_path, "cudaCoreVersion": cuda_core_version(cc)}
    options = cc.VirtualMemoryResourceOptions(handle_type=None)
    resource = cc.VirtualMemoryResource(device, options)

    def allocate_free(nbytes, per_rep, reps):
        def step(_):
            resource.allocate(nbytes).close()

        samples = steps_us(step, per_rep, reps)
        return median_result(samples, "us", protocol=protocol(per_rep, reps), via="cuda.core VirtualMemoryResource")

    def grow():
        # cuda.core grows by reserving right after the range (or remapping); it cannot shrink,
        # so each step starts from a fresh 1 GiB buffer (untimed).
        holder = {}

        def setup(_):
            if "buffer" in holder:
                holder["buffer"].close()
            holder["buffer"] = resource.allocate(GIB)

        def step(_):
            holder["buffer"] = resource.modify_allocation(holder["buffer"], 2 * GIB)

        samples = steps_us(step, 5, 5, setup=setup)
        holder["buffer"].close()
        return median_result(samples, "us", protocol=protocol(5, 5), via="cuda.core modify_allocation")

    def pool_grow():
        pool = cc.DeviceMemoryResource(device)
        holder = {"buffer": pool.allocate(GIB, stream=stream)}
        fill(holder["buffer"], 0x5A, stream)

        def cc_copy(dst, src, nbytes):
            from cuda.bindings import driver

            (result,) = driver.cuMemcpyAsync(int(dst.handle), int(src.handle), nbytes, int(stream.handle))
            if result != driver.CUresult.CUDA_SUCCESS:
                raise RuntimeError(f"cuMemcpyAsync: {result}")

        def setup(_):
            # Back to 1 GiB, untimed.
            if holder["buffer"].size != GIB:
                small = pool.allocate(GIB, stream=stream)
                cc_copy(small, holder["buffer"], GIB)
                holder["buffer"].close(stream)
                holder["buffer"] = small
                stream.sync()

        def step(_):
            grown = pool.allocate(2 * GIB, stream=stream)
            cc_copy(grown, holder["buffer"], GIB)
            holder["buffer"].close(stream)
            stream.sync()
            holder["buffer"] = grown

        samples = steps_us(step, 5, 5, setup=setup)
        holder["buffer"].close(stream)
        stream.sync()
        return median_result(samples, "us", protocol=protocol(5, 5), via="cuda.core DeviceMemoryResource + cuMemcpyAsync")

    def copy():
        source = resource.allocate(COPY_BYTES)
        destination = resource.allocate(COPY_BYTES)
        fill(source, 0x3C, stream)

        def batch(n):
            for _ in range(n):
                destination.copy_from(source, stream=stream)
            stream.sync()

        samples = bandwidth_gbps(batch, COPY_BYTES, 20, 7)
        source.close()
        destination.close()
        return median_result(samples, "GB/s", via="cuda.core Buffer.copy_from between VMM buffers")

    suite.row("vmm.allocateFree2MiB", "us", lambda: allocate_free(2 * MIB, 50, 7))
    suite.row("vmm.allocateFree1GiB", "us", lambda: allocate_free(GIB, 5, 5))
    suite.row("vmm.grow1To2GiBInPlace", "us", grow)
    suite.row("vmm.poolGrow1To2GiBByCopy", "us", pool_grow)
    suite.row("vmm.copyDtoD256MiB", "GB/s", copy)
    return 0


if __name__ == "__main__":
    sys.exit(main())
