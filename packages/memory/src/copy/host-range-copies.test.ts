// copyRangesFromHost / copyRangesToHost: byte-exact with every adapter, the driver calls a C
// program would make (pinned ranges straight from where they are, small pageable ranges
// gathered, large pageable ones staged, one wait, no events), and hostile input refused before
// any driver call.
import { type DriverCallLog, describeEachDriver } from '@cumem/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { countedResources } from '../../test/counted-resources.js';
import type { Buffer } from '../buffer/buffer.js';
import { isBufferHostView } from '../buffer/host-views.js';
import type { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import type { LegacyPinnedMemoryResource } from '../resources/legacy-pinned-memory-resource.js';
import { Stream } from '../stream/stream.js';
import { copyRangesFromHost, copyRangesToHost } from './host-range-copies.js';
import { configureStaging, stagingSettings } from './staging-settings.js';

const KiB = 1024;

function pattern(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed) & 0xff;
  return bytes;
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  return globalThis.Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

const copyCalls = /^(memcpy|staged|event|stream(Synchronize|WaitEvent))/;

describeEachDriver(adapters, 'copyRangesFromHost / copyRangesToHost', (entry) => {
  let log: DriverCallLog;
  let device: DeviceMemoryResource;
  let pinned: LegacyPinnedMemoryResource;
  const saved = stagingSettings();
  const calls = (): string[] => log.calls.filter((name) => copyCalls.test(name));

  beforeAll(() => {
    ({ log, device, pinned } = countedResources(entry.driver));
    // 1 MiB: large pageable ranges in these tests are staged, as 64 MiB ones are by default.
    configureStaging({ ...saved, minBytes: 1024 * KiB });
  });
  afterAll(() => {
    configureStaging(saved);
  });

  /** Reads `size` bytes of `buffer` from `offset` back with the plain Buffer API. */
  function readBack(buffer: Buffer, offset: number, size: number): Uint8Array {
    const out = new Uint8Array(size);
    buffer.slice(offset, size).copyTo(out);
    return out;
  }

  it('an Arrow-like layout: pinned columns straight, metadata gathered, one wait, no events', () => {
    using target = device.allocate(4 * KiB + 3 * 512 * KiB + 8);
    using columnA = pinned.allocate(512 * KiB);
    using columnB = pinned.allocate(1024 * KiB);
    const a = columnA.hostView();
    const b = columnB.hostView();
    a.set(pattern(a.byteLength, 1));
    b.set(pattern(b.byteLength, 2));
    expect(isBufferHostView(a)).toBe(true);
    const schema = pattern(1000, 3);
    const header = pattern(3096, 4); // continues schema: one gathered copy
    const eos = pattern(8, 5);
    const ranges = [
      { offset: 0, bytes: schema },
      { offset: 1000, bytes: header },
      { offset: 4 * KiB, bytes: a },
      { offset: 4 * KiB + 512 * KiB, bytes: b },
      { offset: 4 * KiB + 3 * 512 * KiB, bytes: eos },
    ];
    log.reset();
    copyRangesFromHost(target, ranges);
    // C: one copy per column and one wait; here two more, small: the gathered metadata and the end marker.
    expect(calls()).toEqual([...Array(4).fill('memcpyHtoDAsync'), 'streamSynchronize']);
    expect(same(readBack(target, 0, 1000), schema)).toBe(true);
    expect(same(readBack(target, 1000, 3096), header)).toBe(true);
    expect(same(readBack(target, 4 * KiB, a.byteLength), a)).toBe(true);
    expect(same(readBack(target, 4 * KiB + 512 * KiB, b.byteLength), b)).toBe(true);
    expect(same(readBack(target, 4 * KiB + 3 * 512 * KiB, 8), eos)).toBe(true);
  });

  it('gathers many small pageable pieces that continue each other into one copy per 256 KiB', () => {
    const piece = 100;
    const count = 3000; // 300,000 bytes: one full gathered copy of 256 KiB or less, then the rest
    using target = device.allocate(piece * count);
    const pieces = Array.from({ length: count }, (_, i) => pattern(piece, i));
    log.reset();
    copyRangesFromHost(
      target,
      pieces.map((bytes, i) => ({ offset: i * piece, bytes })),
    );
    expect(calls()).toEqual(['memcpyHtoDAsync', 'memcpyHtoDAsync', 'streamSynchronize']);
    const back = readBack(target, 0, piece * count);
    for (const i of [0, 1, 2620, 2621, count - 1]) {
      expect(same(back.subarray(i * piece, (i + 1) * piece), pieces[i]!)).toBe(true);
    }
  });

  it('stages large pageable ranges (after the queued copies) and copies a pinned one of any size directly', () => {
    using target = device.allocate(4096 * KiB);
    using host = pinned.allocate(2048 * KiB);
    const view = host.hostView();
    view.set(pattern(view.byteLength, 9));
    const pageable = pattern(2048 * KiB, 10);
    log.reset();
    copyRangesFromHost(target, [
      { offset: 0, bytes: pageable },
      { offset: 2048 * KiB, bytes: view },
    ]);
    expect(calls()).toEqual(['memcpyHtoDAsync', 'stagedCopyHtoD', 'streamSynchronize']);
    const out = new Uint8Array(4096 * KiB);
    log.reset();
    copyRangesToHost(target, [{ offset: 0, bytes: out }]);
    expect(calls()).toEqual(['stagedCopyDtoH', 'streamSynchronize']);
    expect(same(out.subarray(0, 2048 * KiB), pageable)).toBe(true);
    expect(same(out.subarray(2048 * KiB), view)).toBe(true);
    // The pinned-view rule is memory's, for Buffer.copyFrom too: a pinned view is never staged.
    log.reset();
    target.slice(0, view.byteLength).copyFrom(view);
    expect(calls()).toEqual(['memcpyHtoDAsync', 'streamSynchronize']);
  });

  it("'pageable' never stages, 'pinned' stages every pageable range", () => {
    using target = device.allocate(2048 * KiB);
    const big = pattern(2048 * KiB, 11);
    log.reset();
    copyRangesFromHost(target, [{ offset: 0, bytes: big }], { staging: 'pageable' });
    expect(calls()).toEqual(['memcpyHtoDAsync', 'streamSynchronize']);
    const small = pattern(100, 12);
    log.reset();
    copyRangesFromHost(target, [{ offset: 7, bytes: small }], { staging: 'pinned' });
    expect(calls()).toEqual(['stagedCopyHtoD', 'streamSynchronize']);
    expect(same(readBack(target, 7, 100), small)).toBe(true);
    expect(same(readBack(target, 0, 7), big.subarray(0, 7))).toBe(true);
  });

  it('through a small pinned staging Buffer: refilled after a wait, byte-exact both ways', () => {
    using target = device.allocate(300 * KiB);
    using staging = pinned.allocate(64 * KiB);
    const data = pattern(300 * KiB, 13);
    log.reset();
    copyRangesFromHost(
      target,
      [
        { offset: 0, bytes: data.subarray(0, 100 * KiB) },
        { offset: 100 * KiB, bytes: data.subarray(100 * KiB) },
      ],
      { staging },
    );
    expect(calls().filter((name) => name === 'streamSynchronize').length).toBe(5); // 4 refills + the end
    expect(same(readBack(target, 0, data.byteLength), data)).toBe(true);
    const out = new Uint8Array(300 * KiB);
    copyRangesToHost(target, [{ offset: 0, bytes: out }], { staging });
    expect(same(out, data)).toBe(true);
  });

  it('with a stream: queued, no wait, the JS memory held until the stream passes it', () => {
    using target = device.allocate(64 * KiB);
    using stream = Stream.create(0);
    const data = pattern(64 * KiB, 14);
    log.reset();
    copyRangesFromHost(target, [{ offset: 0, bytes: data }], { stream });
    expect(calls()).not.toContain('streamSynchronize');
    expect(calls()[0]).toBe('memcpyHtoDAsync');
    stream.sync();
    const out = new Uint8Array(64 * KiB);
    copyRangesToHost(target, [{ offset: 0, bytes: out }], { stream });
    stream.sync();
    expect(same(out, data)).toBe(true);
  });

  it('copies what it checked: a range whose bytes getter changes its answer is read once', () => {
    using target = device.allocate(64);
    const small = pattern(16, 21);
    let reads = 0;
    const range = {
      offset: 48,
      get bytes(): Uint8Array {
        reads++;
        return reads === 1 ? small : new Uint8Array(4096).fill(0xee);
      },
    };
    copyRangesFromHost(target, [range]);
    expect(reads).toBe(1);
    expect(same(readBack(target, 48, 16), small)).toBe(true);
  });

  it('refuses hostile input before any driver call', () => {
    const target = device.allocate(1024);
    using deviceOnly = device.allocate(1024);
    const view = new Uint8Array(16);
    log.reset();
    expect(() => copyRangesFromHost({ handle: 0n, size: 1024 } as never, [])).toThrow(TypeError);
    expect(() => copyRangesFromHost(target, 'x' as never)).toThrow(TypeError);
    expect(() => copyRangesFromHost(target, [null as never])).toThrow(TypeError);
    expect(() => copyRangesFromHost(target, [{ offset: 0, bytes: [1, 2] as never }])).toThrow(TypeError);
    expect(() => copyRangesFromHost(target, [{ offset: -1, bytes: view }])).toThrow(RangeError);
    expect(() => copyRangesFromHost(target, [{ offset: 1.5, bytes: view }])).toThrow(RangeError);
    expect(() => copyRangesFromHost(target, [{ offset: 1009, bytes: view }])).toThrow(RangeError);
    expect(() => copyRangesToHost(target, [{ offset: 2 ** 53, bytes: view }])).toThrow(RangeError);
    expect(() => copyRangesFromHost(target, [], { staging: 'locked' as never })).toThrow(TypeError);
    expect(() => copyRangesFromHost(target, [], { staging: deviceOnly as never })).toThrow(TypeError);
    expect(() => copyRangesFromHost(target, [], { stream: {} as never })).toThrow(TypeError);
    expect(() => copyRangesFromHost(target, [], 7 as never)).toThrow(TypeError);
    // A view lying about its length is measured by its real one.
    class Liar extends Uint8Array {
      override get byteLength(): number {
        return 4;
      }
    }
    expect(() => copyRangesFromHost(target, [{ offset: 0, bytes: new Liar(2048) }])).toThrow(RangeError);
    expect(() => copyRangesToHost(target, [{ offset: 1000, bytes: new Liar(64) }])).toThrow(RangeError);
    const closedStream = Stream.create(0);
    closedStream.close();
    target.close();
    log.reset();
    expect(() => copyRangesFromHost(deviceOnly, [], { stream: closedStream })).toThrow(/closed/);
    expect(() => copyRangesFromHost(target, [{ offset: 0, bytes: view }])).toThrow(/closed/);
    expect(() => copyRangesToHost(target, [{ offset: 0, bytes: view }])).toThrow(/closed/);
    expect(log.calls).toEqual([]);
  });
});
