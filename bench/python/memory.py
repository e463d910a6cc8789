"""@cumem/memory rows in Python, through cuda.core's own memory resources and buffers."""

from __future__ import annotations

import ctypes
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import Suite, bandwidth_gbps, calls_ns, check, cuda_core_version, fill, import_cuda_core, import_driver, median_result, setup_device  # noqa: E402

COPY_BYTES = 256 << 20
PREFETCH_BYTES = 1 << 30
ADVISE_BYTES = 2 << 20
# Operations per repetition: the same in bench/c/memory.c, bench/js/memory.mjs and rows.mjs.
ALLOCATE_CLOSE_ITERATIONS = 100_000
# Untimed warm-up of the allocate + close row: bench/js/memory.mjs's ALLOCATE_CLOSE_WARMUP says why.
ALLOCATE_CLOSE_WARMUP_MS = 2000
READ_MOSTLY_ITERATIONS = 100_000


def pinned_resources(cc):
    """(label, resource) pairs: the stream-ordered host pool first, then the classic allocator."""
    found = []
    if hasattr(cc, "PinnedMemoryResource"):
        options = getattr(cc, "PinnedMemoryResourceOptions", None)
        try:
            found.append(("PinnedMemoryResource", cc.PinnedMemoryResource(options()) if options else cc.PinnedMemoryResource()))
        except Exception as error:  # noqa: BLE001 - fall back to the legacy resource
            found.append(("PinnedMemoryResource", error))
    if hasattr(cc, "LegacyPinnedMemoryResource"):
        found.append(("LegacyPinnedMemoryResource", cc.LegacyPinnedMemoryResource()))
    return found


SPEED_MINDED_PINNED = "LegacyPinnedMemoryResource"


