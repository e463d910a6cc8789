// pyarrow's CUDA tests, translated case by case onto @cumem/interop-arrow's public API.
//
// Upstream: apache/arrow python/pyarrow/tests/test_cuda.py (read at commit
// 00153a7be80cc8bb60697f7b011e1f15f01d8605; the later make_table_cuda refactor has the same
// test functions) and python/pyarrow/tests/test_cuda_numba_interop.py (commit
// 0d40ac8ad32efb8a3c564cb6bfeef52d590e8398). Numba's part there is played by cumem's CUDA Array
// Interface (`cudaArrayInterface` objects, what Numba's device arrays export) and by
// @cumem/memory Buffers (`CudaBuffer.fromBuffer` / `toMemoryBuffer`, the analog of
// `from_numba` / `to_numba`); the `c` parametrization (a Context made by pyarrow, or one reached
// through Numba's) is a `new Context(0)` or the Context of a CudaBuffer wrapping @cumem/memory
// memory. Deliberate differences (README "Differences from pyarrow.cuda"): RangeError /
// TypeError for ValueError / ArrowTypeError, a strided array interface viewed over its whole
// span instead of refused as non-contiguous, HostBuffer slices are typed-array views.
//
// Every upstream test function, and where it is covered ("here" = this file):
//
// test_cuda.py
// | test_Context                           | here: 'test_Context: …'; src/buffer/cuda-buffer.test.ts: 'Context: device number, device count, out-of-range device is a RangeError' |
// | test_manage_allocate_free_host[0,1,1000] | here: 'test_manage_allocate_free_host[size]: …'; src/buffer/cuda-buffer.test.ts: 'HostBuffer: zero-copy bytes, sizes 0/1/1000, constructor refused' |
// | test_context_allocate_del              | src/buffer/cuda-buffer.test.ts: 'bytesAllocated rises with an allocation and falls when it is closed' |
// | test_context_device_buffer[0,1,1000]   | here: 'test_context_device_buffer[size]: …'; src/buffer/cuda-buffer.test.ts: 'bufferFromData copies host data, slices and device buffers (size N)'; src/buffer/position-rules.test.ts: 'bufferFromData range' |
// | test_context_from_object[0,1,1000]     | here: 'test_context_from_object[size]: …'; src/buffer/cuda-buffer.test.ts: 'bufferFromObject: views of CudaBuffer, HostBuffer, memory Buffer and cudaArrayInterface; TypeError otherwise' |
// | test_foreign_buffer                    | here: 'test_foreign_buffer: …' (3 cases); src/buffer/cuda-buffer.test.ts: 'foreignBuffer keeps its base alive and reads the memory' |
// | test_CudaBuffer[0,1,1000]              | here: 'test_CudaBuffer[size]: …' |
// | test_HostBuffer[0,1,1000]              | here: 'test_HostBuffer[size]: …' |
// | test_copy_from_to_host[0,1,1000]       | here: 'test_copy_from_to_host[size]: …' |
// | test_copy_to_host[0,1,1000]            | here: 'test_copy_to_host[size]: …'; src/buffer/position-rules.test.ts: 'copyToHost rules, size N' |
// | test_copy_from_device[same][0,1,1000]  | here: 'test_copy_from_device[same, size]: …' |
// | test_copy_from_device[another][0,1,1000] | here (two devices: reference driver with 2, GPUs where there are 2): 'test_copy_from_device[another, size]: …'; src/multi-gpu.test.ts: 'copyFromDevice crosses contexts both ways, whatever device is current' |
// | test_copy_from_host[0,1,1000]          | here: 'test_copy_from_host[size]: …'; src/buffer/position-rules.test.ts: 'copyFromHost / copyFromDevice rules, size N' |
// | test_BufferWriter                      | src/buffer/buffer-reader-writer.test.ts: 'writes in chunks, unbuffered and buffered', 'writeAt writes at a position and leaves the position after the data' |
// | test_BufferWriter_edge_cases           | src/buffer/buffer-reader-writer.test.ts: 'edge cases: buffer size changes flush, large writes bypass the buffer' |
// | test_BufferReader                      | src/buffer/buffer-reader-writer.test.ts: 'seeks, clamps reads at the end, reads into host memory and gives device views' |
// | test_BufferReader_zero_size            | src/buffer/buffer-reader-writer.test.ts: 'works on an empty buffer' |
// | test_batch_serialize                   | src/table/device-arrow.test.ts: 'writes the exact bytes of the Arrow JS record batch message and reads them back' |
// | test_table_deserialize                 | here: 'test_table_deserialize: …' (pyarrow's whole make_table, dictionaries of list and struct included); src/table/device-arrow.test.ts: 'reads every message of a stream on the device in turn (test_table_deserialize)' |
// | test_create_table_with_device_buffers  | here: 'test_create_table_with_device_buffers: …' |
// | test_IPC[0,1,1000]                     | src/buffer/ipc-handle.test.ts: 'the child reads the exported bytes (size N)' (GPU adapters with IPC; the reference driver has none) |
//
// test_cuda_numba_interop.py (each for c = pyarrow.cuda / numba.cuda, see above)
// | test_context[c]                        | here: 'test_context[c]: …' |
// | test_from_object[c, dtype, size]       | here: 'test_from_object[c, dtype, size]: …' (uint8, int16, float32 × 0, 1, 8, 1000) |
// | test_numba_memalloc[c, dtype]          | here: 'test_numba_memalloc[c, dtype]: …' |
// | test_pyarrow_memalloc[c, dtype]        | here: 'test_pyarrow_memalloc[c, dtype]: …' |
// | test_numba_context[c, dtype]           | here: 'test_numba_context[c, dtype]: …' |
//
// Not ported
// | test_pyarrow_jit[c, dtype]             | launches a kernel over a CudaBuffer's memory: cumem's kernels live in @cumem/compute, which @cumem/interop-arrow does not depend on (not even as a devDependency) |
import { CudaError, CudaStateError } from '@cumem/core-types';
import { currentDriver, currentResource, Buffer as MemoryBuffer, setCurrentDevice } from '@cumem/memory';
import { collectGarbageUntil } from '@cumem/test-support';
import { describeEachDriver, describeEachDriverWithDevices } from '@cumem/testing/vitest';
import {
  Bool,
  type Data,
  Dictionary,
  Field,
  Int16,
  Int32,
  List,
  makeData,
  makeVector,
  Struct,
  Table,
  tableFromIPC,
  tableToIPC,
  Utf8,
  type Vector,
  vectorFromArray,
} from 'apache-arrow';
import { beforeAll, expect, it } from 'vitest';
import {
  BufferReader,
  Context,
  type CudaArrayInterface,
  CudaBuffer,
  HostBuffer,
  hostBufferOf,
  newHostBuffer,
  tableFromDevice,
} from '../../src/index.js';
import { adapters, contextWith, patternBytes, sameBytes } from '../support.js';

