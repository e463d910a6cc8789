// Verifies the flatbuffer metadata of an IPC message before Arrow JS decodes it. Arrow JS's
// flatbuffer reader trusts every offset and vector length it reads: one flipped byte can give a
// field-node vector two billion entries long (a fatal heap OOM while decoding) or a negative
// offset that loops back on itself. This walks the same tables Arrow JS will read (Message
// and its Schema, RecordBatch or DictionaryBatch header, per Arrow's Message.fbs/Schema.fbs)
// and requires every table, vtable, vector and string to lie inside the bytes, every offset to
// point forward, and the number of tables visited to stay below what the bytes can hold.

const headerSchema = 1;
const headerDictionaryBatch = 2;
const headerRecordBatch = 3;
const typeUnion = 14;
const maxNesting = 64;

interface Table {
  readonly pos: number;
  readonly vtable: number;
  readonly vtableSize: number;
}

class MetadataVerifier {
  readonly #view: DataView;
  readonly #length: number;
  #tablesLeft: number;

  constructor(bytes: Uint8Array) {
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#length = bytes.byteLength;
    // Every table needs at least its 4-byte vtable offset, so honest metadata never runs out.
    this.#tablesLeft = Math.floor(bytes.byteLength / 4) + 1;
  }

  fail(what: string): never {
    throw new RangeError(`malformed IPC message metadata: ${what}`);
  }

  #inside(pos: number, bytes: number, what: string): void {
    if (pos < 0 || bytes < 0 || pos + bytes > this.#length) {
      this.fail(`${what} at byte ${pos} (${bytes} bytes) lies outside the ${this.#length} metadata bytes`);
    }
  }

  u8(pos: number): number {
    this.#inside(pos, 1, 'a value');
    return this.#view.getUint8(pos);
  }

  // Arrow JS reads vtable entries as signed 16-bit values: so does this, and refuses negatives.
  #i16(pos: number): number {
    this.#inside(pos, 2, 'a vtable entry');
    const value = this.#view.getInt16(pos, true);
    if (value < 0) this.fail(`vtable entry ${value} at byte ${pos}`);
    return value;
  }

  #i32(pos: number, what: string): number {
    this.#inside(pos, 4, what);
    return this.#view.getInt32(pos, true);
  }

  table(pos: number): Table {
    if (--this.#tablesLeft < 0) this.fail('more tables than the bytes can hold');
    const vtable = pos - this.#i32(pos, 'a table');
    this.#inside(vtable, 4, 'a vtable');
    const vtableSize = this.#i16(vtable);
    const tableSize = this.#i16(vtable + 2);
    if (vtableSize < 4 || vtableSize % 2 !== 0) this.fail(`vtable size ${vtableSize}`);
    this.#inside(vtable, vtableSize, 'a vtable');
    this.#inside(pos, Math.max(tableSize, 4), 'a table');
    return { pos, vtable, vtableSize };
  }

  /** Position of field `slot` of `table`, or 0 when the field is absent. */
  field(table: Table, slot: number, bytes: number): number {
    const entry = 4 + 2 * slot;
    if (entry + 2 > table.vtableSize) return 0;
    const offset = this.#i16(table.vtable + entry);
    if (offset === 0) return 0;
    this.#inside(table.pos + offset, bytes, 'a field');
    return table.pos + offset;
  }

  /** Follows the forward offset stored in field `slot`; 0 when absent. */
  ref(table: Table, slot: number): number {
    const at = this.field(table, slot, 4);
    if (at === 0) return 0;
    return this.#forward(at);
  }

  #forward(at: number): number {
    const offset = this.#i32(at, 'an offset');
    if (offset <= 0) this.fail(`offset ${offset} at byte ${at} does not point forward`);
    this.#inside(at + offset, 4, 'an offset target');
    return at + offset;
  }

  /** The vector in field `slot` with `elementBytes`-byte elements: its first element and length. */
  vector(table: Table, slot: number, elementBytes: number): { start: number; count: number } {
    const at = this.ref(table, slot);
    if (at === 0) return { start: 0, count: 0 };
    const count = this.#i32(at, 'a vector length');
    if (count < 0) this.fail(`vector length ${count}`);
    this.#inside(at + 4, count * elementBytes, 'a vector');
    return { start: at + 4, count };
  }

  /** The tables of the table vector in field `slot`. */
  *tables(table: Table, slot: number): Generator<Table> {
    const { start, count } = this.vector(table, slot, 4);
    for (let i = 0; i < count; i++) yield this.table(this.#forward(start + 4 * i));
  }

  optionalTable(table: Table, slot: number): Table | undefined {
    const at = this.ref(table, slot);
    return at === 0 ? undefined : this.table(at);
  }
}

function checkKeyValues(v: MetadataVerifier, table: Table, slot: number): void {
  for (const keyValue of v.tables(table, slot)) {
    v.vector(keyValue, 0, 1);
    v.vector(keyValue, 1, 1);
  }
}

function checkRecordBatch(v: MetadataVerifier, batch: Table): void {
  v.field(batch, 0, 8); // length
  v.vector(batch, 1, 16); // nodes: FieldNode structs
  v.vector(batch, 2, 16); // buffers: Buffer structs
  v.optionalTable(batch, 3); // compression
  v.vector(batch, 4, 8); // variadicBufferCounts
}

function checkField(v: MetadataVerifier, field: Table, depth: number): void {
  if (depth > maxNesting) v.fail(`fields nested deeper than ${maxNesting}`);
  v.vector(field, 0, 1); // name
  const typeTypeAt = v.field(field, 2, 1);
  const type = v.optionalTable(field, 3);
  if (type && typeTypeAt !== 0 && v.u8(typeTypeAt) === typeUnion) v.vector(type, 1, 4); // typeIds
  const dictionary = v.optionalTable(field, 4);
  if (dictionary) v.optionalTable(dictionary, 1); // indexType
  for (const child of v.tables(field, 5)) checkField(v, child, depth + 1);
  checkKeyValues(v, field, 6);
}

/**
 * Throws RangeError unless `bytes` is flatbuffer Message metadata whose every table, vector and
 * string Arrow JS reads lies inside `bytes`.
 */
export function checkMessageMetadata(bytes: Uint8Array): void {
  const v = new MetadataVerifier(bytes);
  if (bytes.byteLength < 4) v.fail(`${bytes.byteLength} bytes cannot hold a message`);
  const root = new DataView(bytes.buffer, bytes.byteOffset, 4).getInt32(0, true);
  if (root <= 0) v.fail(`root offset ${root}`);
  const message = v.table(root);
  v.field(message, 0, 2); // version
  v.field(message, 3, 8); // bodyLength
  checkKeyValues(v, message, 4);
  const typeAt = v.field(message, 1, 1);
  const header = v.optionalTable(message, 2);
  if (!header) return;
  const headerType = typeAt === 0 ? 0 : v.u8(typeAt);
  if (headerType === headerRecordBatch) checkRecordBatch(v, header);
  else if (headerType === headerDictionaryBatch) {
    const data = v.optionalTable(header, 1);
    if (data) checkRecordBatch(v, data);
  } else if (headerType === headerSchema) {
    for (const field of v.tables(header, 1)) checkField(v, field, 0);
    checkKeyValues(v, header, 2);
    v.vector(header, 3, 8); // features
  }
}
