// Pageable JS memory rows (issue 14): Buffer.copyFrom / copyTo between device memory and
// ordinary Uint8Arrays (staged through pinned chunks on native threads in the N-API adapter),
// the same memory pinned in place with registerHostMemory, a table of pageable columns to the
// device, and the size sweep that checks no copy size is slower than the adapter's direct copy.
import { Device } from '@cumem/core-types';
import { tableFromArrays } from 'apache-arrow';
import { cappedReps } from '../repetitions.mjs';
import {
  bandwidthGBps,
  collectGarbage,
  driverChoice,
  fillPattern,
  median,
  parseArguments,
  result,
  Suite,
} from './harness.mjs';

const COPY_BYTES = 256 * 1024 * 1024;
const TABLE_ROWS = 22_369_621; // int32 + float64: 268 MB, the C program's TABLE_ROWS
const REPS = 7;

const options = parseArguments();
const suite = new Suite('pageable', options);

let memory;
let arrow;
let driver;
let stream;
let onDevice;
let pageable;
try {
  memory = await import('@cumem/memory');
  arrow = await import('@cumem/interop-arrow');
  memory.useDriver(await driverChoice(options.driver));
  const device = new Device(0);
  stream = memory.Stream.create(device, { nonBlocking: true });
  driver = memory.currentDriver();
  onDevice = new memory.DeviceMemoryResource(device).allocate(COPY_BYTES, { stream });
  pageable = new Uint8Array(COPY_BYTES);
  fillPattern(pageable, 29);
  // Round trip once, checked, before anything is timed.
  onDevice.copyFrom(pageable, { stream });
  const back = new Uint8Array(COPY_BYTES);
  onDevice.copyTo(back, { stream });
  stream.sync();
  if (!Buffer.from(back.buffer).equals(Buffer.from(pageable.buffer)))
    throw new Error('the staged round trip differs');
  suite.data.info = {
    ...suite.data.info,
    adapter: driver.name,
    driverVersion: driver.driverVersion,
    staging: memory.configureStaging(),
  };
  suite.save();
} catch (error) {
  suite.fatal(error);
  process.exit(2);
}

const onStream = { stream };
const via = 'Buffer.copyFrom / copyTo (staged copy above stagingSettings().minBytes)';

function copies(copy, bytes, perRep = 2, reps = REPS) {
  return bandwidthGBps(
    (n) => {
      for (let i = 0; i < n; i++) copy();
      stream.sync();
    },
    bytes,
    { perRep, reps },
  );
}

await suite.row('pageable.htod256MiB', 'GB/s', () =>
  result(
    copies(() => onDevice.copyFrom(pageable, onStream), COPY_BYTES),
    'GB/s',
    {
      via,
      variants: {
        direct: median(copies(() => driver.memcpyHtoD(onDevice.handle, pageable), COPY_BYTES, 2, 5)),
      },
    },
  ),
);

await suite.row('pageable.dtohTouched256MiB', 'GB/s', () =>
  result(
    copies(() => onDevice.copyTo(pageable, onStream), COPY_BYTES),
    'GB/s',
    {
      via,
      variants: {
        direct: median(copies(() => driver.memcpyDtoH(pageable, onDevice.handle), COPY_BYTES, 2, 5)),
      },
    },
  ),
);

await suite.row('pageable.dtohNew256MiB', 'GB/s', () => {
  // A new array per copy, its allocation timed (as malloc is in C); the last one is collected
  // untimed before the next, so memory does not grow.
  const samples = [];
  for (let rep = -1; rep < cappedReps(REPS); rep++) {
    collectGarbage();
    const start = process.hrtime.bigint();
    const fresh = onDevice.copyTo(new Uint8Array(COPY_BYTES), onStream);
    stream.sync();
    const elapsed = Number(process.hrtime.bigint() - start);
    if (fresh[12345] !== pageable[12345]) throw new Error('the copy into a new array differs');
    if (rep >= 0) samples.push(COPY_BYTES / elapsed);
  }
  return result(samples, 'GB/s', { via: 'Buffer.copyTo(new Uint8Array(size))' });
});

await (await import('./pageable-copy-to-host.mjs')).copyToHostRow(suite, arrow, onDevice, pageable);

