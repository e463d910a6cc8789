// The split every adapter's staged copy shares, so the reference driver copies in exactly the
// pieces the others do.

/** One thread's part of a staged copy: bytes [begin, end) of the whole. */
export interface StagedSlice {
  readonly begin: number;
  readonly end: number;
}

/**
 * How a staged copy of `size` bytes is split between `threads` threads: contiguous slices, each
 * a whole number of `chunkBytes` chunks except the last, so no chunk is smaller than it must be
 * and no thread gets an empty slice (fewer threads run when there are fewer chunks).
 */
export function stagedCopySlices(size: number, chunkBytes: number, threads: number): StagedSlice[] {
  const chunks = Math.ceil(size / chunkBytes);
  const used = Math.min(threads, chunks);
  const slices: StagedSlice[] = [];
  let begin = 0;
  for (let index = 0; index < used; index++) {
    // Chunks are dealt as evenly as they go: the first (chunks % used) threads get one more.
    const count = Math.floor(chunks / used) + (index < chunks % used ? 1 : 0);
    const end = Math.min(size, begin + count * chunkBytes);
    slices.push({ begin, end });
    begin = end;
  }
  return slices;
}
