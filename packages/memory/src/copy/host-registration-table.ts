// The live registrations of registerHostMemory in this thread: which bytes of which ArrayBuffer
// are page-locked, at which addresses, and the checks that keep them true.
//
// A registration is only safe while its ArrayBuffer still owns the memory. Detaching the buffer
// (`ArrayBuffer.prototype.transfer()` on Node versions where markAsUntransferable does not set a
// detach key, a byte stream's BYOB read, an addon's napi_detach_arraybuffer) hands the memory to
// a new owner that may free it; the driver would still have the old pages registered at that
// address, and a copy through a later allocation there would move the old pages' bytes, silently.
// cumem cannot be told of a detach, so it looks: before every copy of JS memory, every
// registration, and every question "is this registered?", each live registration whose
// buffer no longer has its length (a detached buffer reads as length 0) is unregistered at once.
// Copies of the detached view then see 0 bytes (a size mismatch, refused); copies of the memory's
// new owner are plain pageable copies.
import { CudaStateError, viewBuffer, viewByteLength, viewByteOffset } from '@cumem/core-types';

/** One registered byte range of an ArrayBuffer; `live` drops to false when it is unregistered. */
export interface RegisteredRange {
  readonly begin: number;
  readonly end: number;
  /** Address of the first registered byte, and one past the last. */
  readonly address: bigint;
  readonly addressEnd: bigint;
  live: boolean;
  /** True when cumem unregistered it because its buffer was detached. */
  detached: boolean;
}

/** A live registration: its range, the buffer (held until unregistered) and how to unregister. */
interface LiveRegistration {
  readonly range: RegisteredRange;
  readonly buffer: ArrayBufferLike;
  readonly byteLength: number;
  readonly release: () => void;
}

// Per ArrayBuffer, its registered ranges. Weak: it never keeps a buffer alive; the values
// reference neither the buffer nor the registration object, so no cycle keeps either alive.
const rangesByBuffer = new WeakMap<ArrayBufferLike, RegisteredRange[]>();
// Every live registration. Holds each buffer (as the finalizer's release does) but never the
// HostRegistration object, so a dropped registration is still collected and unregistered.
const live = new Set<LiveRegistration>();

/** Records a registration just made; `release` unregisters it (and must call {@link forgetRange}). */
export function addRange(buffer: ArrayBufferLike, range: RegisteredRange, release: () => void): void {
  const ranges = rangesByBuffer.get(buffer);
  if (ranges === undefined) rangesByBuffer.set(buffer, [range]);
  else ranges.push(range);
  live.add({ range, buffer, byteLength: buffer.byteLength, release });
}

/** Forgets `range` of `buffer` (its registration is being unregistered). */
export function forgetRange(buffer: ArrayBufferLike, range: RegisteredRange): void {
  range.live = false;
  const list = rangesByBuffer.get(buffer);
  if (list !== undefined) {
    const index = list.indexOf(range);
    if (index >= 0) list.splice(index, 1);
  }
  for (const registration of live) {
    if (registration.range === range) {
      live.delete(registration);
      break;
    }
  }
}

/**
 * Unregisters every live registration whose ArrayBuffer was detached. Hot path of host copies:
 * one size check while nothing is registered. A failing unregister is thrown (after the
 * others were tried): the registration is forgotten either way, never used again.
 */
export function releaseDetachedRegistrations(): void {
  if (live.size === 0) return;
  let failure: unknown;
  for (const registration of [...live]) {
    if (registration.buffer.byteLength === registration.byteLength) continue;
    registration.range.detached = true;
    try {
      registration.release();
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}

/**
 * How live registrations cover the bytes of `bytes` (a plain view made by asView or viewBytes,
 * read through its internal slots): `'all'` when one registered range holds them (a copy may
 * take the pinned path), `'part'` when some but not all lie in registered ranges, `'none'`
 * otherwise. The driver takes a host address inside a registration as pinned memory of that
 * registration's size, so a `'part'` range handed to it as one piece fails
 * (CUDA_ERROR_INVALID_VALUE): it must go through staging, which never hands the driver the JS
 * address. Call after {@link releaseDetachedRegistrations}.
 */
export function registeredCover(bytes: Uint8Array): 'all' | 'part' | 'none' {
  if (live.size === 0) return 'none';
  const ranges = rangesByBuffer.get(viewBuffer(bytes));
  if (ranges === undefined) return 'none';
  const begin = viewByteOffset(bytes);
  const end = begin + viewByteLength(bytes);
  let touched = false;
  for (const range of ranges) {
    if (!range.live || range.end <= begin || end <= range.begin) continue;
    if (range.begin <= begin && end <= range.end) return 'all';
    touched = true;
  }
  return touched ? 'part' : 'none';
}

// The driver pins whole pages: two ranges that share a page overlap for it even when their
// bytes do not. 4 KiB is the smallest page of the platforms CUDA supports.
const page = 4096n;

/**
 * Refuses a registration of [address, address + byteLength) that shares a page with a live one:
 * the driver may accept it and fail copies later (CUDA_ERROR_INVALID_VALUE), or refuse it with
 * CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED. Call after {@link releaseDetachedRegistrations}.
 * @throws CudaStateError naming both ranges.
 */
export function checkNoOverlap(address: bigint, byteLength: number): void {
  const first = address / page;
  const last = (address + BigInt(byteLength) - 1n) / page;
  for (const { range } of live) {
    if (range.address / page > last || (range.addressEnd - 1n) / page < first) continue;
    throw new CudaStateError(
      `registerHostMemory: bytes 0x${address.toString(16)}..0x${(address + BigInt(byteLength)).toString(16)} ` +
        `overlap (share a page with) the registered range 0x${range.address.toString(16)}..0x${range.addressEnd.toString(16)}: ` +
        'close that HostRegistration first, or register one range covering both',
    );
  }
}
