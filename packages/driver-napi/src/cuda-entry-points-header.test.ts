// native/cuda-entry-points.h is generated from driver-kit's entry-point table: one
// `PFN_<name>_v<abi>` typedef per row, parameters as the table's C declarations. This test
// compares the header with what the table gives; after a change to the table,
// `npx vitest run -u src/cuda-entry-points-header.test.ts` rewrites the header, and
// scripts/check-cuda-abi.mjs (test/cuda-abi.test.ts) compares it with NVIDIA's cudaTypedefs.h.
import { type EntryPointRow, entryPointTable } from '@cumem/driver-kit';
import { expect, it } from 'vitest';

const preamble = `// GENERATED from driver-kit's entry-point table (packages/driver-kit/src/entry-point-table/) by
// src/cuda-entry-points-header.test.ts: edit the table, then run
// \`npx vitest run -u src/cuda-entry-points-header.test.ts\` in packages/driver-napi.
//
// The signatures of the driver entry points the addon resolves, one typedef per (name, ABI
// version) as NVIDIA's cudaTypedefs.h spells them: PFN_<name>_v<ABI>. The slot of each entry
// point in DriverState is typed with the typedef of the ABI it is resolved at, so a driver can
// never hand the addon a different signature; scripts/check-cuda-abi.mjs compares every typedef
// with cudaTypedefs.h.
#pragma once

// scripts/check-cuda-abi.mjs defines CUMEM_PFN to declare these under other names beside
// cudaTypedefs.h's (over cuda.h's types), and compares the two.
#ifndef CUMEM_PFN
#include "cuda-types.h"
#define CUMEM_PFN(name) name
#endif
`;

/** The header's text for `rows`. */
function renderHeader(rows: readonly EntryPointRow[]): string {
  const typedefs = rows.map((row) => {
    const parameters = row.parameters.map(([, declaration]) => declaration).join(', ') || 'void';
    return `typedef CUresult (CUDAAPI* CUMEM_PFN(PFN_${row.name}_v${row.abi}))(${parameters});`;
  });
  return `${preamble}\n${typedefs.join('\n')}\n`;
}

it('native/cuda-entry-points.h is what the entry-point table generates', async () => {
  await expect(renderHeader(Object.values(entryPointTable))).toMatchFileSnapshot(
    '../native/cuda-entry-points.h',
  );
});
