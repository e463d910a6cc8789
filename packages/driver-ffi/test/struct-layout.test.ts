// The koffi structs against the C compiler's layout of cuda.h, and the table's symbols against
// the names cuda.h's macros produce (the fake library defines each API by its cuda.h name).
import { describe, expect, it } from 'vitest';
import { entryPoints } from '../src/bindings.js';
import { loadKoffi } from '../src/koffi-module.js';
import { driverStructs } from '../src/structs.js';
import { buildFakeLibcuda, cudaStructLayouts, exportedSymbols, fakeUnavailable } from './fake-libcuda.js';

const suite = fakeUnavailable ? describe.skip : describe;

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
      const symbols = exportedSymbols(buildFakeLibcuda(['FAKE_BATCH_V1']));
      if (!symbols) return expect.fail('nm is needed for this test');
      for (const spec of Object.values(entryPoints)) expect(symbols.has(spec.symbol), spec.symbol).toBe(true);
    });
  },
);
