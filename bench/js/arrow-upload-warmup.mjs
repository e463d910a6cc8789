// Where tableToDevice({ output })'s time goes call by call in one process (JIT warm-up of Arrow JS's writer):
// per call: layoutTable alone, tableToDevice + its sync, + context.synchronize(), two plain range copies of the
// same columns at the stream's body offset, an empty synchronize (ms). node --expose-gc bench/js/arrow-upload-warmup.mjs [napi|ffi]
import { tableFromArrays } from 'apache-arrow';
import { driverChoice } from './harness.mjs';

const memory = await import('@cumem/memory');
const arrow = await import('@cumem/interop-arrow');
memory.useDriver(await driverChoice(process.argv[2] ?? 'napi'));
const context = new arrow.Context(0);
const ROWS = 100_000_000;
const ids = arrow.newHostArray(Int32Array, ROWS);
const values = arrow.newHostArray(Float64Array, ROWS);
ids.fill(7);
values.fill(1.5);
const table = tableFromArrays({ id: ids, value: values });
const size = arrow.layoutTable(table).byteLength;
const output = context.deviceBuffer(size + 4096);
const device = output[memory.ownerMemoryBuffer];
const idBytes = new Uint8Array(ids.buffer, ids.byteOffset, ids.byteLength);
const valueBytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
const ms = (t) => Number(process.hrtime.bigint() - t) / 1e6;
const rows = [];
let last;
for (let rep = 0; rep < 10; rep++) {
  let t = process.hrtime.bigint();
  arrow.layoutTable(table);
  const layout = ms(t);
  t = process.hrtime.bigint();
  const up = arrow.tableToDevice(table, context, { output });
  const call = ms(t);
  context.synchronize();
  const whole = ms(t);
  last?.close();
  last = up;
  t = process.hrtime.bigint();
  memory.copyRangesFromHost(device, [
    { offset: 384, bytes: idBytes },
    { offset: 384 + idBytes.byteLength, bytes: valueBytes },
  ]);
  const ranges = ms(t);
  t = process.hrtime.bigint();
  context.synchronize();
  const sync = ms(t);
  rows.push([layout, call, whole, ranges, sync].map((x) => Number(x.toFixed(3))));
}
console.log(process.argv[2], 'layout, tableToDevice call, +sync, ranges, emptySync (ms)');
for (const r of rows) console.log(r.join('\t'));
