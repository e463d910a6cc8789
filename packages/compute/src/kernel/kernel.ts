// One kernel of an ObjectCode: its context-independent `CUkernel`, the `CUfunction` of it in
// each device's context (made on first use there), attributes, parameter layout and occupancy.

import { type InspectOptionsStylized, inspect } from 'node:util';
import {
  CudaStateError,
  checkInteger,
  checkSize,
  Device,
  type Driver,
  type DriverHandle,
  describeValue,
  FunctionAttribute,
  guardMembers,
  type KernelParameterInfo,
  NotSupportedError,
  objectDescription,
} from '@cumem/core-types';
import { makeDeviceCurrent } from '@cumem/memory/internal';
import { type ArgumentLayout, argumentLayout } from './argument-layout.js';
import type { LibraryState, ObjectCode } from './object-code.js';

/** What `cuFuncGetAttribute` reports of a kernel on one device. */
export interface KernelAttributes {
  /** The most threads a block may have: the device's limit, or fewer for a kernel using many registers. */
  readonly maxThreadsPerBlock: number;
  /** Registers per thread. */
  readonly numRegisters: number;
  /** Statically allocated shared memory per block, in bytes. */
  readonly sharedSizeBytes: number;
  /** Constant memory, in bytes. */
  readonly constSizeBytes: number;
  /** Local memory per thread, in bytes. */
  readonly localSizeBytes: number;
  /** The most dynamic shared memory a launch may ask for now, in bytes (launch raises it as needed, up to the device's opt-in limit). */
  readonly maxDynamicSharedSizeBytes: number;
  /** PTX version it was compiled from, 10 * major + minor (0 when none). */
  readonly ptxVersion: number;
  /** Architecture of its machine code, 10 * major + minor. */
  readonly binaryVersion: number;
}

/** `cuOccupancy*` for one kernel. */
export interface KernelOccupancy {
  /**
   * Blocks of `blockSize` threads that can be resident on one multiprocessor at once, with
   * `dynamicSharedMemBytes` of dynamic shared memory each (default 0), on `device` (default 0).
   */
  maxActiveBlocksPerMultiprocessor(
    blockSize: number,
    dynamicSharedMemBytes?: number,
    device?: Device | number,
  ): number;
  /**
   * The block size that maximizes occupancy (at most `blockSizeLimit` threads; 0, the default:
   * the kernel's limit) with `dynamicSharedMemBytes` per block (default 0), and the smallest
   * grid that fills the device with it.
   */
  maxPotentialBlockSize(
    dynamicSharedMemBytes?: number,
    blockSizeLimit?: number,
    device?: Device | number,
  ): { minGridSize: number; blockSize: number };
}

const kernelToken = Symbol('Kernel');

/** A kernel to {@link launch}; get one with `ObjectCode.getKernel(name)`. Keeps its ObjectCode alive. */
export class Kernel {
  /** The name it was looked up by. */
  readonly name: string;
  /** The ObjectCode it comes from. */
  readonly objectCode: ObjectCode;
  /** Occupancy queries. */
  readonly occupancy: KernelOccupancy;
  /** @internal */ readonly driver: Driver;
  readonly #handle: DriverHandle;
  // The ObjectCode's library: closing the ObjectCode unloads it, after which launches are refused.
  readonly #library: LibraryState;
  // CUfunction per device ordinal; 0n where not made yet.
  readonly #functions: DriverHandle[] = [];
  #parameters: readonly KernelParameterInfo[] | null | undefined = undefined;
  #layout: ArgumentLayout | null | undefined = undefined;

  /** @internal Use `ObjectCode.getKernel`. */
  constructor(
    token: symbol,
    objectCode: ObjectCode,
    name: string,
    handle: DriverHandle,
    library: LibraryState,
  ) {
    if (token !== kernelToken) throw new TypeError('use ObjectCode.getKernel(name)');
    this.objectCode = objectCode;
    this.name = name;
    this.#handle = handle;
    this.#library = library;
    const driver = library.driver;
    this.driver = driver;
    this.occupancy = Object.freeze({
      maxActiveBlocksPerMultiprocessor: (
        blockSize: number,
        dynamicSharedMemBytes = 0,
        device: Device | number = 0,
      ) => {
        checkInteger(blockSize, 'blockSize');
        if (blockSize < 1) throw new RangeError(`blockSize must be positive, got ${blockSize}`);
        checkSize(dynamicSharedMemBytes, 'dynamicSharedMemBytes');
        const fn = this.functionOn(this.ordinalOf(device));
        return driver.occupancyMaxActiveBlocksPerMultiprocessor(fn, blockSize, dynamicSharedMemBytes);
      },
      maxPotentialBlockSize: (dynamicSharedMemBytes = 0, blockSizeLimit = 0, device: Device | number = 0) => {
        checkSize(dynamicSharedMemBytes, 'dynamicSharedMemBytes');
        checkSize(blockSizeLimit, 'blockSizeLimit');
        const fn = this.functionOn(this.ordinalOf(device));
        return driver.occupancyMaxPotentialBlockSize(fn, dynamicSharedMemBytes, blockSizeLimit);
      },
    });
    // Frozen: no own property can shadow a method (`launchFunctionOn` answering a CUfunction the
    // driver never made) or rewrite `driver`; the mutable state is private.
    Object.freeze(this);
  }

  /**
   * Whether `value` is a Kernel made by this package (its brand: one private-field test), not
   * an object inheriting from one or a Proxy of one, which `instanceof` accepts.
   */
  static isKernel(value: unknown): value is Kernel {
    return typeof value === 'object' && value !== null && #handle in value;
  }

