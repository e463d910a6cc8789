// @cumem/utils rows: batch prefetch / discard / copy over 1024 ranges of 64 KiB, each strategy
// ('loop' and 'batch' recorded as variants, then the default, no strategy option, 'auto', as the
// row's value), and a strided 2D host-to-device copy through StridedMemoryView.
//
// Managed rows are migration-bound, so the page state a step starts from decides its time.
// Before every timed step (untimed) every page is made resident and populated in the same place:
// prefetched to the device, filled there, then (prefetch, discardPrefetch) moved to the opposite
// of the step's target. Steps alternate device, host, ... from 0 in every variant. Exactly what
// bench/c/utils.c and bench/python/utils.py do; rows.mjs holds the protocol.
import { Device, Host } from '@cumem/core-types';
import { fasterForm } from '../faster-form.mjs';
import {
  bandwidthGBps,
  collectGarbage,
  driverChoice,
  fillPattern,
  interleavedStepsUs,
  median,
  parseArguments,
  result,
  Suite,
} from './harness.mjs';

const RANGES = 1024;
const RANGE_BYTES = 64 * 1024;
// Ranges start 128 KiB apart: no two touch, so nothing can merge them into fewer, larger ranges.
const RANGE_STRIDE = 128 * 1024;
const TOTAL_BYTES = RANGES * RANGE_STRIDE;
const ROWS = 4096;
const COLUMNS = 4096;
const HOST_COLUMNS = 8192;
// Steps per repetition (even: as many to the device as to the host) and timed repetitions, after
// one untimed repetition: the same in bench/c/utils.c and bench/python/utils.py.
const MANAGED_STEPS_PER_REP = 6;
const MANAGED_REPS = 11;
const COPY_STEPS_PER_REP = 20;
// 21 (was 9): a repetition takes ~0.1 s, and on the GPU hosts a slow stretch of the host moved
// single samples up to 2x (4 ms to 8.8 ms in one run), enough to move the median of 9.
const COPY_REPS = 21;
// The explicit strategies first, then the default ('auto', no option), which is the row's value.
const STRATEGIES = ['loop', 'batch', 'auto'];
const strategyOptions = (strategy) => (strategy === 'auto' ? undefined : { strategy });

const options = parseArguments();
const suite = new Suite('utils', options);

let memory;
let utils;
let device;
let stream;
try {
  memory = await import('@cumem/memory');
  utils = await import('@cumem/utils');
  memory.useDriver(await driverChoice(options.driver));
  device = new Device(0);
  stream = memory.Stream.create(device, { nonBlocking: true });
  const driver = memory.currentDriver();
  suite.data.info = {
    ...suite.data.info,
    adapter: driver.name,
    driverVersion: driver.driverVersion,
    batchPrefetchDiscard: driver.capabilities.batchPrefetchDiscard,
    batchMemcpy: driver.capabilities.batchMemcpy,
  };
  suite.save();
} catch (error) {
  suite.fatal(error);
  process.exit(2);
}

const onStream = { stream };
const host = new Host();
const locations = [device, host];

function managedRanges() {
  const base = new memory.ManagedMemoryResource().allocate(TOTAL_BYTES, onStream);
  base.fill(0x5a, onStream);
  stream.sync();
  const views = Array.from({ length: RANGES }, (_, i) => base.slice(i * RANGE_STRIDE, RANGE_BYTES));
  return { base, views };
}

/**
 * The page state every managed step starts from (untimed): the whole allocation prefetched to
 * the device, filled there (so every page is populated, whatever a discard left), and moved to
 * the host when `onHost`.
 */
function resetPages(base, onHost) {
  base.prefetch(device, onStream);
  base.fill(0x5a, onStream);
  if (onHost) base.prefetch(host, onStream);
  stream.sync();
}

/**
 * What the default strategy ('auto') does for `operation`: a fixed rule per operation and direction
 * (packages/utils/src/batch/batch-rule.ts), no learning at run time, so the report names the rule.
 * A baseline build from before that rule (bench/compare.mjs, `--base`) learned the form at run
 * time and exported what it learned: then the learned form and the device times it chose by.
 */