def main():
    suite = Suite("memory")
    try:
        cc, core_path = import_cuda_core()
        device, stream = setup_device(cc)
    except Exception as error:  # noqa: BLE001
        suite.fatal(error)
        return 2
    suite.data["info"] = {"cudaCore": core_path, "cudaCoreVersion": cuda_core_version(cc)}
    device_resource = cc.DeviceMemoryResource(device)

    def allocate_close():
        def batch(n):
            for _ in range(n):
                device_resource.allocate(4096, stream=stream).close(stream)
            stream.sync()

        samples, protocol = calls_ns(batch, ALLOCATE_CLOSE_ITERATIONS, ALLOCATE_CLOSE_WARMUP_MS)
        return median_result(
            samples, "ns", protocol=protocol, via="cuda.core DeviceMemoryResource.allocate + Buffer.close"
        )

    def host_copy(to_device: bool):
        device_buffer = device_resource.allocate(COPY_BYTES, stream=stream)
        fill(device_buffer, 0x5A, stream)
        variants, best = {}, None
        try:
            pinned_resources_found = pinned_resources(cc)
            for label, resource in pinned_resources_found:
                if isinstance(resource, Exception):
                    variants[label + "Error"] = str(resource)
                    continue
                host_buffer = resource.allocate(COPY_BYTES, stream=stream)
                stream.sync()
                ctypes.memset(int(host_buffer.handle), 0xA5, COPY_BYTES)
                destination, source = (device_buffer, host_buffer) if to_device else (host_buffer, device_buffer)

                def batch(n, destination=destination, source=source):
                    for _ in range(n):
                        destination.copy_from(source, stream=stream)
                    stream.sync()

                samples = bandwidth_gbps(batch, COPY_BYTES, 8, 7)
                host_buffer.close(stream)
                variants[label] = sorted(samples)[len(samples) // 2]
                # What a cuda.core user who cares about speed uses (issue 47): LegacyPinnedMemoryResource
                # (cuMemHostAlloc memory) where cuda.core has it, else the first that worked; the
                # others stay under `variants`.
                if label == SPEED_MINDED_PINNED or (best is None and not any(
                    name == SPEED_MINDED_PINNED and not isinstance(r, Exception) for name, r in pinned_resources_found
                )):
                    best = median_result(samples, "GB/s", via=f"cuda.core {label} + Buffer.copy_from")
        finally:
            device_buffer.close(stream)
            stream.sync()
        if best is None:
            raise RuntimeError(f"no pinned memory resource worked: {variants}")
        best["variants"] = variants
        return best

    def device_copy():
        first = device_resource.allocate(COPY_BYTES, stream=stream)
        second = device_resource.allocate(COPY_BYTES, stream=stream)
        fill(first, 0x3C, stream)
        try:

            def batch(n):
                for _ in range(n):
                    second.copy_from(first, stream=stream)
                stream.sync()

            return median_result(bandwidth_gbps(batch, COPY_BYTES, 20, 7), "GB/s", via="cuda.core Buffer.copy_from")
        finally:
            first.close(stream)
            second.close(stream)
            stream.sync()

    def managed_resource():
        return cc.ManagedMemoryResource()

    def read_mostly():
        # cuda.core's ManagedMemoryResource allocates from a managed memory pool, whose memory
        # cuMemAdvise refuses on CUDA 13.0 (CUDA_ERROR_NOT_SUPPORTED). Then the setter is timed
        # on a ManagedBuffer over cuMemAllocManaged memory, the memory the C floor advises.
        buffer = managed_resource().allocate(ADVISE_BYTES, stream=stream)
        stream.sync()
        via = "cuda.core ManagedBuffer.read_mostly setter"
        fallback = None
        try:
            buffer.read_mostly = True
            buffer.read_mostly = False
        except Exception as error:  # noqa: BLE001 - recorded in `via`
            driver, _ = import_driver()
            buffer.close(stream)
            stream.sync()
            fallback = check(driver, driver.cuMemAllocManaged(ADVISE_BYTES, driver.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL.value))
            buffer = cc.ManagedBuffer.from_handle(int(fallback), ADVISE_BYTES)
            via = (
                "cuda.core ManagedBuffer.read_mostly setter on ManagedBuffer.from_handle(cuMemAllocManaged memory); "
                f"on ManagedMemoryResource memory it raised {type(error).__name__}: {str(error)[:120]}"
            )
        try:

            def batch(n):
                # Alternates, as the C floor does, so every setter call changes the advice.
                for i in range(n):
                    buffer.read_mostly = not (i & 1)

            samples, protocol = calls_ns(batch, READ_MOSTLY_ITERATIONS)
            return median_result(samples, "ns", protocol=protocol, via=via)
        finally:
            if fallback is None:
                buffer.close(stream)
            else:
                check(driver, driver.cuMemFree(fallback))
            stream.sync()

    def prefetch():
        buffer = managed_resource().allocate(PREFETCH_BYTES, stream=stream)
        fill(buffer, 0x5A, stream)
        stream.sync()
        host = cc.Host()
        samples, to_host = [], []
        try:
            for rep in range(-1, 5):
                start = time.perf_counter_ns()
                buffer.prefetch(host, stream=stream)
                stream.sync()
                middle = time.perf_counter_ns()
                buffer.prefetch(device, stream=stream)
                stream.sync()
                end = time.perf_counter_ns()
                if rep >= 0:
                    to_host.append(PREFETCH_BYTES / (middle - start))
                    samples.append(PREFETCH_BYTES / (end - middle))
            result = median_result(samples, "GB/s", via="cuda.core ManagedBuffer.prefetch")
            result["variants"] = {"deviceToHost": sorted(to_host)[len(to_host) // 2]}
            return result
        finally:
            buffer.close(stream)
            stream.sync()

    suite.row("memory.deviceAllocateClose4KiB", "ns", allocate_close)
    suite.row("memory.copyHtoD256MiB", "GB/s", lambda: host_copy(True))
    suite.row("memory.copyDtoH256MiB", "GB/s", lambda: host_copy(False))
    suite.row("memory.copyDtoD256MiB", "GB/s", device_copy)
    suite.row("memory.readMostlySet", "ns", read_mostly)
    suite.row("memory.prefetchHtoD1GiB", "GB/s", prefetch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