  /** @internal */
  static create(objectCode: ObjectCode, name: string, handle: DriverHandle, library: LibraryState): Kernel {
    return new Kernel(kernelToken, objectCode, name, handle, library);
  }

  /** The kernel's attributes on `device` (default 0). */
  attributes(device: Device | number = 0): KernelAttributes {
    const fn = this.functionOn(this.ordinalOf(device));
    const get = (attribute: FunctionAttribute) => this.driver.funcGetAttribute(attribute, fn);
    return Object.freeze({
      maxThreadsPerBlock: get(FunctionAttribute.MaxThreadsPerBlock),
      numRegisters: get(FunctionAttribute.NumRegs),
      sharedSizeBytes: get(FunctionAttribute.SharedSizeBytes),
      constSizeBytes: get(FunctionAttribute.ConstSizeBytes),
      localSizeBytes: get(FunctionAttribute.LocalSizeBytes),
      maxDynamicSharedSizeBytes: get(FunctionAttribute.MaxDynamicSharedSizeBytes),
      ptxVersion: get(FunctionAttribute.PtxVersion),
      binaryVersion: get(FunctionAttribute.BinaryVersion),
    });
  }

  /**
   * Each parameter's offset and size in bytes, as the driver reports them (`cuFuncGetParamInfo`,
   * CUDA 12.4 drivers and newer); null on older drivers. Launches check arguments against it.
   */
  get argumentInfo(): readonly KernelParameterInfo[] | null {
    if (this.#parameters === undefined) this.#parameters = this.readParameters();
    return this.#parameters;
  }

  /**
   * The number of parameters the kernel takes.
   * @throws NotSupportedError on a driver older than CUDA 12.4, which does not tell.
   */
  get numArguments(): number {
    const info = this.argumentInfo;
    if (info === null) {
      throw new NotSupportedError(
        'numArguments needs cuFuncGetParamInfo, which drivers older than CUDA 12.4 lack',
      );
    }
    return info.length;
  }

  /** @internal The reusable argument layout, or null when the driver does not report one. */
  layout(): ArgumentLayout | null {
    if (this.#layout === undefined) {
      const parameters = this.argumentInfo;
      this.#layout = parameters === null ? null : argumentLayout(parameters);
    }
    return this.#layout;
  }

  /** @internal The CUfunction on `ordinal`, made current there; refused once the ObjectCode is closed. */
  functionOn(ordinal: number): DriverHandle {
    const library = this.#library;
    if (library.handle === 0n) throw CudaStateError.closed('ObjectCode');
    // Closing the ObjectCode waits for the launches queued on each device a kernel of it used.
    library.devices.add(ordinal);
    makeDeviceCurrent(ordinal);
    let fn = this.#functions[ordinal];
    if (fn === undefined || fn === 0n) {
      fn = this.driver.kernelGetFunction(this.#handle);
      this.#functions[ordinal] = fn;
    }
    return fn;
  }

  /**
   * @internal The CUfunction on `ordinal` for a launch, whose caller made the device current in
   * this kernel's driver (bindStreamDriver); refused once the ObjectCode is closed.
   */
  launchFunctionOn(ordinal: number): DriverHandle {
    const fn = this.#functions[ordinal];
    if (fn === undefined || fn === 0n) return this.functionOn(ordinal);
    // functionOn noted the device when it made fn: only the open check is left per launch.
    if (this.#library.handle === 0n) throw CudaStateError.closed('ObjectCode');
    return fn;
  }

  static readonly #description = objectDescription('Kernel', Kernel.isKernel, (kernel) => ({
    name: kernel.name,
    codeType: kernel.objectCode.codeType,
    closed: kernel.objectCode.isClosed,
  }));

  /** `Kernel(name: scale, codeType: ptx, closed: false)`: the name, its ObjectCode's kind, and whether that is closed. */
  toString(): string {
    return Kernel.#description.text(this);
  }

  /** What `util.inspect` shows: the facts of {@link Kernel.toString}. */
  [inspect.custom](depth: number, options: InspectOptionsStylized, nodeInspect: typeof inspect): string {
    return Kernel.#description.inspect(this, depth, options, nodeInspect);
  }

  private ordinalOf(device: unknown): number {
    const ordinal: unknown = Device.isInstance(device) ? device.ordinal : device;
    if (typeof ordinal !== 'number')
      throw new TypeError(`device must be a Device or an ordinal, got ${describeValue(device)}`);
    checkSize(ordinal, 'device');
    const count = this.driver.deviceGetCount();
    if (ordinal >= count)
      throw new RangeError(`device ${ordinal} does not exist: the driver reports ${count} device(s)`);
    return ordinal;
  }

  private readParameters(): readonly KernelParameterInfo[] | null {
    if (!this.driver.capabilities.kernelParameterInfo) return null;
    const fn = this.functionOn(0);
    const parameters: KernelParameterInfo[] = [];
    // Kernel parameters take at most 32764 bytes (CUDA 12.1), so at most that many of them.
    for (let index = 0; index < 32764; index++) {
      const info = this.driver.funcGetParamInfo(fn, index);
      if (info === null) break;
      parameters.push(Object.freeze(info));
    }
    return Object.freeze(parameters);
  }
}

guardMembers(Kernel, Kernel.isKernel, [
  // Called only by launch(), on a kernel it has checked, once per launch.
  'layout',
  'functionOn',
  'launchFunctionOn',
  // Answer for any receiver: describing an imitation must not throw.
  'toString',
  inspect.custom,
]);
