import { CudaStateError, LaunchDeviceAttribute } from '@cumem/core-types';
import {
  type Buffer,
  bufferBrand,
  type DeviceMemoryResource,
  ownerMemoryBuffer,
  Stream,
  useDriver,
  VirtualMemoryResource,
} from '@cumem/memory';
import { withCountingDriver } from '@cumem/test-support';
import { describeEachDriver, referenceKernelsPTX } from '@cumem/testing/vitest';
import { StridedLayout, StridedMemoryView } from '@cumem/utils';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adapters, useDeviceZero } from '../../test/support.js';
import {
  bool,
  float32,
  float64,
  int32,
  int64,
  LaunchConfig,
  launch,
  ObjectCode,
  uint32,
  uint64,
} from '../index.js';

describeEachDriver(adapters, 'launch', (entry) => {
  let pool: DeviceMemoryResource;
  let stream: Stream;
  let code: ObjectCode;

  beforeAll(() => {
    ({ pool, stream } = useDeviceZero(entry.driver));
    code = ObjectCode.fromPTX(referenceKernelsPTX);
  });
  afterAll(() => {
    code.close();
    stream.close();
  });

  function read(buffer: Buffer): DataView {
    stream.sync();
    const bytes = new Uint8Array(buffer.size);
    buffer.copyTo(bytes);
    return new DataView(bytes.buffer);
  }

  it('fills a pool buffer and reads it back (fill_f32, 1-D grid)', () => {
    const n = 1000;
    const out = pool.allocate(n * 4, { stream });
    launch(
      stream,
      new LaunchConfig({ grid: Math.ceil(n / 256), block: 256 }),
      code.getKernel('fill_f32'),
      out,
      float32(2.5),
      uint32(n),
    );
    const view = read(out);
    for (let i = 0; i < n; i++) expect(view.getFloat32(i * 4, true)).toBe(2.5);
    out.close();
  });

  it('refuses a StridedMemoryView left reaching past its buffer by a shrink, before the launch', () =>
    withCountingDriver(useDriver, entry.driver, (log) => {
      const own = ObjectCode.fromPTX(referenceKernelsPTX);
      const on = Stream.create(0);
      const mr = new VirtualMemoryResource(0, { reserveSize: 0 });
      const g = mr.granularity;
      const buffer = mr.allocate(2 * g);
      const floats = (2 * g) / 4;
      const stale = StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([floats], 4), {
        dtype: 'float32',
      });
      const shrunk = mr.modifyAllocation(buffer, g).buffer;
      const fill = own.getKernel('fill_f32');
      const config = new LaunchConfig({ grid: 1, block: 256 });
      log.reset();
      expect(() => launch(on, config, fill, stale, float32(1), uint32(floats))).toThrow(
        new RegExp(`run past the end of the buffer, which has ${g} bytes now`),
      );
      // Only the kernel's parameter queries ran: nothing launched, nothing queued.
      expect(log.calls.filter((call) => !/^(kernelGetFunction|funcGetParamInfo)$/.test(call))).toEqual([]);
      shrunk.close();
      mr.close();
      on.close();
      own.close();
    }));

  it('adds two vectors (add_f32)', () => {
    const n = 300;
    const a = pool.allocate(n * 4);
    const b = pool.allocate(n * 4);
    const out = pool.allocate(n * 4);
    a.copyFrom(new Float32Array(n).map((_, i) => i));
    b.copyFrom(new Float32Array(n).map((_, i) => 0.5 * i));
    launch(
      stream,
      new LaunchConfig({ grid: 3, block: 128 }),
      code.getKernel('add_f32'),
      a,
      b,
      out,
      uint32(n),
    );
    const view = read(out);
    for (let i = 0; i < n; i++) expect(view.getFloat32(i * 4, true)).toBe(1.5 * i);
    for (const buffer of [a, b, out]) buffer.close();
  });

  it.each([
    ['1-D', [4], [32]],
    ['2-D', [3, 2], [8, 4]],
    ['3-D', [2, 2, 2], [4, 2, 2]],
  ] as const)('numbers every thread of a %s grid (iota_u32)', (_label, grid, block) => {
    const n = [...grid, ...block].reduce((x, y) => x * y, 1);
    const out = pool.allocate(n * 4);
    launch(stream, new LaunchConfig({ grid, block }), code.getKernel('iota_u32'), out, uint32(n));
    const view = read(out);
    for (let i = 0; i < n; i++) expect(view.getUint32(i * 4, true)).toBe(i);
    out.close();
  });

  it('uses dynamic shared memory (reverse_block_u32)', () => {
    const width = 64;
    const data = pool.allocate(2 * width * 4);
    data.copyFrom(new Uint32Array(2 * width).map((_, i) => i));
    const config = new LaunchConfig({ grid: 2, block: width, sharedMemBytes: width * 4 });
    launch(stream, config, code.getKernel('reverse_block_u32'), data);
    const view = read(data);
    for (let i = 0; i < 2 * width; i++) {
      const block = Math.floor(i / width);
      expect(view.getUint32(i * 4, true)).toBe(block * width + (width - 1 - (i % width)));
    }
    data.close();
  });

  it('passes every scalar kind, a bigint, a Buffer and a StridedMemoryView', () => {
    const out = pool.allocate(48);
    const kernel = code.getKernel('store_scalars');
    const args = [
      int32(-5),
      uint32(4000000000),
      int64(-(2n ** 40n)),
      uint64(2n ** 63n + 7n),
      float32(1.25),
      float64(Math.PI),
      bool(true),
    ] as const;
    launch(stream, new LaunchConfig({ grid: 1, block: 1 }), kernel, out, ...args);
    let view = read(out);
    expect(view.getInt32(0, true)).toBe(-5);
    expect(view.getUint32(4, true)).toBe(4000000000);
    expect(view.getBigInt64(8, true)).toBe(-(2n ** 40n));
    expect(view.getBigUint64(16, true)).toBe(2n ** 63n + 7n);
    expect(view.getFloat32(24, true)).toBe(1.25);
    expect(view.getFloat64(32, true)).toBe(Math.PI);
    expect(view.getUint8(40)).toBe(1);
    // The same launch with the output as a strided view and the 64-bit values as plain bigints.
    const strided = StridedMemoryView.fromBuffer(out, StridedLayout.dense([48], 1), { dtype: 'uint8' });
    launch(
      stream,
      new LaunchConfig({ grid: 1, block: 1 }),
      kernel,
      strided,
      int32(7),
      uint32(8),
      9n,
      10n,
      float32(0),
      float64(0),
      bool(false),
    );
    view = read(out);
    expect([
      view.getInt32(0, true),
      view.getBigInt64(8, true),
      view.getBigUint64(16, true),
      view.getUint8(40),
    ]).toEqual([7, 9n, 10n, 0]);
    // A wrapper holding a Buffer under ownerMemoryBuffer with an address (what interop-arrow's CudaBuffer is).
    const wrapper = { [ownerMemoryBuffer]: out, address: out.handle + 8n, isClosed: false };
    launch(stream, new LaunchConfig({ grid: 1, block: 1 }), code.getKernel('write_u32'), wrapper, uint32(55));
    expect(read(out).getUint32(8, true)).toBe(55);
    const closedWrapper = { ...wrapper, isClosed: true };
    expect(() =>
      launch(
        stream,
        new LaunchConfig({ grid: 1, block: 1 }),
        code.getKernel('write_u32'),
        closedWrapper,
        uint32(1),
      ),
    ).toThrow(CudaStateError);
    // A holder's getter runs while the arguments are packed: one that closes the launch's stream
    // gets the launch refused, never the destroyed CUstream handed to the driver.
    const doomed = Stream.create(0);
    const closing = {
      [ownerMemoryBuffer]: out,
      get address() {
        doomed.close();
        return out.handle;
      },
      isClosed: false,
    };
    expect(() =>
      launch(
        doomed,
        new LaunchConfig({ grid: 1, block: 1 }),
        code.getKernel('write_u32'),
        closing,
        uint32(1),
      ),
    ).toThrow(CudaStateError);
    expect(doomed.isClosed).toBe(true);
    // Its address must lie in the Buffer it holds: the checks and the kernel-use record are that Buffer's.
    const straying = { ...wrapper, address: out.handle + BigInt(out.size) + 4096n };
    expect(() =>
      launch(
        stream,
        new LaunchConfig({ grid: 1, block: 1 }),
        code.getKernel('write_u32'),
        straying,
        uint32(1),
      ),
    ).toThrow(/outside the Buffer it holds/);
    // A raw address as a bigint.
    launch(
      stream,
      new LaunchConfig({ grid: 1, block: 1 }),
      code.getKernel('write_u32'),
      out.handle + 4n,
      uint32(77),
    );
    expect(read(out).getUint32(4, true)).toBe(77);
    out.close();
  });

  it('reports attributes, argument layout and occupancy', () => {
    const kernel = code.getKernel('store_scalars');
    const attributes = kernel.attributes();
    expect(attributes.maxThreadsPerBlock).toBeGreaterThan(0);
    expect(attributes.maxThreadsPerBlock).toBeLessThanOrEqual(1024);
    expect(attributes.numRegisters).toBeGreaterThanOrEqual(0);
    if (entry.driver.capabilities.kernelParameterInfo) {
      expect(kernel.numArguments).toBe(8);
      expect(kernel.argumentInfo?.map((p) => [p.offset, p.size])).toEqual([
        [0, 8],
        [8, 4],
        [12, 4],
        [16, 8],
        [24, 8],
        [32, 4],
        [40, 8],
        [48, 1],
      ]);
    }
    const fill = code.getKernel('fill_f32');
    expect(fill.occupancy.maxActiveBlocksPerMultiprocessor(256)).toBeGreaterThan(0);
    const suggestion = fill.occupancy.maxPotentialBlockSize();
    expect(suggestion.blockSize).toBeGreaterThan(0);
    expect(suggestion.blockSize % 32).toBe(0);
    expect(suggestion.minGridSize).toBeGreaterThan(0);
  });

  it('launches a cluster where the device supports them', () => {
    const out = pool.allocate(256 * 4);
    const config = new LaunchConfig({ grid: 4, block: 64, cluster: 2 });
    const kernel = code.getKernel('fill_f32');
    if (entry.driver.deviceGetAttribute(LaunchDeviceAttribute.ClusterLaunch, 0) !== 1) {
      expect(() => launch(stream, config, kernel, out, float32(1), uint32(256))).toThrow(
        /cannot launch thread-block clusters/,
      );
    } else {
      launch(stream, config, kernel, out, float32(3), uint32(256));
      const view = read(out);
      for (let i = 0; i < 256; i++) expect(view.getFloat32(i * 4, true)).toBe(3);
    }
    out.close();
  });

  it('keeps an argument closed right after launch alive until the kernel ran', () => {
    const n = 1 << 20;
    const other = Stream.create(0);
    for (let round = 0; round < 4; round++) {
      const out = pool.allocate(n * 4, { stream: other });
      launch(
        stream,
        new LaunchConfig({ grid: n / 256, block: 256 }),
        code.getKernel('fill_f32'),
        out,
        float32(round),
        uint32(n),
      );
      // Freed on `other` (its allocation stream), which must wait for `stream`'s kernel.
      out.close();
      const next = pool.allocate(n * 4, { stream: other });
      next.fill(0, { stream: other });
      other.sync();
      stream.sync();
      const bytes = new Uint8Array(16);
      next.slice(0, 16).copyTo(bytes);
      // The fill ran after the kernel: zeros, whether or not the pool reused the memory.
      expect([...bytes]).toEqual(new Array(16).fill(0));
      next.close();
    }
    other.close();
  });

  it('refuses bad arguments with typed errors before any driver call', () => {
    const fill = code.getKernel('fill_f32');
    const out = pool.allocate(64);
    const config = new LaunchConfig({ grid: 1, block: 16 });
    expect(() => launch(stream, config, fill, out, 2.5 as never, uint32(16))).toThrow(
      /float32\(x\) or float64\(x\)/,
    );
    expect(() => launch(stream, config, fill, out, float32(1), 16 as never)).toThrow(
      /int32\(x\), uint32\(x\)/,
    );
    expect(() => launch(stream, config, fill, out, float32(1), true as never)).toThrow(TypeError);
    expect(() => launch(stream, config, fill, out, float32(1), {} as never)).toThrow(TypeError);
    if (entry.driver.capabilities.kernelParameterInfo) {
      expect(() => launch(stream, config, fill, out, float32(1))).toThrow(RangeError);
      expect(() => launch(stream, config, fill, out, float64(1), uint32(16))).toThrow(
        /argument 1 \(float64, 8 bytes\)/,
      );
    }
    expect(() => launch(stream, config, fill, out, float32(1), uint32(-1))).toThrow(RangeError);
    expect(() => launch(stream, config, fill, out, float32(1), int32(1.5))).toThrow(RangeError);
    expect(() => launch(stream, config, 'fill' as never, out)).toThrow(TypeError);
    expect(() => launch(stream, {} as never, fill, out)).toThrow(TypeError);
    // Only a Stream itself: an object inheriting from one, or a Proxy of one, is refused by name
    // (not with the engine's private-member TypeError from its first state read).
    for (const imitation of [Object.create(stream), new Proxy(stream, {}), {}]) {
      expect(() => launch(imitation, config, fill, out, float32(1), uint32(16))).toThrow(
        /stream must be a Stream, got/,
      );
    }
    const closed = pool.allocate(64);
    closed.close();
    expect(() => launch(stream, config, fill, closed, float32(1), uint32(16))).toThrow(CudaStateError);
    out.close();
  });

  it("passes a DLPack import's view by its memory, and refuses it once closed", () => {
    const fill = code.getKernel('fill_f32');
    const config = new LaunchConfig({ grid: 1, block: 16 });
    const out = pool.allocate(64);
    const imported = StridedMemoryView.fromDLPack(out.toDLPack());
    // Its exportingObject is the capsule (not a Buffer): launch finds the memory all the same.
    expect(bufferBrand.has(imported.exportingObject)).toBe(false);
    launch(stream, config, fill, imported, float32(3), uint32(16));
    const view = read(out);
    for (let i = 0; i < 16; i++) expect(view.getFloat32(i * 4, true)).toBe(3);
    imported.close();
    expect(() => launch(stream, config, fill, imported, float32(1), uint32(16))).toThrow(CudaStateError);
    out.close();
  });

  it('refuses geometry outside the device and kernel limits', () => {
    const fill = code.getKernel('fill_f32');
    const out = pool.allocate(64);
    const args = [out, float32(1), uint32(16)] as const;
    expect(() => new LaunchConfig({ grid: 0, block: 1 })).toThrow(RangeError);
    expect(() => new LaunchConfig({ grid: 1, block: [1, 0] })).toThrow(RangeError);
    expect(() => new LaunchConfig({ grid: 1.5, block: 1 })).toThrow(RangeError);
    expect(() => new LaunchConfig({ grid: [1, 1, 1, 1] as never, block: 1 })).toThrow(TypeError);
    expect(() => new LaunchConfig({ grid: '1' as never, block: 1 })).toThrow(TypeError);
    expect(() => new LaunchConfig({ grid: 3, block: 1, cluster: 2 })).toThrow(RangeError);
    // A config found within the limits is cached per kernel: launches alternating with it are
    // still checked in full.
    const good = new LaunchConfig({ grid: 1, block: 16 });
    const tooLarge = new LaunchConfig({ grid: 1, block: 2048 });
    launch(stream, good, fill, ...args);
    expect(() => launch(stream, tooLarge, fill, ...args)).toThrow(/block.x 2048 is over/);
    launch(stream, good, fill, ...args);
    expect(() => launch(stream, tooLarge, fill, ...args)).toThrow(/block.x 2048 is over/);
    stream.sync();
    expect(() => launch(stream, new LaunchConfig({ grid: 1, block: [32, 32, 2] }), fill, ...args)).toThrow(
      RangeError,
    );
    expect(() => launch(stream, new LaunchConfig({ grid: [1, 70000], block: 1 }), fill, ...args)).toThrow(
      /grid.y/,
    );
    expect(() =>
      launch(stream, new LaunchConfig({ grid: 1, block: 1, sharedMemBytes: 2 ** 30 }), fill, ...args),
    ).toThrow(/sharedMemBytes/);
    out.close();
  });

  it('refuses kernels of a closed ObjectCode', () => {
    const own = ObjectCode.fromPTX(referenceKernelsPTX);
    const kernel = own.getKernel('fill_f32');
    // Taken before the close, never used on a device: its first CUfunction is refused too.
    const unused = own.getKernel('fill_f32');
    const config = new LaunchConfig({ grid: 1, block: 16 });
    const first = pool.allocate(64);
    // A launch before the close caches the CUfunction and the config found within the limits:
    // the same launch after it must still be refused.
    launch(stream, config, kernel, first, float32(1), uint32(16));
    stream.sync();
    first.close();
    own.close();
    own.close();
    expect(own.isClosed).toBe(true);
    expect(() => own.getKernel('fill_f32')).toThrow(CudaStateError);
    const out = pool.allocate(64);
    expect(() => launch(stream, config, kernel, out, float32(1), uint32(16))).toThrow(CudaStateError);
    expect(() => launch(stream, config, unused, out, float32(1), uint32(16))).toThrow(CudaStateError);
    expect(() => unused.attributes()).toThrow(CudaStateError);
    out.close();
  });
});
