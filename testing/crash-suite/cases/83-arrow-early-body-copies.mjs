// tableToDevice({ output }) starts the body copies of a table laid out before (same schema
// object, same numbers) ahead of Arrow JS's writer. Hostile turns between uploads: the schema
// changed in place (the predicted places are wrong), an output that became too small for the
// new stream, a column's page-locked memory closed (its views detached), the output closed, a
// same-shaped table over pageable columns. Each ends in the exact stream or a typed error, and
// nothing is in flight into freed memory afterwards.

import { CudaStateError } from '@cumem/core-types';
import { Context, hostBufferOf, newHostArray, tableFromDevice, tableToDevice } from '@cumem/interop-arrow';
import { RecordBatch, Table, tableFromArrays, tableToIPC } from 'apache-arrow';
import { check, collectGarbage, expectThrows, setUp } from './support.mjs';

await setUp();
const context = new Context(0);
const rows = 50_000;

function pinnedTable(seed) {
  const id = newHostArray(Int32Array, rows);
  const value = newHostArray(Float64Array, rows);
  for (let i = 0; i < rows; i++) {
    id[i] = i + seed;
    value[i] = i / 4 + seed;
  }
  return tableFromArrays({ id, value });
}

function sameStream(device, table) {
  const expected = tableToIPC(table, 'stream');
  const actual = device.buffer.copyToHost();
  if (actual.byteLength !== expected.byteLength) return false;
  for (let i = 0; i < actual.byteLength; i++) if (actual[i] !== expected[i]) return false;
  return true;
}

const table = pinnedTable(1);
const exact = tableToDevice(table, context);
const need = exact.byteLength;
exact.close();
const output = context.deviceBuffer(need + 4096);
tableToDevice(table, context, { output }).close();
const predicted = tableToDevice(table, context, { output });
check(sameStream(predicted, table), 'a predicted upload writes the exact stream');
predicted.close();

// The schema grows in place: the bodies land at the old places first, then the stream is written whole.
table.schema.metadata.set('grown', 'z'.repeat(200));
const moved = tableToDevice(table, context, { output });
check(sameStream(moved, table), 'a wrong prediction still leaves the exact stream');
moved.close();

// An output exactly as large as the old stream, then the schema grows again: refused, after the
// copies already started have finished.
const tight = context.deviceBuffer(tableToDevice(table, context).byteLength);
tableToDevice(table, context, { output: tight }).close();
table.schema.metadata.set('grown', 'z'.repeat(400));
expectThrows(RangeError, 'an output too small for the grown stream', () =>
  tableToDevice(table, context, { output: tight }),
);
tight.close();

// A same-shaped table of the same schema over pageable columns: nothing is queued early.
const pageable = tableFromArrays({ id: new Int32Array(rows), value: new Float64Array(rows) });
const sameSchema = new Table([new RecordBatch(table.schema, pageable.batches[0].data)]);
const fromPageable = tableToDevice(sameSchema, context, { output });
check(sameStream(fromPageable, sameSchema), 'pageable columns of a predicted shape upload exactly');
fromPageable.close();

// A column's page-locked memory closed after the prediction: its views read as length 0, so the
// table no longer has the predicted numbers; whatever the upload does, no crash, no copy from freed memory.
const victim = pinnedTable(2);
tableToDevice(victim, context, { output }).close();
hostBufferOf(victim.getChild('value').data[0].values).close();
await collectGarbage();
try {
  tableToDevice(victim, context, { output }).close();
} catch (error) {
  check(error instanceof Error, `a closed column fails with an error (${error})`);
}

// The output closed between uploads.
const closing = context.deviceBuffer(need + 4096);
tableToDevice(table, context, { output: closing }).close();
closing.close();
expectThrows(CudaStateError, 'a closed output', () => tableToDevice(table, context, { output: closing }));

check(tableFromDevice(tableToDevice(table, context, { output })).numRows === rows, 'the output still works');
output.close();