function autoChoice(operation) {
  if (typeof utils.learnedBatchStrategies !== 'function')
    return `fixed rule for ${operation} (utils batch-rule.ts)`;
  const learned = utils.learnedBatchStrategies(stream).filter((entry) => entry.operation === operation);
  if (learned.length === 0) return 'learned at run time: nothing learned';
  return Object.fromEntries(
    learned.map((entry) => [
      `${entry.direction}:${entry.ranges.join('-')}`,
      { kind: entry.kind ?? 'learning', batchMs: entry.batchMs, loopMs: entry.loopMs },
    ]),
  );
}

/**
 * `auto` against the faster form (by median), paired by repetition: the median over repetitions
 * of auto's sample over that form's sample of the same repetition. The three variants of one
 * repetition run back to back (~0.1-0.6 s), so a slow stretch of the host that covers a
 * repetition moves all three and cancels here; the ratio of the medians does not pair them. The
 * check (bench/checks.mjs) judges this value; the ratio of medians stays in the results.
 */
function autoOverFasterForm(measured) {
  const { loop, batch, auto } = measured;
  if (loop.error || batch.error || auto.error) return undefined;
  const faster = fasterForm(median(loop.samples), median(batch.samples)) === 'loop' ? loop : batch;
  const count = Math.min(auto.samples.length, faster.samples.length);
  return median(Array.from({ length: count }, (_, rep) => auto.samples[rep] / faster.samples[rep]));
}

/** `{ <name>ToDevice, <name>ToHost }`: median step time per direction (even steps go to the device). */
function directionMedians(name, steps) {
  const of = (parity) => median(steps.filter(([i]) => (i & 1) === parity).map(([, us]) => us));
  return { [`${name}ToDevice`]: of(0), [`${name}ToHost`]: of(1) };
}

/**
 * One row per managed batch operation: every strategy measured on the same ranges. With
 * `alternating`, step i targets locations[i & 1] and starts with every page on the other side;
 * otherwise every step starts with every page on the device.
 */
function batchRow(operationName, operation, alternating) {
  const { base, views } = managedRanges();
  try {
    const timed = Object.fromEntries(
      STRATEGIES.map((strategy) => {
        const batchOptions = strategyOptions(strategy);
        return [
          strategy,
          (i) => {
            operation(views, i, batchOptions);
            stream.sync();
          },
        ];
      }),
    );
    const measured = interleavedStepsUs(timed, {
      setup: (i) => resetPages(base, alternating && (i & 1) === 0),
      perRep: MANAGED_STEPS_PER_REP,
      reps: MANAGED_REPS,
    });
    const variants = {};
    const directions = {};
    for (const strategy of STRATEGIES) {
      const { error, samples, steps } = measured[strategy];
      variants[strategy] = () => {
        if (error) throw error;
        if (alternating) Object.assign(directions, directionMedians(strategy, steps));
        return samples;
      };
    }
    const row = Suite.variants('us', 'auto', variants, {
      via: 'default strategy (auto; loop and batch under variants; repetitions of the three interleaved, the order turned each repetition)',
      get autoChoice() {
        return autoChoice(operationName);
      },
      protocol: {
        stepsPerRep: MANAGED_STEPS_PER_REP,
        reps: MANAGED_REPS,
        warmupReps: 1,
        reset: alternating ? 'oppositeOfTarget' : 'device',
      },
    });
    Object.assign(row.variants, directions, { autoOverFasterForm: autoOverFasterForm(measured) });
    return row;
  } finally {
    base.close(onStream);
    stream.sync();
    collectGarbage();
  }
}

await suite.row('utils.prefetchBatch', 'us', () =>
  batchRow(
    'prefetch',
    (views, i, batchOptions) => utils.prefetchBatch(stream, views, locations[i & 1], batchOptions),
    true,
  ),
);

await suite.row('utils.discardBatch', 'us', () =>
  batchRow('discard', (views, _i, batchOptions) => utils.discardBatch(stream, views, batchOptions), false),
);

await suite.row('utils.discardPrefetchBatch', 'us', () =>
  batchRow(
    'discardPrefetch',
    (views, i, batchOptions) => utils.discardPrefetchBatch(stream, views, locations[i & 1], batchOptions),
    true,
  ),
);

