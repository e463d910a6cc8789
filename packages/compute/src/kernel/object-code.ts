// A loaded module image: one `CUlibrary` (cuLibraryLoadData, CUDA 12.0), which the driver loads
// into each device's context when a kernel of it is first used there, so one ObjectCode serves
// every device.

import { type InspectOptionsStylized, inspect } from 'node:util';
import {
  CudaStateError,
  type Driver,
  type DriverHandle,
  describeValue,
  guardMembers,
  objectDescription,
} from '@cumem/core-types';
import { currentDriver } from '@cumem/memory';
import { makeDeviceCurrent } from '@cumem/memory/internal';
import { type CodeType, checkCubin, checkFatbin, imageBytes, ptxBytes } from './image-checks.js';
import { Kernel } from './kernel.js';

/**
 * What an ObjectCode's finalizer and close() release, shared with its kernels, which check it
 * themselves before each launch rather than asking the ObjectCode.
 */
export interface LibraryState {
  readonly driver: Driver;
  /** The `CUlibrary`; 0n once unloaded. */
  handle: DriverHandle;
  /** Devices a kernel of the library was used on: their queued launches finish before unloading. */
  readonly devices: Set<number>;
}

function unload(state: LibraryState): void {
  if (state.handle === 0n) return;
  const library = state.handle;
  state.handle = 0n;
  // cuLibraryUnload does not wait for launches still queued: wait for them first.
  for (const device of state.devices) {
    makeDeviceCurrent(device);
    state.driver.contextSynchronize();
  }
  state.driver.libraryUnload(library);
}

const finalizer = new FinalizationRegistry<LibraryState>((state) => {
  try {
    unload(state);
  } catch {
    // A context poisoned by a faulting kernel refuses every call; the process keeps running.
  }
});

const constructionToken = Symbol('ObjectCode');

/**
 * Kernels' machine code or PTX, loaded for every device (cuda.core's `ObjectCode`). PTX is
 * compiled by the driver's JIT for each device it runs on: no CUDA toolkit needed.
 * `close()` (or `using`, or garbage collection) unloads it, after the launches queued so far.
 */
export class ObjectCode {
  /** The image kind. */
  readonly codeType: CodeType;
  readonly #state: LibraryState;
  // Name expressions of a Program compile to the kernels' lowered (mangled) names.
  readonly #names: Readonly<Record<string, string>>;
  /** The Kernel of each name asked for so far (getKernel). */
  readonly #kernels = new Map<string, Kernel>();
  /** The image's length in bytes, for toString and util.inspect. */
  readonly #size: number;

