import { CudaStateError } from '@cumem/core-types';
import { Buffer as MemoryBuffer } from '@cumem/memory';
import { type DriverCallLog, describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters, countedContext, patternBytes } from '../../test/support.js';
import { Context } from '../context/context.js';
import { newHostBuffer } from '../host/host-buffer.js';
import { CudaBuffer } from './cuda-buffer.js';

/** (position, nbytes) pairs pyarrow refuses as "position out of range" for a buffer of `size` bytes. */
function outOfRange(size: number): ReadonlyArray<readonly [number, number]> {
  return [
    [size + 2, -1],
    [-2, -1],
    [size + 1, 0],
    [-3, 0],
  ];
}

// Mirrors pyarrow's test_cuda.py (test_Context, test_context_allocate_del,
// test_context_device_buffer, test_copy_to_host, test_copy_from_host, test_copy_from_device,
// test_context_from_object, test_foreign_buffer, test_CudaBuffer, test_HostBuffer).
describeEachDriver(adapters, 'CudaBuffer and Context', (entry) => {
  let context: Context;
  let log: DriverCallLog;

  beforeAll(() => {
    ({ log, context } = countedContext(entry.driver));
  });

  it('Context: device number, device count, out-of-range device is a RangeError', () => {
    expect(Context.numDevices()).toBeGreaterThan(0);
    expect(context.deviceNumber).toBe(0);
    expect(() => new Context(Context.numDevices())).toThrow(RangeError);
    expect(() => new Context(-1)).toThrow(RangeError);
    expect(() => new Context('0' as unknown as number)).toThrow(TypeError);
    expect(typeof context.handle).toBe('bigint');
  });

  it('cudaArrayInterface: a 1-D uint8 array of the buffer and of a slice; refused once closed', () => {
    const buffer = context.newBuffer(128);
    expect(buffer.cudaArrayInterface).toEqual({
      shape: [128],
      typestr: '|u1',
      data: [buffer.address, false],
      strides: null,
      version: 3,
    });
    const slice = buffer.slice(32, 16);
    expect(slice.cudaArrayInterface.data).toEqual([buffer.address + 32n, false]);
    expect(slice.cudaArrayInterface.shape).toEqual([16]);
    buffer.close();
    expect(() => buffer.cudaArrayInterface).toThrow(/closed/);
  });

  it('bytesAllocated rises with an allocation and falls when it is closed', () => {
    const before = context.bytesAllocated;
    const buffer = context.newBuffer(128);
    expect(context.bytesAllocated).toBe(before + 128);
    buffer.close();
    buffer.close();
    expect(context.bytesAllocated).toBe(before);
    {
      using scoped = context.deviceBuffer(64);
      expect(scoped.size).toBe(64);
      expect(context.bytesAllocated).toBe(before + 64);
    }
    expect(context.bytesAllocated).toBe(before);
  });

  for (const size of [0, 1, 1000]) {
    it(`bufferFromData copies host data, slices and device buffers (size ${size})`, () => {
      const data = patternBytes(size);
      const cudabuf = context.bufferFromData(data);
      expect(cudabuf.size).toBe(size);
      expect(cudabuf.isCpu).toBe(false);
      expect(cudabuf.isMutable).toBe(true);
      if (size > 0) expect(cudabuf.address > 0n).toBe(true);
      expect(cudabuf.copyToHost()).toEqual(data);
      expect(context.bufferFromData(data.buffer).toBytes()).toEqual(data);

      // a view shares memory: writing through it changes the parent
      const view = cudabuf.slice(0, cudabuf.size);
      expect(view.parent).toBe(cudabuf);
      const half = Math.floor(size / 2);
      if (size > 1) {
        view.copyFromHost(data.subarray(half));
        const after = cudabuf.copyToHost();
        expect(after.subarray(0, size - half)).toEqual(data.subarray(half));
        expect(after.subarray(size - half)).toEqual(data.subarray(size - half));
        view.copyFromHost(data);
        expect(cudabuf.toBytes()).toEqual(data);
      }

      // a copy does not share memory
      const copy = context.bufferFromData(cudabuf);
      expect(copy.toBytes()).toEqual(data);
      copy.copyFromHost(data.subarray(half));
      expect(cudabuf.toBytes()).toEqual(data);

      // slices clamp the length to what is available
      expect(cudabuf.slice(0, size + 10).size).toBe(size);
      if (size > 0) {
        const q = Math.floor(size / 4);
        const clamped = cudabuf.slice(q, size + 10);
        expect(clamped.size).toBe(size - q);
        expect(clamped.toBytes()).toEqual(data.subarray(q));
      }

      // offset/size of the source
      const soffset = Math.floor(size / 4);
      const ssize = Math.floor((2 * size) / 4);
      if (size > 0) {
        const part = context.bufferFromData(data, { offset: soffset, size: ssize });
        expect(part.size).toBe(ssize);
        expect(part.toBytes()).toEqual(data.subarray(soffset, soffset + ssize));
        const fromDevicePart = context.bufferFromData(cudabuf, { offset: soffset, size: ssize });
        expect(fromDevicePart.toBytes()).toEqual(data.subarray(soffset, soffset + ssize));
      }

      // from a HostBuffer
      const host = newHostBuffer(size);
      host.bytes.set(data);
      expect(context.bufferFromData(host).toBytes()).toEqual(data);
      host.close();
    });

    it(`copyToHost: positions, counts, a given buffer, and pyarrow's errors (size ${size})`, () => {
      const data = patternBytes(size, 3);
      const dbuf = context.bufferFromData(data);
      const q = Math.floor(size / 4);
      expect(dbuf.copyToHost({ position: q })).toEqual(data.subarray(q));
      expect(dbuf.copyToHost({ position: q, nbytes: Math.floor(size / 8) })).toEqual(
        data.subarray(q, q + Math.floor(size / 8)),
      );
      expect(dbuf.copyToHost({ position: q, nbytes: 0 }).byteLength).toBe(0);
      log.reset();
      for (const [position, nbytes] of outOfRange(size)) {
        expect(() => dbuf.copyToHost({ position, nbytes })).toThrow(/position out of range/);
      }
      expect(() => dbuf.copyToHost({ position: 0, nbytes: size + 1 })).toThrow(
        /available from device buffer/,
      );
      expect(log.calls).toEqual([]);

      const host = new Uint8Array(q);
      expect(dbuf.copyToHost({ buf: host })).toEqual(data.subarray(0, q));
      if (size >= 12) {
        dbuf.copyToHost({ buf: host, position: 12 });
        expect(host).toEqual(data.subarray(12, 12 + q));
        dbuf.copyToHost({ buf: host, nbytes: 12, position: 6 });
        expect(host.subarray(0, 12)).toEqual(data.subarray(6, 18));
        expect(() => dbuf.copyToHost({ buf: host, position: 0, nbytes: size + 10 })).toThrow(
          /does not fit into host buffer/,
        );
      }
    });

    it(`copyFromHost / copyFromDevice: positions, counts and pyarrow's errors (size ${size})`, () => {
      const data = patternBytes(size, 11);
      const list = [...data];
      const source = context.bufferFromData(data);
      const dbuf = context.deviceBuffer(size);
      const putHost = (options?: { position?: number; nbytes?: number }) => {
        dbuf.copyFromHost(data, options);
        return [...dbuf.toBytes()];
      };
      const putDevice = (options?: { position?: number; nbytes?: number }) => {
        dbuf.copyFromDevice(source, options);
        return [...dbuf.toBytes()];
      };
      for (const put of [putHost, putDevice]) {
        expect(put()).toEqual(list);
        if (size > 4) {
          const q = Math.floor(size / 4);
          expect(put({ position: q })).toEqual([...list.slice(0, q), ...list.slice(0, size - q)]);
          expect(put()).toEqual(list);
          const half = Math.floor(size / 2);
          expect(put({ position: 1, nbytes: half })).toEqual([
            ...list.slice(0, 1),
            ...list.slice(0, half),
            ...list.slice(half + 1),
          ]);
        }
        log.reset();
        for (const [position, nbytes] of outOfRange(size)) {
          expect(() => put({ position, nbytes })).toThrow(/position out of range/);
        }
        expect(() => put({ position: 0, nbytes: size + 1 })).toThrow(
          /more to copy than available from (host|device) buffer/,
        );
        if (size >= 4) {
          const half = Math.floor(size / 2);
          expect(() => put({ position: half, nbytes: Math.floor((size + 1) / 2) + 1 })).toThrow(
            /more to copy than available in device buffer/,
          );
        }
        expect(log.calls).toEqual([]);
      }
      expect(dbuf.copyFromHost(data, { nbytes: 0 })).toBe(0);
    });
  }

  it('equals, hex and toBytes compare and show contents', () => {
    const a = context.bufferFromData(Uint8Array.of(1, 2, 254));
    const b = context.bufferFromData(Uint8Array.of(1, 2, 254));
    const c = context.bufferFromData(Uint8Array.of(1, 2, 3));
    expect(a.equals(b)).toBe(true);
    expect(a.equals(c)).toBe(false);
    expect(a.equals(Uint8Array.of(1, 2, 254))).toBe(true);
    expect(a.equals(a.slice(0, 2))).toBe(false);
    expect(a.hex()).toBe('0102fe');
    expect(a.toBytes()).toEqual(Uint8Array.of(1, 2, 254));
  });

  it('bufferFromObject: views of CudaBuffer, HostBuffer, memory Buffer and cudaArrayInterface; TypeError otherwise', () => {
    const data = patternBytes(1000, 5);
    const host = newHostBuffer(1000);
    host.bytes.set(data);
    expect(host.isCpu).toBe(true);
    const fromHost = context.bufferFromObject(host);
    expect(fromHost.size).toBe(1000);
    expect(fromHost.address).toBe(host.address);
    expect(fromHost.toBytes()).toEqual(data);
    expect(fromHost.base).toBe(host);
    expect(context.bufferFromObject(fromHost)).toBe(fromHost);

    const device = context.bufferFromData(data);
    const memory = device.toMemoryBuffer();
    expect(memory).toBeInstanceOf(MemoryBuffer);
    expect(memory.handle).toBe(device.address);
    expect(memory.size).toBe(1000);
    const back = context.bufferFromObject(memory);
    expect(back.address).toBe(device.address);
    expect(back.toBytes()).toEqual(data);
    expect(CudaBuffer.fromBuffer(memory).address).toBe(device.address);
    expect(CudaBuffer.fromBuffer(device)).toBe(device);

    // strided interface: 10 rows of 8 bytes every 16 bytes; the view spans the skipped bytes too
    const strided = {
      cudaArrayInterface: {
        shape: [10, 2],
        strides: [16, 4],
        typestr: '<i4',
        data: [device.address, true] as const,
        version: 3,
      },
    };
    const view = context.bufferFromObject(strided);
    expect(view.address).toBe(device.address);
    expect(view.size).toBe(9 * 16 + 4 + 4);
    expect(view.isMutable).toBe(false);
    expect(() => view.copyFromHost(Uint8Array.of(1))).toThrow(TypeError);
    const dense = {
      cudaArrayInterface: { shape: [250], typestr: '<f4', data: [device.address, false] as const },
    };
    expect(context.bufferFromObject(dense).toBytes()).toEqual(data);

    log.reset();
    expect(() => context.bufferFromObject(new Uint8Array(3))).toThrow(TypeError);
    expect(() => context.bufferFromObject({})).toThrow(/cannot create device buffer view/);
    expect(() => CudaBuffer.fromBuffer(new Uint8Array(3) as never)).toThrow(/not backed by a CudaBuffer/);
    expect(log.calls).toEqual([]);
    host.close();
  });

  it('foreignBuffer keeps its base alive and reads the memory', () => {
    const host = newHostBuffer(10);
    host.bytes.set(patternBytes(10));
    const foreign = context.foreignBuffer(host.address, host.size, host);
    expect(foreign.base).toBe(host);
    expect(foreign.toBytes()).toEqual(patternBytes(10));
    host.close();
    expect(foreign.isClosed).toBe(true);
    expect(() => foreign.toBytes()).toThrow(CudaStateError);
    log.reset();
    expect(() => context.foreignBuffer(-1, 1)).toThrow(RangeError);
    expect(() => context.foreignBuffer(1n, 1.5)).toThrow(RangeError);
    expect(() => context.foreignBuffer('1' as never, 1)).toThrow(TypeError);
    expect(log.calls).toEqual([]);
  });

  it('HostBuffer: zero-copy bytes, sizes 0/1/1000, constructor refused', () => {
    for (const size of [0, 1, 1000]) {
      const host = newHostBuffer(size);
      expect(host.size).toBe(size);
      host.bytes.fill(0); // page-locked memory comes uninitialized (a pool may hand back used memory)
      host.bytes.fill(1, Math.floor(size / 4), Math.floor((3 * size) / 4));
      expect(host.bytes.reduce((a, b) => a + b, 0)).toBe(Math.floor((3 * size) / 4) - Math.floor(size / 4));
      host.close();
      if (size > 0) expect(() => host.bytes).toThrow(CudaStateError);
    }
    expect(() => new (CudaBuffer as unknown as new () => unknown)()).toThrow(
      /Do not call CudaBuffer's constructor/,
    );
    expect(() => newHostBuffer(-1)).toThrow(RangeError);
  });

  it('a closed buffer and its views refuse use before any driver call', () => {
    const buffer = context.bufferFromData(patternBytes(64));
    const view = buffer.slice(8, 8);
    buffer.close();
    expect(buffer.isClosed).toBe(true);
    expect(view.isClosed).toBe(true);
    log.reset();
    expect(() => buffer.copyToHost()).toThrow(CudaStateError);
    expect(() => view.copyFromHost(new Uint8Array(8))).toThrow(CudaStateError);
    expect(() => buffer.slice(0)).toThrow(CudaStateError);
    expect(() => buffer.exportForIpc()).toThrow(CudaStateError);
    expect(log.calls).toEqual([]);
  });

  it('closing a view leaves the parent usable', () => {
    const buffer = context.bufferFromData(patternBytes(64));
    const view = buffer.slice(8, 8);
    view.close();
    expect(view.isClosed).toBe(true);
    expect(buffer.toBytes()).toEqual(patternBytes(64));
    buffer.close();
  });

  it('fromMemoryBuffer views memory of a @cumem/memory Buffer and follows its close', () => {
    const device = context.bufferFromData(patternBytes(32));
    const memory = MemoryBuffer.fromHandle(device.address, 32);
    const view = CudaBuffer.fromMemoryBuffer(memory);
    expect(view.toBytes()).toEqual(patternBytes(32));
    memory.close();
    expect(view.isClosed).toBe(true);
    device.close();
  });
});