const sizes = [0, 1, 1000];
const q = (size: number) => Math.floor(size / 4);
const half = (size: number) => Math.floor(size / 2);

/** pyarrow's make_random_buffer(size, target='device'): the bytes and a new device buffer holding them. */
function randomDeviceBuffer(
  context: Context,
  size: number,
  seed: number,
): { arr: Uint8Array; dbuf: CudaBuffer } {
  const arr = patternBytes(size, seed);
  const dbuf = context.newBuffer(size);
  expect(dbuf.size).toBe(size);
  dbuf.copyFromHost(arr, { position: 0, nbytes: size });
  return { arr, dbuf };
}

/** pyarrow's (position, nbytes) pairs that are "out of range" for every copy direction. */
function outOfRange(size: number): Array<[number, number]> {
  return [
    [size + 2, -1],
    [-2, -1],
    [size + 1, 0],
    [-3, 0],
  ];
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

// pyarrow's make_table: nullable int16, list<int32>, struct<utf8, bool>, and dictionaries of
// utf8, of that list and of that struct (Arrow JS builds the last two from Data directly).
function makeTable(): Table {
  const listType = new List(new Field('item', new Int32(), true));
  const structType = new Struct([new Field('strs', new Utf8(), true), new Field('bools', new Bool(), true)]);
  const a0 = vectorFromArray([0, 1, 42, null], new Int16());
  const a1 = vectorFromArray([[0, 1], [2], [], null], listType);
  const a2 = vectorFromArray(
    [{ strs: 'ab', bools: true }, { strs: 'cde', bools: false }, { strs: null, bools: null }, null],
    structType,
  );
  const a3 = vectorFromArray(['foo', 'bar', 'bar', null], new Dictionary(new Utf8(), new Int32()));
  const dictionaryOf = (dictionary: Vector, indices: number[]) =>
    makeVector(
      makeData({
        type: new Dictionary(dictionary.type, new Int32()),
        length: 4,
        nullCount: 1,
        nullBitmap: Uint8Array.of(0b0111),
        data: Int32Array.from(indices),
        dictionary,
      }) as Data,
    );
  const a4 = dictionaryOf(a1, [2, 1, 2, 0]);
  const a5 = dictionaryOf(a2, [2, 1, 0, 0]);
  return new Table({ f0: a0, f1: a1, f2: a2, f3: a3, f4: a4, f5: a5 });
}

/** make_table_cuda: the table, its stream bytes, a device buffer holding them and the table read from it. */
function makeTableOnDevice(context: Context): {
  htable: Table;
  hbuf: Uint8Array;
  dbuf: CudaBuffer;
  dtable: Table;
} {
  const htable = makeTable();
  const hbuf = tableToIPC(htable, 'stream');
  const dbuf = context.newBuffer(hbuf.byteLength);
  dbuf.copyFromHost(hbuf, { nbytes: hbuf.byteLength });
  const dtable = tableFromDevice(new BufferReader(dbuf));
  return { htable, hbuf, dbuf, dtable };
}

const fieldsOf = (table: Table) =>
  table.schema.fields.map((field) => `${field.name}: ${field.type} ${field.nullable}`);

describeEachDriver(adapters, 'pyarrow test_cuda.py', (entry) => {
  let context: Context;

  beforeAll(() => {
    context = contextWith(entry.driver);
  });

  it('test_Context: device count, first and last device, an out-of-range device is a RangeError', () => {
    const count = Context.numDevices();
    expect(count).toBeGreaterThan(0);
    expect(context.deviceNumber).toBe(0);
    expect(new Context(count - 1).deviceNumber).toBe(count - 1);
    expect(() => new Context(count)).toThrow(RangeError);
    expect(() => new Context(count)).toThrow(/deviceNumber must be non-negative and less than/);
  });

  for (const size of sizes) {
    it(`test_manage_allocate_free_host[${size}]: a HostBuffer's bytes are its memory, seen alike by every view`, () => {
      const buf = newHostBuffer(size);
      const arr = buf.bytes;
      arr.fill(0);
      arr.fill(1, q(size), Math.floor((3 * size) / 4));
      const copy = arr.slice();
      expect(buf.bytes).toEqual(copy);
      expect(new Uint8Array(buf.bytes.buffer, buf.bytes.byteOffset, size)).toEqual(copy);
      expect(buf.size).toBe(size);
      buf.close();
    });

    it(`test_context_device_buffer[${size}]: device buffers from host bytes, arrays, slices, device buffers and HostBuffers`, () => {
      const arr = patternBytes(size, 101);
      const hostBuf = arr.buffer.slice(0); // pa.allocate_buffer: plain host memory
      let cudabuf = context.bufferFromData(hostBuf);
      expect(cudabuf.size).toBe(size);
      expect(cudabuf.copyToHost()).toEqual(arr);

      // A CudaBuffer is not host memory (pyarrow: no buffer protocol).
      expect(() => context.newBuffer(1).copyFromHost(cudabuf as never)).toThrow(TypeError);

      cudabuf = context.bufferFromData(arr);
      expect(cudabuf.size).toBe(size);
      expect(cudabuf.copyToHost()).toEqual(arr);

      cudabuf = context.bufferFromData(Buffer.from(arr)); // arr.tobytes()
      expect(cudabuf.size).toBe(size);
      expect(cudabuf.copyToHost()).toEqual(arr);

      // A view of another device buffer shares its memory.
      let cudabuf2 = cudabuf.slice(0, cudabuf.size);
      expect(cudabuf2.size).toBe(size);
      expect(cudabuf2.copyToHost()).toEqual(arr);
      if (size > 1) {
        cudabuf2.copyFromHost(arr.subarray(half(size)));
        // (size is 1000 here: the second half is where it was)
        expect(cudabuf.copyToHost()).toEqual(concat(arr.subarray(half(size)), arr.subarray(half(size))));
        cudabuf2.copyFromHost(arr.subarray(0, half(size)));
        expect(cudabuf.copyToHost()).toEqual(arr);
      }

      // A copy of another device buffer does not.
      cudabuf2 = context.bufferFromData(cudabuf);
      expect(cudabuf2.size).toBe(size);
      expect(cudabuf2.copyToHost()).toEqual(arr);
      cudabuf2.copyFromHost(arr.subarray(half(size)));
      expect(cudabuf.copyToHost()).toEqual(arr);

      // Slices clamp their length to what the buffer has.
      cudabuf2 = cudabuf.slice(0, cudabuf.size + 10);
      expect(cudabuf2.size).toBe(size);
      expect(cudabuf2.copyToHost()).toEqual(arr);
      cudabuf2 = cudabuf.slice(q(size), size + 10);
      expect(cudabuf2.size).toBe(size - q(size));
      expect(cudabuf2.copyToHost()).toEqual(arr.subarray(q(size)));

      const soffset = q(size);
      const ssize = Math.floor((2 * size) / 4);
      const part = arr.subarray(soffset, soffset + ssize);
      const sources: Array<[string, () => CudaBuffer]> = [
        [
          'host memory, offset and size',
          () => context.bufferFromData(hostBuf, { offset: soffset, size: ssize }),
        ],
        ['a slice of host memory', () => context.bufferFromData(hostBuf.slice(soffset, soffset + ssize))],
        ['an array, offset and size', () => context.bufferFromData(arr, { offset: soffset, size: ssize })],
        ['a slice of an array', () => context.bufferFromData(part)],
        [
          'bytes, offset and size',
          () => context.bufferFromData(Buffer.from(arr), { offset: soffset, size: ssize }),
        ],
      ];
      for (const [source, make] of sources) {
        const made = make();
        expect(made.size, source).toBe(ssize);
        expect(made.copyToHost(), source).toEqual(part);
      }

      expect(context.newBuffer(size).size).toBe(size);

      // A slice of another device buffer.
      cudabuf = context.bufferFromData(arr);
      cudabuf2 = cudabuf.slice(soffset, ssize);
      expect(cudabuf2.size).toBe(ssize);
      expect(cudabuf2.copyToHost()).toEqual(part);

      // From a HostBuffer, whole, with offset and size, and a view of part of it.
      const host = newHostBuffer(size);
      host.bytes.set(arr);
      cudabuf = context.bufferFromData(host);
      expect(cudabuf.size).toBe(size);
      expect(cudabuf.copyToHost()).toEqual(arr);
      cudabuf = context.bufferFromData(host, { offset: soffset, size: ssize });
      expect(cudabuf.size).toBe(ssize);
      expect(cudabuf.copyToHost()).toEqual(part);
      cudabuf = context.bufferFromData(host.bytes.subarray(soffset, soffset + ssize));
      expect(cudabuf.size).toBe(ssize);
      expect(cudabuf.copyToHost()).toEqual(part);
      host.close();
    });

    it(`test_context_from_object[${size}]: views of a HostBuffer and a CudaBuffer; other objects refused`, () => {
      const { arr, dbuf: cbuf } = randomDeviceBuffer(context, size, 17);
      const hbuf = newHostBuffer(size);
      hbuf.bytes.set(arr);
      let cbuf2 = context.bufferFromObject(hbuf);
      expect(cbuf2.size).toBe(cbuf.size);
      expect(cbuf2.copyToHost()).toEqual(arr);

      const again = context.bufferFromObject(cbuf2);
      expect(again).toBe(cbuf2);
      cbuf2 = again;
      expect(cbuf2.size).toBe(cbuf.size);
      expect(cbuf2.copyToHost()).toEqual(arr);

      // Plain host memory is not device memory: TypeError (pyarrow: ArrowTypeError).
      expect(() => context.bufferFromObject(Uint8Array.of(49, 50, 51))).toThrow(TypeError);
      expect(() => CudaBuffer.fromBuffer(Uint8Array.of(49, 50, 51) as never)).toThrow(
        /buffer is not backed by a CudaBuffer/,
      );
      expect(() => context.bufferFromObject(Int32Array.of(1, 2, 3))).toThrow(
        /cannot create device buffer view from .*Int32Array/,
      );
      hbuf.close();
    });

    it(`test_CudaBuffer[${size}]: size, isCpu, bytes, address, single bytes, slices and parent; no public constructor`, () => {
      const arr = patternBytes(size, 23);
      const cbuf = context.bufferFromData(arr);
      expect(cbuf.size).toBe(size);
      expect(cbuf.isCpu).toBe(false);
      expect(cbuf.toBytes()).toEqual(arr);
      if (size > 0) expect(cbuf.address).toBeGreaterThan(0n);
      for (let i = 0; i < size; i++) expect(cbuf.slice(i, 1).toBytes()[0]).toBe(arr[i]);
      expect(cbuf.slice(0).toBytes()).toEqual(arr);
      expect(cbuf.slice(q(size), half(size) - q(size)).toBytes()).toEqual(arr.subarray(q(size), half(size)));
      const sbuf = cbuf.slice(q(size), half(size));
      expect(sbuf.parent).toBe(cbuf);
      expect(() => new (CudaBuffer as unknown as new () => unknown)()).toThrow(
        /Do not call CudaBuffer's constructor directly/,
      );
    });

    it(`test_HostBuffer[${size}]: size, isCpu, bytes, single bytes, slices and their owner; no public constructor`, () => {
      const arr = patternBytes(size, 29);
      const hbuf = newHostBuffer(size);
      hbuf.bytes.set(arr);
      expect(hbuf.size).toBe(size);
      expect(hbuf.isCpu).toBe(true);
      expect(hbuf.toBytes()).toEqual(arr);
      for (let i = 0; i < size; i++) expect(hbuf.bytes[i]).toBe(arr[i]);
      expect(hbuf.bytes.subarray(0)).toEqual(arr);
      const sbuf = hbuf.bytes.subarray(q(size), half(size));
      expect(sbuf).toEqual(arr.subarray(q(size), half(size)));
      // HostBuffer slices are typed-array views; their owner is the HostBuffer (pyarrow: parent).
      // A 0-byte HostBuffer has no memory for a view to lie in.
      expect(hostBufferOf(sbuf)).toBe(size > 0 ? hbuf : undefined);
      hbuf.close();
      expect(() => new (HostBuffer as unknown as new () => unknown)()).toThrow(
        /Do not call HostBuffer's constructor directly/,
      );
    });

    it(`test_copy_from_to_host[${size}]: host bytes to a new device buffer and back`, () => {
      const buf = Uint8Array.from({ length: size }, (_, i) => i % 256);
      expect(CudaBuffer.isCudaBuffer(buf)).toBe(false);
      const deviceBuffer = context.newBuffer(size);
      expect(CudaBuffer.isCudaBuffer(deviceBuffer)).toBe(true);
      expect(deviceBuffer.size).toBe(size);
      expect(deviceBuffer.isCpu).toBe(false);
      expect(deviceBuffer.copyFromHost(buf, { position: 0, nbytes: size })).toBe(size);
      expect(deviceBuffer.copyToHost({ position: 0, nbytes: size })).toEqual(buf);
    });

    it(`test_copy_to_host[${size}]: positions, counts, a given host buffer, and pyarrow's refusals`, () => {
      const { arr, dbuf } = randomDeviceBuffer(context, size, 31);
      expect(dbuf.copyToHost()).toEqual(arr);
      expect(dbuf.copyToHost({ position: q(size) })).toEqual(arr.subarray(q(size)));
      const eighth = Math.floor(size / 8);
      expect(dbuf.copyToHost({ position: q(size), nbytes: eighth })).toEqual(
        arr.subarray(q(size), q(size) + eighth),
      );
      expect(dbuf.copyToHost({ position: q(size), nbytes: 0 }).byteLength).toBe(0);

      for (const [position, nbytes] of outOfRange(size)) {
        expect(() => dbuf.copyToHost({ position, nbytes })).toThrow(/position out of range/);
      }
      for (const [position, nbytes] of [
        [0, size + 1],
        [half(size), Math.floor((size + 1) / 2) + 1],
        [size, 1],
      ] as const) {
        expect(() => dbuf.copyToHost({ position, nbytes })).toThrow(
          /requested more to copy than available from device buffer/,
        );
      }

      const buf = new Uint8Array(q(size));
      dbuf.copyToHost({ buf });
      expect(buf).toEqual(arr.subarray(0, q(size)));
      if (size >= 12) {
        dbuf.copyToHost({ buf, position: 12 });
        expect(buf).toEqual(arr.subarray(12, 12 + q(size)));
        dbuf.copyToHost({ buf, nbytes: 12 });
        expect(buf.subarray(0, 12)).toEqual(arr.subarray(0, 12));
        dbuf.copyToHost({ buf, nbytes: 12, position: 6 });
        expect(buf.subarray(0, 12)).toEqual(arr.subarray(6, 18));
        for (const [position, nbytes] of [
          [0, size + 10],
          [10, size - 5],
          [0, half(size)],
          [q(size), q(size) + 1],
        ] as const) {
          expect(() => dbuf.copyToHost({ buf, position, nbytes })).toThrow(
            /requested copy does not fit into host buffer/,
          );
        }
      }
    });

    it(`test_copy_from_device[same, ${size}]: copies between buffers of one context, with pyarrow's refusals`, () => {
      copyFromDeviceCase(context, context, size);
    });

    it(`test_copy_from_host[${size}]: positions, counts, and pyarrow's refusals`, () => {
      const arr = patternBytes(size, 37);
      const list = [...arr];
      const dbuf = context.newBuffer(size);
      const put = (options?: { position?: number; nbytes?: number }) => {
        dbuf.copyFromHost(arr, options);
        return [...dbuf.copyToHost()];
      };
      expect(put()).toEqual(list);
      if (size > 4) {
        expect(put({ position: q(size) })).toEqual([
          ...list.slice(0, q(size)),
          ...list.slice(0, size - q(size)),
        ]);
        expect(put()).toEqual(list);
        expect(put({ position: 1, nbytes: half(size) })).toEqual([
          ...list.slice(0, 1),
          ...list.slice(0, half(size)),
          ...list.slice(size - (size - half(size) - 1)),
        ]);
      }
      for (const [position, nbytes] of outOfRange(size)) {
        expect(() => put({ position, nbytes })).toThrow(/position out of range/);
      }
      expect(() => put({ position: 0, nbytes: size + 1 })).toThrow(
        /requested more to copy than available from host buffer/,
      );
      if (size >= 4) {
        expect(() => put({ position: half(size), nbytes: Math.floor((size + 1) / 2) + 1 })).toThrow(
          /requested more to copy than available in device buffer/,
        );
      }
    });
  }

  // pyarrow counts references to the base; here: the base stays reachable while the view is,
  // and is collected once the view is.
  async function viewHoldsItsBase(
    makeBase: () => { base: object; address: bigint; size: number },
  ): Promise<void> {
    let made: ReturnType<typeof makeBase> | undefined = makeBase();
    const baseRef = new WeakRef(made.base);
    let view: CudaBuffer | undefined = context.foreignBuffer(made.address, made.size, made.base);
    expect(view.base).toBe(made.base);
    made = undefined;
    expect(await collectGarbageUntil(() => baseRef.deref() === undefined, 5)).toBe(false);
    expect(view.copyToHost()).toEqual(patternBytes(10, 41));
    view = undefined;
    expect(await collectGarbageUntil(() => baseRef.deref() === undefined)).toBe(true);
  }

  it('test_foreign_buffer: the view holds its base and lets it go with itself (a CudaBuffer as base)', async () => {
    await viewHoldsItsBase(() => {
      const base = context.bufferFromData(patternBytes(10, 41));
      return { base, address: base.address, size: base.size };
    });
  });

  it.runIf(!entry.isReference)(
    `test_foreign_buffer: the view holds its base and lets it go with itself (a HostBuffer as base)${
      entry.isReference
        ? ' — skipped: not applicable: the reference driver keeps its pinned memory in its own ArrayBuffers, which keep every open HostBuffer reachable'
        : ''
    }`,
    async () => {
      await viewHoldsItsBase(() => {
        const base = newHostBuffer(10);
        base.bytes.set(patternBytes(10, 41));
        return { base, address: base.address, size: base.size };
      });
    },
  );

  it('test_foreign_buffer: the HostBuffer is freed only after the view that holds it', async () => {
    let host: HostBuffer | undefined = newHostBuffer(10);
    host.bytes.set(patternBytes(10, 43));
    const view = context.foreignBuffer(host.address, host.size, host);
    host = undefined;
    await collectGarbageUntil(() => false, 3);
    expect(view.copyToHost()).toEqual(patternBytes(10, 43));
    // cumem's documented rule: closing the base closes the view before any copy could read freed memory.
    const base = view.base as HostBuffer;
    base.close();
    expect(view.isClosed).toBe(true);
    expect(() => view.copyToHost()).toThrow(CudaStateError);
  });

  it.runIf(entry.isReference)(
    `test_foreign_buffer: without a base, memory freed under the view is refused as a CudaError${
      entry.isReference
        ? ''
        : ' — skipped: not applicable: reading freed host memory through a raw view is undefined on a real driver (README, Unsafe by nature); the reference driver refuses the copy as the driver does'
    }`,
    () => {
      const host = newHostBuffer(10);
      const view = context.foreignBuffer(host.address, host.size);
      host.close();
      expect(view.isClosed).toBe(false);
      expect(() => view.copyToHost()).toThrow(CudaError);
    },
  );

  it('test_table_deserialize: a table read from device memory through a BufferReader is the host table', () => {
    const { htable, hbuf, dbuf, dtable } = makeTableOnDevice(context);
    expect(fieldsOf(dtable)).toEqual(fieldsOf(htable));
    expect(dtable.numRows).toBe(htable.numRows);
    expect(dtable.numCols).toBe(htable.numCols);
    expect(sameBytes(dbuf.copyToHost(), hbuf)).toBe(true);
    expect(sameBytes(tableToIPC(tableFromIPC(dbuf.copyToHost()), 'stream'), hbuf)).toBe(true);
    expect(sameBytes(tableToIPC(dtable, 'stream'), hbuf)).toBe(true);
    expect(dtable.getChild('f5')?.get(0)?.toJSON()).toEqual({ strs: null, bools: null });
    expect([...(dtable.getChild('f4')?.get(1) ?? [])]).toEqual([2]);
    dbuf.close();
  });

  it('test_create_table_with_device_buffers: a new Table from the columns of a table read from device memory', () => {
    const { htable, hbuf, dbuf, dtable } = makeTableOnDevice(context);
    const dtable2 = new Table(
      Object.fromEntries(
        dtable.schema.fields.map((field, i) => [field.name, dtable.getChildAt(i) as Vector]),
      ),
    );
    expect(fieldsOf(dtable2)).toEqual(fieldsOf(htable));
    expect(dtable2.numRows).toBe(htable.numRows);
    expect(dtable2.numCols).toBe(htable.numCols);
    expect(sameBytes(dbuf.copyToHost(), hbuf)).toBe(true);
    expect(sameBytes(tableToIPC(dtable2, 'stream'), hbuf)).toBe(true);
    dbuf.close();
  });
});

/** test_copy_from_device's body: `dbuf` of `destination`, filled from a buffer of `source`. */
function copyFromDeviceCase(source: Context, destination: Context, size: number): void {
  const { arr, dbuf: buf } = randomDeviceBuffer(source, size, 47);
  const list = [...arr];
  const dbuf = destination.newBuffer(size);
  const put = (options?: { position?: number; nbytes?: number }) => {
    dbuf.copyFromDevice(buf, options);
    return [...dbuf.copyToHost()];
  };
  expect(put()).toEqual(list);
  if (size > 4) {
    expect(put({ position: q(size) })).toEqual([...list.slice(0, q(size)), ...list.slice(0, size - q(size))]);
    expect(put()).toEqual(list);
    expect(put({ position: 1, nbytes: half(size) })).toEqual([
      ...list.slice(0, 1),
      ...list.slice(0, half(size)),
      ...list.slice(size - (size - half(size) - 1)),
    ]);
  }
  for (const [position, nbytes] of outOfRange(size)) {
    expect(() => put({ position, nbytes })).toThrow(/position out of range/);
  }
  expect(() => put({ position: 0, nbytes: size + 1 })).toThrow(
    /requested more to copy than available from device buffer/,
  );
  if (size >= 4) {
    expect(() => put({ position: half(size), nbytes: Math.floor((size + 1) / 2) + 1 })).toThrow(
      /requested more to copy than available in device buffer/,
    );
  }
  buf.close();
  dbuf.close();
}

describeEachDriverWithDevices(adapters, 2, 'pyarrow test_cuda.py, two devices', (entry) => {
  let first: Context;
  let last: Context;

  beforeAll(() => {
    first = contextWith(entry.driver);
    last = new Context(Context.numDevices() - 1);
  });

  for (const size of sizes) {
    it(`test_copy_from_device[another, ${size}]: copies from device 0 into a buffer of the last device`, () => {
      expect(last.deviceNumber).not.toBe(first.deviceNumber);
      copyFromDeviceCase(first, last, size);
    });
  }
});

// --- test_cuda_numba_interop.py ------------------------------------------------------------

interface DtypeCase {
  readonly name: string;
  readonly typestr: string;
  readonly ArrayType: Uint8ArrayConstructor | Int16ArrayConstructor | Float32ArrayConstructor;
}

const dtypes: readonly DtypeCase[] = [
  { name: 'uint8', typestr: '|u1', ArrayType: Uint8Array },
  { name: 'int16', typestr: '<i2', ArrayType: Int16Array },
  { name: 'float32', typestr: '<f4', ArrayType: Float32Array },
];

/** How a test reaches its Context: made here, or through memory another library (@cumem/memory) allocated. */
const contextChoices: ReadonlyArray<readonly [string, () => Context]> = [
  ['pyarrow.cuda', () => new Context(0)],
  [
    'numba.cuda',
    () => {
      const memory = currentResource(0).allocate(8);
      const context = CudaBuffer.fromBuffer(memory).context;
      memory.close();
      return context;
    },
  ],
];

/** make_random_buffer(size, dtype): `size` values of the dtype, as bytes too. */
type Values = Uint8Array | Int16Array | Float32Array;

function randomValues(dtype: DtypeCase, size: number, seed: number): { values: Values; bytes: Uint8Array } {
  const raw = patternBytes(size, seed);
  const values = new dtype.ArrayType(size);
  for (let i = 0; i < size; i++) values[i] = (raw[i] ?? 1) - 1;
  return { values, bytes: new Uint8Array(values.buffer, values.byteOffset, values.byteLength) };
}

function asValues(dtype: DtypeCase, bytes: Uint8Array): Values {
  const copy = bytes.slice();
  return new dtype.ArrayType(copy.buffer, 0, copy.byteLength / dtype.ArrayType.BYTES_PER_ELEMENT);
}

/** An object exporting a CUDA Array Interface, as a Numba device array does. */
function arrayInterface(
  address: bigint,
  dtype: DtypeCase,
  shape: number[],
  strides: number[] | null = null,
): { cudaArrayInterface: CudaArrayInterface } {
  return {
    cudaArrayInterface: { shape, strides, typestr: dtype.typestr, data: [address, false], version: 3 },
  };
}

describeEachDriver(
  adapters,
  'pyarrow test_cuda_numba_interop.py (CUDA Array Interface, @cumem/memory buffers)',
  (entry) => {
    beforeAll(() => {
      contextWith(entry.driver);
    });

    for (const [c, choose] of contextChoices) {
      it(`test_context[${c}]: both ways reach the device's primary context, and buffers carry it`, () => {
        const context = choose();
        setCurrentDevice(0);
        // The handle the other library sees current is the Context's.
        expect(context.handle).toBe(currentDriver().contextGetCurrent());
        expect(new Context(0).handle).toBe(context.handle);
        const buf = context.newBuffer(10);
        expect(buf.context.handle).toBe(context.handle);
        const memory = currentResource(0).allocate(10);
        expect(CudaBuffer.fromBuffer(memory).context.handle).toBe(context.handle);
        memory.close();
        buf.close();
      });

      for (const dtype of dtypes) {
        const item = dtype.ArrayType.BYTES_PER_ELEMENT;
        for (const size of [0, 1, 8, 1000]) {
          it(`test_from_object[${c}, ${dtype.name}, ${size}]: views of array interfaces, their slices and reshapes`, () => {
            const context = choose();
            const { values, bytes } = randomValues(dtype, size, 53 + size);
            const cbuf = context.newBuffer(size * item);
            cbuf.copyFromHost(bytes);
            // nb_cuda.to_device(arr): memory of another library holding the same values.
            const darr = currentResource(0).allocate(size * item);
            if (size > 0) darr.copyFrom(bytes);
            const whole = arrayInterface(darr.handle, dtype, [size]);
            let cbuf2 = context.bufferFromObject(whole);
            expect(cbuf2.size).toBe(cbuf.size);
            expect(asValues(dtype, cbuf2.copyToHost())).toEqual(values);

            if (size >= 8) {
              const n = q(size);
              for (const [from, to] of [
                [n, size],
                [n, size - n],
              ] as const) {
                cbuf2 = context.bufferFromObject(
                  arrayInterface(darr.handle + BigInt(from * item), dtype, [to - from]),
                );
                expect(asValues(dtype, cbuf2.copyToHost())).toEqual(
                  asValues(dtype, bytes.subarray(from * item, to * item)),
                );
              }

              // pyarrow refuses a strided array as non-contiguous; cumem views its whole span
              // (README: "a strided array is viewed over its whole span").
              const span = (shape: number[], strides: number[]) =>
                shape.reduce((end, extent, axis) => end + (extent - 1) * (strides[axis] ?? 0), item);
              const everyOther = [Math.ceil(size / 2)];
              const everyOtherStrides = [2 * item];
              cbuf2 = context.bufferFromObject(
                arrayInterface(darr.handle, dtype, everyOther, everyOtherStrides),
              );
              expect(cbuf2.size).toBe(span(everyOther, everyOtherStrides));
              expect(cbuf2.copyToHost()).toEqual(bytes.subarray(0, cbuf2.size));

              // A rectangular 2-D array, then every other column of it.
              const s1 = q(size);
              const s2 = Math.floor(size / s1);
              expect(s1 * s2).toBe(size);
              cbuf2 = context.bufferFromObject(arrayInterface(darr.handle, dtype, [s1, s2]));
              expect(cbuf2.size).toBe(cbuf.size);
              expect(asValues(dtype, cbuf2.copyToHost())).toEqual(values);
              const columns = [s1, Math.ceil(s2 / 2)];
              const columnStrides = [s2 * item, 2 * item];
              cbuf2 = context.bufferFromObject(arrayInterface(darr.handle, dtype, columns, columnStrides));
              expect(cbuf2.size).toBe(span(columns, columnStrides));

              // A 3-D array, then every other plane of it.
              const t1 = 4;
              const t2 = Math.floor(size / 8);
              const t3 = Math.floor(size / (t1 * t2));
              expect(t1 * t2 * t3).toBe(size);
              cbuf2 = context.bufferFromObject(arrayInterface(darr.handle, dtype, [t1, t2, t3]));
              expect(cbuf2.size).toBe(cbuf.size);
              expect(asValues(dtype, cbuf2.copyToHost())).toEqual(values);
              const planes = [Math.ceil(t1 / 2), t2, t3];
              const planeStrides = [2 * t2 * t3 * item, t3 * item, item];
              cbuf2 = context.bufferFromObject(arrayInterface(darr.handle, dtype, planes, planeStrides));
              expect(cbuf2.size).toBe(span(planes, planeStrides));
              expect(cbuf2.copyToHost()).toEqual(bytes.subarray(0, cbuf2.size));
            }

            // Any object with the interface, here one that forwards another's.
            class MyObj {
              constructor(readonly inner: { cudaArrayInterface: CudaArrayInterface }) {}
              get cudaArrayInterface(): CudaArrayInterface {
                return this.inner.cudaArrayInterface;
              }
            }
            cbuf2 = context.bufferFromObject(new MyObj(whole));
            expect(cbuf2.size).toBe(cbuf.size);
            expect(asValues(dtype, cbuf2.copyToHost())).toEqual(values);
            darr.close();
            cbuf.close();
          });
        }

        it(`test_numba_memalloc[${c}, ${dtype.name}]: memory another library allocated and wrote, read as a CudaBuffer`, () => {
          const context = choose();
          const size = 10;
          const before = context.bytesAllocated;
          const mem = currentResource(0).allocate(size * item);
          // Not this Context's allocation (pyarrow: bytes_allocated does not change).
          expect(context.bytesAllocated).toBe(before);
          mem.slice(0, 5 * item).copyFrom(new dtype.ArrayType(5).fill(99));
          mem.slice(5 * item, 5 * item).copyFrom(new dtype.ArrayType(5).fill(88));
          const written = mem.copyTo(new Uint8Array(size * item));
          expect([...asValues(dtype, written)]).toEqual([99, 99, 99, 99, 99, 88, 88, 88, 88, 88]);
          const cbuf = CudaBuffer.fromBuffer(mem);
          expect(asValues(dtype, cbuf.copyToHost())).toEqual(asValues(dtype, written));
          mem.close();
          expect(cbuf.isClosed).toBe(true);
        });

        it(`test_pyarrow_memalloc[${c}, ${dtype.name}]: a CudaBuffer read as another library's memory`, () => {
          const context = choose();
          const { values, bytes } = randomValues(dtype, 10, 59);
          const cbuf = context.newBuffer(bytes.byteLength);
          cbuf.copyFromHost(bytes);
          const mem = cbuf.toMemoryBuffer();
          expect(mem).toBeInstanceOf(MemoryBuffer);
          expect(mem.handle).toBe(cbuf.address);
          expect(mem.cudaArrayInterface.data[0]).toBe(cbuf.address);
          expect(asValues(dtype, mem.copyTo(new Uint8Array(bytes.byteLength)))).toEqual(values);
          cbuf.close();
        });

        it(`test_numba_context[${c}, ${dtype.name}]: writes through the other library's view show in the CudaBuffer`, () => {
          const context = choose();
          setCurrentDevice(0);
          const { values, bytes } = randomValues(dtype, 10, 61);
          const cbuf = context.newBuffer(bytes.byteLength);
          cbuf.copyFromHost(bytes);
          expect(cbuf.context.handle).toBe(currentDriver().contextGetCurrent());
          const mem = cbuf.toMemoryBuffer();
          expect(asValues(dtype, mem.copyTo(new Uint8Array(bytes.byteLength)))).toEqual(values);
          mem.slice(0, item).copyFrom(dtype.ArrayType.of(99));
          cbuf.context.synchronize();
          expect(asValues(dtype, cbuf.copyToHost())[0]).toBe(99);
          cbuf.close();
        });
      }
    }
  },
);
