"""Multi-GPU rows in Python: cuda.core pools of devices 0 and 1 (peer_accessible_by), Buffer
copies between them and copy_batch across devices. Every copy is ordered on a stream of device
0, as in bench/c/multi.c. Where cuda.core refuses a copy between devices, the row falls back to
cuda.bindings (cuMemcpyAsync / cuMemcpyPeerAsync on the same buffers) and says so in `via`.
With fewer than two devices every row is reported as skipped. multi.peerCopyMatrix: every
ordered pair of the first MATRIX_DEVICES devices, pool to pool on a stream of the source, every
pool accessible by every other device."""

from __future__ import annotations

import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import Suite, bandwidth_gbps, check, cuda_core_version, fill, import_cuda_core, import_driver, median_result, steps_us  # noqa: E402

COPY_BYTES = 256 << 20
# The same in bench/c/multi.c and bench/js/multi.mjs.
RANGES = 1024
RANGE_BYTES = 64 << 10
RANGE_STRIDE = 128 << 10
TOTAL_BYTES = RANGES * RANGE_STRIDE
COPY_STEPS_PER_REP = 20
COPY_REPS = 9
# As MAX_DEVICES in bench/c/multi.c.
MATRIX_DEVICES = 8


def own_pool(cc, device):
    """A pool the resource owns (so peer access starts empty), where this cuda.core can make one."""
    options = getattr(cc, "DeviceMemoryResourceOptions", None)
    if options is not None:
        try:
            return cc.DeviceMemoryResource(device, options=options())
        except Exception:  # noqa: BLE001 - older signatures: the device's current pool
            pass
    return cc.DeviceMemoryResource(device)


