// The device and kernel limits a launch is checked against before cuLaunchKernelEx, so that a
// launch the driver would refuse (or, for shared memory, one it would need an opt-in for) gets a
// RangeError naming the limit. Device limits are read once per driver and device; a kernel's once
// per CUfunction, with the last config found within them.
import {
  type Driver,
  type DriverHandle,
  FunctionAttribute,
  LaunchDeviceAttribute,
  NotSupportedError,
} from '@cumem/core-types';
import { DriverMemo } from '../driver-memo.js';
import type { LaunchConfig } from './launch-config.js';

interface DeviceLimits {
  readonly block: readonly number[];
  readonly grid: readonly number[];
  readonly threads: number;
  readonly sharedOptIn: number;
  readonly clusters: boolean;
}
interface FunctionLimits {
  readonly threads: number;
  readonly staticShared: number;
  dynamicShared: number;
  /** The config last found within the limits: a repeat launch skips the checks. */
  passed: LaunchConfig | null;
}

/** The most blocks a cluster may have everywhere clusters exist (the "portable" size). */
const portableClusterBlocks = 8;

const deviceLimits = new DriverMemo<number, DeviceLimits>((driver, ordinal) => {
  const get = (attribute: number) => driver.deviceGetAttribute(attribute, ordinal);
  const A = LaunchDeviceAttribute;
  return {
    block: [get(A.MaxBlockDimX), get(A.MaxBlockDimY), get(A.MaxBlockDimZ)],
    grid: [get(A.MaxGridDimX), get(A.MaxGridDimY), get(A.MaxGridDimZ)],
    threads: get(A.MaxThreadsPerBlock),
    sharedOptIn: get(A.MaxSharedMemoryPerBlockOptin),
    clusters: get(A.ClusterLaunch) === 1,
  };
});

const functionLimits = new DriverMemo<DriverHandle, FunctionLimits>((driver, fn) => ({
  threads: driver.funcGetAttribute(FunctionAttribute.MaxThreadsPerBlock, fn),
  staticShared: driver.funcGetAttribute(FunctionAttribute.SharedSizeBytes, fn),
  dynamicShared: driver.funcGetAttribute(FunctionAttribute.MaxDynamicSharedSizeBytes, fn),
  passed: null,
}));

/**
 * Checks `config` against device `ordinal` and the kernel's function there, raising the
 * function's dynamic shared memory limit when the launch asks for more than it allows now but
 * no more than the device's opt-in limit (what a CUDA C++ program does with cudaFuncSetAttribute).
 * @throws RangeError naming the exceeded limit; NotSupportedError for clusters on a device without them.
 */
export function checkLaunchLimits(
  driver: Driver,
  ordinal: number,
  fn: DriverHandle,
  kernelName: string,
  config: LaunchConfig,
): void {
  const kernel = functionLimits.get(driver, fn);
  // The config and the CUfunction are immutable and the CUfunction belongs to one device: a
  // repeat of the last launch found within the limits needs no second look.
  if (kernel.passed === config) return;
  const device = deviceLimits.get(driver, ordinal);
  const { grid, block, cluster, sharedMemBytes } = config;
  for (let axis = 0; axis < 3; axis++) {
    const name = 'xyz'[axis];
    if ((block[axis] as number) > (device.block[axis] as number)) {
      throw new RangeError(
        `block.${name} ${block[axis]} is over device ${ordinal}'s limit of ${device.block[axis]}`,
      );
    }
    if ((grid[axis] as number) > (device.grid[axis] as number)) {
      throw new RangeError(
        `grid.${name} ${grid[axis]} is over device ${ordinal}'s limit of ${device.grid[axis]}`,
      );
    }
  }
  const threads = block[0] * block[1] * block[2];
  const most = Math.min(device.threads, kernel.threads);
  if (threads > most) {
    throw new RangeError(
      `a block of ${threads} threads is over ${kernelName}'s limit of ${most} on device ${ordinal}`,
    );
  }
  if (cluster !== null) {
    if (!device.clusters)
      throw new NotSupportedError(`device ${ordinal} cannot launch thread-block clusters`);
    const blocks = cluster[0] * cluster[1] * cluster[2];
    if (blocks > portableClusterBlocks) {
      throw new RangeError(
        `a cluster of ${blocks} blocks is over the portable limit of ${portableClusterBlocks}`,
      );
    }
  }
  if (sharedMemBytes > kernel.dynamicShared) {
    const available = device.sharedOptIn - kernel.staticShared;
    if (sharedMemBytes > available) {
      throw new RangeError(
        `sharedMemBytes ${sharedMemBytes} is over what ${kernelName} can have on device ${ordinal} (${available} bytes)`,
      );
    }
    driver.funcSetAttribute(FunctionAttribute.MaxDynamicSharedSizeBytes, fn, sharedMemBytes);
    kernel.dynamicShared = sharedMemBytes;
  }
  kernel.passed = config;
}
