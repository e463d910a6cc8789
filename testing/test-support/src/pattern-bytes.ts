/** Deterministic bytes 1..255 (never 0, so a missed copy shows). */
export function patternBytes(size: number, seed = 7): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = 1 + ((x >>> 16) % 255);
  }
  return out;
}
