"""@cumem/utils rows in Python: cuda.core.utils batch operations over 1024 x 64 KiB managed
ranges (views of one allocation), and a strided 2D host-to-device copy.

Managed rows are migration-bound, so the page state a step starts from decides its time. Before
every timed step (untimed) every page is made resident and populated in the same place:
prefetched to the device, filled there, then (prefetch, discard_prefetch) moved to the opposite
of the step's target. Steps alternate device, host, ... from 0 in every variant. Exactly what
bench/c/utils.c and bench/js/utils.mjs do; bench/rows.mjs holds the protocol."""

from __future__ import annotations

import ctypes
import os
import statistics
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

RANGES = 1024
RANGE_BYTES = 64 << 10
# Ranges start 128 KiB apart: no two touch, so nothing can merge them into fewer, larger ranges.
RANGE_STRIDE = 128 << 10
TOTAL_BYTES = RANGES * RANGE_STRIDE
ROWS, COLUMNS, HOST_COLUMNS = 4096, 4096, 8192
# Steps per repetition (even: as many to the device as to the host) and timed repetitions, after
# one untimed repetition: the same in bench/c/utils.c and bench/js/utils.mjs.
MANAGED_STEPS_PER_REP = 6
MANAGED_REPS = 11
COPY_STEPS_PER_REP = 20
COPY_REPS = 21


def direction_medians(name, steps):
    """{<name>ToDevice, <name>ToHost}: the median step per direction (even steps go to the device)."""
    return {
        f"{name}ToDevice": statistics.median(us for i, us in steps if i % 2 == 0),
        f"{name}ToHost": statistics.median(us for i, us in steps if i % 2 == 1),
    }


def batch_function(cc, name):
    """cuda.core >= 1.1 exports the batch operations from cuda.core.utils."""
    for module_name in (f"{cc.__name__}.utils", f"{cc.__name__}._memory._managed_memory_ops"):
        try:
            module = __import__(module_name, fromlist=[name])
            function = getattr(module, name, None)
            if function:
                return function, f"{module_name}.{name}"
        except ImportError:
            continue
    return None, None


