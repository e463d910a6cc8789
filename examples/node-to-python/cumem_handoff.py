"""Zero-copy hand-off between cumem (Node.js) and Python: a small helper, not a package.

Copy this file next to your code. It turns what Node sends into a CuPy array or a PyTorch
tensor over the SAME device memory (no copy), and makes descriptors Node can open back.

Wire formats (see packages/utils/README.md and packages/memory/README.md):
  * the pool's POSIX file descriptor (`mr.getAllocationHandle().fileDescriptor` in Node,
    `int(mr.allocation_handle)` in cuda.core), passed as an inherited fd;
  * a tensor descriptor, JSON: {"format": "cumem.tensor/1", "buffer": {"data": base64 of the
    64 bytes of cuMemPoolExportPointer, "size": bytes, "uuid": str|null}, "memory":
    "device"|"pinned", "deviceId", "dtype", "typestr", "itemsize", "shape", "strides"
    (ELEMENTS), "offset" (elements), "event": base64 of a 64-byte CUipcEventHandle or null};
  * a legacy handle (CudaBuffer.exportForIpc().serialize() in Node, pyarrow.cuda's format):
    little-endian int64 size, then the 64-byte CUipcMemHandle.

Lifetime: the exporter keeps the memory alive until the importer says it is done (the importer
closes its mapping first). Ordering: when "event" is not null the importer waits on it before
touching the memory; when null, the exporter finished its writes before sending.

Needs cuda.core (cuda-core >= 0.4), CuPy; PyTorch only for as_torch().
"""

import base64
import json
import struct
import sys

DESCRIPTOR_FORMAT = "cumem.tensor/1"
HANDLE_SIZE = 64


def log(*parts):
    """Diagnostics go to stderr: stdout carries the JSON protocol."""
    print("[cumem_handoff]", *parts, file=sys.stderr, flush=True)


def _core():
    """The cuda.core module (1.x), or cuda.core.experimental for 0.x releases."""
    try:
        import cuda.core as core

        core.DeviceMemoryResource  # noqa: B018 - attribute check
        return core
    except (ImportError, AttributeError):
        import cuda.core.experimental as core

        return core


def _ipc_buffer_descriptor_class(core):
    for owner in (core, getattr(core, "_memory", None)):
        cls = getattr(owner, "IPCBufferDescriptor", None) if owner is not None else None
        if cls is not None:
            return cls
    from cuda.core._memory._ipc import IPCBufferDescriptor  # 1.x keeps it private

    return IPCBufferDescriptor


def _device(device_id):
    core = _core()
    device = core.Device(max(device_id, 0))
    device.set_current()
    return device


def open_pool(fd, memory, device_id=0):
    """Imports the exporter's pool from its file descriptor (the fd stays the caller's)."""
    core = _core()
    device = _device(device_id)
    if memory == "pinned":
        return core.PinnedMemoryResource.from_allocation_handle(fd)
    return core.DeviceMemoryResource.from_allocation_handle(device, fd)


def open_buffer(mr, buffer_descriptor, stream):
    """A cuda.core Buffer over the exporter's allocation (a mapping: close it when done)."""
    core = _core()
    data = base64.b64decode(buffer_descriptor["data"])
    if len(data) != HANDLE_SIZE:
        raise ValueError(f"descriptor data has {len(data)} bytes, expected {HANDLE_SIZE}")
    descriptor = _ipc_buffer_descriptor_class(core)._init(data, int(buffer_descriptor["size"]))
    return core.Buffer.from_ipc_descriptor(mr, descriptor, stream=stream)


def event_done(event_ptr):
    """True when the event has completed, None when it cannot be asked. Asks the driver API
    (cuEventQuery), never the runtime: the runtime's cudaEventQuery leaves "not ready" as the
    thread's last error, which the next PyTorch kernel launch check reports as a failure."""
    try:
        from cuda.bindings import driver

        (status,) = driver.cuEventQuery(int(event_ptr))
        if status == driver.CUresult.CUDA_SUCCESS:
            return True
        if status == driver.CUresult.CUDA_ERROR_NOT_READY:
            return False
        log("cuEventQuery answered", status, "(the wait below still orders the work)")
        return None
    except ImportError:
        return None


