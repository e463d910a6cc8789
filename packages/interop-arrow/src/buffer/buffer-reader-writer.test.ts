import { CudaStateError } from '@cumem/core-types';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters, contextWith, patternBytes } from '../../test/support.js';
import type { Context } from '../context/context.js';
import { BufferReader } from './buffer-reader.js';
import { BufferWriter } from './buffer-writer.js';

// Mirrors pyarrow's test_BufferWriter, test_BufferWriter_edge_cases, test_BufferReader and
// test_BufferReader_zero_size.
describeEachDriver(adapters, 'BufferReader and BufferWriter', (entry) => {
  let context: Context;

  beforeAll(() => {
    context = contextWith(entry.driver);
  });

  describe('BufferWriter', () => {
    function writes(totalSize: number, chunkSize: number, bufferSize = 0): void {
      const cbuf = context.deviceBuffer(totalSize);
      const writer = new BufferWriter(cbuf);
      const data = patternBytes(totalSize, totalSize + bufferSize);
      if (bufferSize > 0) writer.bufferSize = bufferSize;
      expect(writer.tell()).toBe(0);
      writer.write(data.subarray(0, chunkSize));
      expect(writer.tell()).toBe(chunkSize);
      writer.seek(0);
      expect(writer.tell()).toBe(0);
      let position = 0;
      while (position < totalSize) {
        const n = Math.min(chunkSize, totalSize - position);
        writer.write(data.subarray(position, position + n));
        position += n;
      }
      writer.flush();
      expect(cbuf.copyToHost()).toEqual(data);
      writer.close();
    }

    it('writes in chunks, unbuffered and buffered', () => {
      writes(1 << 16, 1000);
      writes(1 << 16, 1000, (1 << 16) / 16);
    });

    it('writeAt writes at a position and leaves the position after the data', () => {
      const cbuf = context.deviceBuffer(100);
      const writer = new BufferWriter(cbuf);
      const range = (n: number) => Uint8Array.from({ length: n }, (_, i) => i);
      writer.write(range(100));
      writer.writeAt(50, range(25));
      expect(writer.tell()).toBe(75);
      writer.write(range(25));
      writer.flush();
      const out = cbuf.copyToHost();
      expect(out.subarray(0, 50)).toEqual(range(50));
      expect(out.subarray(50, 75)).toEqual(range(25));
      expect(out.subarray(75)).toEqual(range(25));
    });

    it('edge cases: buffer size changes flush, large writes bypass the buffer', () => {
      const size = 1000;
      const cbuf = context.deviceBuffer(size);
      const writer = new BufferWriter(cbuf);
      const data = patternBytes(size, 99);
      expect(writer.bufferSize).toBe(0);
      writer.bufferSize = 100;
      expect(writer.bufferSize).toBe(100);
      writer.write(data.subarray(0, 0));
      expect(writer.tell()).toBe(0);
      writer.write(data.subarray(0, 10));
      expect(writer.numBytesBuffered).toBe(10);
      writer.bufferSize = 200;
      expect(writer.bufferSize).toBe(200);
      expect(writer.numBytesBuffered).toBe(0);
      writer.write(data.subarray(10, 310));
      expect(writer.numBytesBuffered).toBe(0);
      writer.write(data.subarray(310, 510));
      expect(writer.numBytesBuffered).toBe(0);
      writer.write(data.subarray(510, 900));
      writer.write(data.subarray(900, 1000));
      expect(writer.numBytesBuffered).toBe(100);
      writer.flush();
      expect(writer.numBytesBuffered).toBe(0);
      expect(cbuf.copyToHost()).toEqual(data);
    });

    it('refuses writes past the end, bad seeks and bad data', () => {
      const writer = new BufferWriter(context.deviceBuffer(10));
      writer.seek(8);
      expect(() => writer.write(new Uint8Array(3))).toThrow(/out of bounds/);
      expect(() => writer.seek(11)).toThrow(/position out of range/);
      expect(() => writer.seek(-1, 1)).not.toThrow();
      expect(writer.tell()).toBe(7);
      expect(() => writer.writeAt(11, new Uint8Array(1))).toThrow(/position out of range/);
      expect(() => writer.write('abc' as never)).toThrow(TypeError);
      writer.close();
      expect(() => writer.write(new Uint8Array(1))).toThrow(CudaStateError);
    });
  });

  describe('BufferReader', () => {
    it('seeks, clamps reads at the end, reads into host memory and gives device views', () => {
      const size = 1000;
      const data = patternBytes(size, 42);
      const cbuf = context.bufferFromData(data);
      const reader = new BufferReader(cbuf);
      expect(reader.seek(950)).toBe(950);
      expect(reader.tell()).toBe(950);
      const tail = reader.read(100);
      expect(tail.byteLength).toBe(50);
      expect(tail).toEqual(data.subarray(950));
      expect(reader.tell()).toBe(1000);

      reader.seek(925);
      const into = new Uint8Array(100);
      expect(reader.readInto(into)).toBe(75);
      expect(reader.tell()).toBe(1000);
      expect(into.subarray(0, 75)).toEqual(data.subarray(925));

      reader.seek(0);
      const all = reader.readBuffer();
      expect(all.address).toBe(cbuf.address);
      expect(all.parent).toBe(cbuf);
      expect(all.copyToHost()).toEqual(data);
      expect(reader.readBuffer(10).size).toBe(0);

      expect(reader.seek(-100, 2)).toBe(900);
      expect(reader.seek(50, 1)).toBe(950);
      const view = reader.readBuffer(20);
      expect(view.address).toBe(cbuf.address + 950n);
      expect(view.toBytes()).toEqual(data.subarray(950, 970));
      expect(() => reader.seek(1001)).toThrow(/position out of range/);
      expect(() => reader.read(-1)).toThrow(RangeError);
    });

    it('works on an empty buffer', () => {
      const reader = new BufferReader(context.deviceBuffer(0));
      reader.seek(0);
      expect(reader.read().byteLength).toBe(0);
      expect(reader.tell()).toBe(0);
      expect(reader.readBuffer().size).toBe(0);
    });

    it('refuses a non-CudaBuffer', () => {
      expect(() => new BufferReader(new Uint8Array(1) as never)).toThrow(TypeError);
      expect(() => new BufferWriter({} as never)).toThrow(TypeError);
    });
  });
});
