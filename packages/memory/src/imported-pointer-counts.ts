// How often an imported IPC pool opened each pointer. Importing one descriptor twice gives the
// same pointer both times, and the driver frees it on the first cuMemFreeAsync (the second then
// fails with CUDA_ERROR_INVALID_VALUE), so the import is freed only when the last Buffer that
// opened it is closed, as cuda.core's tests expect.

/** Open imports per pointer of one imported pool. */
export class ImportedPointerCounts {
  private readonly counts = new Map<number, number>();

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
    return true;
  }
}
