#!/usr/bin/env node
// Builds the fake libcuda (src/*.c) with the system C compiler against the CUDA headers and
// prints the library's path. Used by the crash suite and the AddressSanitizer run; run it as
// `node testing/fake-libcuda/build.mjs [outputDirectory]`. One library serves both modes: the
// FAKE_CUDA_HOSTILE=1 environment variable turns on the unmap-on-free allocator at run time.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const sources = readdirSync(join(here, 'src'))
  .filter((name) => name.endsWith('.c'))
  .map((name) => join(here, 'src', name));

/** Where cuda.h is looked for: CUDA_PATH, CUDA_HOME, then /usr/local/cuda. */
export function cudaInclude(env = process.env) {
  for (const root of [env.CUDA_PATH, env.CUDA_HOME, '/usr/local/cuda']) {
    if (root && existsSync(join(root, 'include', 'cuda.h'))) return join(root, 'include');
  }
  return undefined;
}

/** Why the fake cannot be built here (no cuda.h, no cc), or undefined. */
export function fakeUnavailable() {
  if (!cudaInclude()) return 'no cuda.h (set CUDA_PATH)';
  try {
    execFileSync('cc', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'no C compiler (cc)';
  }
  return undefined;
}

/** Compiles the fake into `directory` (default: build/ here) unless it is up to date; returns its path. */
export function buildFakeLibcuda(directory = join(here, 'build')) {
  const output = join(directory, 'libcuda.so.1');
  const newest = Math.max(
    ...sources.map((file) => statSync(file).mtimeMs),
    statSync(join(here, 'src', 'fake-memory.h')).mtimeMs,
  );
  if (existsSync(output) && statSync(output).mtimeMs > newest) return output;
  mkdirSync(directory, { recursive: true });
  const temporary = `${output}.${process.pid}`;
  execFileSync(
    'cc',
    [
      '-shared',
      '-fPIC',
      '-O1',
      '-g',
      '-Wall',
      '-Wextra',
      '-Werror',
      '-Wmissing-prototypes',
      `-I${cudaInclude()}`,
      '-o',
      temporary,
      ...sources,
      '-lpthread',
    ],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  execFileSync('mv', ['-f', temporary, output]);
  return output;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const problem = fakeUnavailable();
  if (problem) {
    console.error(`fake libcuda not built: ${problem}`);
    process.exit(2);
  }
  console.log(buildFakeLibcuda(process.argv[2]));
}
