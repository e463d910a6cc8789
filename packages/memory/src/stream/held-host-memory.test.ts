// Held JS memory (held-host-memory.ts): one event per group of holds, never released before the
// stream has passed it, with every adapter and the reference driver.
import { collectGarbageUntil } from '@cumem/test-support';
import { countingDriver, describeEachDriver } from '@cumem/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { useDriver } from '../runtime/driver-selection.js';
import { Stream } from './stream.js';

/** True once everything `refs` points at was collected (a few GC rounds, with the event loop turning). */
async function collected(refs: WeakRef<object>[]): Promise<boolean> {
  return collectGarbageUntil(() => refs.every((ref) => ref.deref() === undefined), 20);
}

/** `refs` stay held until `stream.sync()`, which releases them. */
async function expectHeldUntilSync(stream: Stream, refs: WeakRef<object>[]): Promise<void> {
  expect(await collected(refs)).toBe(false);
  stream.sync();
  expect(await collected(refs)).toBe(true);
}

/** Holds `count` new views of `bytes` each on `stream`; returns weak references to them. */
function holdViews(stream: Stream, count: number, bytes: number): WeakRef<object>[] {
  const refs: WeakRef<object>[] = [];
  for (let i = 0; i < count; i++) {
    const view = new Uint8Array(bytes);
    refs.push(new WeakRef(view));
    stream.holdHostMemory(view);
  }
  return refs;
}

describeEachDriver(adapters, 'held host memory', (entry) => {
  // The driver is read in beforeAll: reading it where a GPU adapter is unavailable throws.
  let counting: ReturnType<typeof countingDriver>;
  beforeAll(() => {
    counting = countingDriver(entry.driver);
    useDriver(counting.driver);
  });
  afterAll(() => useDriver(entry.driver));

  it('small holds share one event per 64; a large hold gets its own at once', () => {
    const stream = Stream.create();
    counting.log.reset();
    holdViews(stream, 63, 4096);
    expect(counting.log.calls.filter((call) => call === 'eventRecord')).toHaveLength(0);
    holdViews(stream, 1, 4096);
    expect(counting.log.calls.filter((call) => call === 'eventRecord')).toHaveLength(1);
    counting.log.reset();
    holdViews(stream, 1, 4 * 1024 * 1024);
    expect(counting.log.calls.filter((call) => call === 'eventRecord')).toHaveLength(1);
    stream.close();
  });

  it('the open group stays held until a sync, and is then released', async () => {
    const stream = Stream.create();
    const refs = holdViews(stream, 3, 4096);
    await expectHeldUntilSync(stream, refs);
    stream.close();
  });

  it('syncAsync releases what was held before it, never what was held while it waited', async () => {
    const stream = Stream.create();
    const before = holdViews(stream, 2, 4096);
    const waiting = stream.syncAsync();
    // A sync while the wait is pending, then new holds: the wait must not count them as passed.
    stream.sync();
    const during = holdViews(stream, 2, 4096);
    await waiting;
    expect(await collected(before)).toBe(true);
    await expectHeldUntilSync(stream, during);
    stream.close();
  });

  it('close() waits for held memory, then lets it go', async () => {
    const stream = Stream.create();
    const refs = holdViews(stream, 5, 1024);
    counting.log.reset();
    stream.close();
    expect(counting.log.calls).toContain('streamSynchronize');
    expect(await collected(refs)).toBe(true);
  });
});
