// tableFromDevice with the copy and the CPU work overlapped. The framing of an IPC stream
// (prefixes, flatbuffer metadata) is a few KiB; the bodies are the rest. So: fetch the framing
// first (small copies waited for at once), queue every other byte in stream order in pieces
// that end where bodies end, then check the headers and let Arrow JS build the Table (it reads
// only framing and makes views of the bodies) while the bodies are in flight; each batch's
// values are checked once its piece has arrived, and the Table is returned only after every
// check passed and every copy finished. Nothing is copied twice, so a checked byte never
// changes behind the checks. A DeviceTable's message layout only says which ranges to fetch
// first and where to split (the device bytes may have changed since): the framing is always
// read from the bytes copied, and a framing byte the layout did not name is read only after
// every copy has landed.

import { copyRangesToHost, type HostRange } from '@cumem/memory';
import { queuedTransfers } from '@cumem/memory/internal';
import { type Table, tableFromIPC } from 'apache-arrow';
import type { CudaBuffer } from '../buffer/cuda-buffer.js';
import { memoryOf } from '../buffer/host-copies.js';
import {
  checkBatchValues,
  checkIpcMessages,
  type FramedMessage,
  frameIpcStream,
} from '../validation/ipc-stream-check.js';
import { arrowCall } from '../validation/message-decode.js';

const { queueDownload } = queuedTransfers;

/**
 * Streams of fewer bytes are copied whole and then checked: the pipelined read's two or so
 * extra waits for small copies would cost more than the overlap saves.
 */
export const PIPELINED_READ_MIN_BYTES = 1 << 20;
/** Bytes fetched from where the framing first asks (the metadata after a prefix is in them). */
const headWindow = 64 * 1024;
/** Framing fetches made one by one; the next one fetches the rest of the stream at once. */
const maxHeadFetches = 16;
/** Ranges of a layout hint fetched up front (a table of more messages finds the rest as it goes). */
const maxHintRanges = 1024;
/** Pieces the bodies are queued in, at most (an event each). */
const maxPieces = 64;

/** Sorted, disjoint byte ranges [start, end) of the host copy that are in place. */
class ArrivedBytes {
  readonly #ranges: [number, number][] = [];

  covers(start: number, end: number): boolean {
    return this.gaps(start, end).length === 0;
  }

  /** The parts of [start, end) not in place, in order. */
  gaps(start: number, end: number): [number, number][] {
    const gaps: [number, number][] = [];
    let from = start;
    for (const [s, e] of this.#ranges) {
      if (from >= end) break;
      if (e <= from) continue;
      if (s > from) gaps.push([from, Math.min(s, end)]);
      from = Math.max(from, e);
    }
    if (from < end) gaps.push([from, end]);
    return gaps;
  }

  /** The ranges, in order. */
  list(): [number, number][] {
    return this.#ranges.map(([start, end]) => [start, end]);
  }

