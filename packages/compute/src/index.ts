/**
 * `@cumem/compute`: load kernels (PTX, cubin, fatbin) and launch them on cumem memory, the
 * compute half of cuda.core: `ObjectCode`, `Kernel`, `LaunchConfig`, `launch`, and typed scalar
 * arguments. Built on the driver contract and `@cumem/memory`: no addon of your own.
 * @packageDocumentation
 */

export type { CodeType } from './kernel/image-checks.js';
export { Kernel, type KernelAttributes, type KernelOccupancy } from './kernel/kernel.js';
export { ObjectCode } from './kernel/object-code.js';
export type { KernelArgument } from './launch/argument-packing.js';
export { launch } from './launch/launch.js';
export { type DimensionsArgument, LaunchConfig, type LaunchConfigOptions } from './launch/launch-config.js';
export {
  bool,
  float32,
  float64,
  int8,
  int16,
  int32,
  int64,
  isKernelScalar,
  type KernelScalar,
  type ScalarKind,
  uint8,
  uint16,
  uint32,
  uint64,
} from './launch/scalar-arguments.js';
export { clearCompileCache } from './program/compile-cache.js';
export { CompileError } from './program/compile-error.js';
export { type CompileOptions, Program, type ProgramOptions } from './program/program.js';
