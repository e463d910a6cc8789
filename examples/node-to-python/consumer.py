"""Python consumer: receives the tensor Node produced and computes on it with PyTorch, in place.

Started by producer.mjs with the pool's file descriptor as fd 3 and one JSON line on stdin."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cumem_handoff  # noqa: E402
import torch  # noqa: E402

request = json.loads(sys.stdin.readline())
# Zero copy: the tensor's storage is Node's allocation (receive_tensor waits on Node's event).
tensor, close = cumem_handoff.receive_tensor(request["fd"], request["descriptor"], kind="torch")
total = float(tensor.double().sum())
tensor.sub_(tensor.mean())  # Node sees this: same memory
torch.cuda.synchronize()
device = str(tensor.device)
del tensor
close()  # unmap before answering: Node frees the memory once it has the answer
print(json.dumps({"sum": total, "device": device, "torch": torch.__version__}), flush=True)
