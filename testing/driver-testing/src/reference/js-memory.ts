// Fake addresses for JS memory (`addressOf`). Each ArrayBuffer gets one stable address for its
// life, in a region apart from driver allocations, so copies from "pageable host memory" can
// be emulated while the buffer is alive and are refused (like a wild pointer) once it is gone.

const firstAddress = 0x5600_0000_0000n;
const gap = 0x1_0000n;

interface Entry {
  readonly start: bigint;
  readonly buffer: WeakRef<ArrayBufferLike>;
}

/** Stable fake addresses for ArrayBuffers and the way back from an address to the bytes. */
export class JsMemoryAddresses {
  private next = firstAddress;
  private readonly byBuffer = new WeakMap<ArrayBufferLike, bigint>();
  private entries: Entry[] = [];
  private pruneAt = 1024;

  /** The address of byte 0 of `buffer`. */
  addressOf(buffer: ArrayBufferLike): bigint {
    let start = this.byBuffer.get(buffer);
    if (start === undefined) {
      start = this.next;
      // Room for the largest ArrayBuffer growth is not needed: a buffer's length is fixed here.
      this.next += ((BigInt(buffer.byteLength) + gap) / gap + 1n) * gap;
      this.byBuffer.set(buffer, start);
      this.entries.push({ start, buffer: new WeakRef(buffer) });
      if (this.entries.length >= this.pruneAt) this.prune();
    }
    return start;
  }

  /** `size` bytes of live JS memory at `address`, or undefined when no live buffer holds them. */
  resolve(address: bigint, size: number): Uint8Array | undefined {
    if (address < firstAddress || address >= this.next) return undefined;
    for (const entry of this.entries) {
      if (address < entry.start) continue;
      const buffer = entry.buffer.deref();
      if (!buffer) continue;
      const offset = address - entry.start;
      if (offset + BigInt(size) <= BigInt(buffer.byteLength)) {
        return new Uint8Array(buffer, Number(offset), size);
      }
    }
    return undefined;
  }

  private prune(): void {
    this.entries = this.entries.filter((entry) => entry.buffer.deref() !== undefined);
    this.pruneAt = Math.max(1024, this.entries.length * 2);
  }
}
