import type { Driver } from '@cumem/core-types';
import { useDriver } from '@cumem/memory';
import { countingDriver, describeEachDriver } from '@cumem/testing/vitest';
import { tableFromArrays, tableToIPC } from 'apache-arrow';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters, sameBytes } from '../../test/support.js';
import { Context } from '../context/context.js';
import { newHostArray } from '../host/host-array.js';
import { hostBufferOf, newHostBuffer } from '../host/host-buffer.js';
import { tableFromDevice, tableToDevice } from './device-table.js';

interface HostToDeviceCopy {
  readonly dst: bigint;
  readonly src: ArrayBufferView;
}

/**
 * The driver with its host-to-device copies recorded (source views included). Members are
 * copied onto a plain object, methods bound to the driver: a Proxy breaks on the adapters
 * (private fields behind getters, frozen objects).
 */
function recordingDriver(inner: Driver): { driver: Driver; copies: HostToDeviceCopy[] } {
  const copies: HostToDeviceCopy[] = [];
  const wrapped: Record<PropertyKey, unknown> = {};
  for (let level: object | null = inner; level && level !== Object.prototype; ) {
    for (const key of Reflect.ownKeys(level)) {
      if (key === 'constructor' || key in wrapped) continue;
      const descriptor = Object.getOwnPropertyDescriptor(level, key);
      if (descriptor?.get) {
        Object.defineProperty(wrapped, key, { get: () => Reflect.get(inner, key), enumerable: true });
      } else if (typeof descriptor?.value === 'function') {
        wrapped[key] = (descriptor.value as (...args: unknown[]) => unknown).bind(inner);
      } else {
        wrapped[key] = descriptor?.value;
      }
    }
    level = Object.getPrototypeOf(level) as object | null;
  }
  wrapped.memcpyHtoDAsync = (dst: bigint, src: ArrayBufferView, stream: bigint) => {
    copies.push({ dst, src });
    inner.memcpyHtoDAsync(dst, src, stream);
  };
  return { driver: wrapped as unknown as Driver, copies };
}

const rows = 100_000; // 400 KB + 800 KB of column bodies: above the 256 KiB direct-copy threshold

function fill(ids: Int32Array, values: Float64Array): void {
  for (let i = 0; i < ids.length; i++) {
    ids[i] = (i * 2654435761) | 0;
    values[i] = i * 0.5 - 7;
  }
}

