// @cumem/memory's safety contract through this package: a CudaBuffer is a @cumem/memory Buffer
// underneath, so derived Buffers follow its close and host views never reach freed memory.
import { CudaStateError } from '@cumem/core-types';
import { defaultStream } from '@cumem/memory';
import { collectGarbageUntil } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters, contextWith, patternBytes } from '../test/support.js';
import type { Context } from './context/context.js';
import { newHostBuffer } from './host/host-buffer.js';

describeEachDriver(adapters, 'Memory safety of CudaBuffer and HostBuffer', (entry) => {
  let context: Context;
  // napi and the reference driver detach views on close; koffi's views (ffi) cannot be detached.
  let detaches: boolean;

  beforeAll(() => {
    context = contextWith(entry.driver);
    detaches = entry.driver.name !== 'ffi';
  });

  it('toMemoryBuffer after the CudaBuffer closed is closed and cannot overwrite a new buffer', () => {
    const buffer = context.bufferFromData(patternBytes(256));
    const memory = buffer.toMemoryBuffer();
    const slice = buffer.slice(64, 64);
    const sliceMemory = slice.toMemoryBuffer();
    slice.close();
    // Closing a view closes what was derived from it, not its parent.
    expect(sliceMemory.isClosed).toBe(true);
    expect(memory.isClosed).toBe(false);
    buffer.close();
    expect(memory.isClosed).toBe(true);
    const fresh = context.bufferFromData(patternBytes(256, 3));
    expect(() => memory.fill(0)).toThrow(CudaStateError);
    expect(() => memory.copyFrom(new Uint8Array(256))).toThrow(CudaStateError);
    expect(() => sliceMemory.fill(0)).toThrow(CudaStateError);
    expect(fresh.toBytes()).toEqual(patternBytes(256, 3));
    fresh.close();
  });

  it('a CudaBuffer dropped without close() is freed by its memory Buffer', async () => {
    const before = context.bytesAllocated;
    (() => context.deviceBuffer(4096))();
    expect(context.bytesAllocated).toBe(before + 4096);
    await collectGarbageUntil(() => context.bytesAllocated === before);
    expect(context.bytesAllocated).toBe(before);
  });

  it('HostBuffer.bytes after close reads as length 0, or (ffi) never reaches a new allocation', () => {
    const host = newHostBuffer(4096, { allocator: 'pool' });
    const bytes = host.bytes;
    bytes.set(patternBytes(4096));
    host.close();
    expect(host.size).toBe(4096);
    expect(() => host.bytes).toThrow(CudaStateError);
    if (detaches) {
      expect(bytes.length).toBe(0);
      return;
    }
    expect(bytes).toEqual(patternBytes(4096));
    const fresh = newHostBuffer(4096, { allocator: 'pool' });
    fresh.bytes.set(patternBytes(4096, 5));
    bytes.fill(0xee);
    expect(fresh.bytes).toEqual(patternBytes(4096, 5));
    fresh.close();
  });

  it('a host view taken through a CudaBuffer over a HostBuffer is detached when the HostBuffer closes', () => {
    const host = newHostBuffer(1024);
    host.bytes.set(patternBytes(1024));
    const device = context.bufferFromObject(host);
    const memory = device.toMemoryBuffer();
    const view = memory.hostView();
    expect(view).toEqual(patternBytes(1024));
    host.close();
    expect(device.isClosed).toBe(true);
    expect(memory.isClosed).toBe(true);
    expect(() => memory.hostView()).toThrow(CudaStateError);
    if (detaches) expect(view.length).toBe(0);
    else expect(view).toEqual(patternBytes(1024));
    defaultStream(0).sync();
  });
  it('host views are measured as V8 counts them: own byteLength / byteOffset properties decide nothing', () => {
    /** 16 bytes that claim 1 MiB, and 16 bytes at offset 16 that claim an offset of 1 GiB. */
    const claimsLength = () => {
      const view = patternBytes(16, 5);
      Object.defineProperty(view, 'byteLength', { value: 1 << 20 });
      return view;
    };
    const claimsOffset = () => {
      const view = new Uint8Array(new ArrayBuffer(64), 16, 16);
      view.set(patternBytes(16, 5));
      Object.defineProperty(view, 'byteOffset', { value: 2 ** 30 });
      return view;
    };
    const device = context.deviceBuffer(1 << 20);
    // Copies report what they copied: 16 bytes (they reported the claim and copied 16).
    expect(device.copyFromHost(claimsLength())).toBe(16);
    expect(device.copyFromHost(claimsOffset())).toBe(16);
    expect(device.copyToHost({ nbytes: 16 })).toEqual(patternBytes(16, 5));
    const uploaded = context.bufferFromData(claimsLength());
    expect(uploaded.size).toBe(16);
    const back = device.copyToHost({ buf: claimsLength() });
    expect(back.byteLength).toBe(16);
    expect(() => device.copyToHost({ buf: claimsLength(), nbytes: 1 << 20 })).toThrow(RangeError);
    // A detached view is 0 bytes (it was an engine TypeError from constructing over it).
    const detached = new Uint8Array(64);
    structuredClone(detached.buffer, { transfer: [detached.buffer] });
    expect(context.bufferFromData(detached).size).toBe(0);
    expect(device.copyFromHost(detached)).toBe(0);
    for (const buffer of [device, uploaded]) buffer.close();
  });
});
