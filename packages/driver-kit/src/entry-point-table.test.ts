import { describe, expect, it } from 'vitest';
import type { EntryPointParameter, EntryPointRow } from './entry-point-signature.js';
import { entryPointTable } from './entry-point-table.js';

const rows: readonly [string, EntryPointRow][] = Object.entries(entryPointTable);

describe('the entry-point table', () => {
  it('keys each row by its symbol, and names it without an ABI suffix', () => {
    for (const [key, row] of rows) {
      expect(row.symbol).toBe(key);
      expect(row.name).toMatch(/^cu[A-Z][A-Za-z0-9]*$/);
      expect(row.symbol.startsWith(row.name)).toBe(true);
      expect(row.name).not.toMatch(/_v\d$/);
    }
  });

  it('declares one ABI per (name, version), as cudaTypedefs.h does', () => {
    const forms = rows.map(([, row]) => `${row.name}_v${row.abi}`);
    expect(new Set(forms).size).toBe(forms.length);
  });

  it('writes each C declaration with a parameter name', () => {
    for (const [, row] of rows) {
      for (const [, declaration] of row.parameters) expect(declaration, row.symbol).toMatch(/[\s*]\w+$/);
    }
  });

  it('makes the CUDA 13 forms optional, so older drivers still load', () => {
    for (const symbol of [
      'cuMemPrefetchBatchAsync',
      'cuMemcpyBatchAsync_v2',
      'cuMemAdvise_v2',
      'cuEventElapsedTime_v2',
    ] as const) {
      expect(entryPointTable[symbol].optional, symbol).toBe(true);
    }
    expect(entryPointTable.cuMemAllocFromPoolAsync.optional).toBe(false);
  });

  it('refuses, at compile time, a kind that cannot carry its C parameter', () => {
    const accepted: EntryPointParameter = ['size_t', 'size_t bytesize'];
    // @ts-expect-error: a size travels as `size_t`, not as a handle
    const handleAsSize: EntryPointParameter = ['handle', 'size_t bytesize'];
    // @ts-expect-error: an out-parameter is a pointer
    const outByValue: EntryPointParameter = ['out', 'int count'];
    // @ts-expect-error: no such kind
    const unknownKind: EntryPointParameter = ['pointer', 'void *p'];
    expect([accepted, handleAsSize, outByValue, unknownKind]).toHaveLength(4);
  });
});