  add(ranges: readonly (readonly [number, number])[]): void {
    const all = [...this.#ranges, ...ranges].sort((a, b) => a[0] - b[0]);
    this.#ranges.length = 0;
    for (const range of all) {
      const last = this.#ranges.at(-1);
      if (last !== undefined && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
      else this.#ranges.push([range[0], range[1]]);
    }
  }
}

/** A message's place as a layout names it: plain numbers, read once (see {@link readLayoutHint}). */
export interface MessageHint {
  readonly offset: number;
  readonly metadataLength: number;
  readonly byteLength: number;
}

/**
 * A DeviceTable's message layout as plain numbers, each property read once, or undefined when it
 * is not an array or a read throws. Call it before taking the output's bytes or checking the
 * source: a layout is the caller's object, whose getters could close either.
 */
export function readLayoutHint(messages: unknown): MessageHint[] | undefined {
  try {
    if (!Array.isArray(messages)) return undefined;
    const hint: MessageHint[] = [];
    for (const message of messages.slice(0, maxHintRanges) as unknown[]) {
      if (typeof message !== 'object' || message === null) continue;
      const { offset, metadataLength, byteLength } = message as Record<string, unknown>;
      if ([offset, metadataLength, byteLength].every((value) => Number.isSafeInteger(value))) {
        hint.push({
          offset: offset as number,
          metadataLength: metadataLength as number,
          byteLength: byteLength as number,
        });
      }
    }
    return hint;
  } catch {
    return undefined;
  }
}

/**
 * What a layout hint says: the ranges holding framing (each message's prefix and metadata, and
 * the end marker after the last) and where bodies end. Only where to split: never trusted.
 */
function hintedLayout(
  hint: readonly MessageHint[] | undefined,
  size: number,
): { framing: [number, number][]; bodyEnds: number[] } {
  const ranges: [number, number][] = [];
  const bodyEnds: number[] = [];
  const keep = (start: number, end: number): void => {
    const from = Math.max(0, start);
    const to = Math.min(size, end);
    if (from < to) ranges.push([from, to]);
  };
  for (const { offset, metadataLength, byteLength } of hint ?? []) {
    keep(offset, offset + metadataLength);
    keep(offset + byteLength, offset + byteLength + 8);
    const end = offset + byteLength;
    if (end > 0 && end <= size) bodyEnds.push(end);
  }
  const merged = new ArrivedBytes();
  merged.add(ranges);
  return { framing: merged.list(), bodyEnds };
}

/**
 * Reads the IPC stream in `device` into `bytes` (page-locked host memory of the same length),
 * checks it and returns Arrow JS's Table over `bytes`; see the file comment. On any error every
 * copy has finished before it is thrown.
 */
export function readTablePipelined(
  device: CudaBuffer,
  bytes: Uint8Array,
  hint?: readonly MessageHint[],
): Table {
  const size = bytes.byteLength;
  const { memory, start: base } = memoryOf(device);
  const place = (ranges: readonly [number, number][]): HostRange[] =>
    ranges.map(([start, end]) => ({ offset: base + start, bytes: bytes.subarray(start, end) }));
  const arrived = new ArrivedBytes();
  const fetchNow = (ranges: readonly [number, number][]): void => {
    if (ranges.length === 0) return;
    copyRangesToHost(memory, place(ranges)); // returns when the bytes are in place
    arrived.add(ranges);
  };
  const hinted = hintedLayout(hint, size);
  if (hinted.framing.length > 0) {
    // The layout names the framing: fetch it in one wait and queue every other byte at once,
    // so the copy starts before any JS work. A framing byte the layout did not name (the
    // device bytes changed since) is read only after every copy has landed.
    fetchNow(hinted.framing);
    const { pieces, pieceAt } = bodyPieces(hinted.bodyEnds, size, arrived);
    const download = queueDownload(memory, pieces.map(place));
    let landed = false;
    let messages: FramedMessage[];
    try {
      messages = frameIpcStream(bytes, (start, end) => {
        if (landed || arrived.covers(start, end)) return;
        download.finish();
        landed = true;
      });
    } catch (error) {
      download.finish();
      throw error;
    }
    return finishRead(download, bytes, messages, pieceAt);
  }
  // No layout: walk the framing first, fetching as it goes (nothing queued yet, so each fetch
  // waits only for itself), then queue the rest.
  let fetches = 0;
  const messages = frameIpcStream(bytes, (start, end) => {
    if (arrived.covers(start, end)) return;
    fetches += 1;
    const until = fetches > maxHeadFetches ? size : Math.min(size, Math.max(end, start + headWindow));
    fetchNow(arrived.gaps(start, until));
  });
  const { pieces, pieceAt } = bodyPieces(
    messages.map((message) => message.bodyEnd),
    size,
    arrived,
  );
  return finishRead(queueDownload(memory, pieces.map(place)), bytes, messages, pieceAt);
}

/**
 * Every byte not yet in place, in pieces ending at body ends (at most `maxPieces`).
 * `pieceAt(end)`: the last piece to wait for before reading bytes up to `end`, or -1.
 */
function bodyPieces(
  bodyEnds: readonly number[],
  size: number,
  arrived: ArrivedBytes,
): { pieces: [number, number][][]; pieceAt: (end: number) => number } {
  const step = size / maxPieces;
  const boundaries: number[] = [];
  let last = 0;
  for (const end of [...bodyEnds].sort((a, b) => a - b)) {
    if (end - last >= step) {
      boundaries.push(end);
      last = end;
    }
  }
  if (boundaries.at(-1) !== size) boundaries.push(size);
  const pieces: [number, number][][] = [];
  const lastPiece: number[] = [];
  let from = 0;
  for (const boundary of boundaries) {
    const gaps = arrived.gaps(from, boundary);
    if (gaps.length > 0) pieces.push(gaps);
    lastPiece.push(pieces.length - 1);
    from = boundary;
  }
  const pieceAt = (end: number): number => {
    const index = boundaries.findIndex((boundary) => boundary >= end);
    return lastPiece[index === -1 ? lastPiece.length - 1 : index] as number;
  };
  return { pieces, pieceAt };
}

function finishRead(
  download: ReturnType<typeof queueDownload>,
  bytes: Uint8Array,
  messages: readonly FramedMessage[],
  pieceAt: (end: number) => number,
): Table {
  try {
    const pending = checkIpcMessages(bytes, messages);
    // Arrow JS's own errors come after the checks' (as when the whole stream is checked
    // first), so they are held until every value is checked.
    let table: Table | undefined;
    let arrowError: unknown;
    try {
      table = arrowCall(() => tableFromIPC(bytes), 'the table');
    } catch (error) {
      arrowError = error ?? new Error('Arrow JS threw a nullish value');
    }
    for (const batch of pending) {
      const piece = pieceAt(batch.bodyEnd);
      // The last piece: one wait for the stream (which also ends the download) instead of two.
      if (piece === download.pieces - 1) download.finish();
      else if (piece >= 0) download.waitFor(piece);
      checkBatchValues(bytes, batch);
    }
    download.finish();
    if (table === undefined) throw arrowError;
    return table;
  } finally {
    download.finish();
  }
}
