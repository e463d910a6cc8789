import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DriverUnavailableError, NotSupportedError } from '@cumem/core-types';
import type { DeviceMemoryResource, Stream } from '@cumem/memory';
import { expectEvery } from '@cumem/test-support';
import { describeEachDriver, referenceKernelsPTX } from '@cumem/testing/vitest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { adapters, useDeviceZero } from '../../test/support.js';
import {
  CompileError,
  clearCompileCache,
  float32,
  int32,
  LaunchConfig,
  launch,
  Program,
  uint32,
} from '../index.js';
import { loadNvrtc } from './nvrtc-library.js';
import { nvrtcCandidates } from './nvrtc-search.js';

/** Why NVRTC cannot be used here, or undefined when it loads. */
function nvrtcProblem(): string | undefined {
  try {
    loadNvrtc();
    return undefined;
  } catch (error) {
    if (DriverUnavailableError.isInstance(error)) return error.message.split('\n')[0];
    throw error;
  }
}
const problem = nvrtcProblem();
// Where a CUDA toolkit is installed, NVRTC must load: a skip there would hide a loader bug.
const toolkit =
  ['CUDA_HOME', 'CUDA_PATH'].some((name) => process.env[name]) ||
  existsSync('/usr/local/cuda/lib64/libnvrtc.so');

const scaleSource = `
extern "C" __global__ void scale_f32(float *x, float a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
template <typename T> __global__ void fill_t(T *out, T value, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}
`;

describe('Program arguments', () => {
  it('refuses bad sources, code types and options before loading NVRTC', () => {
    expect(() => new Program(42 as never, 'c++')).toThrow(TypeError);
    expect(() => new Program('x\0y', 'c++')).toThrow(TypeError);
    expect(() => new Program('', 'cuda' as never)).toThrow(TypeError);
    expect(() => new Program('', 'c++', { options: ['-O3', 7] as never })).toThrow(TypeError);
    expect(() => new Program('', 'c++', { arch: 'hopper' })).toThrow(RangeError);
    expect(() => new Program('', 'ptx').compile('elf' as never)).toThrow(TypeError);
    expect(() => new Program(referenceKernelsPTX, 'ptx').compile('cubin')).toThrow(NotSupportedError);
  });

  it('looks for NVRTC in CUDA_HOME, the toolkit and pip wheels, then by soname', () => {
    const candidates = nvrtcCandidates({ CUDA_HOME: '/nonexistent' }, '/explicit/libnvrtc.so');
    expect(candidates[0]).toBe('/explicit/libnvrtc.so');
    expect(candidates.slice(-2)).toEqual(['libnvrtc.so.13', 'libnvrtc.so.12']);
  });

  const missingTitle = 'says where it looked when NVRTC is missing';
  it.skipIf(problem === undefined)(
    problem === undefined
      ? `${missingTitle} — skipped: not applicable: NVRTC is installed here`
      : missingTitle,
    () => {
      expect(() => new Program('__global__ void k() {}', 'c++', { arch: 'sm_90' }).compile('ptx')).toThrow(
        /Possible solutions/,
      );
    },
  );
});

