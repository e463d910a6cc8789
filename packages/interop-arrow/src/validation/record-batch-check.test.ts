import { Field, Int32, List, MetadataVersion, Schema, Utf8 } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { checkMessageMetadata } from './message-metadata-check.js';
import { checkRecordBatchBody, type RecordBatchHeader } from './record-batch-check.js';

const schema = new Schema([
  new Field('id', new Int32(), true),
  new Field('tags', new List(new Field('item', new Int32(), true)), true),
  new Field('name', new Utf8(), true),
]);

// A consistent 4-row batch: id (validity, values), tags (validity, offsets, child validity,
// child values), name (validity, offsets, data).
function validBatch(): { header: RecordBatchHeader; body: Uint8Array } {
  const body = new Uint8Array(256);
  const view = new DataView(body.buffer);
  body[0] = 0b1101; // id: slot 1 is its one null
  for (const [i, v] of [0, 1, 3, 3, 6].entries()) view.setInt32(64 + 4 * i, v, true); // tags offsets
  for (const [i, v] of [0, 2, 2, 5, 9].entries()) view.setInt32(128 + 4 * i, v, true); // name offsets
  return {
    header: {
      length: 4,
      nodes: [
        { length: 4, nullCount: 1 },
        { length: 4, nullCount: 0 },
        { length: 6, nullCount: 0 },
        { length: 4, nullCount: 0 },
      ],
      buffers: [
        { offset: 0, length: 8 },
        { offset: 8, length: 16 },
        { offset: 24, length: 0 },
        { offset: 64, length: 20 },
        { offset: 88, length: 0 },
        { offset: 88, length: 24 },
        { offset: 120, length: 0 },
        { offset: 128, length: 20 },
        { offset: 152, length: 9 },
      ],
      variadicBufferCounts: [],
    },
    body,
  };
}

function check(edit: (header: { -readonly [K in keyof RecordBatchHeader]: RecordBatchHeader[K] }) => void) {
  const { header, body } = validBatch();
  const copy = {
    ...header,
    nodes: header.nodes.map((n) => ({ ...n })),
    buffers: header.buffers.map((b) => ({ ...b })),
  };
  edit(copy);
  return () => checkRecordBatchBody(schema, copy, body, MetadataVersion.V5);
}

describe('checkRecordBatchBody', () => {
  it('accepts a consistent batch', () => {
    expect(check(() => {})).not.toThrow();
  });

  it('refuses a FieldNode length its buffers cannot hold, or unequal to the batch', () => {
    expect(check((h) => ((h.nodes[0] as { length: number }).length = 2 ** 40))).toThrow(
      /id has 1099511627776 values, the batch has 4/,
    );
    expect(
      check((h) => {
        h.length = 2 ** 40;
        for (const n of h.nodes) (n as { length: number }).length = 2 ** 40;
      }),
    ).toThrow(RangeError);
    expect(check((h) => ((h.nodes[2] as { length: number }).length = 5))).toThrow(
      /tags.item has 5 values.*6|buffer 5/,
    );
  });

  it('refuses null counts above the length and negative lengths', () => {
    expect(check((h) => ((h.nodes[0] as { nullCount: number }).nullCount = 5))).toThrow(/null count 5/);
    expect(check((h) => ((h.nodes[1] as { length: number }).length = -1))).toThrow(RangeError);
  });

  it('refuses buffers outside the body and node or buffer counts unlike the schema', () => {
    expect(check((h) => ((h.buffers[1] as { offset: number }).offset = 250))).toThrow(
      /spans \[250, 250\+16\) of a 256-byte body/,
    );
    expect(check((h) => (h.nodes = h.nodes.slice(0, 3)))).toThrow(/too few field nodes/);
    expect(check((h) => (h.nodes = [...h.nodes, { length: 0, nullCount: 0 }]))).toThrow(
      /5 field nodes, the schema has 4/,
    );
    expect(check((h) => (h.buffers = h.buffers.slice(0, 8)))).toThrow(/too few buffers/);
  });

  it('refuses offsets that run past the data', () => {
    const { header, body } = validBatch();
    new DataView(body.buffer).setInt32(128 + 16, 1000, true);
    expect(() => checkRecordBatchBody(schema, header, body, MetadataVersion.V5)).toThrow(
      /\(name data\) has 9 bytes, its values need 1000/,
    );
  });
});

describe('checkMessageMetadata', () => {
  it('refuses a root offset, table or vector outside the bytes', () => {
    expect(() => checkMessageMetadata(new Uint8Array(2))).toThrow(RangeError);
    expect(() => checkMessageMetadata(Uint8Array.of(200, 0, 0, 0))).toThrow(/outside the 4 metadata bytes/);
    expect(() => checkMessageMetadata(Uint8Array.of(0xff, 0xff, 0xff, 0xff))).toThrow(/root offset -1/);
  });

  it('refuses offsets that descend anywhere, start below 0, or point past the child values', () => {
    const read = (edit: (view: DataView) => void) => {
      const { header, body } = validBatch();
      edit(new DataView(body.buffer));
      return () => checkRecordBatchBody(schema, header, body, MetadataVersion.V5);
    };
    // tags offsets 0 1 3 3 6: a middle one above the last (the 16777219 for 9 values).
    expect(read((v) => v.setInt32(64 + 8, 16777219, true))).toThrow(/tags offset 3 is 3, after 16777219/);
    expect(read((v) => v.setInt32(64 + 4, 4, true))).toThrow(/offsets must not descend/);
    expect(read((v) => v.setInt32(64, -1, true))).toThrow(/tags offsets start at -1/);
    expect(read((v) => v.setInt32(64 + 16, 7, true))).toThrow(/tags.item has 6 values, its parent needs 7/);
    expect(read((v) => v.setInt32(128 + 8, 1, true))).toThrow(/name offset 3 is 5|must not descend/);
  });

  it('refuses a validity bitmap that disagrees with its null count', () => {
    const { header, body } = validBatch();
    body[0] = 0b1111;
    expect(() => checkRecordBatchBody(schema, header, body, MetadataVersion.V5)).toThrow(
      /id validity bitmap has 0 nulls, its null count says 1/,
    );
  });
});
