// StridedMemoryView comes from its static factories: the published types declare its constructor
// private, and calling it anyway (from JavaScript) throws a TypeError naming them.
import { describe, expect, it } from 'vitest';
import { StridedMemoryView } from './strided/strided-memory-view.js';

describe('StridedMemoryView constructor', () => {
  it('is not callable in TypeScript, and throws a TypeError naming the factories in JavaScript', () => {
    // @ts-expect-error: private
    expect(() => new StridedMemoryView()).toThrow(
      new TypeError(
        'StridedMemoryView has no public constructor: use StridedMemoryView.fromBuffer / fromHost / from',
      ),
    );
  });
});
