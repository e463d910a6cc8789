// Growth curves (issue 47): how cumem's costs grow with the work. Each curve is one row whose
// variants hold its points ({ n, ... } per point) and whose value is the growth: the per-item
// cost at the largest n over that at the smallest. bench/report.mjs draws each curve as an SVG
// (bench/plot-svg.mjs). One process per adapter (rows.mjs SINGLE_PROCESS_SUITES): every point is
// itself a median of repetitions.
//
// - allocate + close latency and JS heap bytes per live buffer, 1 to 1,000,000 live buffers
// - copyBatch time for 1 to 65,536 ranges
// - tableToDevice of 1 to 1,000 columns of the same total size
// - DLPack export + import per tensor with 1 to 100,000 tensors alive
import { Device } from '@cumem/core-types';
import { collectGarbage, driverChoice, median, parseArguments, result, Suite } from './harness.mjs';

const QUICK = process.env.BENCH_QUICK === '1';
const options = parseArguments();
const suite = new Suite('curves', options);

let memory;
let utils;
let arrow;
let apacheArrow;
let stream;
try {
  memory = await import('@cumem/memory');
  utils = await import('@cumem/utils');
  arrow = await import('@cumem/interop-arrow');
  apacheArrow = await import('apache-arrow');
  memory.useDriver(await driverChoice(options.driver));
  stream = memory.Stream.create(0, { nonBlocking: true });
  suite.data.info = { ...suite.data.info, adapter: memory.currentDriver().name, quick: QUICK };
  suite.save();
} catch (error) {
  suite.fatal(error);
  process.exit(2);
}
const onStream = { stream };
const device = new Device(0);

/** 1, 10, 100, ... up to `largest` (and `largest` itself). */
function decades(largest, factor = 10) {
  const points = [];
  for (let n = 1; n < largest; n *= factor) points.push(n);
  points.push(largest);
  return points;
}

/**
 * Seconds each curve may take: a cost that grows with n (what these curves look for) would
 * otherwise take the whole bench. Points past it are left out and the row says where it stopped.
 */
const CURVE_SECONDS = Number(process.env.BENCH_CURVE_SECONDS) || (QUICK ? 3 : 8);
const curveDeadline = () => {
  const end = Date.now() + CURVE_SECONDS * 1000;
  return () => Date.now() > end;
};

/**
 * Microseconds per call of `step()`, the median of `reps` timed groups of up to `count` calls:
 * fewer when one call is slow, so a group takes about 50 ms at most.
 */
function microseconds(step, largestCount, reps = 5) {
  const first = process.hrtime.bigint();
  step();
  const oneMs = Number(process.hrtime.bigint() - first) / 1e6;
  const count = Math.max(1, Math.min(largestCount, Math.floor(50 / Math.max(oneMs, 1e-6))));
  for (let i = 0; i < count; i++) step();
  const samples = [];
  for (let rep = 0; rep < reps; rep++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < count; i++) step();
    samples.push(Number(process.hrtime.bigint() - start) / 1e3 / count);
  }
  return median(samples);
}

/** The row's value: per-item cost at the largest n over that at the smallest. */
function growth(points, key) {
  const first = points[0]?.[key];
  const last = points.at(-1)?.[key];
  return typeof first === 'number' && first > 0 && typeof last === 'number' ? last / first : Number.NaN;
}

await suite.row('curves.liveBuffers', '×', () => {
  const mr = new memory.DeviceMemoryResource(device);
  const live = [];
  const points = [];
  const late = curveDeadline();
  try {
    for (const n of decades(QUICK ? 10_000 : 1_000_000)) {
      if (late()) break;
      collectGarbage();
      const before = process.memoryUsage().heapUsed;
      while (live.length < n) live.push(mr.allocate(256, onStream));
      collectGarbage();
      const heapBytesPerBuffer =
        (process.memoryUsage().heapUsed - before) / (n - (points.at(-1)?.n ?? 0) || 1);
      const allocateCloseUs = microseconds(() => mr.allocate(256, onStream).close(onStream), 2000);
      points.push({ n, allocateCloseUs, heapBytesPerBuffer });
    }
  } finally {
    for (const buffer of live) buffer.close(onStream);
    stream.sync();
    mr.close();
  }
  return result([growth(points, 'allocateCloseUs')], '×', {
    variants: {
      points,
      largestN: points.at(-1)?.n ?? 0,
      x: 'n',
      series: ['allocateCloseUs', 'heapBytesPerBuffer'],
    },
    via: 'DeviceMemoryResource.allocate(256 B) + close() with n buffers alive; heap: heapUsed after a collection, per buffer added',
  });
});

