// How often each pointer imported from another process's pool is open in this process. The
// driver maps an imported allocation once per process: importing one descriptor twice gives the
// same pointer both times, also through two imports of one pool (the same allocation handle
// imported twice), and the first cuMemFreeAsync unmaps it for every holder (the second then
// fails with CUDA_ERROR_INVALID_VALUE). So the counts are the runtime's, not one resource's, and
// the mapping is freed only when the last Buffer that opened it closes, as cuda.core's tests
// expect. The first resource to open a pointer keeps it in its books (its pool is not destroyed
// while the pointer is open) and learns of the last close, whichever resource it comes through.
import type { DriverRuntime } from '../../runtime/driver-runtime.js';
import { perRuntimeState } from '../../runtime/per-runtime-state.js';

/** Open imports per pointer, and the resource whose books hold each. */
export class ImportedPointerCounts<Owner> {
  private readonly opens = new Map<number, { count: number; readonly owner: Owner }>();

  /** True when `pointer` is open already (a repeated import, through any resource). */
  has(pointer: bigint): boolean {
    return this.opens.has(Number(pointer));
  }

  /** Counts one more import of `pointer`; the first one names the resource that keeps it. */
  add(pointer: bigint, owner: Owner): void {
    const key = Number(pointer);
    const open = this.opens.get(key);
    if (open === undefined) this.opens.set(key, { count: 1, owner });
    else open.count++;
  }

  /**
   * Counts one import closed: `null` while others stay open; at the last, the resource whose
   * books hold the pointer (then it is freed); `undefined` for a pointer never counted (freed too).
   */
  release(pointer: bigint): Owner | null | undefined {
    const key = Number(pointer);
    const open = this.opens.get(key);
    if (open === undefined) return undefined;
    if (open.count > 1) {
      open.count--;
      return null;
    }
    this.opens.delete(key);
    return open.owner;
  }
}

/** The counts of one runtime's imported pointers (one process's mappings). */
export const importedPointerCounts: (runtime: DriverRuntime) => ImportedPointerCounts<object> =
  perRuntimeState(() => new ImportedPointerCounts<object>());

// A host (pinned) pool's pointer imported a second time fails with CUDA_ERROR_ALREADY_MAPPED
// (CUDA 13.0 drivers) where a device pool's returns the same pointer, so the pointer an open
// import of a descriptor has is remembered and handed out again without asking the driver. Kept
// per imported resource: descriptor bytes say nothing of which exporter they came from.

/** The pointer each descriptor opened through one imported pool, while it is open. */
export class ImportedDescriptors {
  private readonly pointerByDescriptor = new Map<string, bigint>();
  private readonly descriptorByPointer = new Map<number, string>();

  /** The pointer an open import of these descriptor bytes has, or undefined. */
  openedFor(bytes: Uint8Array): bigint | undefined {
    return this.pointerByDescriptor.get(descriptorKey(bytes));
  }

  /** Remembers that `bytes` opened `pointer` (until {@link forget}). */
  remember(bytes: Uint8Array, pointer: bigint): void {
    const key = descriptorKey(bytes);
    this.pointerByDescriptor.set(key, pointer);
    this.descriptorByPointer.set(Number(pointer), key);
  }

  /** The descriptor bytes that opened `pointer` through this pool, while it is open; else undefined. */
  descriptorOf(pointer: bigint): Uint8Array | undefined {
    const key = this.descriptorByPointer.get(Number(pointer));
    return key === undefined ? undefined : new Uint8Array(Buffer.from(key, 'base64'));
  }

  /** Forgets `pointer` once its last import closed. */
  forget(pointer: bigint): void {
    const key = Number(pointer);
    const descriptor = this.descriptorByPointer.get(key);
    if (descriptor === undefined) return;
    this.descriptorByPointer.delete(key);
    this.pointerByDescriptor.delete(descriptor);
  }
}

function descriptorKey(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}