  /** @internal Use {@link ObjectCode.fromPTX}, {@link ObjectCode.fromCubin} or {@link ObjectCode.fromFatbin}. */
  constructor(
    token: symbol,
    codeType: CodeType,
    image: Uint8Array,
    names: Readonly<Record<string, string>> = {},
  ) {
    if (token !== constructionToken) throw new TypeError('use ObjectCode.fromPTX, fromCubin or fromFatbin');
    this.codeType = codeType;
    this.#names = names;
    this.#size = image.byteLength;
    const driver = currentDriver();
    const library = driver.libraryLoadData(image);
    this.#state = { driver, handle: library, devices: new Set() };
    finalizer.register(this, this.#state, this);
    // Frozen: no own property can shadow `getKernel` or rewrite `codeType`; the state is private.
    Object.freeze(this);
  }

  /**
   * Whether `value` is an ObjectCode made by this package (its brand: one private-field test),
   * not an object inheriting from one or a Proxy of one, which `instanceof` accepts.
   */
  static isObjectCode(value: unknown): value is ObjectCode {
    return typeof value === 'object' && value !== null && #state in value;
  }

  /**
   * Loads PTX text (the driver compiles it for each device on first use).
   * @throws TypeError for anything but a string; RangeError for text with a NUL character;
   *   CudaError (`CUDA_ERROR_INVALID_PTX` and kin) when the driver cannot compile it.
   */
  static fromPTX(text: string): ObjectCode {
    return new ObjectCode(constructionToken, 'ptx', ptxBytes(text));
  }

  /**
   * Loads a cubin (an ELF file of machine code for one architecture). The bytes are copied.
   * @throws TypeError for anything but bytes; RangeError for an image that is not a 64-bit ELF
   *   or is truncated (its headers reach past its end); CudaError when the driver refuses it
   *   (e.g. `CUDA_ERROR_NO_BINARY_FOR_GPU` for another architecture, on first use).
   */
  static fromCubin(bytes: ArrayBufferView | ArrayBuffer): ObjectCode {
    const image = imageBytes(bytes, 'fromCubin');
    checkCubin(image);
    return new ObjectCode(constructionToken, 'cubin', image);
  }

  /**
   * Loads a fatbin (cubins and PTX for several architectures; the driver picks). The bytes are copied.
   * @throws TypeError for anything but bytes; RangeError when it lacks the fatbin header or is
   *   shorter than the header says; CudaError when the driver refuses it.
   */
  static fromFatbin(bytes: ArrayBufferView | ArrayBuffer): ObjectCode {
    const image = imageBytes(bytes, 'fromFatbin');
    checkFatbin(image);
    return new ObjectCode(constructionToken, 'fatbin', image);
  }

  /** @internal What Program.compile made: PTX text (without its NUL) or a cubin, and its lowered names. */
  static fromCompiled(
    target: 'ptx' | 'cubin',
    image: Uint8Array,
    names: Readonly<Record<string, string>>,
  ): ObjectCode {
    if (target === 'cubin') {
      checkCubin(image);
      return new ObjectCode(constructionToken, 'cubin', image.slice(), names);
    }
    const text = new Uint8Array(image.length + 1);
    text.set(image);
    return new ObjectCode(constructionToken, 'ptx', text, names);
  }

  /** True after `close()`. */
  get isClosed(): boolean {
    return this.#state.handle === 0n;
  }

  /**
   * The kernel named `name`: a name expression given to `Program.compile`, else the kernel's
   * symbol (for C++ kernels without `extern "C"`, the mangled name).
   * @throws TypeError for a name that is not a non-empty string; CudaStateError after close();
   *   CudaError `CUDA_ERROR_NOT_FOUND` when the image has no such kernel.
   */
  getKernel(name: string): Kernel {
    if (typeof name !== 'string' || name.length === 0 || name.includes('\0')) {
      throw new TypeError(`getKernel needs a kernel name (a non-empty string), got ${describeValue(name)}`);
    }
    const state = this.#state;
    if (state.handle === 0n) throw CudaStateError.closed('ObjectCode');
    // One Kernel per name, as one Stream per CUstream: a kernel is a stable Map key and shares
    // what it learned of its devices.
    const known = this.#kernels.get(name);
    if (known !== undefined) return known;
    const symbol = Object.hasOwn(this.#names, name) ? (this.#names[name] as string) : name;
    const handle = state.driver.libraryGetKernel(state.handle, symbol);
    const kernel = Kernel.create(this, name, handle, state);
    this.#kernels.set(name, kernel);
    return kernel;
  }

  /**
   * Unloads the image once the launches queued so far on devices that used it have run (it
   * waits for them). Harmless when already closed. Kernels from it refuse to launch afterwards.
   */
  close(): void {
    if (this.#state.handle === 0n) return;
    finalizer.unregister(this);
    unload(this.#state);
  }

  [Symbol.dispose](): void {
    this.close();
  }

  static readonly #description = objectDescription('ObjectCode', ObjectCode.isObjectCode, (code) => ({
    codeType: code.codeType,
    size: code.#size,
    closed: code.#state.handle === 0n,
  }));

  /** `ObjectCode(codeType: ptx, size: 4096, closed: false)`: the image's kind and length in bytes, and whether it is unloaded. */
  toString(): string {
    return ObjectCode.#description.text(this);
  }

  /** What `util.inspect` shows: the facts of {@link ObjectCode.toString}. */
  [inspect.custom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
    return ObjectCode.#description.inspect(this, depth, options, nodeInspect);
  }
}

guardMembers(ObjectCode, ObjectCode.isObjectCode, [
  // Answer for any receiver: describing an imitation must not throw.
  'toString',
  inspect.custom,
]);