def main():
    suite = Suite("utils")
    try:
        cc, core_path = import_cuda_core()
        driver, driver_path = import_driver()
        device, stream = setup_device(cc)
    except Exception as error:  # noqa: BLE001
        suite.fatal(error)
        return 2
    suite.data["info"] = {"cudaCore": core_path, "cudaCoreVersion": cuda_core_version(cc)}
    managed_buffer_class = getattr(cc, "ManagedBuffer", None)
    locations = (device, cc.Host())

    def managed_views():
        base = cc.ManagedMemoryResource().allocate(TOTAL_BYTES, stream=stream)
        fill(base, 0x5A, stream)
        stream.sync()
        wrap = managed_buffer_class.from_handle if managed_buffer_class else cc.Buffer.from_handle
        address = int(base.handle)
        views = [wrap(address + i * RANGE_STRIDE, RANGE_BYTES, owner=base) for i in range(RANGES)]
        return base, views

    host = locations[1]

    def reset_pages(base, on_host):
        """The page state every managed step starts from (untimed): the whole allocation
        prefetched to the device, filled there (every page populated, whatever a discard left),
        and moved to the host when `on_host`."""
        base.prefetch(device, stream=stream)
        fill(base, 0x5A, stream, wait=False)
        if on_host:
            base.prefetch(host, stream=stream)
        stream.sync()

    def batch_row(name, timed_batch, timed_loop, alternating):
        """Loop first, then cuda.core's batch function (the row's value), as the C and JS sides
        order them. With `alternating`, step i targets locations[i & 1] and starts with every page
        on the other side; otherwise with every page on the device."""
        base, views = managed_views()
        try:
            variants, results = {}, {}
            for label, timed in (("loop", timed_loop), ("batch", timed_batch)):
                steps = []
                samples = steps_us(
                    lambda i, timed=timed: timed(views, i),
                    MANAGED_STEPS_PER_REP,
                    MANAGED_REPS,
                    setup=lambda i: reset_pages(base, alternating and i % 2 == 0),
                    steps=steps,
                )
                results[label] = samples
                variants[label] = statistics.median(samples)
                if alternating:
                    variants.update(direction_medians(label, steps))
            protocol = {
                "stepsPerRep": MANAGED_STEPS_PER_REP,
                "reps": MANAGED_REPS,
                "warmupReps": 1,
                "reset": "oppositeOfTarget" if alternating else "device",
            }
            return median_result(results["batch"], "us", via=name, protocol=protocol, variants=variants)
        finally:
            base.close(stream)
            stream.sync()

    def prefetch_batch_row():
        prefetch_batch, name = batch_function(cc, "prefetch_batch")
        if not prefetch_batch:
            raise RuntimeError("this cuda.core has no prefetch_batch")

        def batch(views, i):
            prefetch_batch(stream, views, locations[i & 1])
            stream.sync()

        def loop(views, i):
            for view in views:
                view.prefetch(locations[i & 1], stream=stream)
            stream.sync()

        return batch_row(name, batch, loop, True)

    def discard_batch_row():
        discard_batch, name = batch_function(cc, "discard_batch")
        if not discard_batch:
            raise RuntimeError("this cuda.core has no discard_batch")

        def batch(views, i):
            discard_batch(stream, views)
            stream.sync()

        def loop(views, i):
            for view in views:
                view.discard(stream=stream)
            stream.sync()

        return batch_row(name, batch, loop, False)

    def discard_prefetch_batch_row():
        discard_prefetch_batch, name = batch_function(cc, "discard_prefetch_batch")
        if not discard_prefetch_batch:
            raise RuntimeError("this cuda.core has no discard_prefetch_batch")

        def batch(views, i):
            discard_prefetch_batch(stream, views, locations[i & 1])
            stream.sync()

        def loop(views, i):
            for view in views:
                view.discard_prefetch(locations[i & 1], stream=stream)
            stream.sync()

        return batch_row(name, batch, loop, True)

    def copy_batch_row():
        resource = cc.DeviceMemoryResource(device)
        source = resource.allocate(TOTAL_BYTES, stream=stream)
        destination = resource.allocate(TOTAL_BYTES, stream=stream)
        fill(source, 0x3C, stream)
        stream.sync()
        try:
            wrap = cc.Buffer.from_handle
            sources = [wrap(int(source.handle) + i * RANGE_STRIDE, RANGE_BYTES, owner=source) for i in range(RANGES)]
            targets = [wrap(int(destination.handle) + i * RANGE_STRIDE, RANGE_BYTES, owner=destination) for i in range(RANGES)]
            copy_batch, name = batch_function(cc, "copy_batch")

            def loop(i):
                for target, origin in zip(targets, sources):
                    target.copy_from(origin, stream=stream)
                stream.sync()

            protocol = {"stepsPerRep": COPY_STEPS_PER_REP, "reps": COPY_REPS, "warmupReps": 1, "reset": "none"}
            loop_samples = steps_us(loop, COPY_STEPS_PER_REP, COPY_REPS)
            if copy_batch:

                def batch(i):
                    copy_batch(stream, targets, sources)
                    stream.sync()

                batch_samples = steps_us(batch, COPY_STEPS_PER_REP, COPY_REPS)
                variants = {"loop": statistics.median(loop_samples), "batch": statistics.median(batch_samples)}
                return median_result(batch_samples, "us", via=name, protocol=protocol, variants=variants)
            return median_result(
                loop_samples,
                "us",
                via="loop of cuda.core Buffer.copy_from (no copy_batch in this cuda.core)",
                protocol=protocol,
            )
        finally:
            source.close(stream)
            destination.close(stream)
            stream.sync()

    def strided_row():
        # cuda.core has no strided host<->device copy: the Python baseline is cuMemcpy2DAsync
        # through cuda.bindings on cuda.core page-locked and device buffers.
        pinned = cc.LegacyPinnedMemoryResource()
        host = pinned.allocate(ROWS * HOST_COLUMNS * 4, stream=stream)
        target = cc.DeviceMemoryResource(device).allocate(ROWS * COLUMNS * 4, stream=stream)
        stream.sync()
        ctypes.memset(int(host.handle), 0xA5, ROWS * HOST_COLUMNS * 4)
        try:
            copy = driver.CUDA_MEMCPY2D()
            copy.srcMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_HOST
            copy.srcHost = int(host.handle)
            copy.srcPitch = HOST_COLUMNS * 4
            copy.dstMemoryType = driver.CUmemorytype.CU_MEMORYTYPE_DEVICE
            copy.dstDevice = int(target.handle)
            copy.dstPitch = COLUMNS * 4
            copy.WidthInBytes = COLUMNS * 4
            copy.Height = ROWS
            stream_handle = stream.handle

            def batch(n):
                for _ in range(n):
                    check(driver, driver.cuMemcpy2DAsync(copy, stream_handle))
                stream.sync()

            return median_result(
                bandwidth_gbps(batch, ROWS * COLUMNS * 4, 8, 7), "GB/s", via=f"{driver_path}.cuMemcpy2DAsync"
            )
        finally:
            host.close(stream)
            target.close(stream)
            stream.sync()

    suite.row("utils.prefetchBatch", "us", prefetch_batch_row)
    suite.row("utils.discardBatch", "us", discard_batch_row)
    suite.row("utils.discardPrefetchBatch", "us", discard_prefetch_batch_row)
    suite.row("utils.copyBatch", "us", copy_batch_row)
    suite.row("utils.strided2DHtoD", "GB/s", strided_row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