describeEachDriver(adapters, 'tables in pinned memory', (entry) => {
  let context: Context;
  let copies: HostToDeviceCopy[];
  let log: ReturnType<typeof countingDriver>['log'];

  beforeAll(() => {
    const recorded = recordingDriver(entry.driver);
    copies = recorded.copies;
    const counted = countingDriver(recorded.driver);
    log = counted.log;
    useDriver(counted.driver);
    context = new Context(0);
  });

  describe('newHostArray / hostBufferOf', () => {
    it('makes typed arrays in page-locked memory, and refuses bad arguments', () => {
      const ids = newHostArray(Int32Array, 1000);
      expect(ids).toBeInstanceOf(Int32Array);
      expect(ids.length).toBe(1000);
      const owner = hostBufferOf(ids);
      expect(owner?.size).toBe(4000);
      expect(hostBufferOf(ids.buffer)).toBe(owner);
      ids[999] = -5;
      expect(owner?.bytes[3996]).toBe(0xfb); // -5, little-endian
      expect(newHostArray(BigInt64Array, 3, { allocator: 'pool' }).byteLength).toBe(24);
      expect(newHostArray(Float64Array, 0).length).toBe(0);
      expect(hostBufferOf(new Int32Array(4))).toBeUndefined();
      expect(hostBufferOf('x' as never)).toBeUndefined();
      owner?.close();
      expect(hostBufferOf(ids)).toBeUndefined();
      expect(() => newHostArray(Array as never, 4)).toThrow(TypeError);
      expect(() => newHostArray(Int32Array, -1)).toThrow(RangeError);
      expect(() => newHostArray(Int32Array, 1.5)).toThrow(RangeError);
      expect(() => newHostArray(Int32Array, '4' as never)).toThrow(TypeError);
      expect(() => newHostArray(Float64Array, 2 ** 51)).toThrow(RangeError);
    });
  });

  describe('tableToDevice from pinned columns', () => {
    it('copies each pinned column body straight from its memory, metadata gathered: the C sequence, no events up', () => {
      const ids = newHostArray(Int32Array, rows);
      const values = newHostArray(Float64Array, rows);
      fill(ids, values);
      const table = tableFromArrays({ id: ids, value: values });
      // Arrow JS builds the vectors over the arrays without copying them
      expect(table.getChild('value')?.data[0]?.values.buffer).toBe(values.buffer);
      copies.length = 0;
      log.reset();
      using onDevice = tableToDevice(table, context);
      // C copies each column and waits once; the two more copies are the gathered metadata
      // before the body and the end-of-stream marker. No event, no staging ring.
      const copyCalls = log.calls.filter((name) => /^(memcpy|staged|event|stream)/.test(name));
      expect(copyCalls).toEqual([...Array(4).fill('memcpyHtoDAsync'), 'streamSynchronize']);
      // The pageable pieces are queued first (the driver may wait for the stream to stage them).
      expect(copies.slice(-2).map((copy) => copy.src.buffer)).toEqual([ids.buffer, values.buffer]);
      expect(sameBytes(onDevice.buffer.copyToHost(), tableToIPC(table, 'stream'))).toBe(true);
      const idsCopy = copies.find((copy) => copy.src.buffer === ids.buffer);
      const valuesCopy = copies.find((copy) => copy.src.buffer === values.buffer);
      expect(idsCopy?.src.byteLength).toBe(rows * 4);
      expect(valuesCopy?.src.byteLength).toBe(rows * 8);
      const idsRange = onDevice.getColumn('id')?.chunks[0]?.buffers[1];
      expect(idsCopy?.dst).toBe(onDevice.buffer.address + BigInt(idsRange?.offset ?? -1));
      const staged = copies.filter((copy) => copy !== idsCopy && copy !== valuesCopy);
      const stagedBytes = staged.reduce((sum, copy) => sum + copy.src.byteLength, 0);
      expect(stagedBytes).toBe(onDevice.byteLength - rows * 12);
      for (const copy of staged) expect(hostBufferOf(copy.src)).toBeUndefined(); // small pageable copies
      // Read back into pinned memory, pipelined: the framing the layout names (the schema and
      // batch metadata, back to back, and the end marker) in one wait, then the body with an
      // event while the headers are checked and the Table built, then one wait.
      log.reset();
      const whole = tableFromDevice(onDevice);
      expect(log.calls.filter((name) => /^(memcpy|staged|event|stream)/.test(name))).toEqual([
        'memcpyDtoHAsync',
        'memcpyDtoHAsync',
        'streamSynchronize',
        'memcpyDtoHAsync',
        'eventCreate',
        'eventRecord',
        'streamSynchronize',
        'eventDestroy',
      ]);
      expect(whole.numRows).toBe(rows);
      const back = tableFromDevice(onDevice);
      expect(sameBytes(back.getChild('id')?.toArray(), ids)).toBe(true);
      expect(sameBytes(back.getChild('value')?.toArray(), values)).toBe(true);
    });

    it('merges columns that lie back to back in one HostBuffer into one copy', () => {
      const host = newHostBuffer(rows * 12);
      const ids = new Int32Array(host.bytes.buffer, host.bytes.byteOffset, rows);
      const values = new Float64Array(host.bytes.buffer, host.bytes.byteOffset + rows * 4, rows);
      fill(ids, values);
      const table = tableFromArrays({ id: ids, value: values });
      copies.length = 0;
      using onDevice = tableToDevice(table, context);
      const direct = copies.filter((copy) => copy.src.buffer === host.bytes.buffer);
      expect(direct.map((copy) => copy.src.byteLength)).toEqual([rows * 12]);
      expect(sameBytes(onDevice.buffer.copyToHost(), tableToIPC(table, 'stream'))).toBe(true);
    });

    it("goes straight whatever the staging choice (a HostBuffer, 'pinned', 'pageable')", () => {
      const ids = newHostArray(Int32Array, rows);
      const values = newHostArray(Float64Array, rows);
      fill(ids, values);
      const table = tableFromArrays({ id: ids, value: values });
      const expected = tableToIPC(table, 'stream');
      const staging = newHostBuffer(4096);
      for (const [choice, straight] of [
        [staging, true],
        ['pinned', true], // 'pinned' stages pageable pieces only
        ['pageable', true], // the driver reads the JS memory itself: no CPU copy of ours either
      ] as const) {
        copies.length = 0;
        using onDevice = tableToDevice(table, context, { staging: choice });
        expect(sameBytes(onDevice.buffer.copyToHost(), expected)).toBe(true);
        const fromColumns = copies.filter((copy) => copy.src.buffer === values.buffer);
        expect(fromColumns.length > 0).toBe(straight);
      }
      staging.close();
    });

    it('re-uploads a table read back into pinned memory with one copy of its body', () => {
      const ids = Int32Array.from({ length: rows }, (_, i) => i);
      const values = Float64Array.from({ length: rows }, (_, i) => i / 4);
      using first = tableToDevice(tableFromArrays({ id: ids, value: values }), context);
      const pinned = tableFromDevice(first); // columns view one pinned stream
      copies.length = 0;
      using second = tableToDevice(pinned, context);
      expect(second.buffer.equals(first.buffer)).toBe(true);
      const owner = hostBufferOf(pinned.getChild('id')?.data[0]?.values ?? new Uint8Array(0));
      expect(owner).toBeDefined();
      const direct = copies.filter((copy) => hostBufferOf(copy.src) === owner);
      expect(direct.map((copy) => copy.src.byteLength)).toEqual([rows * 12]);
    });
  });
});
