// The safety contract for host views and derived buffers (README "Safety contract"): a view
// never reaches memory that was freed and handed out again, and a slice or wrapper is closed
// once the buffer it derives from is.
import { CudaStateError, type Driver } from '@cumem/core-types';
import { countingDriver, describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { collectGarbage as collectRounds } from '../../test/garbage.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { LegacyPinnedMemoryResource } from '../resources/legacy-pinned-memory-resource.js';
import { ManagedMemoryResource } from '../resources/managed/managed-memory-resource.js';
import { PinnedMemoryResource } from '../resources/pinned-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { defaultStream } from '../stream/stream.js';
import { Buffer, ownerMemoryBuffer } from './buffer.js';
import { flushDeferredReleases } from './buffer-release.js';

const size = 4096;

function pattern(length: number, seed = 1): Uint8Array {
  return Uint8Array.from({ length }, (_, index) => (index * 31 + seed) & 0xff);
}

async function collectGarbage(rounds: number, until: () => boolean = () => false): Promise<void> {
  flushDeferredReleases();
  await collectRounds(rounds, until);
}

/**
 * The driver with detachView answering false, as the FFI adapter does, and hostView making a
 * new ArrayBuffer per call as the adapters do (not sharing the memory: only lifetimes are checked).
 */
function withoutDetach(driver: Driver): Driver {
  // An empty target: the adapters' drivers are frozen, and a Proxy of a frozen object must
  // return its own values for every read.
  return new Proxy({} as Driver, {
    get(_target, key) {
      if (key === 'detachView') return () => false;
      if (key === 'hostView') return (_pointer: bigint, length: number) => new Uint8Array(length);
      const value = Reflect.get(driver, key, driver);
      return typeof value === 'function' ? value.bind(driver) : value;
    },
    has: (_target, key) => Reflect.has(driver, key),
  });
}

const frees = (calls: readonly string[]) => calls.filter((call) => call.startsWith('memFree')).length;

describeEachDriver(adapters, 'Host views and derived buffers', (entry) => {
  // napi and the reference driver detach views on close; koffi's views (ffi) cannot be detached.
  let detaches: boolean;
  let log: ReturnType<typeof countingDriver>['log'];
  let pinned: PinnedMemoryResource;
  let device: DeviceMemoryResource;

  beforeAll(() => {
    const counted = countingDriver(entry.driver);
    log = counted.log;
    useDriver(counted.driver);
    detaches = entry.driver.name !== 'ffi';
    pinned = new PinnedMemoryResource();
    device = new DeviceMemoryResource(0);
  });

  it('a view after close reads as length 0, or (ffi) keeps its memory from being handed out again', () => {
    for (const resource of [pinned, new LegacyPinnedMemoryResource()]) {
      const buffer = resource.allocate(size);
      const view = buffer.hostView();
      view.set(pattern(size));
      const sliceView = buffer.slice(1024, 1024).hostView();
      buffer.close();
      expect(() => buffer.hostView()).toThrow(CudaStateError);
      if (detaches) {
        expect(view.length).toBe(0);
        expect(sliceView.length).toBe(0);
        continue;
      }
      expect(view).toEqual(pattern(size));
      // Writing through the stale view must not reach a fresh allocation.
      const fresh = resource.allocate(size);
      fresh.copyFrom(pattern(size, 9));
      view.fill(0xee);
      sliceView.fill(0xdd);
      defaultStream(0).sync();
      const back = new Uint8Array(size);
      fresh.copyTo(back);
      expect(back).toEqual(pattern(size, 9));
      fresh.close();
    }
  });

  it('a reachable view keeps the memory alive after its Buffer is dropped; dropping the view frees it', async () => {
    // Buffers earlier tests dropped are collected first, so the frees counted below are this test's.
    await collectGarbage(10);
    defaultStream(0).sync();
    const before = frees(log.calls);
    let view: Uint8Array | null = (() => pinned.allocate(size).hostView())();
    view.set(pattern(size));
    await collectGarbage(10);
    defaultStream(0).sync();
    expect(frees(log.calls)).toBe(before);
    expect(view.length).toBe(size);
    // Memory the pool hands out now must not be what the view shows.
    const other = pinned.allocate(size);
    other.fill(0x5a);
    defaultStream(0).sync();
    expect(view).toEqual(pattern(size));
    other.close();
    // The reference driver's views are its allocation's own ArrayBuffer, which the driver holds
    // while the memory is live, so only the adapters' views can be collected (the reference
    // case of this is below, with views of their own).
    if (entry.isReference) return;
    const afterOther = frees(log.calls);
    view = null;
    await collectGarbage(50, () => frees(log.calls) > afterOther);
    expect(frees(log.calls)).toBe(afterOther + 1);
  });

  it('a slice of a closed buffer is closed and refuses fill, copies and hostView', () => {
    for (const resource of [device, pinned]) {
      const parent = resource.allocate(size);
      const slice = parent.slice(64, 256);
      const nested = slice.slice(16, 16);
      parent.close();
      for (const derived of [slice, nested]) {
        expect(derived.isClosed).toBe(true);
        expect(() => derived.fill(1)).toThrow(CudaStateError);
        expect(() => derived.copyFrom(new Uint8Array(derived.size))).toThrow(CudaStateError);
        expect(() => derived.copyTo(new Uint8Array(derived.size))).toThrow(CudaStateError);
        expect(() => derived.hostView()).toThrow(CudaStateError);
      }
    }
  });

  it('Buffer.fromHandle with a Buffer owner follows it: closed with it, its views detached with it', () => {
    const owner = pinned.allocate(size);
    const wrapped = Buffer.fromHandle(owner.handle + 512n, 512, { owner });
    const view = wrapped.hostView();
    expect(wrapped.isClosed).toBe(false);
    wrapped.fill(3);
    owner.close();
    expect(wrapped.isClosed).toBe(true);
    expect(() => wrapped.fill(1)).toThrow(CudaStateError);
    expect(() => wrapped.copyFrom(new Uint8Array(512))).toThrow(CudaStateError);
    expect(() => wrapped.hostView()).toThrow(CudaStateError);
    expect(view.length).toBe(detaches ? 0 : 512);
    // A wrapper of a wrapper follows the first owner too.
    const root = device.allocate(size);
    const outer = Buffer.fromHandle(root.handle, 64, {
      owner: Buffer.fromHandle(root.handle, 128, { owner: root }),
    });
    root.close();
    expect(outer.isClosed).toBe(true);
    expect(() => outer.fill(0)).toThrow(CudaStateError);
  });

  it('Buffer.fromHandle follows any owner with a boolean isClosed, and its ownerMemoryBuffer', () => {
    const memory = pinned.allocate(size);
    const owner = { isClosed: false, [ownerMemoryBuffer]: memory };
    const wrapped = Buffer.fromHandle(memory.handle, size, { owner });
    const view = wrapped.hostView();
    expect(wrapped.owner).toBe(owner);
    owner.isClosed = true;
    expect(wrapped.isClosed).toBe(true);
    expect(() => wrapped.fill(0)).toThrow(CudaStateError);
    owner.isClosed = false;
    // The view belongs to the owner's memory buffer: closing that detaches it.
    memory.close();
    expect(view.length).toBe(detaches ? 0 : size);
    // An owner without isClosed is only kept alive, as before.
    const plain = device.allocate(size);
    const kept = Buffer.fromHandle(plain.handle, size, { owner: {} });
    expect(kept.isClosed).toBe(false);
    kept.close();
    plain.close();
  });

  it('a ManagedBuffer view after close reads as length 0, or (ffi) still reads its bytes', () => {
    const managed = new ManagedMemoryResource();
    const buffer = managed.allocate(size);
    const view = buffer.hostView();
    view.set(pattern(size));
    buffer.close();
    expect(() => buffer.hostView()).toThrow(CudaStateError);
    if (detaches) expect(view.length).toBe(0);
    else expect(view).toEqual(pattern(size));
  });
});

// The FFI adapter's behaviour (no detach: the memory waits for the views to be collected),
// checked here on the reference driver with detachView answering false.
describeEachDriver(
  {},
  'Host views on an adapter that cannot detach',
  (entry) => {
    let log: ReturnType<typeof countingDriver>['log'];
    let pinned: PinnedMemoryResource;

    beforeAll(() => {
      const counted = countingDriver(withoutDetach(entry.driver));
      log = counted.log;
      useDriver(counted.driver);
      pinned = new PinnedMemoryResource();
    });

    describe('close', () => {
      it('closes at once but frees the memory only after every view was collected', async () => {
        const before = frees(log.calls);
        const buffer = pinned.allocate(size);
        let first: Uint8Array | null = buffer.hostView();
        let second: Uint8Array | null = buffer.slice(100, 10).hostView();
        buffer.hostView(); // dropped at once
        buffer.close();
        expect(buffer.isClosed).toBe(true);
        expect(() => buffer.fill(0)).toThrow(CudaStateError);
        expect(frees(log.calls)).toBe(before);
        expect(first.length).toBe(size);
        first = null;
        await collectGarbage(10);
        expect(frees(log.calls)).toBe(before);
        expect(second.length).toBe(10);
        second = null;
        await collectGarbage(50, () => frees(log.calls) > before);
        expect(frees(log.calls)).toBe(before + 1);
      });

      it('a dropped buffer whose view is reachable stays alive; it is freed once the view is dropped', async () => {
        const before = frees(log.calls);
        let view: Uint8Array | null = (() => pinned.allocate(size).hostView())();
        await collectGarbage(10);
        expect(frees(log.calls)).toBe(before);
        expect(view.length).toBe(size);
        view = null;
        await collectGarbage(50, () => frees(log.calls) > before);
        expect(frees(log.calls)).toBe(before + 1);
      });

      it('a buffer that never made a view frees at once', () => {
        const before = frees(log.calls);
        pinned.allocate(size).close();
        expect(frees(log.calls)).toBe(before + 1);
      });
    });
  },
  {},
);
