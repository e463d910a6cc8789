// A wait in flight keeps its Stream or Event (and the driver handle) alive: through a GC, and
// through close(). The waits of a "gated" driver start the real wait only when the test opens
// the gate, so the object is provably unreferenced (and collected, without the hold) while the
// wait is pending on every driver, the reference one included.
import { CudaStateError, type Driver } from '@cumem/core-types';
import { describeEachDriver } from '@cumem/testing/vitest';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { collectGarbage } from '../../test/garbage.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { heldByWaits } from './pending-waits.js';
import { Stream } from './stream.js';

const mebibyte = 1024 * 1024;
const collect = (globalThis as { gc?: () => void }).gc;

/** `inner`, with its async waits held at a gate until `release()`, and its destroys recorded. */
function gatedDriver(inner: Driver): { driver: Driver; destroyed: bigint[]; release: () => void } {
  const destroyed: bigint[] = [];
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  // An empty target: the N-API driver is frozen, and a Proxy over it could only return its own values.
  const driver = new Proxy(
    {},
    {
      get(_target, property) {
        const value = Reflect.get(inner, property, inner) as unknown;
        if (typeof value !== 'function') return value;
        if (property === 'streamSynchronizeAsync' || property === 'eventSynchronizeAsync') {
          return (handle: bigint) => gate.then(() => Reflect.apply(value, inner, [handle]));
        }
        if (property === 'streamDestroy' || property === 'eventDestroy') {
          return (handle: bigint) => {
            destroyed.push(handle);
            return Reflect.apply(value, inner, [handle]);
          };
        }
        return (...args: unknown[]) => Reflect.apply(value, inner, args);
      },
      has: (_target, property) => Reflect.has(inner, property),
    },
  ) as Driver;
  return { driver, destroyed, release };
}

describeEachDriver(adapters, 'pending waits', (entry) => {
  beforeAll(() => useDriver(entry.driver));
  afterEach(() => {
    useDriver(entry.driver);
    expect(heldByWaits()).toBe(0);
  });

  it('an unreferenced event is not finalized while a wait on it is pending, and is after it settles', async () => {
    const gated = gatedDriver(entry.driver);
    useDriver(gated.driver);
    const stream = Stream.create();
    // `await stream.record().syncAsync()`: nothing but the wait references the event.
    const wait = stream.record().syncAsync();
    await collectGarbage(10);
    expect(gated.destroyed).toEqual([]);
    expect(heldByWaits()).toBe(1);
    gated.release();
    // Had the event been finalized, the real wait would now run on a destroyed CUevent.
    await expect(wait).resolves.toBeUndefined();
    expect(heldByWaits()).toBe(0);
    await collectGarbage(50, () => gated.destroyed.length > 0);
    expect(gated.destroyed.length).toBe(1);
    stream.close();
  });

  it('close() during a wait destroys the stream and the event only after every wait on them settles', async () => {
    const gated = gatedDriver(entry.driver);
    useDriver(gated.driver);
    const stream = Stream.create();
    const event = stream.record();
    const [streamHandle, eventHandle] = [stream.handle, event.handle];
    const waits = [stream.syncAsync(), event.syncAsync(), event.syncAsync()];
    stream.close();
    event.close();
    event.close();
    expect(stream.isClosed && event.isClosed).toBe(true);
    expect(() => stream.handle).toThrow(CudaStateError);
    expect(() => event.handle).toThrow(CudaStateError);
    await expect(event.syncAsync()).rejects.toThrow(CudaStateError);
    await collectGarbage(3);
    expect(gated.destroyed).toEqual([]);
    gated.release();
    await Promise.all(waits);
    expect([...gated.destroyed].sort()).toEqual([streamHandle, eventHandle].sort());
  });

  it('`await stream.record().syncAsync()` behind large copies survives repeated GCs (256 MiB copies on a GPU)', async () => {
    const size = entry.isReference ? mebibyte : 256 * mebibyte;
    const mr = new DeviceMemoryResource(0);
    using stream = Stream.create();
    const first = mr.allocate(size, { stream });
    const second = mr.allocate(size, { stream });
    try {
      first.fill(0x5a, { stream });
      for (let round = 0; round < 8; round++) {
        second.copyFrom(first, { stream });
        first.copyFrom(second, { stream });
      }
      const marker = stream.record();
      // On a GPU the copies take milliseconds: the wait below really is pending during the GCs.
      if (!entry.isReference) expect(marker.isDone).toBe(false);
      marker.close();
      let settled = false;
      const awaited = stream.record();
      const wait = awaited.syncAsync().finally(() => {
        settled = true;
      });
      while (!settled) {
        collect?.();
        await new Promise((resolve) => setImmediate(resolve));
      }
      await wait;
      // The awaited event, and so everything queued before it, is done (a new event's query
      // right after its record may still say "not ready": the record itself is queued work).
      expect(awaited.isDone).toBe(true);
      awaited.close();
      const bytes = second.slice(size - 4096).copyTo(new Uint8Array(4096), { stream });
      stream.sync();
      expect(bytes.every((byte) => byte === 0x5a)).toBe(true);
    } finally {
      first.close({ stream });
      second.close({ stream });
      stream.sync();
    }
  });
});
