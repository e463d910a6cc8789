// Builds test/fake-libcuda into a temporary directory with the system C compiler and the CUDA
// headers. Tests that need it skip, with the reason in their name, where either is missing.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const sourceDirectory = fileURLToPath(new URL('./fake-libcuda/', import.meta.url));
/** Where cuda.h is looked for (CUDA_HOME/include, then /usr/local/cuda/include). */
export const cudaInclude = join(process.env.CUDA_HOME ?? '/usr/local/cuda', 'include');

function compilerMissing(): string | undefined {
  if (!existsSync(join(cudaInclude, 'cuda.h'))) return `no cuda.h in ${cudaInclude}`;
  try {
    execFileSync('cc', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'no C compiler (cc)';
  }
  return undefined;
}

/** Why the fake cannot be built here, or undefined. */
export const fakeUnavailable = compilerMissing();

const directory = fakeUnavailable ? '' : mkdtempSync(join(tmpdir(), 'cumem-fake-libcuda-'));
const built = new Map<string, string>();

/** Compiles the fake library with the given `-D` defines and returns its path. */
export function buildFakeLibcuda(defines: readonly string[] = []): string {
  const key = defines.join(',');
  const cached = built.get(key);
  if (cached) return cached;
  const output = join(directory, `libfakecuda-${built.size}.so`);
  execFileSync('cc', [
    '-shared',
    '-fPIC',
    '-O1',
    '-Wall',
    '-Wextra',
    '-Werror',
    '-Wmissing-prototypes',
    `-I${cudaInclude}`,
    ...defines.map((d) => `-D${d}`),
    '-o',
    output,
    join(sourceDirectory, 'fake-modern.c'),
    join(sourceDirectory, 'fake-legacy.c'),
  ]);
  built.set(key, output);
  return output;
}

/** Compiles and runs struct-layout.c: sizes and offsets of cuda.h's structs. */
export function cudaStructLayouts(): Record<string, Record<string, number>> {
  const output = join(directory, 'struct-layout');
  execFileSync('cc', [
    '-Wall',
    '-Werror',
    `-I${cudaInclude}`,
    '-o',
    output,
    join(sourceDirectory, 'struct-layout.c'),
  ]);
  return JSON.parse(execFileSync(output, { encoding: 'utf8' })) as Record<string, Record<string, number>>;
}

/** The exported function symbols of a shared library (`nm -D`), or undefined without nm. */
export function exportedSymbols(library: string): Set<string> | undefined {
  try {
    const text = execFileSync('nm', ['-D', '--defined-only', library], { encoding: 'utf8' });
    return new Set(
      text
        .split('\n')
        .filter((l) => / T /.test(l))
        .map((l) => l.split(' ').pop()!),
    );
  } catch {
    return undefined;
  }
}
