// @cumem/interop-arrow rows: a 100-million-row table (int32 + float64, 1.2e9 bytes of column
// data) to the device with tableToDevice and back with tableFromDevice, default options.
import { tableFromArrays } from 'apache-arrow';
import { driverChoice, parseArguments, result, Suite } from './harness.mjs';

const ROWS = 100_000_000;
const TABLE_BYTES = ROWS * (4 + 8);
const REPS = 3;

const options = parseArguments();
const suite = new Suite('arrow', options);

let arrow;
let context;
let table;
let ids;
let values;
try {
  const memory = await import('@cumem/memory');
  arrow = await import('@cumem/interop-arrow');
  memory.useDriver(await driverChoice(options.driver));
  context = new arrow.Context(0);
  ids = new Int32Array(ROWS);
  values = new Float64Array(ROWS);
  let x = 12345;
  for (let i = 0; i < ROWS; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) | 0;
    ids[i] = x;
    values[i] = x * 1e-3 + i;
  }
  table = tableFromArrays({ id: ids, value: values });
  suite.data.info = { ...suite.data.info, adapter: memory.currentDriver().name, rows: table.numRows };
  suite.save();
} catch (error) {
  suite.fatal(error);
  process.exit(2);
}

/** Lets FinalizationRegistry callbacks run after a collection, so dropped pinned memory is freed. */
async function settle() {
  if (typeof globalThis.gc === 'function') globalThis.gc();
  await new Promise((resolve) => setTimeout(resolve, 10));
}

let onDevice;

await suite.row('arrow.tableToDevice', 'GB/s', async () => {
  const samples = [];
  for (let rep = -1; rep < REPS; rep++) {
    const start = process.hrtime.bigint();
    const uploaded = arrow.tableToDevice(table, context);
    context.synchronize();
    const elapsed = Number(process.hrtime.bigint() - start);
    if (rep >= 0) samples.push(TABLE_BYTES / elapsed);
    if (onDevice) onDevice.close();
    onDevice = uploaded;
    await settle();
  }
  return result(samples, 'GB/s', { via: 'tableToDevice(table, context) + context.synchronize()' });
});

await suite.row('arrow.tableFromDevice', 'GB/s', async () => {
  if (!onDevice) throw new Error('no table on the device (tableToDevice failed)');
  const samples = [];
  let back;
  for (let rep = -1; rep < REPS; rep++) {
    back = undefined;
    await settle();
    const start = process.hrtime.bigint();
    back = arrow.tableFromDevice(onDevice);
    const elapsed = Number(process.hrtime.bigint() - start);
    if (rep >= 0) samples.push(TABLE_BYTES / elapsed);
  }
  if (back.numRows !== ROWS) throw new Error(`read back ${back.numRows} rows, wrote ${ROWS}`);
  const idColumn = back.getChild('id');
  const valueColumn = back.getChild('value');
  for (const i of [0, 1, ROWS >> 1, ROWS - 1]) {
    if (idColumn.get(i) !== ids[i] || valueColumn.get(i) !== values[i])
      throw new Error(`row ${i} differs after the round trip`);
  }
  return result(samples, 'GB/s', { via: 'tableFromDevice(deviceTable)' });
});

if (onDevice) onDevice.close();
