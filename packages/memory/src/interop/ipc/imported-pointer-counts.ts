// How often an imported IPC pool opened each pointer. Importing one descriptor twice gives the
// same pointer both times, and the driver frees it on the first cuMemFreeAsync (the second then
// fails with CUDA_ERROR_INVALID_VALUE), so the import is freed only when the last Buffer that
// opened it is closed, as cuda.core's tests expect.

// A host (pinned) pool's pointer imported a second time fails with CUDA_ERROR_ALREADY_MAPPED
// (CUDA 13.0 drivers) where a device pool's returns the same pointer, so the pointer an
// open import of a descriptor has is remembered and handed out again without asking the driver.

/** Open imports per pointer of one imported pool. */
export class ImportedPointerCounts {
  private readonly counts = new Map<number, number>();
  private readonly pointerByDescriptor = new Map<string, bigint>();
  private readonly descriptorByPointer = new Map<number, string>();

  /** The pointer an open import of these descriptor bytes has, or undefined. */
  openedFor(bytes: Uint8Array): bigint | undefined {
    return this.pointerByDescriptor.get(descriptorKey(bytes));
  }

  /** Remembers that `bytes` opened `pointer` (until its last import is released). */
  remember(bytes: Uint8Array, pointer: bigint): void {
    const key = descriptorKey(bytes);
    this.pointerByDescriptor.set(key, pointer);
    this.descriptorByPointer.set(Number(pointer), key);
  }

  /** True when `pointer` is open already (a repeated import). */
  has(pointer: bigint): boolean {
    return this.counts.has(Number(pointer));
  }

  /** Counts one more import of `pointer`. */
  add(pointer: bigint): void {
    const key = Number(pointer);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** Counts one import closed: true when it was the last (or an untracked pointer), which frees it. */
  release(pointer: bigint): boolean {
    const key = Number(pointer);
    const count = this.counts.get(key);
    if (count === undefined) return true;
    if (count > 1) {
      this.counts.set(key, count - 1);
      return false;
    }
    this.counts.delete(key);
    const descriptor = this.descriptorByPointer.get(key);
    if (descriptor !== undefined) {
      this.descriptorByPointer.delete(key);
      this.pointerByDescriptor.delete(descriptor);
    }
    return true;
  }
}

function descriptorKey(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}
