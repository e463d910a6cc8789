// Issue 44: batch operations take one fixed rule per operation (batch-rule.ts of @cumem/utils),
// with nothing timed while the program runs. Replaces case 82 (the learned strategy): the same
// hostile programs — streams closed between batch calls, buffers closed between calls, batches
// that mix memories and directions, a buffer sent one way then the other in one list — land
// every byte, refuse closed buffers before the driver, and leave no learning state to read.
import { CudaStateError } from '@cumem/core-types';
import * as utils from '@cumem/utils';
import { check, collectGarbage, expectThrows, memory, setUp } from './support.mjs';

const { copyBatch, discardBatch, prefetchBatch } = utils;
const { driver } = await setUp();
const device = new memory.Device(0);
const host = new memory.Host();
const managed = new memory.ManagedMemoryResource();
const ranges = Array.from({ length: 32 }, () => managed.allocate(4096));

// The learner and its public table are gone: nothing to read, nothing to set.
for (const name of ['learnedBatchStrategies', 'BATCH_STRATEGY_TABLE', 'chooseBatchStrategy']) {
  check(!(name in utils), `@cumem/utils no longer exports ${name}`);
}

// Batch calls on streams closed (and collected) right after: no measurement outlives them.
for (let i = 0; i < 8; i++) {
  const stream = memory.Stream.create(0);
  prefetchBatch(stream, ranges, i % 2 === 0 ? device : host, { coalesce: false });
  stream.close();
}
await collectGarbage();
const stream = memory.Stream.create(0);

// Mixed directions in one list, in list order: a range sent to the device and then to the host
// ends on the host.
const mixed = ranges.map((_, i) => (i % 3 === 0 ? host : device));
prefetchBatch(stream, [...ranges, ranges[1]], [...mixed, host], { coalesce: false });
stream.sync();
{
  const bytes = new Uint8Array(4096);
  ranges[1].fill(0x5a, { stream });
  stream.sync();
  ranges[1].copyTo(bytes);
  check(
    bytes.every((byte) => byte === 0x5a),
    'a range prefetched both ways in one list keeps its bytes',
  );
}

// A buffer closed between calls is refused before any driver call.
ranges[5].close();
expectThrows(CudaStateError, 'prefetchBatch with a closed range', () =>
  prefetchBatch(stream, ranges, device),
);
if (driver.capabilities.batchPrefetchDiscard) {
  expectThrows(CudaStateError, 'discardBatch with a closed range', () => discardBatch(stream, ranges));
}
ranges[5] = managed.allocate(4096);

// copyBatch over interleaved memories of two resources, every form, every byte.
const first = new memory.DeviceMemoryResource(0);
const second = new memory.DeviceMemoryResource(0, {});
const sources = Array.from({ length: 64 }, (_, i) => (i % 2 === 0 ? first : second).allocate(256));
const targets = Array.from({ length: 64 }, (_, i) => (i % 3 === 0 ? second : first).allocate(256));
const bytes = new Uint8Array(256);
const strategies = [undefined, 'loop', ...(driver.capabilities.batchMemcpy ? ['batch'] : [])];
for (let round = 0; round < 6; round++) {
  const strategy = strategies[round % strategies.length];
  for (const [i, source] of sources.entries()) source.fill((round * 64 + i) & 0xff, { stream });
  // One pair alone takes the single call, the rest the rule.
  copyBatch(stream, targets.slice(0, 1), sources.slice(0, 1), undefined, { strategy });
  copyBatch(stream, targets.slice(1), sources.slice(1), undefined, { strategy });
  stream.sync();
  targets.forEach((target, i) => {
    target.copyTo(bytes);
    check(
      bytes.every((byte) => byte === ((round * 64 + i) & 0xff)),
      `copyBatch round ${round} (strategy ${strategy ?? 'auto'}): copy ${i} lost its bytes`,
    );
  });
}

// A strategy option answered by a getter is read once.
let reads = 0;
prefetchBatch(stream, ranges, device, {
  get strategy() {
    reads++;
    return 'auto';
  },
});
check(reads === 1, `the strategy option was read ${reads} times`);
expectThrows(TypeError, 'an unknown strategy', () =>
  prefetchBatch(stream, ranges, device, { strategy: 'fast' }),
);

for (const buffer of [...ranges, ...sources, ...targets]) buffer.close();
stream.close();
