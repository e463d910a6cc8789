"""Consumer of the hand-off row (bench/js/handoff.mjs, bench/python/handoff.py): gets a 256 MiB
float32 tensor either zero-copy (pool fd + cumem.tensor/1 descriptor -> PyTorch tensor over the
same memory) or as bytes on stdin (the copy a user would otherwise make), and answers as soon as
PyTorch can use it on the GPU. Protocol: JSON lines on stdout; requests on stdin."""

import json
import os
import sys

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
    if request["mode"] == "zero":
        tensor, close = cumem_handoff.receive_tensor(int(request["fd"]), request["descriptor"], kind="torch")
    else:
        data = read_exactly(int(request["bytes"]))
        tensor = torch.frombuffer(data, dtype=torch.float32).reshape(request["shape"]).cuda()
        close = None
    first = float(tensor[0, 0])  # usable on the GPU: a read through the tensor, synchronised
    reply({"ok": first == request["first"], "first": first})
    del tensor
    if close:
        close()
    reply({"closed": True})
