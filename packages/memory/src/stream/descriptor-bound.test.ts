// Creating, waiting on, closing and dropping thousands of streams and events raised a process's
// open file descriptors from 35 to 55 on a GPU. Neither adapter opens anything per stream or
// event (they hold no descriptors at all outside IPC), so those are the driver's own, opened
// lazily (channels, blocking-sync wake-ups) up to a bound. This proves the bound: after a
// warm-up of N cycles, 5N more (with collections, so dropped objects are finalized) add none.
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { useDriver } from '../runtime/driver-selection.js';
import { Event } from './event.js';
import { Stream } from './stream.js';

const collect = (globalThis as { gc?: () => void }).gc;
const hasProc = existsSync('/proc/self/fd');

/** Open descriptors of this process, each with what it points at. */
function openDescriptors(): Map<string, string> {
  const entries = new Map<string, string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      entries.set(fd, readlinkSync(`/proc/self/fd/${fd}`));
    } catch {
      // The directory's own descriptor, closed by the time it is read.
    }
  }
  return entries;
}

async function settle(): Promise<void> {
  if (!collect) throw new Error('run with --expose-gc (see vitest.config.ts)');
  for (let round = 0; round < 5; round++) {
    collect();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** One cycle: a stream and events of every kind, waited on both ways, half closed, half dropped. */
async function cycle(index: number): Promise<void> {
  const stream = Stream.create(0, { nonBlocking: index % 2 === 0 });
  const blocking = Event.create(0, { blockingSync: true, enableTiming: index % 3 === 0 });
  stream.record(blocking);
  const timing = stream.record();
  if (index % 4 === 0) await Promise.all([stream.syncAsync(), blocking.syncAsync(), timing.syncAsync()]);
  else {
    blocking.sync();
    stream.sync();
  }
  if (index % 2 === 0) {
    timing.close();
    blocking.close();
    stream.close();
  }
}

describeEachDriver(adapters, 'file descriptors', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it(`stream and event cycles reach a bound: 5N after N warm-up cycles add no descriptor${hasProc ? '' : ' — skipped: not applicable: no /proc/self/fd'}`, async (context) => {
    if (!hasProc) context.skip();
    const warmUp = entry.isReference ? 200 : 1000;
    for (let index = 0; index < warmUp; index++) await cycle(index);
    await settle();
    const before = openDescriptors();
    for (let index = 0; index < 5 * warmUp; index++) {
      await cycle(index);
      if (index % 500 === 499) await settle();
    }
    await settle();
    const after = openDescriptors();
    const added = [...after]
      .filter(([fd, target]) => before.get(fd) !== target)
      .map(([fd, target]) => `${fd} -> ${target}`);
    expect(added).toEqual([]);
  });
});
