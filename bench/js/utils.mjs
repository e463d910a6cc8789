// @cumem/utils rows: batch prefetch / discard / copy over 1024 ranges of 64 KiB, each strategy
// ('auto' is the row's value; 'loop' and 'batch' are recorded as variants), and a strided 2D
// host-to-device copy through StridedMemoryView.
import { Device, Host } from '@cumem/core-types';
import {
  bandwidthGBps,
  collectGarbage,
  driverChoice,
  fillPattern,
  parseArguments,
  result,
  Suite,
  stepsUs,
} from './harness.mjs';

const RANGES = 1024;
const RANGE_BYTES = 64 * 1024;
// Ranges start 128 KiB apart: no two touch, so nothing can merge them into fewer, larger ranges.
const RANGE_STRIDE = 128 * 1024;
const TOTAL_BYTES = RANGES * RANGE_STRIDE;
const ROWS = 4096;
const COLUMNS = 4096;
const HOST_COLUMNS = 8192;
const STRATEGIES = ['auto', 'loop', 'batch'];

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
const locations = [device, new Host()];

function managedRanges() {
  const base = new memory.ManagedMemoryResource().allocate(TOTAL_BYTES, onStream);
  base.fill(0x5a, onStream);
  stream.sync();
  const views = Array.from({ length: RANGES }, (_, i) => base.slice(i * RANGE_STRIDE, RANGE_BYTES));
  return { base, views };
}

/** One row per batch operation: every strategy measured on the same ranges. */
function batchRow(operation, { setup } = {}) {
  const { base, views } = managedRanges();
  try {
    const variants = {};
    for (const strategy of STRATEGIES) {
      const batchOptions = { strategy };
      variants[strategy] = () =>
        stepsUs(
          (i) => {
            operation(views, i, batchOptions);
            stream.sync();
          },
          setup ? { setup: (i) => setup(views, i) } : {},
        );
    }
    return Suite.variants('us', 'auto', variants, { via: 'strategy auto (loop and batch under variants)' });
  } finally {
    base.close(onStream);
    stream.sync();
    collectGarbage();
  }
}

await suite.row('utils.prefetchBatch', 'us', () =>
  batchRow((views, i, batchOptions) => utils.prefetchBatch(stream, views, locations[i & 1], batchOptions)),
);

await suite.row('utils.discardBatch', 'us', () =>
  batchRow((views, _i, batchOptions) => utils.discardBatch(stream, views, batchOptions), {
    // Untimed: every range resident on the device again, so each discard has pages to drop.
    setup: (views) => {
      utils.prefetchBatch(stream, views, device);
      stream.sync();
    },
  }),
);

await suite.row('utils.discardPrefetchBatch', 'us', () =>
  batchRow((views, i, batchOptions) =>
    utils.discardPrefetchBatch(stream, views, locations[i & 1], batchOptions),
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
    const variants = {};
    for (const strategy of STRATEGIES) {
      variants[strategy] = () =>
        stepsUs(
          () => {
            utils.copyBatch(stream, targets, sources, undefined, { strategy });
            stream.sync();
          },
          { perRep: 20 },
        );
    }
    return Suite.variants('us', 'auto', variants, {
      via: 'copyBatch strategy auto (loop and batch under variants)',
    });
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
