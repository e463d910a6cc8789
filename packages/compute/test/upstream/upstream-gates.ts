// What the translated cuda.core cases need that this machine may lack (NVRTC, a GPU, nvcc, a
// recent NVRTC), and the one way they skip when it is missing: `it.skip` with the reason in the
// title, which starts with 'not applicable:' so that `pnpm test:gpu` counts it as by design.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DriverUnavailableError } from '@cumem/core-types';
import type { TestDriver } from '@cumem/testing/vitest';
import { it } from 'vitest';
import { loadNvrtc } from '../../src/program/nvrtc-library.js';

function probeNvrtc(): { problem: string | undefined; version: readonly [number, number] | undefined } {
  try {
    return { problem: undefined, version: loadNvrtc().version };
  } catch (error) {
    if (DriverUnavailableError.isInstance(error))
      return {
        problem: (error.message.split('\n')[0] as string).replace(/\s*Tried:$/, ''),
        version: undefined,
      };
    throw error;
  }
}

const nvrtc = probeNvrtc();

// Where a CUDA toolkit is installed, a GPU adapter must find NVRTC: a skip there would hide a
// loader bug, so the case runs and fails instead.
const toolkitInstalled =
  ['CUDA_HOME', 'CUDA_PATH'].some((name) => process.env[name]) ||
  existsSync('/usr/local/cuda/lib64/libnvrtc.so');

/** Why a case that compiles CUDA C++ cannot run on `entry`, or undefined when it can. */
export function needsNvrtc(entry: TestDriver): string | undefined {
  if (nvrtc.problem === undefined || (toolkitInstalled && !entry.isReference)) return undefined;
  return `not applicable: ${nvrtc.problem}`;
}

/** Like {@link needsNvrtc}, and the NVRTC found must be `major.minor` or newer. */
export function needsNvrtcVersion(entry: TestDriver, major: number, minor: number): string | undefined {
  const missing = needsNvrtc(entry);
  if (missing !== undefined || nvrtc.version === undefined) return missing;
  const [foundMajor, foundMinor] = nvrtc.version;
  if (foundMajor > major || (foundMajor === major && foundMinor >= minor)) return undefined;
  return `not applicable: needs NVRTC ${major}.${minor} or newer, found ${foundMajor}.${foundMinor}`;
}

/** Why a case that loads machine code or runs a kernel of its own cannot run on `entry`. */
export function needsGpu(entry: TestDriver): string | undefined {
  return entry.isReference
    ? 'not applicable: the reference driver loads no cubins and runs only its built-in kernels'
    : undefined;
}

/** A case that compiles CUDA C++ and runs or loads the result as machine code. */
export function needsGpuAndNvrtc(entry: TestDriver): string | undefined {
  return needsGpu(entry) ?? needsNvrtc(entry);
}

/** nvcc of CUDA_HOME, CUDA_PATH or /usr/local/cuda, else undefined. */
function findNvcc(): string | undefined {
  for (const root of [process.env.CUDA_HOME, process.env.CUDA_PATH, '/usr/local/cuda']) {
    if (root && existsSync(join(root, 'bin', 'nvcc'))) return join(root, 'bin', 'nvcc');
  }
  return undefined;
}
const nvcc = findNvcc();

/** A case that loads a cubin made by nvcc. */
export function needsGpuAndNvcc(entry: TestDriver): string | undefined {
  return needsGpu(entry) ?? (nvcc === undefined ? 'not applicable: no nvcc on this machine' : undefined);
}

/** The cubin nvcc makes of CUDA C++ `source` for `arch` (`'sm_90'`). */
export function nvccCubin(source: string, arch: string): Uint8Array {
  const directory = mkdtempSync(join(tmpdir(), 'cumem-upstream-'));
  try {
    writeFileSync(join(directory, 'source.cu'), source);
    const output = join(directory, 'source.cubin');
    execFileSync(nvcc as string, ['-cubin', `-arch=${arch}`, '-o', output, join(directory, 'source.cu')], {
      stdio: 'pipe',
    });
    return new Uint8Array(readFileSync(output));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Registers `body` as a case, or as a skipped one with `reason` in its title. */
export function gatedIt(reason: string | undefined, title: string, body: () => void): void {
  if (reason === undefined) it(title, body);
  else it.skip(`${title} — skipped: ${reason}`, body);
}

/**
 * What a case compiling C++ asks for where cuda.core asks for a cubin: a cubin on a GPU, PTX on
 * the reference driver, which loads PTX only (the case checks what the driver reports of it).
 */
export function machineCodeTarget(entry: TestDriver): 'ptx' | 'cubin' {
  return entry.isReference ? 'ptx' : 'cubin';
}