def main():
    suite = Suite("multi")
    try:
        cc, core_path = import_cuda_core()
        driver, _ = import_driver()
        check(driver, driver.cuInit(0))
        count = check(driver, driver.cuDeviceGetCount())
    except Exception as error:  # noqa: BLE001
        suite.fatal(error)
        return 2
    suite.data["info"] = {"cudaCore": core_path, "cudaCoreVersion": cuda_core_version(cc), "devices": int(count)}
    skipped = None
    if int(count) < 2:
        skipped = f"not applicable: needs 2 GPUs ({int(count)} found)"
    devices, stream, accessible, bare, contexts = [], None, [], [], []
    if skipped is None:
        try:
            devices = [cc.Device(0), cc.Device(1)]
            for index in range(2):
                # The primary contexts, retained through cuda.bindings (what cuMemcpyPeerAsync takes).
                contexts.append(check(driver, driver.cuDevicePrimaryCtxRetain(check(driver, driver.cuDeviceGet(index)))))
            devices[0].set_current()
            stream = devices[0].create_stream()
            for index, device in enumerate(devices):
                granted = own_pool(cc, device)
                granted.peer_accessible_by = [1 - index]
                accessible.append(granted)
                bare.append(own_pool(cc, device))
            devices[0].set_current()
        except Exception as error:  # noqa: BLE001
            suite.fatal(error)
            return 2

    def copier(target, source, peer, from_device):
        """One copy on `stream`: cuda.core's copy_from, or cuda.bindings where cuda.core refuses."""
        try:
            target.copy_from(source, stream=stream)
            return (lambda: target.copy_from(source, stream=stream)), "cuda.core Buffer.copy_from"
        except Exception as error:  # noqa: BLE001 - recorded in `via`
            note = f"cuda.core Buffer.copy_from raised {type(error).__name__}"
        handle = stream.handle
        if peer:
            to = 1 - from_device
            call = lambda: check(driver, driver.cuMemcpyPeerAsync(int(target.handle), contexts[to], int(source.handle), contexts[from_device], COPY_BYTES, handle))  # noqa: E731
            return call, f"cuda.bindings cuMemcpyPeerAsync ({note})"
        call = lambda: check(driver, driver.cuMemcpyAsync(int(target.handle), int(source.handle), COPY_BYTES, handle))  # noqa: E731
        return call, f"cuda.bindings cuMemcpyAsync ({note})"

    def peer_copy(from_device, with_access):
        if skipped:
            return {"skipped": skipped}
        resources = accessible if with_access else bare
        to = 1 - from_device
        # cuda.core 1.2: allocate() needs the stream keyword, on its device made current first.
        devices[from_device].set_current()
        source = resources[from_device].allocate(COPY_BYTES, stream=devices[from_device].default_stream)
        devices[to].set_current()
        target = resources[to].allocate(COPY_BYTES, stream=devices[to].default_stream)
        try:
            for device in devices:
                device.sync()
            devices[from_device].set_current()
            fill(source, 0x31 + from_device, devices[from_device].default_stream)
            devices[0].set_current()
            copy, via = copier(target, source, not with_access, from_device)
            stream.sync()

            def batch(n):
                for _ in range(n):
                    copy()
                stream.sync()

            return median_result(bandwidth_gbps(batch, COPY_BYTES, 8, 7), "GB/s", via=via)
        finally:
            source.close()
            target.close()

    def copy_batch_row():
        if skipped:
            return {"skipped": skipped}
        source = accessible[0].allocate(TOTAL_BYTES, stream=stream)
        destination = accessible[1].allocate(TOTAL_BYTES, stream=stream)
        fill(source, 0x3C, stream)
        try:
            wrap = cc.Buffer.from_handle
            sources = [wrap(int(source.handle) + i * RANGE_STRIDE, RANGE_BYTES, owner=source) for i in range(RANGES)]
            targets = [wrap(int(destination.handle) + i * RANGE_STRIDE, RANGE_BYTES, owner=destination) for i in range(RANGES)]
            protocol = {"stepsPerRep": COPY_STEPS_PER_REP, "reps": COPY_REPS, "warmupReps": 1, "reset": "none"}

            def loop(i):
                for target, origin in zip(targets, sources):
                    target.copy_from(origin, stream=stream)
                stream.sync()

            loop_samples = steps_us(loop, COPY_STEPS_PER_REP, COPY_REPS)
            try:
                copy_batch = getattr(__import__(f"{cc.__name__}.utils", fromlist=["copy_batch"]), "copy_batch", None)
            except ImportError:
                copy_batch = None
            if copy_batch is None:
                return median_result(loop_samples, "us", via="loop of cuda.core Buffer.copy_from (no copy_batch)", protocol=protocol)

            def batch(i):
                copy_batch(stream, targets, sources)
                stream.sync()

            batch_samples = steps_us(batch, COPY_STEPS_PER_REP, COPY_REPS)
            variants = {"loop": statistics.median(loop_samples), "batch": statistics.median(batch_samples)}
            return median_result(batch_samples, "us", via="cuda.core copy_batch", protocol=protocol, variants=variants)
        finally:
            source.close(stream)
            destination.close(stream)
            stream.sync()

    def peer_matrix():
        if skipped:
            return {"skipped": skipped}
        ordinals = list(range(min(int(count), MATRIX_DEVICES)))
        for a in ordinals:
            for b in ordinals:
                handles = (check(driver, driver.cuDeviceGet(a)), check(driver, driver.cuDeviceGet(b)))
                if a != b and not check(driver, driver.cuDeviceCanAccessPeer(*handles)):
                    return {"skipped": f"not applicable: device {a} cannot access device {b}"}
        every = [cc.Device(d) for d in ordinals]
        pools, streams = [], []
        for d, device in enumerate(every):
            device.set_current()
            pool = own_pool(cc, device)
            pool.peer_accessible_by = [other for other in ordinals if other != d]
            pools.append(pool)
            streams.append(device.create_stream())
        pairs, slowest = {}, None
        for a in ordinals:
            for b in ordinals:
                if a == b:
                    continue
                every[a].set_current()
                source = pools[a].allocate(COPY_BYTES, stream=every[a].default_stream)
                every[b].set_current()
                target = pools[b].allocate(COPY_BYTES, stream=every[b].default_stream)
                try:
                    for device in every:
                        device.sync()
                    every[a].set_current()
                    fill(source, 0x41 + a * MATRIX_DEVICES + b, every[a].default_stream)
                    every[a].default_stream.sync()

                    def batch(n, target=target, source=source, on=streams[a]):
                        for _ in range(n):
                            target.copy_from(source, stream=on)
                        on.sync()

                    samples = bandwidth_gbps(batch, COPY_BYTES, 8, 7)
                    pairs[f"{a}to{b}"] = statistics.median(samples)
                    if slowest is None or pairs[f"{a}to{b}"] < statistics.median(slowest):
                        slowest = samples
                finally:
                    source.close()
                    target.close()
        for item in streams + pools:
            close = getattr(item, "close", None)
            if close is not None:
                close()
        via = "cuda.core Buffer.copy_from between pools of every ordered pair, peer_accessible_by every other device, on a stream of the source; value = the slowest pair"
        return median_result(slowest, "GB/s", via=via, variants=pairs)

    suite.row("multi.peerCopy0to1", "GB/s", lambda: peer_copy(0, True))
    suite.row("multi.peerCopy1to0", "GB/s", lambda: peer_copy(1, True))
    suite.row("multi.peerCopyNoAccess0to1", "GB/s", lambda: peer_copy(0, False))
    suite.row("multi.peerCopyNoAccess1to0", "GB/s", lambda: peer_copy(1, False))
    suite.row("multi.copyBatchCrossDevice", "us", copy_batch_row)
    suite.row("multi.peerCopyMatrix", "GB/s", peer_matrix)
    return 0


if __name__ == "__main__":
    sys.exit(main())
