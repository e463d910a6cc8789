"""VirtualMemoryResource rows (bench/rows-vmm.mjs) with cuda.core's VirtualMemoryResource."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (  # noqa: E402
    Suite,
    bandwidth_gbps,
    check,
    cuda_core_version,
    fill,
    import_cuda_core,
    import_driver,
    median_result,
    setup_device,
    steps_us,
)

MIB = 1024 * 1024
GIB = 1024 * MIB
COPY_BYTES = 256 * MIB


class ChunkReleaser:
    """Frees what cuda.core's VirtualMemoryResource leaves behind when a buffer closes.

    cuda.core 1.2's deallocate retains the allocation handle, unmaps, frees the range and
    releases the handle it retained, but never the reference cuMemCreate returned (allocate and
    modify_allocation drop it): every closed buffer keeps its physical memory, and the rows
    after the first ran out of device memory. `close` retains each chunk's handle before the
    buffer closes and then releases it twice (this retain and cuMemCreate's), as a cuda.core
    that frees would. `probe` decides once whether the extra release is needed, so a cuda.core
    that frees its chunks gets no double release.
    """

    def __init__(self, driver):
        self.driver = driver
        self.leaks = False

    def probe(self, resource):
        buffer = resource.allocate(2 * MIB)
        handle = check(self.driver, self.driver.cuMemRetainAllocationHandle(int(buffer.handle)))
        buffer.close()
        check(self.driver, self.driver.cuMemRelease(handle))
        # With the creation's reference gone the handle is invalid; alive, it still answers.
        result = self.driver.cuMemGetAllocationPropertiesFromHandle(handle)
        self.leaks = result[0] == self.driver.CUresult.CUDA_SUCCESS
        if self.leaks:
            check(self.driver, self.driver.cuMemRelease(handle))

    def close(self, buffer, chunk_offsets=(0,)):
        if not self.leaks:
            buffer.close()
            return
        base = int(buffer.handle)
        handles = [check(self.driver, self.driver.cuMemRetainAllocationHandle(base + o)) for o in chunk_offsets]
        buffer.close()
        for handle in handles:
            check(self.driver, self.driver.cuMemRelease(handle))
            check(self.driver, self.driver.cuMemRelease(handle))


# Untimed repetitions of vmm.allocateFree2MiB: bench/rows-vmm.mjs says why (VMM_PAIR_WARMUP_REPS).
VMM_PAIR_WARMUP_REPS = 40


def keep_pool_memory(pool_handle):
    """Sets the pool's release threshold to its maximum (as cumem's pools and the C floor's
    have); returns the threshold found before."""
    from cuda.bindings import driver

    attribute = driver.CUmemPool_attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD
    result, found = driver.cuMemPoolGetAttribute(pool_handle, attribute)
    if result != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuMemPoolGetAttribute: {result}")
    (result,) = driver.cuMemPoolSetAttribute(pool_handle, attribute, driver.cuuint64_t(2**64 - 1))
    if result != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuMemPoolSetAttribute: {result}")
    return int(found)


def protocol(per_rep, reps, warmup_reps=1):
    return {"stepsPerRep": per_rep, "reps": reps, "warmupReps": warmup_reps, "reset": "none"}


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
    options = cc.VirtualMemoryResourceOptions(handle_type=None)
    resource = cc.VirtualMemoryResource(device, options)
    releaser = ChunkReleaser(import_driver()[0])
    releaser.probe(resource)
    suite.data["info"] = {
        "cudaCore": core_path,
        "cudaCoreVersion": cuda_core_version(cc),
        "releasesLeakedChunks": releaser.leaks,
    }
    freeing = " (+ the cuMemRetainAllocationHandle / cuMemRelease pairs that free the chunk cuda.core leaks)"
    extra = freeing if releaser.leaks else ""

    def allocate_free(nbytes, per_rep, reps, warmup_reps=1):
        def step(_):
            releaser.close(resource.allocate(nbytes))

        samples = steps_us(step, per_rep, reps, warmup_reps=warmup_reps)
        return median_result(
            samples,
            "us",
            protocol=protocol(per_rep, reps, warmup_reps),
            via="cuda.core VirtualMemoryResource" + extra,
        )

    def grow():
        # cuda.core grows by reserving right after the range (or remapping); it cannot shrink,
        # so each step starts from a fresh 1 GiB buffer (untimed).
        holder = {}

        def setup(_):
            if "buffer" in holder:
                releaser.close(holder["buffer"], (0, GIB))
            holder["buffer"] = resource.allocate(GIB)

        def step(_):
            holder["buffer"] = resource.modify_allocation(holder["buffer"], 2 * GIB)

        samples = steps_us(step, 5, 5, setup=setup)
        releaser.close(holder["buffer"], (0, GIB))
        return median_result(
            samples,
            "us",
            protocol=protocol(5, 5),
            via="cuda.core modify_allocation" + extra,
        )

    def pool_grow():
        pool = cc.DeviceMemoryResource(device)
        # Like for like (issue 47): the JS row's pool keeps its memory (release threshold at its
        # maximum), so every implementation's pool does; cuda.core's own choice is recorded.
        try:
            threshold = keep_pool_memory(int(pool.handle))
        except Exception as error:  # noqa: BLE001 - measured anyway; the variant says why
            threshold = f"not set: {type(error).__name__}: {error}"
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
        return median_result(
            samples,
            "us",
            protocol=protocol(5, 5),
            via="cuda.core DeviceMemoryResource + cuMemcpyAsync",
            variants={"releaseThresholdFound": threshold},
        )

    def copy():
        source = resource.allocate(COPY_BYTES)
        destination = resource.allocate(COPY_BYTES)
        fill(source, 0x3C, stream)

        def batch(n):
            for _ in range(n):
                destination.copy_from(source, stream=stream)
            stream.sync()

        samples = bandwidth_gbps(batch, COPY_BYTES, 20, 7)
        releaser.close(source)
        releaser.close(destination)
        return median_result(samples, "GB/s", via="cuda.core Buffer.copy_from between VMM buffers")

    suite.row("vmm.allocateFree2MiB", "us", lambda: allocate_free(2 * MIB, 50, 7, VMM_PAIR_WARMUP_REPS))
    suite.row("vmm.allocateFree1GiB", "us", lambda: allocate_free(GIB, 5, 5))
    suite.row("vmm.grow1To2GiBInPlace", "us", grow)
    suite.row("vmm.poolGrow1To2GiBByCopy", "us", pool_grow)
    suite.row("vmm.copyDtoD256MiB", "GB/s", copy)
    return 0


if __name__ == "__main__":
    sys.exit(main())