/**
 * Median over `reps` of (direct copy's time / ours), each repetition timing both back to back
 * and in alternating order, after one untimed pair: the two copies share whatever the machine
 * was doing at the time, so drift between repetitions (up to 2x on these machines) cancels out
 * of the ratio instead of landing on whichever side was measured second.
 */
function interleavedRatio(ours, direct, perRep, reps) {
  const time = (copy) => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < perRep; i++) copy();
    stream.sync();
    return Number(process.hrtime.bigint() - start);
  };
  const ratios = [];
  for (let rep = -1; rep < reps; rep++) {
    const oursFirst = rep % 2 === 0;
    const first = time(oursFirst ? ours : direct);
    const second = time(oursFirst ? direct : ours);
    if (rep >= 0) ratios.push(oursFirst ? second / first : first / second);
  }
  return median(ratios);
}

await suite.row('pageable.sizeSweep', '×', () => {
  // Slowest ratio of cumem's copy to the adapter's direct copy over sizes and both directions.
  const ratios = {};
  let slowest = Number.POSITIVE_INFINITY;
  const device = onDevice.handle;
  const resource = new memory.DeviceMemoryResource(new Device(0));
  for (let size = 4096; size <= 1024 * 1024 * 1024; size *= 4) {
    const big = size > COPY_BYTES;
    const host = big ? new Uint8Array(size).fill(7) : pageable.subarray(0, size);
    const target = big ? resource.allocate(size, onStream) : onDevice.slice(0, size);
    const pointer = big ? target.handle : device;
    const perRep = Math.max(1, Math.min(4096, Math.floor((64 * 1024 * 1024) / size)));
    const reps = cappedReps(size >= 256 * 1024 * 1024 ? 3 : 11);
    const pairs = {
      htod: [() => target.copyFrom(host, onStream), () => driver.memcpyHtoD(pointer, host)],
      dtoh: [() => target.copyTo(host, onStream), () => driver.memcpyDtoH(host, pointer)],
    };
    for (const [direction, [ours, direct]] of Object.entries(pairs)) {
      const ratio = interleavedRatio(ours, direct, perRep, reps);
      ratios[`${direction}${size}`] = Number(ratio.toFixed(3));
      slowest = Math.min(slowest, ratio);
    }
    if (big) target.close(onStream);
    stream.sync();
  }
  return { value: slowest, unit: '×', samples: [slowest], variants: ratios, via };
});

let registeredDown;
await suite.row('registered.htod256MiB', 'GB/s', () => {
  const started = process.hrtime.bigint();
  const registration = memory.registerHostMemory(pageable);
  const registerMs = Number(process.hrtime.bigint() - started) / 1e6;
  try {
    const up = copies(() => onDevice.copyFrom(pageable, onStream), COPY_BYTES, 4);
    registeredDown = copies(() => onDevice.copyTo(pageable, onStream), COPY_BYTES, 4);
    return result(up, 'GB/s', { via: 'registerHostMemory + Buffer.copyFrom', variants: { registerMs } });
  } finally {
    registration.close();
  }
});

await suite.row('registered.dtoh256MiB', 'GB/s', () => {
  if (!registeredDown) throw new Error('measured with registered.htod256MiB, which failed');
  return result(registeredDown, 'GB/s', { via: 'registerHostMemory + Buffer.copyTo' });
});

onDevice.close(onStream);
stream.sync();
pageable = undefined;
collectGarbage();

await suite.row('arrow.tableToDevicePageable', 'GB/s', () => {
  const ids = new Int32Array(TABLE_ROWS);
  const values = new Float64Array(TABLE_ROWS);
  fillPattern(new Uint8Array(ids.buffer), 3);
  fillPattern(new Uint8Array(values.buffer), 5);
  const table = tableFromArrays({ id: ids, value: values });
  const context = new arrow.Context(0);
  const samples = [];
  for (let rep = -1; rep < cappedReps(REPS); rep++) {
    const start = process.hrtime.bigint();
    const onGpu = arrow.tableToDevice(table, context);
    const elapsed = Number(process.hrtime.bigint() - start);
    onGpu.close();
    if (rep >= 0) samples.push((TABLE_ROWS * 12) / elapsed);
  }
  return result(samples, 'GB/s', { via: 'tableToDevice (pageable columns)' });
});

stream.close();
