// Issue 21, class 6: a record-batch message in device memory with corrupted offsets (List and
// Utf8 offsets that descend or point past their values, one byte or several at once) is read
// as a typed error or a batch every value of which can be touched — never a crash, and never
// the descending offsets the issue saw come back as a RecordBatch.
import { Context, readRecordBatch, serializeRecordBatch } from '@cumem/interop-arrow';
import { Field, Int32, List, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { check, setUp } from './support.mjs';

await setUp();
const context = new Context(0);
const table = new Table({
  tags: vectorFromArray([[1, 2], [], null, [3], [4, 5, 6]], new List(new Field('item', new Int32(), true))),
  name: vectorFromArray(['a', 'bcd', null, '', 'xyz'], new Utf8()),
});
const message = serializeRecordBatch(table.batches[0], context);
const valid = message.copyToHost();
message.close();
const metadataEnd = 8 + new DataView(valid.buffer, valid.byteOffset).getInt32(4, true);

let typed = 0;
let read = 0;
function readCorrupted(bytes) {
  const device = context.bufferFromData(bytes);
  try {
    const batch = readRecordBatch(device, table.schema);
    for (const field of batch.schema.fields) batch.getChild(field.name)?.toArray();
    for (const row of batch) row?.toJSON();
    // Offsets that come back must not descend (the 55 of 1,000).
    const tags = batch.getChild('tags')?.data[0];
    const offsets = tags?.valueOffsets ?? [];
    for (let i = 1; i < offsets.length; i++) check(offsets[i] >= offsets[i - 1], 'List offsets descend');
    check(
      offsets.length === 0 || offsets[offsets.length - 1] <= tags.children[0].length,
      'List offsets past the child',
    );
    read++;
  } catch (error) {
    if (!(error instanceof RangeError || error instanceof TypeError)) throw error;
    typed++;
  } finally {
    device.close();
  }
}

// Every body byte set to a few values; then seeded multi-byte corruptions of the whole message.
for (let at = metadataEnd; at < valid.byteLength; at++) {
  for (const value of [0x00, 0x7f, 0xff, (valid[at] + 1) & 0xff]) {
    const bytes = valid.slice();
    bytes[at] = value;
    readCorrupted(bytes);
  }
}
let seed = 21;
const random = () => {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return seed >>> 8;
};
for (let run = 0; run < 400; run++) {
  const bytes = valid.slice();
  const edits = 2 + (random() % 8);
  for (let i = 0; i < edits; i++) bytes[random() % bytes.length] = random() & 0xff;
  readCorrupted(bytes);
}
check(typed > 0 && read > 0, `both outcomes seen (${typed} typed errors, ${read} batches)`);
