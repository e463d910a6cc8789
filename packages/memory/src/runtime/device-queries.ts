import { type Device, DeviceAttribute, type Driver } from '@cumem/core-types';
import { checkDeviceKind, deviceOrdinal } from './device-arguments.js';
import { activeRuntime, runtimeState } from './driver-runtime.js';
import { perRuntimeState } from './per-runtime-state.js';

/** What {@link deviceProperties} reports. Attributes a driver does not know read as their "no" value. */
export interface DeviceProperties {
  /** Device name, as the driver reports it (`cuDeviceGetName`). */
  readonly name: string;
  /** `[major, minor]`, e.g. `[9, 0]`. */
  readonly computeCapability: readonly [number, number];
  /** Device memory in bytes. */
  readonly totalMemory: number;
  /** Streaming multiprocessors. */
  readonly multiProcessorCount: number;
  /** The device and CPU can use managed memory at the same time. */
  readonly concurrentManagedAccess: boolean;
  /** The device can access pageable host memory directly. */
  readonly pageableMemoryAccess: boolean;
  /** NUMA node of the host memory nearest the device, or -1 (no NUMA, or a driver older than 12.2). */
  readonly hostNumaId: number;
  /** `'GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx'`, as nvidia-smi prints it. */
  readonly uuid: string;
  /** Stream-ordered memory pools (`DeviceMemoryResource`) work. */
  readonly memoryPoolsSupported: boolean;
  /** Managed memory works. */
  readonly managedMemory: boolean;
  /** The device shares one address space with the host. */
  readonly unifiedAddressing: boolean;
  /** Page-locked host memory can be mapped into the device. */
  readonly canMapHostMemory: boolean;
  /** PCI bus id. */
  readonly pciBusId: number;
  /** PCI device id. */
  readonly pciDeviceId: number;
  /** Bitmask of `MemHandleType`s pools can be exported as (1 = POSIX file descriptor). */
  readonly memoryPoolSupportedHandleTypes: number;
  /** Pools of host memory with a Host location work (`PinnedMemoryResource`; CUDA 13.0 drivers). */
  readonly hostMemoryPoolsSupported: boolean;
  /** Pools of host memory on a NUMA node work (CUDA 12.6 drivers and later). */
  readonly hostNumaMemoryPoolsSupported: boolean;
}

/** Number of CUDA devices the driver sees. */
export function deviceCount(): number {
  return activeRuntime().driver.deviceGetCount();
}

/** Each device's properties per runtime, queried once. */
const propertiesOf = perRuntimeState((): DeviceProperties[] => []);

/**
 * Properties of `device` (a Device or ordinal), asked once per driver and device.
 * @throws TypeError / RangeError for a bad device.
 */
export function deviceProperties(device: Device | number): DeviceProperties {
  checkDeviceKind(device);
  if (device === undefined) throw new TypeError('deviceProperties needs a device (a Device or an ordinal)');
  const runtime = activeRuntime();
  const ordinal = deviceOrdinal(runtime, device);
  const list = propertiesOf(runtime);
  let properties = list[ordinal];
  if (properties === undefined) {
    properties = queryProperties(runtime.driver, ordinal);
    list[ordinal] = properties;
  }
  return properties;
}

function queryProperties(driver: Driver, ordinal: number): DeviceProperties {
  const attribute = (id: number) => driver.deviceGetAttribute(id, ordinal);
  // Attributes newer than the running driver are invalid values to it: ask only drivers that have them.
  const version = driver.driverVersion;
  const since = (minimum: number, id: number, otherwise: number) =>
    version >= minimum ? attribute(id) : otherwise;
  return Object.freeze({
    name: driver.deviceGetName(ordinal),
    computeCapability: Object.freeze([
      attribute(DeviceAttribute.ComputeCapabilityMajor),
      attribute(DeviceAttribute.ComputeCapabilityMinor),
    ]) as readonly [number, number],
    totalMemory: driver.deviceTotalMem(ordinal),
    multiProcessorCount: attribute(DeviceAttribute.MultiprocessorCount),
    concurrentManagedAccess: attribute(DeviceAttribute.ConcurrentManagedAccess) !== 0,
    pageableMemoryAccess: attribute(DeviceAttribute.PageableMemoryAccess) !== 0,
    hostNumaId: since(12020, DeviceAttribute.HostNumaId, -1),
    uuid: formatUuid(driver.deviceGetUuid(ordinal)),
    memoryPoolsSupported: attribute(DeviceAttribute.MemoryPoolsSupported) !== 0,
    managedMemory: attribute(DeviceAttribute.ManagedMemory) !== 0,
    unifiedAddressing: attribute(DeviceAttribute.UnifiedAddressing) !== 0,
    canMapHostMemory: attribute(DeviceAttribute.CanMapHostMemory) !== 0,
    pciBusId: attribute(DeviceAttribute.PciBusId),
    pciDeviceId: attribute(DeviceAttribute.PciDeviceId),
    memoryPoolSupportedHandleTypes: attribute(DeviceAttribute.MempoolSupportedHandleTypes),
    hostMemoryPoolsSupported: since(13000, DeviceAttribute.HostMemoryPoolsSupported, 0) !== 0,
    hostNumaMemoryPoolsSupported: since(12060, DeviceAttribute.HostNumaMemoryPoolsSupported, 0) !== 0,
  });
}

function formatUuid(bytes: Uint8Array): string {
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `GPU-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Free and total memory of `device`, in bytes (`cuMemGetInfo`).
 * @param device default: the current device.
 */
export function memoryInfo(device?: Device | number): { free: number; total: number } {
  checkDeviceKind(device);
  const runtime = activeRuntime();
  const ordinal = device === undefined ? runtime.currentDevice : deviceOrdinal(runtime, device);
  runtime.makeCurrent(ordinal);
  return runtime.driver.memGetInfo();
}

/**
 * Makes `device` the current device: calls without a device (streams, pinned and managed
 * resources, `defaultStream()`) use it, and its primary context becomes current.
 */
export function setCurrentDevice(device: Device | number): void {
  checkDeviceKind(device);
  if (device === undefined) throw new TypeError('setCurrentDevice needs a device (a Device or an ordinal)');
  const runtime = activeRuntime();
  const ordinal = deviceOrdinal(runtime, device);
  // Always bound, never skipped as already current: this is how callers resync cumem after
  // native code of their own changed the thread's context (README, Notes).
  runtime.bind(ordinal);
  runtimeState(runtime).currentDevice = ordinal;
}

/**
 * Makes `device`'s primary context current on this thread (retaining it the first time),
 * WITHOUT changing the default device that {@link setCurrentDevice} picks. A cumem extension
 * (not in cuda.core): for packages that make driver calls of their own on a given device.
 * Costs one comparison when that context is already current.
 * @throws TypeError for another kind of value; RangeError for a device that does not exist.
 */
export function makeDeviceCurrent(device: Device | number): void {
  checkDeviceKind(device);
  if (device === undefined) throw new TypeError('makeDeviceCurrent needs a device (a Device or an ordinal)');
  const runtime = activeRuntime();
  runtime.makeCurrent(deviceOrdinal(runtime, device));
}
