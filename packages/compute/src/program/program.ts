// Program: CUDA C++ compiled at run time with NVRTC (cuda.core's `Program`), to PTX (which the
// driver JIT-compiles for each device) or a cubin for one architecture.

import { type InspectOptionsStylized, inspect } from 'node:util';
import {
  checkOptions,
  Device,
  DeviceAttribute,
  describeValue,
  guardMembers,
  NotSupportedError,
  objectDescription,
} from '@cumem/core-types';
import { currentDriver } from '@cumem/memory';
import { ObjectCode } from '../kernel/object-code.js';
import { isCacheableCompile } from './cache-eligibility.js';
import { type CompiledProgram, cachedCompile, compileKey, storeCompile } from './compile-cache.js';
import { CompileError } from './compile-error.js';
import { loadNvrtc, type NvrtcLibrary } from './nvrtc-library.js';

/** What `new Program` takes besides the source. */
export interface ProgramOptions {
  /** NVRTC options, e.g. `['-std=c++17', '--use_fast_math', '-I/path']`. Default none. */
  readonly options?: readonly string[];
  /** Architecture to compile for, `'sm_90'` or `'90'`. Default: device {@link ProgramOptions.device}'s. */
  readonly arch?: string;
  /** The device whose architecture is the default. Default 0. */
  readonly device?: Device | number;
  /** Name of the program in the compiler log. Default `'program.cu'`. */
  readonly name?: string;
  /**
   * A directory to keep compiled programs in across processes (created when missing). Default:
   * memory only. A directory that cannot be made or written (a path under a file, no permission,
   * a read-only file system) never fails a compile: the first failure per directory emits a
   * `CumemWarning` with code `CUMEM_COMPILE_CACHE_UNWRITABLE`, and compiles go on uncached there.
   */
  readonly cacheDirectory?: string;
}

/** What `compile` takes. */
export interface CompileOptions {
  /**
   * C++ names of kernels (`'scale<float>'`, `'ns::kernel'`) to be found by those names: NVRTC
   * instantiates them and `getKernel(expression)` then finds the lowered (mangled) name.
   */
  readonly nameExpressions?: readonly string[];
}

function checkStrings(value: unknown, name: string): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.includes('\0'))) {
    throw new TypeError(
      `${name} must be an array of strings without NUL characters, got ${describeValue(value)}`,
    );
  }
  return value as readonly string[];
}

function architecture(options: ProgramOptions): string {
  if (options.arch !== undefined) {
    const match =
      typeof options.arch === 'string' ? /^(?:sm_|compute_)?(\d{2,3}[af]?)$/.exec(options.arch) : null;
    if (match === null)
      throw new RangeError(`arch must look like 'sm_90' or '90', got ${describeValue(options.arch)}`);
    return match[1] as string;
  }
  const device = options.device ?? 0;
  const ordinal = Device.isInstance(device) ? device.ordinal : device;
  if (typeof ordinal !== 'number' || !Number.isSafeInteger(ordinal) || ordinal < 0) {
    throw new TypeError(`device must be a Device or an ordinal, got ${describeValue(device)}`);
  }
  const driver = currentDriver();
  const major = driver.deviceGetAttribute(DeviceAttribute.ComputeCapabilityMajor, ordinal);
  const minor = driver.deviceGetAttribute(DeviceAttribute.ComputeCapabilityMinor, ordinal);
  return `${major}${minor}`;
}

/** Source code to compile: CUDA C++ (with NVRTC) or PTX. */
export class Program {
  /** The source language. */
  readonly codeType: 'c++' | 'ptx';
  readonly #source: string;
  readonly #options: readonly string[];
  readonly #arch: string;
  readonly #name: string;
  readonly #cacheDirectory: string | undefined;
  #log = '';

