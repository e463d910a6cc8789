/**
 * `@cumem/compute`: load kernels (PTX, cubin, fatbin) and launch them on cumem memory, the
 * compute half of cuda.core: `ObjectCode`, `Kernel`, `LaunchConfig`, `launch`, and typed scalar
 * arguments. Built on the driver contract and `@cumem/memory`: no addon of your own.
 * @packageDocumentation
 */
export type { KernelArgument } from './argument-packing.js';
export { clearCompileCache } from './compile-cache.js';
export { CompileError } from './compile-error.js';
export type { CodeType } from './image-checks.js';
export { Kernel, type KernelAttributes, type KernelOccupancy } from './kernel.js';
export { launch } from './launch.js';
export { type DimensionsArgument, LaunchConfig, type LaunchConfigOptions } from './launch-config.js';
export { ObjectCode } from './object-code.js';
export { type CompileOptions, Program, type ProgramOptions } from './program.js';
export {
  bool,
  float32,
  float64,
  int32,
  int64,
  isKernelScalar,
  type KernelScalar,
  type ScalarKind,
  uint32,
  uint64,
} from './scalar-arguments.js';