await suite.row('curves.copyBatchRanges', '×', () => {
  const RANGE = 4096;
  const largest = QUICK ? 1024 : 65_536;
  const mr = new memory.DeviceMemoryResource(device);
  const source = mr.allocate(largest * RANGE * 2, onStream);
  const target = mr.allocate(largest * RANGE * 2, onStream);
  const points = [];
  try {
    source.fill(0x3c, onStream);
    const late = curveDeadline();
    for (const n of decades(largest, 4)) {
      if (late()) break;
      // Ranges RANGE apart, so no two can be merged into one copy.
      const sources = Array.from({ length: n }, (_, i) => source.slice(i * RANGE * 2, RANGE));
      const targets = Array.from({ length: n }, (_, i) => target.slice(i * RANGE * 2, RANGE));
      const batchUs = microseconds(
        () => {
          utils.copyBatch(stream, targets, sources);
          stream.sync();
        },
        n >= 4096 ? 3 : 20,
      );
      points.push({ n, batchUs, perRangeUs: batchUs / n });
    }
  } finally {
    source.close(onStream);
    target.close(onStream);
    stream.sync();
    mr.close();
  }
  return result([growth(points, 'perRangeUs')], '×', {
    variants: { points, largestN: points.at(-1)?.n ?? 0, x: 'n', series: ['batchUs', 'perRangeUs'] },
    via: 'utils.copyBatch of n 4 KiB device-to-device ranges (default strategy) + synchronize',
  });
});

await suite.row('curves.tableColumns', '×', () => {
  const TOTAL = QUICK ? 16 * 1024 * 1024 : 256 * 1024 * 1024;
  const context = new arrow.Context(0);
  const points = [];
  const late = curveDeadline();
  for (const n of [1, 3, 10, 30, 100, 300, 1000]) {
    if (late()) break;
    const rows = Math.floor(TOTAL / 4 / n);
    const columns = Object.fromEntries(
      Array.from({ length: n }, (_, i) => [`c${i}`, new Float32Array(rows).fill(i + 1)]),
    );
    const table = apacheArrow.tableFromArrays(columns);
    const samples = [];
    for (let rep = -1; rep < 3; rep++) {
      const start = process.hrtime.bigint();
      const uploaded = arrow.tableToDevice(table, context);
      context.synchronize();
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      uploaded.close();
      if (rep >= 0) samples.push(seconds);
    }
    const seconds = median(samples);
    points.push({ n, ms: seconds * 1e3, gbps: (rows * n * 4) / seconds / 1e9 });
    collectGarbage();
  }
  return result([growth(points, 'ms')], '×', {
    variants: { points, largestN: points.at(-1)?.n ?? 0, x: 'n', series: ['ms', 'gbps'] },
    via: `tableToDevice of n float32 columns totalling ${TOTAL} bytes (pageable columns), + synchronize`,
  });
});

await suite.row('curves.dlpackTensorsAlive', '×', () => {
  const mr = new memory.DeviceMemoryResource(device);
  const buffer = mr.allocate(4096, onStream);
  const layout = utils.StridedLayout.dense([1024], 4);
  const view = utils.StridedMemoryView.fromBuffer(buffer, layout, { dtype: 'float32' });
  const alive = [];
  const points = [];
  const exchange = () => utils.StridedMemoryView.fromDLPack(view.toDLPack());
  const late = curveDeadline();
  try {
    for (const n of decades(QUICK ? 1000 : 100_000)) {
      while (alive.length < n && !late()) alive.push(exchange());
      if (late()) break;
      const perTensorUs = microseconds(() => exchange().close(), 1000);
      points.push({ n, perTensorUs });
    }
  } finally {
    for (const imported of alive) imported.close();
    buffer.close(onStream);
    stream.sync();
    mr.close();
  }
  return result([growth(points, 'perTensorUs')], '×', {
    variants: { points, largestN: points.at(-1)?.n ?? 0, x: 'n', series: ['perTensorUs'] },
    via: 'StridedMemoryView.toDLPack() + StridedMemoryView.fromDLPack() + close(), with n imported views alive',
  });
});
process.exit(0);