def wait_event(event_b64, stream_ptr=0):
    """Waits for the exporter's interprocess event: on `stream_ptr` (GPU-side) and, when
    stream_ptr is 0, on the host. Returns whether it had completed before the wait."""
    if not event_b64:
        return None
    import cupy

    handle = base64.b64decode(event_b64)
    if len(handle) != HANDLE_SIZE:
        raise ValueError(f"event handle has {len(handle)} bytes, expected {HANDLE_SIZE}")
    runtime = cupy.cuda.runtime
    event = runtime.ipcOpenEventHandle(handle)
    try:
        done_before = event_done(event)
        if stream_ptr:
            runtime.streamWaitEvent(stream_ptr, event, 0)
        else:
            runtime.eventSynchronize(event)
        return done_before
    finally:
        runtime.eventDestroy(event)


class _ArrayView:
    """An object exposing __cuda_array_interface__ (v3) over memory kept alive by `owner`;
    CuPy (cupy.asarray) and PyTorch (torch.as_tensor) wrap it without copying and keep it."""

    def __init__(self, pointer, descriptor, owner):
        itemsize = int(descriptor["itemsize"])
        strides = tuple(int(s) * itemsize for s in descriptor["strides"])
        self._owner = owner
        self.__cuda_array_interface__ = {
            "version": 3,
            "shape": tuple(int(n) for n in descriptor["shape"]),
            "typestr": descriptor["typestr"],
            "strides": strides,
            "data": (int(pointer) + int(descriptor["offset"]) * itemsize, False),
            # Ordering is the event's job (wait_event); no stream to synchronise on.
            "stream": None,
        }


def _pointer(buffer):
    return int(buffer.handle)


def as_cupy(buffer, descriptor):
    """A CuPy array over `buffer` (cuda.core Buffer) shaped by the tensor descriptor."""
    import cupy
    import numpy

    interface = _ArrayView(_pointer(buffer), descriptor, buffer).__cuda_array_interface__
    size = int(buffer.size)
    # UnownedMemory keeps `buffer` alive as long as the array; the device is named so CuPy does
    # not have to ask the driver what kind of pointer this is.
    device_id = max(int(descriptor.get("deviceId", 0)), 0)
    memory = cupy.cuda.UnownedMemory(_pointer(buffer), size, buffer, device_id=device_id)
    start = interface["data"][0] - _pointer(buffer)
    return cupy.ndarray(
        interface["shape"],
        numpy.dtype(interface["typestr"]),
        cupy.cuda.MemoryPointer(memory, start),
        strides=interface["strides"],
    )


def as_torch(buffer, descriptor):
    """A PyTorch tensor over `buffer` shaped by the tensor descriptor (zero copy)."""
    import torch

    device = f"cuda:{max(int(descriptor.get('deviceId', 0)), 0)}"
    return torch.as_tensor(_ArrayView(_pointer(buffer), descriptor, buffer), device=device)


def receive_tensor(fd, descriptor, kind="cupy"):
    """Everything at once: import the pool, open the buffer, wait for the event, wrap.

    Returns (array, close): call close() when done (before telling the exporter)."""
    if descriptor.get("format") != DESCRIPTOR_FORMAT:
        raise ValueError(f"not a {DESCRIPTOR_FORMAT} descriptor: {descriptor.get('format')!r}")
    device = _device(int(descriptor.get("deviceId", 0)))
    stream = device.create_stream()
    mr = open_pool(fd, descriptor["memory"], int(descriptor.get("deviceId", 0)))
    buffer = open_buffer(mr, descriptor["buffer"], stream)
    wait_event(descriptor.get("event"))
    array = (as_torch if kind == "torch" else as_cupy)(buffer, descriptor)

    def close():
        device.sync()
        buffer.close(stream)
        stream.sync()
        mr.close()

    return array, close


# --- Python -> Node ---------------------------------------------------------------------------


