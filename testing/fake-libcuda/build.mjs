#!/usr/bin/env node
// Builds the fake libcuda (src/*.c) with the system C compiler against the CUDA headers and
// prints the library's path: `node testing/fake-libcuda/build.mjs [outputDirectory] [--variant=NAME]`.
// Every CPU test of both adapters, the crash suite, the AddressSanitizer run, the Worker-teardown
// test of @cumem/memory and the C benchmarks' mock check load this one library. Behaviours that
// only differ at run time are environment variables (README.md: FAKE_CUDA_HOSTILE, _LOG, _FAIL,
// ...); a different symbol set is a build variant, compiled with a -D flag.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const files = readdirSync(join(here, 'src')).map((name) => join(here, 'src', name));
const sources = files.filter((file) => file.endsWith('.c'));

/**
 * The symbol sets the fake is built with: `default` (every entry point the adapters bind, in
 * each exported form), `without-legacy` (no CUDA 8.0 cuMemAdvise / cuMemPrefetchAsync: a driver
 * that dropped them), `without-legacy-timing` (nor the CUDA 2.0 cuEventElapsedTime),
 * `without-advise` (no cuMemAdvise in any form).
 */
export const variants = {
  default: [],
  'without-legacy': ['-DFAKE_WITHOUT_LEGACY'],
  'without-legacy-timing': ['-DFAKE_WITHOUT_LEGACY', '-DFAKE_WITHOUT_LEGACY_TIMING'],
  'without-advise': ['-DFAKE_WITHOUT_ADVISE'],
};

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

/**
 * Compiles the fake unless it is up to date and returns the path of its libcuda.so.1.
 * @param {{ variant?: keyof typeof variants, directory?: string }} [options] the symbol set
 *   (default `default`) and the output folder (default build/<variant>/ here).
 */
export function buildFakeLibcuda({ variant = 'default', directory } = {}) {
  const defines = variants[variant];
  if (!defines) throw new RangeError(`unknown fake libcuda variant ${variant}`);
  const output = join(directory ?? join(here, 'build', variant), 'libcuda.so.1');
  const newest = Math.max(
    ...files.map((file) => statSync(file).mtimeMs),
    statSync(fileURLToPath(import.meta.url)).mtimeMs,
  );
  if (existsSync(output) && statSync(output).mtimeMs > newest) return output;
  mkdirSync(dirname(output), { recursive: true });
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
      ...defines,
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

/** The exported function symbols of a shared library (`nm -D`), or undefined without nm. */
export function exportedSymbols(library) {
  try {
    const text = execFileSync('nm', ['-D', '--defined-only', library], { encoding: 'utf8' });
    return new Set(
      text
        .split('\n')
        .filter((line) => / T /.test(line))
        .map((line) => line.split(' ').pop()),
    );
  } catch {
    return undefined;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const problem = fakeUnavailable();
  if (problem) {
    console.error(`fake libcuda not built: ${problem}`);
    process.exit(2);
  }
  const args = process.argv.slice(2);
  const variant = args.find((arg) => arg.startsWith('--variant='))?.slice('--variant='.length);
  const directory = args.find((arg) => !arg.startsWith('--'));
  console.log(buildFakeLibcuda({ variant, directory }));
}
