// Where the time of arrow.tableToDevice / tableFromDevice goes (issue 25's 99% target): the same
// 100M-row page-locked table as bench/js/arrow.mjs, each piece timed on its own, medians of 5.
//   node --expose-gc bench/js/arrow-upload-parts.mjs [napi|ffi|reference]
// Pieces: `allocate` (Context.deviceBuffer of the upload's size + close: the cuMemAlloc/cuMemFree
// tableToDevice pays without `output`, and C does not), `layoutTable` (the upload's JS work
// alone: Arrow JS's stream writer recording where each piece goes), `rangesUp`
// (copyRangesFromHost of the two columns into a buffer made beforehand + synchronize: C's work),
// `tableToDevice` (a new allocation per call, + synchronize), `tableToDeviceOutput` (into one
// CudaBuffer kept across calls, + synchronize: the row's main variant), `rangesDown`
// (copyRangesToHost of the stream into a HostBuffer's bytes), `checkIpcStream` and
// `tableFromIPC` (the download's CPU work alone, on those host bytes), `tableFromDevice` (into
// that HostBuffer: the pipelined read, which overlaps that CPU work with the copy). `serialDown`
// = rangesDown + checkIpcStream + tableFromIPC: what the download cost before the pipelined read.
// `upOverOutput` / `downOverRanges`: ms the Arrow call adds to the plain copy (the target: 0.2).
// GB/s over the 1.2e9 bytes of column data, as the bench row. CPU pieces: 10 warm-ups, 21 reps,
// after a collection each (as the row) and, as `<piece>Warm`, without.
import { tableFromArrays, tableFromIPC } from 'apache-arrow';
import { driverChoice } from './harness.mjs';

const ROWS = Number(process.env.ARROW_PARTS_ROWS ?? 100_000_000);
const TABLE_BYTES = ROWS * (4 + 8);
const REPS = 5;
const memory = await import('@cumem/memory');
const arrow = await import('@cumem/interop-arrow');
const arrowInternal = await import('@cumem/interop-arrow/internal');
memory.useDriver(await driverChoice(process.argv[2] ?? 'napi'));
const context = new arrow.Context(0);
const ids = arrow.newHostArray(Int32Array, ROWS);
const values = arrow.newHostArray(Float64Array, ROWS);
for (let i = 0; i < ROWS; i++) {
  ids[i] = i * 7;
  values[i] = i * 0.25;
}
const table = tableFromArrays({ id: ids, value: values });

function timeMs(work, reps = REPS, warmups = 1, collect = true) {
  const samples = [];
  for (let rep = -warmups; rep < reps; rep++) {
    if (collect) globalThis.gc?.();
    const start = process.hrtime.bigint();
    work();
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    if (rep >= 0) samples.push(elapsed);
  }
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1];
}

const report = {};
const show = (name, ms) => {
  report[name] = { ms: Number(ms.toFixed(3)), gbPerS: Number((TABLE_BYTES / ms / 1e6).toFixed(2)) };
};
let uploaded = arrow.tableToDevice(table, context);
context.synchronize();
const size = uploaded.buffer.size;
show(
  'allocate',
  timeMs(() => context.deviceBuffer(size).close()),
);
// CPU pieces twice: after a collection (as the bench row measures, which collects between
// repetitions) and back to back without one (`...Warm`).
const cpuPiece = (name, work) => {
  show(name, timeMs(work, 21, 10));
  show(`${name}Warm`, timeMs(work, 21, 10, false));
};
cpuPiece('layoutTable', () => arrow.layoutTable(table));
const target = context.deviceBuffer(size);
const device = target[memory.ownerMemoryBuffer];
const idBytes = new Uint8Array(ids.buffer, ids.byteOffset, ids.byteLength);
const valueBytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
show(
  'rangesUp',
  timeMs(() => {
    memory.copyRangesFromHost(device, [
      { offset: 0, bytes: idBytes },
      { offset: idBytes.byteLength, bytes: valueBytes },
    ]);
  }),
);
show(
  'tableToDevice',
  timeMs(() => {
    uploaded.close();
    uploaded = arrow.tableToDevice(table, context);
    context.synchronize();
  }),
);
const output = context.deviceBuffer(size);
show(
  'tableToDeviceOutput',
  timeMs(() => {
    uploaded.close();
    uploaded = arrow.tableToDevice(table, context, { output });
    context.synchronize();
  }),
);
const staging = arrow.newHostBuffer(size);
const source = uploaded.buffer[memory.ownerMemoryBuffer];
show(
  'rangesDown',
  timeMs(() => memory.copyRangesToHost(source, [{ offset: 0, bytes: staging.bytes.subarray(0, size) }])),
);
const streamBytes = staging.bytes.subarray(0, size);
cpuPiece('checkIpcStream', () => arrowInternal.checkIpcStream(streamBytes));
cpuPiece('tableFromIPC', () => tableFromIPC(streamBytes));
show(
  'tableFromDevice',
  timeMs(() => arrow.tableFromDevice(uploaded, { output: staging })),
);
show('serialDown', report.rangesDown.ms + report.checkIpcStream.ms + report.tableFromIPC.ms);
const extra = (name, over) => {
  report[name] = { ms: Number((report[over[0]].ms - report[over[1]].ms).toFixed(3)) };
};
extra('upOverOutput', ['tableToDeviceOutput', 'rangesUp']);
extra('downOverRanges', ['tableFromDevice', 'rangesDown']);
// Back to back, as the bench row runs: every repetition runs each upload once, in a rotating
// order, with no collection, after 10 untimed rounds: `driverPair` (the adapter's two
// memcpyAsync + streamSynchronize, the C floor's calls), `rangesUpBodies` (copyRangesFromHost of
// the two columns at their stream offsets), `rangesUpAll` (the layout's every chunk, framing
// included, layout computed beforehand) and `tableToDeviceOutput`. Medians and minima in ms.
const layout = arrow.layoutTable(table);
const bodies = layout.chunks.filter((chunk) => chunk.bytes.byteLength >= 1 << 20);
const driver = memory.currentDriver();
const streamHandle = memory.defaultStream(0).handle;
const base = device.handle;
const backToBack = {
  driverPair: () => {
    for (const chunk of bodies)
      driver.memcpyAsync(
        base + BigInt(chunk.offset),
        driver.addressOf(chunk.bytes),
        chunk.bytes.byteLength,
        streamHandle,
      );
    driver.streamSynchronize(streamHandle);
  },
  rangesUpBodies: () => memory.copyRangesFromHost(device, bodies),
  rangesUpAll: () => memory.copyRangesFromHost(device, layout.chunks),
  tableToDeviceOutput: () => arrow.tableToDevice(table, context, { output }).close(),
};
const names = Object.keys(backToBack);
const spans = Object.fromEntries(names.map((name) => [name, []]));
for (let rep = -10; rep < 25; rep++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(rep + 10 + k) % names.length];
    const start = process.hrtime.bigint();
    backToBack[name]();
    if (rep >= 0) spans[name].push(Number(process.hrtime.bigint() - start) / 1e6);
  }
}
report.backToBack = Object.fromEntries(
  names.map((name) => {
    const sorted = spans[name].sort((a, b) => a - b);
    return [
      name,
      { medianMs: Number(sorted[sorted.length >> 1].toFixed(3)), minMs: Number(sorted[0].toFixed(3)) },
    ];
  }),
);
console.log(JSON.stringify({ adapter: memory.currentDriver().name, streamBytes: size, ...report }));
target.close();
uploaded.close();
output.close();
staging.close();
