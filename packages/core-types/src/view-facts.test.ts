import { describe, expect, it } from 'vitest';
import { memoryByteLength, viewBuffer, viewByteLength, viewByteOffset, viewBytes } from './view-facts.js';

/** A 16-byte view at offset 8 of a 64-byte buffer, its own properties lying about all three. */
function lying(Kind: typeof Uint8Array | typeof DataView): ArrayBufferView {
  const view: ArrayBufferView =
    Kind === DataView ? new DataView(new ArrayBuffer(64), 8, 16) : new Uint8Array(new ArrayBuffer(64), 8, 16);
  Object.defineProperty(view, 'byteLength', { value: 1 << 24 });
  Object.defineProperty(view, 'byteOffset', { value: 1 << 30 });
  Object.defineProperty(view, 'buffer', { value: new ArrayBuffer(1 << 20) });
  return view;
}

describe('view facts', () => {
  it.each([Uint8Array, DataView])('reads a %s as V8 counts it, not its own properties', (Kind) => {
    const view = lying(Kind);
    expect(viewByteLength(view)).toBe(16);
    expect(viewByteOffset(view)).toBe(8);
    expect(viewBuffer(view).byteLength).toBe(64);
    expect(memoryByteLength(view)).toBe(16);
    const bytes = viewBytes(view);
    expect([bytes.buffer, bytes.byteOffset, bytes.byteLength]).toEqual([viewBuffer(view), 8, 16]);
  });

  it('reads buffers too, and refuses what is not JS memory with a TypeError', () => {
    const buffer = new ArrayBuffer(32);
    Object.defineProperty(buffer, 'byteLength', { value: 1 << 24 });
    expect(memoryByteLength(buffer)).toBe(32);
    expect(memoryByteLength(new SharedArrayBuffer(24))).toBe(24);
    const imitation = { buffer, byteOffset: 0, byteLength: 1 << 24 };
    expect(() => viewByteLength(imitation as never)).toThrow(TypeError);
    expect(() => memoryByteLength(imitation as never)).toThrow(TypeError);
  });

  it('gives 0 bytes for a view whose buffer was detached', () => {
    const view = new Uint8Array(new ArrayBuffer(16));
    structuredClone(view.buffer, { transfer: [view.buffer] });
    expect(viewByteLength(view)).toBe(0);
    expect(viewBytes(view).byteLength).toBe(0);
  });
});