await suite.row('utils.copyBatch', 'us', () => {
  const resource = new memory.DeviceMemoryResource(device);
  const source = resource.allocate(TOTAL_BYTES, onStream);
  const target = resource.allocate(TOTAL_BYTES, onStream);
  try {
    source.fill(0x3c, onStream);
    stream.sync();
    const sources = Array.from({ length: RANGES }, (_, i) => source.slice(i * RANGE_STRIDE, RANGE_BYTES));
    const targets = Array.from({ length: RANGES }, (_, i) => target.slice(i * RANGE_STRIDE, RANGE_BYTES));
    const timed = Object.fromEntries(
      STRATEGIES.map((strategy) => {
        const batchOptions = strategyOptions(strategy);
        return [
          strategy,
          () => {
            utils.copyBatch(stream, targets, sources, undefined, batchOptions);
            stream.sync();
          },
        ];
      }),
    );
    const measured = interleavedStepsUs(timed, { perRep: COPY_STEPS_PER_REP, reps: COPY_REPS });
    const variants = {};
    for (const strategy of STRATEGIES) {
      const { error, samples } = measured[strategy];
      variants[strategy] = () => {
        if (error) throw error;
        return samples;
      };
    }
    const row = Suite.variants('us', 'auto', variants, {
      via: 'copyBatch, default strategy (auto; loop and batch under variants; repetitions of the three interleaved, the order turned each repetition)',
      get autoChoice() {
        return autoChoice('copy');
      },
      protocol: { stepsPerRep: COPY_STEPS_PER_REP, reps: COPY_REPS, warmupReps: 1, reset: 'none' },
    });
    row.variants.autoOverFasterForm = autoOverFasterForm(measured);
    return row;
  } finally {
    source.close(onStream);
    target.close(onStream);
    stream.sync();
  }
});

await suite.row('utils.strided2DHtoD', 'GB/s', () => {
  const bytes = ROWS * COLUMNS * 4;
  const pinned = new memory.PinnedMemoryResource();
  const host = pinned.allocate(ROWS * HOST_COLUMNS * 4, onStream);
  const contiguousHost = pinned.allocate(bytes, onStream);
  const target = new memory.DeviceMemoryResource(device).allocate(bytes, onStream);
  try {
    stream.sync();
    fillPattern(host.hostView(), 17);
    fillPattern(contiguousHost.hostView(), 19);
    const source = utils.StridedMemoryView.fromBuffer(
      host,
      new utils.StridedLayout([ROWS, COLUMNS], [HOST_COLUMNS, 1], 4),
      {
        dtype: 'float32',
      },
    );
    const destination = utils.StridedMemoryView.fromBuffer(
      target,
      utils.StridedLayout.dense([ROWS, COLUMNS], 4),
      {
        dtype: 'float32',
      },
    );
    // Check one copy before timing: row r of the device matrix is row r of the host block.
    source.copyTo(destination, onStream);
    stream.sync();
    const check = new Uint8Array(COLUMNS * 4);
    const hostBytes = host.hostView();
    for (const row of [0, ROWS / 2, ROWS - 1]) {
      target.slice(row * COLUMNS * 4, COLUMNS * 4).copyTo(check);
      const expected = hostBytes.subarray(row * HOST_COLUMNS * 4, row * HOST_COLUMNS * 4 + COLUMNS * 4);
      if (!check.every((byte, i) => byte === expected[i]))
        throw new Error(`strided copy wrong in row ${row}`);
    }
    const strided = bandwidthGBps(
      (n) => {
        for (let i = 0; i < n; i++) source.copyTo(destination, onStream);
        stream.sync();
      },
      bytes,
      { perRep: 8, reps: 7 },
    );
    const contiguous = bandwidthGBps(
      (n) => {
        for (let i = 0; i < n; i++) target.copyFrom(contiguousHost, onStream);
        stream.sync();
      },
      bytes,
      { perRep: 8, reps: 7 },
    );
    return result(strided, 'GB/s', {
      via: 'StridedMemoryView.copyTo (8192-wide pinned host matrix -> dense device matrix)',
      variants: { contiguousSameAdapter: contiguous.sort((a, b) => a - b)[contiguous.length >> 1] },
    });
  } finally {
    host.close(onStream);
    contiguousHost.close(onStream);
    target.close(onStream);
    stream.sync();
  }
});

stream.close();
