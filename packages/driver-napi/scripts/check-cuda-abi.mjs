#!/usr/bin/env node
// Compares native/cuda-types.h and native/cuda-entry-points.h (our declarations of the CUDA
// driver API) with NVIDIA's cuda.h and cudaTypedefs.h, at compile time: it generates one C++
// file with a static_assert per fact — each typedef's size, each enumerator's value, each
// struct's size, alignment and field offsets, each entry point's exact signature — and has the
// compiler check it (-fsyntax-only). Declarations are found by their form in the headers, so a
// new type or entry point is covered without editing this script.
// Usage: node scripts/check-cuda-abi.mjs   exit 0 all equal; 1 a difference (the compiler
// names it); 2 no cuda.h here (CUDA_PATH, CUDA_HOME, /usr/local/cuda), nothing compared.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { findCuda } = require('./find-cuda.cjs');
const native = fileURLToPath(new URL('../native/', import.meta.url));

/** The C++ source of the comparison: our declarations in namespace `ours`, cuda.h's global. */
export function comparisonSource() {
  const withoutComments = (file) => readFileSync(join(native, file), 'utf8').replace(/\/\/.*$/gm, '');
  // cuda-types.h and the per-area headers it includes (`#include "cuda-types-*.h"`).
  const main = withoutComments('cuda-types.h');
  const parts = [...main.matchAll(/^#include "(cuda-types-[\w-]+\.h)"$/gm)].map(([, file]) =>
    withoutComments(file),
  );
  const types = [main, ...parts].join('\n');
  const entryPoints = withoutComments('cuda-entry-points.h');
  const checks = [];
  const same = (condition, what) => checks.push(`static_assert(${condition}, ${JSON.stringify(what)});`);
  for (const [, body, name] of types.matchAll(/typedef enum \w+ : int \{([^}]*)\} (\w+);/g)) {
    same(`sizeof(ours::${name}) == sizeof(::${name})`, `sizeof(${name})`);
    for (const [, enumerator] of body.matchAll(/^\s*(\w+)\s*=/gm)) {
      same(
        `static_cast<long long>(ours::${enumerator}) == static_cast<long long>(::${enumerator})`,
        enumerator,
      );
    }
  }
  for (const [, body, name] of types.matchAll(/typedef struct \w+ \{([^}]*)\} (\w+);/g)) {
    same(`sizeof(ours::${name}) == sizeof(::${name})`, `sizeof(${name})`);
    same(`alignof(ours::${name}) == alignof(::${name})`, `alignof(${name})`);
    for (const [, field] of body.matchAll(/(\w+)(?:\[\w+\])?;/g)) {
      same(`offsetof(ours::${name}, ${field}) == offsetof(::${name}, ${field})`, `${name}.${field}`);
      same(`sizeof(ours::${name}::${field}) == sizeof(::${name}::${field})`, `sizeof(${name}.${field})`);
    }
  }
  for (const [, declaration] of types.matchAll(/^typedef ([^{}();]+);$/gm)) {
    const name = /(\w+)$/.exec(declaration.trim())[1];
    same(`sizeof(ours::${name}) == sizeof(::${name})`, `sizeof(${name})`);
  }
  for (const [, pfn] of entryPoints.matchAll(/CUMEM_PFN\((PFN_\w+)\)\)/g)) {
    same(`std::is_same_v<ours_${pfn}, ::${pfn}>`, `${pfn} signature`);
  }
  return [
    '#include <cstddef>',
    '#include <cstdint>',
    '#include <type_traits>',
    '#include <cuda.h>',
    '#include <cudaTypedefs.h>',
    'namespace ours {',
    '#include "cuda-types.h"',
    '}',
    '#define CUMEM_PFN(name) ours_##name',
    '#include "cuda-entry-points.h"',
    'static_assert(CU_DEVICE_CPU == -1 && CU_DEVICE_INVALID == -2, "CU_DEVICE_CPU / CU_DEVICE_INVALID");',
    ...checks,
    '',
  ].join('\n');
}

/** Compiles the comparison; returns `{ status, checks, output }` (status as documented above). */
export function checkCudaAbi() {
  const cuda = findCuda();
  if (cuda.error) return { status: 2, checks: 0, output: cuda.error, cuda: undefined };
  const source = comparisonSource();
  const directory = mkdtempSync(join(tmpdir(), 'cumem-cuda-abi-'));
  const file = join(directory, 'compare.cc');
  writeFileSync(file, source);
  const checks = source.split('\n').filter((line) => line.startsWith('static_assert')).length;
  try {
    execFileSync(
      process.env.CXX || 'c++',
      ['-std=c++17', '-fsyntax-only', `-I${cuda.include}`, `-I${native}`, file],
      {
        stdio: 'pipe',
        encoding: 'utf8',
      },
    );
    return { status: 0, checks, output: '', cuda };
  } catch (error) {
    return { status: 1, checks, output: `${error.stdout ?? ''}${error.stderr ?? ''}`, cuda };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = checkCudaAbi();
  if (result.status === 2) console.log(`check-cuda-abi: skipped, ${result.output}`);
  else if (result.status === 1)
    console.error(`check-cuda-abi: declarations differ from cuda.h:\n${result.output}`);
  else console.log(`check-cuda-abi: ${result.checks} checks equal to CUDA ${result.cuda.version}'s cuda.h`);
  process.exitCode = result.status;
}