describeEachDriver(adapters, 'Program', (entry) => {
  let pool: DeviceMemoryResource;
  let stream: Stream;
  let cacheDirectory: string;

  beforeAll(() => {
    ({ pool, stream } = useDeviceZero(entry.driver));
    cacheDirectory = mkdtempSync(join(tmpdir(), 'cumem-nvrtc-'));
  });
  afterAll(() => {
    stream.close();
    rmSync(cacheDirectory, { recursive: true, force: true });
  });

  it('loads a PTX program as the driver compiles it', () => {
    const code = new Program(referenceKernelsPTX, 'ptx').compile('ptx');
    const out = pool.allocate(64 * 4);
    launch(
      stream,
      new LaunchConfig({ grid: 1, block: 64 }),
      code.getKernel('fill_f32'),
      out,
      float32(9),
      uint32(64),
    );
    stream.sync();
    expectEvery(out, Float32Array, 9);
    out.close();
    code.close();
  });

  const withNvrtc = problem !== undefined && !(toolkit && !entry.isReference) ? it.skip : it;
  const title = (text: string) =>
    problem === undefined || (toolkit && !entry.isReference)
      ? text
      : `${text} — skipped: not applicable: ${problem}`;

  withNvrtc(title('compiles C++ to PTX and to a cubin, and runs both'), () => {
    for (const target of entry.isReference ? (['ptx'] as const) : (['ptx', 'cubin'] as const)) {
      const program = new Program(scaleSource, 'c++', { options: ['-std=c++17'] });
      const code = program.compile(target, { nameExpressions: ['fill_t<int>'] });
      if (entry.isReference) {
        // The reference driver runs only its built-in kernels: it loads NVRTC's PTX and finds
        // the kernel, and refuses to run it (NOT_SUPPORTED), as its README says.
        expect(code.getKernel('scale_f32')).toBeDefined();
        code.close();
        continue;
      }
      const x = pool.allocate(128 * 4);
      x.copyFrom(new Float32Array(128).fill(2));
      launch(
        stream,
        new LaunchConfig({ grid: 1, block: 128 }),
        code.getKernel('scale_f32'),
        x,
        float32(1.5),
        uint32(128),
      );
      stream.sync();
      expectEvery(x, Float32Array, 3);
      if (!entry.isReference) {
        launch(
          stream,
          new LaunchConfig({ grid: 1, block: 128 }),
          code.getKernel('fill_t<int>'),
          x,
          int32(-7),
          uint32(128),
        );
        stream.sync();
        expectEvery(x, Int32Array, -7);
      }
      x.close();
      code.close();
    }
  });

  withNvrtc(
    title('refuses link-time-optimized C++ (NVRTC emits LTO IR, no PTX) with a NotSupportedError'),
    () => {
      const program = new Program('extern "C" __global__ void lto_kernel() {}', 'c++', {
        options: ['--dlink-time-opt'],
        cacheDirectory,
      });
      expect(() => program.compile('ptx')).toThrow(NotSupportedError);
      expect(() => program.compile('ptx')).toThrow(/LTO IR/);
    },
  );

  withNvrtc(title('gives a CompileError carrying the log'), () => {
    let error: unknown;
    try {
      new Program('__global__ void broken( { syntax error', 'c++', { name: 'broken.cu' }).compile('ptx');
    } catch (caught) {
      error = caught;
    }
    expect(CompileError.isInstance(error)).toBe(true);
    expect((error as CompileError).log).toMatch(/broken\.cu.*error/s);
  });

  withNvrtc(title('caches compiles in memory and in a directory'), () => {
    const source = `${scaleSource}\n// ${entry.name} ${Date.now()}`;
    const program = () => new Program(source, 'c++', { cacheDirectory, options: ['-DCACHE_TEST=1'] });
    const started = performance.now();
    program().compile('ptx').close();
    const uncached = performance.now() - started;
    expect(readdirSync(cacheDirectory).filter((name) => name.endsWith('.json')).length).toBeGreaterThan(0);
    const again = performance.now();
    program().compile('ptx').close();
    expect(performance.now() - again).toBeLessThan(uncached);
    // From the directory after the memory is forgotten: the same kernels load.
    clearCompileCache();
    const fromDisk = program().compile('ptx');
    expect(fromDisk.getKernel('scale_f32')).toBeDefined();
    fromDisk.close();
  });

  withNvrtc(title('compiles when the cache directory cannot be written, with one warning'), () => {
    const file = join(cacheDirectory, 'not-a-directory');
    writeFileSync(file, '');
    const emit = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const source = `${scaleSource}\n// unwritable cache ${entry.name} ${Date.now()}`;
      const program = new Program(source, 'c++', { cacheDirectory: join(file, 'cache') });
      const code = program.compile('ptx');
      expect(code.getKernel('scale_f32')).toBeDefined();
      code.close();
      // Another program on the same directory compiles too and warns no more.
      const other = new Program(`${source}\n// again`, 'c++', { cacheDirectory: join(file, 'cache') });
      other.compile('ptx').close();
      expect(emit).toHaveBeenCalledTimes(1);
      expect(emit.mock.calls[0]?.[1]).toMatchObject({ code: 'CUMEM_COMPILE_CACHE_UNWRITABLE' });
    } finally {
      emit.mockRestore();
    }
  });
});