  /**
   * @throws TypeError for a source that is not a string, an unknown code type or malformed
   *   options; RangeError for a malformed `arch`. NVRTC is loaded only by `compile`.
   */
  constructor(source: string, codeType: 'c++' | 'ptx', options?: ProgramOptions) {
    if (typeof source !== 'string' || source.includes('\0')) {
      throw new TypeError(
        `Program needs the source as a string without NUL characters, got ${describeValue(source)}`,
      );
    }
    if (codeType !== 'c++' && codeType !== 'ptx') {
      throw new TypeError(`codeType must be 'c++' or 'ptx', got ${describeValue(codeType)}`);
    }
    const checked = checkOptions(options, 'Program options');
    this.codeType = codeType;
    this.#source = source;
    this.#options = checkStrings(checked.options, 'options');
    if (checked.name !== undefined && typeof checked.name !== 'string')
      throw new TypeError('name must be a string');
    if (checked.cacheDirectory !== undefined && typeof checked.cacheDirectory !== 'string') {
      throw new TypeError('cacheDirectory must be a string');
    }
    this.#name = checked.name ?? 'program.cu';
    this.#cacheDirectory = checked.cacheDirectory;
    this.#arch = codeType === 'c++' ? architecture(checked) : '';
    // No own property can shadow a method or rewrite `codeType` (a subclass of the program's is
    // its author's).
    if (new.target === Program) Object.freeze(this);
  }

  /**
   * Whether `value` is a Program made by this constructor (or a subclass's), by its brand: one
   * private-field test. An object inheriting from a Program, or a Proxy of one, is not.
   */
  static isProgram(value: unknown): value is Program {
    return typeof value === 'object' && value !== null && #source in value;
  }

  /** The compiler log of the last `compile` (warnings; empty before the first or when NVRTC said nothing). */
  get log(): string {
    return this.#log;
  }