def export_pointer_bytes(pointer, buffer=None):
    """cuMemPoolExportPointer's 64 bytes for an allocation of an IPC-enabled pool (through
    cuda.bindings; else from the cuda.core buffer's own IPC descriptor)."""
    try:
        from cuda.bindings import driver

        error, data = driver.cuMemPoolExportPointer(int(pointer))
        if error != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuMemPoolExportPointer failed: {error}")
        raw = data.reserved
        raw = raw if isinstance(raw, bytes) else bytes(int(b) & 0xFF for b in raw)
    except Exception as error:  # noqa: BLE001 - try cuda.core's descriptor before giving up
        if buffer is None:
            raise
        log("cuda.bindings export failed, using Buffer.ipc_descriptor:", repr(error))
        # IPCBufferDescriptor pickles as (constructor, (the 64 bytes, size)).
        raw = next(a for a in buffer.ipc_descriptor.__reduce__()[1] if isinstance(a, (bytes, bytearray)))
    if len(raw) != HANDLE_SIZE:
        raise RuntimeError(f"the pool export data has {len(raw)} bytes, expected {HANDLE_SIZE}")
    return bytes(raw)


def tensor_descriptor(buffer, dtype, shape, memory="device", device_id=0, event=None):
    """A cumem.tensor/1 descriptor for a dense C-order array filling `buffer` (cuda.core Buffer
    of an IPC-enabled pool); Node opens it with StridedMemoryView.fromIpcDescriptor.
    `dtype` is cumem's name ('float32', ...); `event` a CuPy interprocess Event or None."""
    import numpy

    typestr = numpy.dtype(dtype).str if dtype != "bfloat16" else "<V2"
    itemsize = numpy.dtype(dtype).itemsize if dtype != "bfloat16" else 2
    strides, step = [], 1
    for extent in reversed(shape):
        strides.insert(0, step)
        step *= int(extent)
    event_b64 = None
    if event is not None:
        import cupy

        event_b64 = base64.b64encode(cupy.cuda.runtime.ipcGetEventHandle(event.ptr)).decode()
    return {
        "format": DESCRIPTOR_FORMAT,
        "buffer": {
            "data": base64.b64encode(export_pointer_bytes(_pointer(buffer), buffer)).decode(),
            "size": int(buffer.size),
            "uuid": None,
        },
        "memory": memory,
        "deviceId": device_id if memory == "device" else -1,
        "dtype": dtype,
        "typestr": typestr.replace("=", "<"),
        "itemsize": itemsize,
        "shape": [int(n) for n in shape],
        "strides": strides,
        "offset": 0,
        "event": event_b64,
    }


# --- legacy cuIpcMemHandle (cudaMalloc memory; CudaBuffer.exportForIpc in Node) ------------------


def open_legacy_handle(serialized):
    """Opens CudaBuffer.exportForIpc().serialize() bytes with CuPy: (pointer, size, close)."""
    import cupy

    if len(serialized) < 8:
        raise ValueError("a serialised handle has at least 8 bytes")
    (size,) = struct.unpack_from("<q", serialized, 0)
    if size == 0:
        return 0, 0, lambda: None
    handle = bytes(serialized[8 : 8 + HANDLE_SIZE])
    pointer = cupy.cuda.runtime.ipcOpenMemHandle(handle)
    return pointer, size, lambda: cupy.cuda.runtime.ipcCloseMemHandle(pointer)


def legacy_handle(pointer, size):
    """Bytes Node's IpcMemHandle.fromBuffer reads, for cudaMalloc memory at `pointer`."""
    import cupy

    return struct.pack("<q", int(size)) + bytes(cupy.cuda.runtime.ipcGetMemHandle(int(pointer)))


def cupy_bytes(pointer, size, owner=None):
    """A uint8 CuPy array over raw device memory (no copy)."""
    import cupy

    memory = cupy.cuda.UnownedMemory(int(pointer), int(size), owner)
    return cupy.ndarray((int(size),), cupy.uint8, cupy.cuda.MemoryPointer(memory, 0))


def read_message():
    """One JSON line from stdin (the Node side's request)."""
    line = sys.stdin.readline()
    if not line:
        raise EOFError("stdin closed before a request came")
    return json.loads(line)


def send_message(message):
    """One JSON line to stdout (the reply Node reads)."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()
