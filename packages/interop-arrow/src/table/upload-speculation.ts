// tableToDevice into a given output starts the copies of the column bodies before Arrow JS's
// writer has laid out the stream, so the writer's work runs while the bytes move instead of
// before.
//
// Where a body goes depends only on the schema and on numbers of the batch: row count, and each
// column's type, length, offset, null count and body size. A table whose schema object was
// uploaded before with the same numbers (the same table again, or batches that share a schema)
// gets its bodies copied at the offsets that earlier layout found. Only one record batch of flat
// columns without nulls is predicted (their body is one view of the values, as Arrow JS's
// assembler takes it). The layout computed afterwards is the authority: a body is skipped by the
// later write only when the layout puts exactly that view at exactly that offset; if any
// prediction was wrong, every piece is written again after it on the same stream (so the result
// is the same), and the prediction is dropped. Predicted copies stay inside `output` and inside
// the stream length recorded with them; bytes of `output` past the stream are not kept.
import type { Buffer as MemoryBuffer } from '@cumem/memory';
import { queuedTransfers } from '@cumem/memory/internal';
import { type Schema, type Table, Type } from 'apache-arrow';
import type { IpcChunk, IpcStreamLayout } from './ipc-layout.js';

const { queueUpload, waitForQueuedUploads } = queuedTransfers;

// Types Arrow JS assembles as one view of their values (`assembleFlatVector`).
const flatTypes: ReadonlySet<number> = new Set([
  Type.Int,
  Type.Float,
  Type.Decimal,
  Type.Date,
  Type.Time,
  Type.Timestamp,
  Type.Interval,
  Type.FixedSizeBinary,
  Type.Duration,
]);

interface Prediction {
  readonly shape: readonly number[];
  readonly streamBytes: number;
  /** Stream offset of each column's body, in column order. */
  readonly offsets: readonly number[];
}

const predictions = new WeakMap<Schema, Prediction>();

interface FlatBodies {
  readonly shape: number[];
  readonly bodies: Uint8Array[];
}

/** The bodies of a one-batch table of flat columns without nulls, and the numbers that place them. */
function flatBodies(table: Table): FlatBodies | undefined {
  const batches = table.batches;
  if (batches.length !== 1) return undefined;
  const batch = batches[0]!;
  const columns = batch.data.children;
  const shape = [batch.numRows, columns.length, batch.metadata?.size ?? 0];
  const bodies: Uint8Array[] = [];
  for (const data of columns) {
    if (!flatTypes.has(data.typeId) || data.children.length !== 0 || data.nullCount !== 0) return undefined;
    const values = data.values as ArrayBufferView & { subarray(start: number, end: number): ArrayBufferView };
    if (!ArrayBuffer.isView(values)) return undefined;
    const view = values.subarray(0, data.length * data.stride);
    shape.push(data.typeId, data.length, data.offset, view.byteLength);
    bodies.push(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
  }
  return { shape, bodies };
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Copies started by {@link startBodyCopies}: what the layout must confirm. */
export interface StartedBodies {
  readonly flat: FlatBodies | undefined;
  /** Body copies queued: stream offset and view; empty when none were. */
  readonly queued: readonly IpcChunk[];
}

/**
 * Queues the copies of `table`'s bodies into `memory` (the output's root buffer; the stream
 * starts `start` bytes into it, `room` bytes of it are the output's) where an earlier upload of
 * the same schema and numbers placed them. Returns at once.
 */
export function startBodyCopies(
  table: Table,
  memory: MemoryBuffer,
  start: number,
  room: number,
): StartedBodies {
  const flat = flatBodies(table);
  const prediction = flat === undefined ? undefined : predictions.get(table.schema);
  if (flat === undefined || prediction === undefined) return { flat, queued: [] };
  if (!sameShape(prediction.shape, flat.shape) || prediction.streamBytes > room) return { flat, queued: [] };
  const queued = flat.bodies.map((bytes, column) => ({ offset: prediction.offsets[column]!, bytes }));
  const placed = queued.map(({ offset, bytes }) => ({ offset: start + offset, bytes }));
  return { flat, queued: queueUpload(memory, placed) ? queued : [] };
}

/** Waits for the started copies (the call that started them failed, or wrote nothing after them). */
export function waitForBodyCopies(started: StartedBodies, memory: MemoryBuffer): void {
  if (started.queued.length > 0) waitForQueuedUploads(memory);
}

function sameView(a: Uint8Array, b: Uint8Array): boolean {
  return a.buffer === b.buffer && a.byteOffset === b.byteOffset && a.byteLength === b.byteLength;
}

/**
 * The pieces of `layout` still to write after the started copies, and the prediction for the next
 * upload of this schema: every piece when a started copy is not exactly a piece of the layout.
 */
export function remainingChunks(
  table: Table,
  started: StartedBodies,
  layout: IpcStreamLayout,
): readonly IpcChunk[] {
  const chunks = layout.chunks;
  const byOffset = new Map<number, IpcChunk>();
  for (const chunk of chunks) byOffset.set(chunk.offset, chunk);
  let confirmed = started.queued.length > 0;
  for (const copy of started.queued) {
    const chunk = byOffset.get(copy.offset);
    if (chunk === undefined || !sameView(chunk.bytes, copy.bytes)) confirmed = false;
  }
  remember(table, started.flat, layout, byOffset);
  if (!confirmed) return chunks;
  const done = new Set(started.queued.map((copy) => copy.offset));
  return chunks.filter((chunk) => !done.has(chunk.offset));
}

/** Records where `layout` put each body, when every body is one piece of it. */
function remember(
  table: Table,
  flat: FlatBodies | undefined,
  layout: IpcStreamLayout,
  byOffset: ReadonlyMap<number, IpcChunk>,
): void {
  if (flat === undefined) return;
  // Bodies come in column order in the stream: one walk over the pieces finds them all.
  const offsets: number[] = [];
  const pieces = byOffset.values();
  for (const body of flat.bodies) {
    let found: IpcChunk | undefined;
    for (let next = pieces.next(); !next.done; next = pieces.next()) {
      if (sameView(next.value.bytes, body)) {
        found = next.value;
        break;
      }
    }
    if (found === undefined) {
      predictions.delete(table.schema);
      return;
    }
    offsets.push(found.offset);
  }
  predictions.set(table.schema, { shape: flat.shape, streamBytes: layout.byteLength, offsets });
}
