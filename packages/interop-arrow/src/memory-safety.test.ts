// @cumem/memory's safety contract through this package: a CudaBuffer is a @cumem/memory Buffer
// underneath, so derived Buffers follow its close and host views never reach freed memory.
import { CudaStateError } from '@cumem/core-types';
import { defaultStream } from '@cumem/memory';
import { collectGarbageUntil } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters, contextWith, patternBytes } from '../test/support.js';
import type { Context } from './context.js';
import { newHostBuffer } from './host-buffer.js';

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
});
