// libnvrtc through koffi. NVRTC is not the CUDA driver: it is a compiler library the program
// calls a few times (each compile costs hundreds of milliseconds, so koffi's call overhead does
// not matter), with no handle the driver contract knows. It is therefore loaded here, by the
// package that compiles, rather than added to the Driver contract that both adapters implement:
// @cumem/compute then compiles the same way over either adapter (and the reference driver),
// and the adapters stay a mirror of libcuda alone. koffi is an optional dependency: without it,
// or without libnvrtc, Program reports what to install and loading PTX, cubins and fatbins still works.
import { createRequire } from 'node:module';
import { DriverUnavailableError } from '@cumem/core-types';
import { nvrtcCandidates } from './nvrtc-search.js';

type Koffi = typeof import('koffi');
type Bound = (...args: unknown[]) => number;

/** The NVRTC entry points Program calls (nvrtc.h, CUDA 12 and 13 alike). */
export interface NvrtcLibrary {
  /** The path or soname that loaded. */
  readonly path: string;
  /** `nvrtcVersion`: [major, minor]. */
  readonly version: readonly [number, number];
  readonly koffi: Koffi;
  readonly createProgram: Bound;
  readonly compileProgram: Bound;
  readonly destroyProgram: Bound;
  readonly getProgramLogSize: Bound;
  readonly getProgramLog: Bound;
  readonly getPTXSize: Bound;
  readonly getPTX: Bound;
  readonly getCUBINSize: Bound;
  readonly getCUBIN: Bound;
  readonly addNameExpression: Bound;
  readonly getLoweredName: Bound;
  readonly getErrorString: (result: number) => string;
}

let loaded: NvrtcLibrary | undefined;

function bind(koffi: Koffi, path: string): NvrtcLibrary {
  const library = koffi.load(path);
  const f = (signature: string) => library.func(signature) as Bound;
  const version = f('int nvrtcVersion(_Out_ int *major, _Out_ int *minor)');
  const major = [0];
  const minor = [0];
  version(major, minor);
  return {
    path,
    version: [major[0] as number, minor[0] as number],
    koffi,
    createProgram: f(
      'int nvrtcCreateProgram(_Out_ void **prog, const char *src, const char *name, int numHeaders, const char **headers, const char **includeNames)',
    ),
    compileProgram: f('int nvrtcCompileProgram(void *prog, int numOptions, const char **options)'),
    destroyProgram: f('int nvrtcDestroyProgram(_Inout_ void **prog)'),
    getProgramLogSize: f('int nvrtcGetProgramLogSize(void *prog, _Out_ size_t *size)'),
    getProgramLog: f('int nvrtcGetProgramLog(void *prog, uint8_t *log)'),
    getPTXSize: f('int nvrtcGetPTXSize(void *prog, _Out_ size_t *size)'),
    getPTX: f('int nvrtcGetPTX(void *prog, uint8_t *ptx)'),
    getCUBINSize: f('int nvrtcGetCUBINSize(void *prog, _Out_ size_t *size)'),
    getCUBIN: f('int nvrtcGetCUBIN(void *prog, uint8_t *cubin)'),
    addNameExpression: f('int nvrtcAddNameExpression(void *prog, const char *name)'),
    getLoweredName: f('int nvrtcGetLoweredName(void *prog, const char *name, _Out_ const char **lowered)'),
    getErrorString: f('const char *nvrtcGetErrorString(int result)') as unknown as (result: number) => string,
  };
}

/**
 * libnvrtc, loaded once: from `CUMEM_NVRTC_PATH` when set, else the first of
 * {@link nvrtcCandidates} that loads.
 * @throws DriverUnavailableError ('library-missing') listing every place tried and how to fix it.
 */
export function loadNvrtc(): NvrtcLibrary {
  if (loaded !== undefined) return loaded;
  let koffi: Koffi;
  try {
    koffi = createRequire(import.meta.url)('koffi') as Koffi;
  } catch (cause) {
    throw new DriverUnavailableError(
      'library-missing',
      'Program needs koffi to call NVRTC, and it is not installed.\nPossible solutions:\n- npm install koffi',
      { cause },
    );
  }
  const tried: string[] = [];
  for (const candidate of nvrtcCandidates(process.env, process.env.CUMEM_NVRTC_PATH)) {
    try {
      loaded = bind(koffi, candidate);
      return loaded;
    } catch (error) {
      tried.push(`${candidate}: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  throw new DriverUnavailableError(
    'library-missing',
    [
      'NVRTC (libnvrtc.so.13 or libnvrtc.so.12) could not be loaded. Tried:',
      ...tried.map((line) => `- ${line}`),
      'Possible solutions:',
      '- install the CUDA toolkit and set CUDA_HOME (or add its lib64 to LD_LIBRARY_PATH)',
      '- pip install nvidia-cuda-nvrtc-cu12 (or the CUDA 13 wheel) in the active virtual environment',
      '- set CUMEM_NVRTC_PATH to the library file',
      '- or compile ahead of time and load the result with ObjectCode.fromPTX / fromCubin / fromFatbin',
    ].join('\n'),
  );
}
