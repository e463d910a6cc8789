// The importing side of the translated cuda.core IPC cases: what upstream's child processes do,
// one function per kind of child. Each takes the parent's request (JSON-safe) and the file
// descriptors of the pools it shares, and returns a JSON-safe report. The child process
// (cuda-core-ipc-child.mjs) runs them on a GPU; on the reference driver the tests call them in
// the parent's own process, over the IPC stand-in of test/ipc-emulation.ts.
import { Buffer as NodeBuffer } from 'node:buffer';
import { fstatSync } from 'node:fs';
import {
  Buffer,
  DeviceMemoryResource,
  Event,
  IpcAllocationHandle,
  MemoryResource,
  PinnedMemoryResource,
  Stream,
  VirtualMemoryResource,
} from '@cumem/memory';

/** Bytes from their base64 text (how bytes travel in a request or a report). */
export function fromBase64(text) {
  return new Uint8Array(NodeBuffer.from(text, 'base64'));
}

/** The base64 text of `bytes`. */
export function toBase64(bytes) {
  return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** `'<error name>: <message>'` of what `action` threw, or null when it returned. */
export function errorOf(action) {
  try {
    action();
    return null;
  } catch (error) {
    return `${error.name}: ${error.message}`;
  }
}

function readAll(buffer) {
  const bytes = new Uint8Array(buffer.size);
  buffer.copyTo(bytes);
  return bytes;
}

function sameBytes(a, b) {
  return NodeBuffer.from(a).equals(NodeBuffer.from(b));
}

/**
 * Imports the pool `pool` ({ kind, device, uuid, rawFd }) whose handle is file descriptor `fd`
 * (which stays the caller's): through an IpcAllocationHandle, or as the bare number with `rawFd`.
 */
export function importPool(pool, fd) {
  if (pool.rawFd) {
    return pool.kind === 'device'
      ? DeviceMemoryResource.fromAllocationHandle(pool.device, fd)
      : PinnedMemoryResource.fromAllocationHandle(fd);
  }
  const handle = IpcAllocationHandle.fromFileDescriptor(fd, { uuid: pool.uuid ?? null });
  return pool.kind === 'device'
    ? DeviceMemoryResource.fromAllocationHandle(pool.device, handle)
    : PinnedMemoryResource.fromAllocationHandle(handle);
}

/**
 * Imports every pool, opens every buffer (through its pool, or through the registry by the
 * descriptor's uuid: how a Buffer sent "as an object" finds its resource), compares each with
 * `expect` and writes `write` (base64; null: skip), then closes buffers before pools.
 */
export function fillShared(request, fds) {
  const pools = request.pools.map((pool, i) => importPool(pool, fds[i]));
  const registered = request.pools.map((pool, i) =>
    pool.uuid ? MemoryResource.fromRegistry(pool.uuid) === pools[i] : null,
  );
  const opened = request.buffers.map((entry) => {
    const mr = entry.viaRegistry ? MemoryResource.fromRegistry(entry.descriptor.uuid) : pools[entry.pool];
    const buffer = Buffer.fromIpcDescriptor(mr, entry.descriptor);
    const report = {
      size: buffer.size,
      resourceIsImport: buffer.memoryResource === pools[entry.pool],
      sawExpected: entry.expect === null ? null : sameBytes(readAll(buffer), fromBase64(entry.expect)),
    };
    if (entry.write !== null) buffer.copyFrom(fromBase64(entry.write));
    return { buffer, report };
  });
  for (const { buffer } of opened) buffer.close();
  const poolReports = pools.map((mr, i) => ({
    uuid: mr.uuid,
    isMapped: mr.isMapped,
    // A bare descriptor number stays the caller's: still open after the import.
    fdStillOpen: errorOf(() => fstatSync(fds[i])) === null,
    registered: registered[i],
  }));
  for (const mr of pools) mr.close();
  return { pools: poolReports, buffers: opened.map(({ report }) => report) };
}

/** What a hostile or mistaken import does in the importing process: `request.action` names it. */
export function importError(request, fds) {
  if (request.action === 'dangling') {
    // A buffer whose resource was never sent (nor registered) cannot find it.
    return { error: errorOf(() => MemoryResource.fromRegistry(request.descriptor.uuid)) };
  }
  const mr = importPool(request.pool, fds[0]);
  const stream = Stream.create();
  let error;
  try {
    error = errorOf(() => {
      switch (request.action) {
        case 'allocate':
          mr.allocate(64, { stream });
          break;
        case 'oversized':
          Buffer.fromIpcDescriptor(
            mr,
            { ...request.descriptor, size: request.descriptor.size * 100 },
            { stream },
          );
          break;
        case 'otherPool':
          Buffer.fromIpcDescriptor(mr, request.descriptor, { stream });
          break;
        case 'bufferAsDescriptor': {
          const buffer = Buffer.fromIpcDescriptor(mr, request.descriptor, { stream });
          try {
            Buffer.fromIpcDescriptor(mr, buffer, { stream });
          } finally {
            buffer.close();
          }
          break;
        }
        default:
          throw new Error(`unknown action ${request.action}`);
      }
    });
  } finally {
    stream.sync();
    stream.close();
    mr.close();
  }
  return { error };
}

/** Opens one descriptor twice through one imported pool and closes both. */
export function duplicateImport(request, fds) {
  const mr = importPool(request.pool, fds[0]);
  const first = Buffer.fromIpcDescriptor(mr, request.descriptor);
  const second = Buffer.fromIpcDescriptor(mr, request.descriptor);
  const report = {
    sameHandle: first.handle === second.handle,
    firstClose: errorOf(() => first.close()),
    secondClose: errorOf(() => second.close()),
  };
  mr.close();
  return report;
}

/**
 * One buffer opened three ways (through the registry, through the registered import, through a
 * second import of the same pool); a write through any one is read through all three.
 */
export function threeAliases(request, fds) {
  const first = importPool(request.pool, fds[0]);
  const second = importPool({ ...request.pool, uuid: null }, fds[1]);
  const buffers = [
    Buffer.fromIpcDescriptor(MemoryResource.fromRegistry(request.pool.uuid), request.descriptor),
    Buffer.fromIpcDescriptor(first, request.descriptor),
    Buffer.fromIpcDescriptor(second, request.descriptor),
  ];
  const allRead = (bytes) => buffers.every((buffer) => sameBytes(readAll(buffer), bytes));
  const rounds = [allRead(fromBase64(request.expect))];
  const writes = [request.write, request.expect, request.write];
  buffers.forEach((buffer, i) => {
    const bytes = fromBase64(writes[i]);
    buffer.copyFrom(bytes);
    rounds.push(allRead(bytes));
  });
  for (const buffer of buffers) buffer.close();
  first.close();
  second.close();
  return { rounds };
}

/** What the importing process can read of an interprocess event it opened. */
export function eventProperties(request) {
  const event = Event.fromIpcHandle(fromBase64(request.event));
  let ipcHandle;
  try {
    ipcHandle = toBase64(event.ipcHandle);
  } catch (error) {
    ipcHandle = `${error.name}: ${error.message}`;
  }
  const report = { ipcHandle, isInterprocess: event.isInterprocess, device: event.device.ordinal };
  event.close();
  return report;
}

/**
 * Imports a VirtualMemoryResource buffer (one descriptor per chunk in `fds`), reads `reads`
 * ({ offset, length }) as base64, writes `write` (a byte; null: skip) and closes it.
 */
export function virtualImport(request, fds) {
  const handles = fds.map((fd) => IpcAllocationHandle.fromFileDescriptor(fd));
  const mr = new VirtualMemoryResource(request.device, { handleType: 'posixFd' });
  const buffer = mr.importBuffer(request.descriptor, handles);
  const report = {
    size: buffer.size,
    resourceIsVirtual: buffer.memoryResource === mr && mr instanceof VirtualMemoryResource,
    deviceId: buffer.memoryResource.deviceId,
    reads: request.reads.map(({ offset, length }) => {
      const bytes = new Uint8Array(length);
      buffer.slice(offset, length).copyTo(bytes);
      return toBase64(bytes);
    }),
  };
  if (request.write !== null) buffer.fill(request.write);
  buffer.close();
  report.bufferClosed = buffer.isClosed;
  for (const handle of handles) handle.close();
  mr.close();
  return report;
}

/** The scenarios by the name a request gives in `role`. */
export const scenarios = {
  fillShared,
  importError,
  duplicateImport,
  threeAliases,
  eventProperties,
  virtualImport,
};
