// Class 7: a device record-batch message whose FieldNode length was flipped is a typed error
// from readRecordBatch, not a V8 out-of-memory abort or a read past the message.
import { Context, readRecordBatch, serializeRecordBatch } from '@cumem/interop-arrow';
import { tableFromArrays } from 'apache-arrow';
import { check, setUp } from './support.mjs';

await setUp();
const context = new Context(0);
const table = tableFromArrays({ values: Int32Array.from([1, 2, 3, 4]) });
const message = serializeRecordBatch(table.batches[0], context);
const bytes = message.copyToHost();
// FieldNode { length: 4n, null_count: 0n } as little-endian int64s: make the length 2^40 + 4.
let flipped = 0;
for (let i = 0; i + 16 <= bytes.length; i += 8) {
  const view = new DataView(bytes.buffer, bytes.byteOffset + i, 16);
  if (view.getBigInt64(0, true) === 4n && view.getBigInt64(8, true) === 0n) {
    bytes[i + 5] = 1;
    flipped++;
  }
}
check(flipped > 0, 'found the FieldNode to corrupt');
const corrupted = context.bufferFromData(bytes);
let thrown;
try {
  readRecordBatch(corrupted, table.schema);
} catch (error) {
  thrown = error;
}
check(
  thrown instanceof RangeError || thrown instanceof TypeError,
  `readRecordBatch throws a RangeError or TypeError, got ${thrown}`,
);