  /**
   * Compiles to `target` and loads the result: `'ptx'` (for the architecture's virtual
   * architecture, JIT-compiled by the driver on every device of it or newer) or `'cubin'`
   * (machine code for exactly the architecture). Results are cached by source, options, name,
   * architecture, target and name expressions, except compiles that read headers from files or
   * whose options write files (cache-eligibility.ts), which compile every time.
   * @throws CompileError with NVRTC's log when the source does not compile; DriverUnavailableError
   *   when NVRTC cannot be loaded (the message lists where it looked); NotSupportedError for
   *   a 'ptx' program compiled to 'cubin', or C++ compiled with link-time optimization (LTO IR),
   *   both of which need nvJitLink; TypeError for bad arguments.
   */
  compile(target: 'ptx' | 'cubin', options?: CompileOptions): ObjectCode {
    if (target !== 'ptx' && target !== 'cubin')
      throw new TypeError(`target must be 'ptx' or 'cubin', got ${describeValue(target)}`);
    const names = checkStrings(checkOptions(options, 'compile options').nameExpressions, 'nameExpressions');
    if (this.codeType === 'ptx') {
      if (target === 'cubin') {
        throw new NotSupportedError(
          "compiling PTX to a cubin needs nvJitLink, which cumem does not load yet: load the PTX with compile('ptx') and let the driver compile it",
        );
      }
      this.#log = '';
      return ObjectCode.fromPTX(this.#source);
    }
    // The name is in the key (NVRTC's log and __FILE__ name it); the name expressions' order is
    // not (the lowered names are looked up by name).
    const key = isCacheableCompile(this.#source, this.#options)
      ? compileKey([
          this.#source,
          target,
          this.#arch,
          ...this.#options,
          '\0name',
          this.#name,
          '\0names',
          ...[...names].sort(),
        ])
      : undefined;
    let compiled = key === undefined ? undefined : cachedCompile(key, this.#cacheDirectory);
    if (compiled === undefined) {
      compiled = this.#compile(loadNvrtc(), target, names);
      if (key !== undefined) storeCompile(key, compiled, this.#cacheDirectory);
    }
    this.#log = compiled.log;
    return ObjectCode.fromCompiled(compiled.target, compiled.image, compiled.loweredNames);
  }

  static readonly #description = objectDescription('Program', Program.isProgram, (program) => ({
    codeType: program.codeType,
    // A PTX program has no architecture of its own: the driver compiles it for each device.
    arch: program.#arch === '' ? null : `sm_${program.#arch}`,
    name: program.#name,
  }));

  /** `Program(codeType: c++, arch: sm_90, name: program.cu)`: the language, target architecture and name. */
  toString(): string {
    return Program.#description.text(this);
  }

  /** What `util.inspect` shows: the facts of {@link Program.toString}. */
  [inspect.custom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
    return Program.#description.inspect(this, depth, options, nodeInspect);
  }

  #compile(nvrtc: NvrtcLibrary, target: 'ptx' | 'cubin', names: readonly string[]): CompiledProgram {
    const check = (result: number, call: string, log = '') => {
      if (result !== 0)
        throw new CompileError(`${call} failed: ${nvrtc.getErrorString(result)}`, result, log);
    };
    const handle: unknown[] = [null];
    check(nvrtc.createProgram(handle, this.#source, this.#name, 0, null, null), 'nvrtcCreateProgram');
    const program = handle[0];
    try {
      for (const name of names) check(nvrtc.addNameExpression(program, name), 'nvrtcAddNameExpression');
      const gpu = `--gpu-architecture=${target === 'ptx' ? 'compute' : 'sm'}_${this.#arch}`;
      const options = [gpu, ...this.#options];
      const result = nvrtc.compileProgram(program, options.length, options);
      const log = this.#readLog(nvrtc, program);
      if (result !== 0) {
        throw new CompileError(
          `NVRTC could not compile ${this.#name} for ${gpu}: ${nvrtc.getErrorString(result)}`,
          result,
          log,
        );
      }
      const size: unknown[] = [0];
      const image =
        target === 'ptx' ? [nvrtc.getPTXSize, nvrtc.getPTX] : [nvrtc.getCUBINSize, nvrtc.getCUBIN];
      check((image[0] as NvrtcLibrary['getPTXSize'])(program, size), 'nvrtcGetCodeSize', log);
      const bytes = new Uint8Array(Number(size[0]));
      check((image[1] as NvrtcLibrary['getPTX'])(program, bytes), 'nvrtcGetCode', log);
      const loweredNames: Record<string, string> = {};
      for (const name of names) {
        const lowered: unknown[] = [null];
        check(nvrtc.getLoweredName(program, name, lowered), 'nvrtcGetLoweredName', log);
        loweredNames[name] = String(lowered[0]);
      }
      // NVRTC's PTX ends with its NUL; ObjectCode adds its own.
      const end = target === 'ptx' && bytes.at(-1) === 0 ? bytes.length - 1 : bytes.length;
      // With link-time optimization (-dlto, --dlink-time-opt) NVRTC emits LTO IR instead, and
      // hands out an empty PTX or cubin: refused here, where its cause is known, rather than by
      // the driver as invalid PTX.
      if (end === 0) {
        throw new NotSupportedError(
          `NVRTC produced no ${target} for ${this.#name}: with link-time optimization (-dlto, --dlink-time-opt) it emits LTO IR, which needs nvJitLink to link, and cumem does not load nvJitLink yet; compile without it`,
        );
      }
      return { target, image: bytes.subarray(0, end), log, loweredNames };
    } finally {
      nvrtc.destroyProgram([program]);
    }
  }

  #readLog(nvrtc: NvrtcLibrary, program: unknown): string {
    const size: unknown[] = [0];
    if (nvrtc.getProgramLogSize(program, size) !== 0) return '';
    const bytes = new Uint8Array(Number(size[0]));
    if (bytes.length === 0 || nvrtc.getProgramLog(program, bytes) !== 0) return '';
    const end = bytes.indexOf(0);
    return new TextDecoder().decode(end < 0 ? bytes : bytes.subarray(0, end)).trim();
  }
}

// Answer for any receiver: describing an imitation must not throw.
guardMembers(Program, Program.isProgram, ['toString', inspect.custom]);
