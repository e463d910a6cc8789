"""handoff.python256MiB, Python producer (the cudaCore column): the same hand-off as
bench/js/handoff.mjs with cuda.core making the tensor (an IPC-enabled DeviceMemoryResource),
to the same consumer (handoff_consumer.py): zero-copy versus the host round trip a user would
otherwise write (cupy.asnumpy -> pipe -> torch.frombuffer().cuda())."""

import json
import os
import statistics
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "node-to-python"))

from common import Suite, capped_reps, fill, import_cuda_core, setup_device  # noqa: E402

ROWS, COLS = 16384, 4096
BYTES = ROWS * COLS * 4  # 256 MiB
# The same in bench/js/handoff.mjs and rows.mjs.
REPS = 7
WARMUP_REPS = 1
FILL_BYTE = 0x3F
FIRST = struct.unpack("<f", bytes([FILL_BYTE]) * 4)[0]

suite = Suite("handoff")


def measure():
    import cumem_handoff
    import cupy

    cc, module = import_cuda_core()
    device, stream = setup_device(cc)
    mr = cc.DeviceMemoryResource(device, cc.DeviceMemoryResourceOptions(ipc_enabled=True))
    buffer = mr.allocate(BYTES, stream=stream)
    fill(buffer, FILL_BYTE, stream)
    fd = int(mr.allocation_handle)  # the pool first: cuda.h exports allocations of a shared pool
    consumer = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "handoff_consumer.py")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        pass_fds=(fd,),
    )

    def send(message, payload=None):
        consumer.stdin.write((json.dumps(message) + "\n").encode())
        if payload is not None:
            consumer.stdin.write(payload)
        consumer.stdin.flush()

    def answer():
        line = consumer.stdout.readline()
        if not line:
            raise RuntimeError("the consumer ended (see its stderr)")
        return json.loads(line)

    try:
        if not answer().get("ready"):
            raise RuntimeError("the consumer did not say ready")
        view = cumem_handoff.cupy_bytes(int(buffer.handle), BYTES, buffer)

        # Like for like with bench/js/handoff.mjs (issue 47): the descriptor is made per hand-off,
        # inside the timed part, as cumem's is (it was made once, untimed, before); the same parts
        # are timed: export, its JSON, the consumer's import steps, a ping for the pipe alone.
        parts = []

        def zero_copy():
            start = time.perf_counter()
            descriptor = cumem_handoff.tensor_descriptor(buffer, "float32", [ROWS, COLS])
            exported = time.perf_counter()
            line = (json.dumps({"mode": "zero", "fd": fd, "descriptor": descriptor, "first": FIRST}) + "\n").encode()
            serialized = time.perf_counter()
            consumer.stdin.write(line)
            consumer.stdin.flush()
            reply = answer()
            elapsed = (time.perf_counter() - start) * 1000
            if not reply["ok"]:
                raise RuntimeError(f"zero-copy: consumer read {reply['first']}")
            answer()
            ping_started = time.perf_counter()
            send({"mode": "ping"})
            answer()
            parts.append(
                {
                    "export": (exported - start) * 1000,
                    "descriptor": (serialized - exported) * 1000,
                    "pipeRoundTrip": (time.perf_counter() - ping_started) * 1000,
                    **reply.get("parts", {}),
                }
            )
            return elapsed

        def host_round_trip():
            start = time.perf_counter()
            host = cupy.asnumpy(view)
            send({"mode": "copy", "bytes": BYTES, "shape": [ROWS, COLS], "first": FIRST}, memoryview(host))
            reply = answer()
            elapsed = (time.perf_counter() - start) * 1000
            if not reply["ok"]:
                raise RuntimeError(f"host round trip: consumer read {reply['first']}")
            answer()
            return elapsed

        zero, copy = [], []
        for rep in range(-WARMUP_REPS, capped_reps(REPS)):
            z, c = zero_copy(), host_round_trip()
            if rep >= 0:
                zero.append(z)
                copy.append(c)
        send({"mode": "exit"})
        consumer.wait(timeout=30)
    finally:
        if consumer.poll() is None:
            consumer.kill()
        buffer.close(stream)
        stream.sync()
        mr.close()
    zero_ms, copy_ms = statistics.median(zero), statistics.median(copy)
    return {
        "value": zero_ms,
        "samples": zero,
        "protocol": {"reps": REPS, "warmupReps": WARMUP_REPS, "bytes": BYTES},
        "variants": {
            "zeroCopy": zero_ms,
            "hostRoundTrip": copy_ms,
            "speedup": copy_ms / zero_ms,
            "hostRoundTripSamples": copy,
            **handoff_parts(parts[WARMUP_REPS:], zero_ms),
        },
        "via": f"cuda.core ({module}) IPC pool + cumem.tensor/1 descriptor -> torch.as_tensor; vs cupy.asnumpy -> pipe -> torch.frombuffer().cuda()",
    }


def handoff_parts(per_rep, zero_ms):
    """As handoffParts in bench/js/handoff.mjs: per part the median (ms), and `parts.rest`."""
    names = sorted({name for entry in per_rep for name in entry})
    medians = {f"parts.{name}": statistics.median([entry[name] for entry in per_rep if name in entry]) for name in names}
    in_zero = sum(medians[f"parts.{name}"] for name in names if name != "pipeRoundTrip")
    return {**medians, "parts.rest": zero_ms - in_zero}


suite.row("handoff.python256MiB", "ms", measure)
