"""Consumer of the hand-off row (bench/js/handoff.mjs, bench/python/handoff.py): gets a 256 MiB
float32 tensor either zero-copy (pool fd + cumem.tensor/1 descriptor -> PyTorch tensor over the
same memory) or as bytes on stdin (the copy a user would otherwise make), and answers as soon as
PyTorch can use it on the GPU. Protocol: JSON lines on stdout; requests on stdin.

Issue 47 asks where cumem's hand-off loses to cuda.core's: the zero-copy answer carries the
import's parts (`parts`, milliseconds: the device and stream, the pool import from the fd, the
buffer's mapping, the event wait, the PyTorch wrap, the first read), the same steps as
cumem_handoff.receive_tensor taken one by one; `ping` answers at once, so a producer can time the
pipe alone. Each producer also times its own export and descriptor (bench/js/handoff.mjs,
bench/python/handoff.py)."""

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "node-to-python"))

import cumem_handoff  # noqa: E402
import torch  # noqa: E402

stdin = sys.stdin.buffer


def reply(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def read_exactly(count):
    data = bytearray(count)
    view = memoryview(data)
    filled = 0
    while filled < count:
        got = stdin.readinto(view[filled:])
        if not got:
            raise EOFError(f"stdin ended after {filled} of {count} bytes")
        filled += got
    return data


def receive_tensor_in_parts(fd, descriptor):
    """cumem_handoff.receive_tensor(fd, descriptor, kind="torch"), each step timed."""
    parts = {}
    clock = [time.perf_counter()]

    def step(name):
        now = time.perf_counter()
        parts[name] = (now - clock[0]) * 1000
        clock[0] = now

    if descriptor.get("format") != cumem_handoff.DESCRIPTOR_FORMAT:
        raise ValueError(f"not a {cumem_handoff.DESCRIPTOR_FORMAT} descriptor")
    device_id = int(descriptor.get("deviceId", 0))
    device = cumem_handoff._device(device_id)
    stream = device.create_stream()
    step("deviceAndStream")
    mr = cumem_handoff.open_pool(fd, descriptor["memory"], device_id)
    step("openPool")
    buffer = cumem_handoff.open_buffer(mr, descriptor["buffer"], stream)
    step("openBuffer")
    cumem_handoff.wait_event(descriptor.get("event"))
    step("waitEvent")
    tensor = cumem_handoff.as_torch(buffer, descriptor)
    step("wrap")

    def close():
        device.sync()
        buffer.close(stream)
        stream.sync()
        mr.close()

    return tensor, close, parts


torch.zeros(1, device="cuda")  # CUDA initialised before the first timed round
cumem_handoff._core()
reply({"ready": True})
while True:
    line = stdin.readline()
    if not line:
        break
    request = json.loads(line)
    if request["mode"] == "exit":
        break
    if request["mode"] == "ping":
        reply({"pong": True})
        continue
    parts = None
    if request["mode"] == "zero":
        tensor, close, parts = receive_tensor_in_parts(int(request["fd"]), request["descriptor"])
    else:
        data = read_exactly(int(request["bytes"]))
        tensor = torch.frombuffer(data, dtype=torch.float32).reshape(request["shape"]).cuda()
        close = None
    started = time.perf_counter()
    first = float(tensor[0, 0])  # usable on the GPU: a read through the tensor, synchronised
    if parts is not None:
        parts["firstRead"] = (time.perf_counter() - started) * 1000
    reply({"ok": first == request["first"], "first": first, **({"parts": parts} if parts else {})})
    del tensor
    if close:
        close()
    reply({"closed": True})
