// The koffi structs against the C compiler's layout of cuda.h, and the table's symbols against
// the names cuda.h's macros produce (the fake library defines each API by its cuda.h name).
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type EntryPointRow, entryPointTable } from '@cumem/driver-kit';
import {
  buildFakeLibcuda,
  cudaInclude,
  exportedSymbols,
  fakeUnavailable as unavailable,
} from '@cumem/fake-libcuda';
import { describe, expect, it } from 'vitest';
import { loadKoffi } from '../src/koffi-module.js';
import { driverStructs } from '../src/structs.js';

const fakeUnavailable = unavailable();
const suite = fakeUnavailable ? describe.skip : describe;

/** Compiles and runs struct-layout.c: sizes and offsets of cuda.h's structs. */
function cudaStructLayouts(): Record<string, Record<string, number>> {
  const output = join(mkdtempSync(join(tmpdir(), 'cumem-struct-layout-')), 'struct-layout');
  const source = fileURLToPath(new URL('./struct-layout.c', import.meta.url));
  execFileSync('cc', ['-Wall', '-Werror', `-I${cudaInclude()}`, '-o', output, source]);
  return JSON.parse(execFileSync(output, { encoding: 'utf8' })) as Record<string, Record<string, number>>;
}

suite(
  fakeUnavailable
    ? `layouts and symbols against cuda.h — skipped: ${fakeUnavailable}`
    : 'layouts and symbols against cuda.h',
  () => {
    it('matches every struct size and member offset', () => {
      const koffi = loadKoffi();
      const structs = driverStructs(koffi) as Record<string, Parameters<typeof koffi.sizeof>[0]>;
      const layouts = cudaStructLayouts();
      for (const [name, layout] of Object.entries(layouts)) {
        const type = structs[name];
        expect(type, name).toBeDefined();
        const { size, ...offsets } = layout;
        expect(koffi.sizeof(type!), `sizeof(${name})`).toBe(size);
        for (const [member, offset] of Object.entries(offsets)) {
          expect(koffi.offsetof(type!, member), `offsetof(${name}, ${member})`).toBe(offset);
        }
      }
      expect(Object.keys(layouts).sort()).toEqual(Object.keys(structs).sort());
    });

    it('binds exactly the symbols cuda.h maps each API name to', () => {
      const symbols = exportedSymbols(buildFakeLibcuda());
      if (!symbols) return expect.fail('nm is needed for this test');
      const rows: readonly EntryPointRow[] = Object.values(entryPointTable);
      for (const row of rows) if (!row.loaderOnly) expect(symbols.has(row.symbol), row.symbol).toBe(true);
    });
  },
);
