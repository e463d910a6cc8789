import { DeviceAttribute, LaunchDeviceAttribute, VirtualMemoryDeviceAttribute } from '@cumem/core-types';

/** `CU_DEVICE_ATTRIBUTE_MAX` in CUDA 13.0: attributes at or above it are invalid values. */
export const deviceAttributeLimit = 148;

/** Every fake device has this name, as all GPUs of one model share theirs. */
export const referenceDeviceName = 'cumem reference device';

/** The NUMA node the reference host has (one node), reported as HostNumaId. */
export const referenceHostNumaId = 0;

// Values of a compute capability 9.0 device: the attributes cumem branches on say "everything supported"
// except interprocess handle types, which the reference driver cannot emulate.
const attributes = new Map<number, (ordinal: number) => number>([
  [DeviceAttribute.MultiprocessorCount, () => 132],
  [DeviceAttribute.CanMapHostMemory, () => 1],
  [DeviceAttribute.PciBusId, (ordinal) => 0x18 + ordinal],
  [DeviceAttribute.PciDeviceId, () => 0],
  [DeviceAttribute.UnifiedAddressing, () => 1],
  [DeviceAttribute.ComputeCapabilityMajor, () => 9],
  [DeviceAttribute.ComputeCapabilityMinor, () => 0],
  [DeviceAttribute.ManagedMemory, () => 1],
  [DeviceAttribute.PageableMemoryAccess, () => 0],
  [DeviceAttribute.ConcurrentManagedAccess, () => 1],
  [DeviceAttribute.MemoryPoolsSupported, () => 1],
  [DeviceAttribute.MempoolSupportedHandleTypes, () => 0],
  [DeviceAttribute.NumaConfig, () => 0],
  [DeviceAttribute.HostNumaId, () => referenceHostNumaId],
  [DeviceAttribute.HostNumaMemoryPoolsSupported, () => 1],
  [DeviceAttribute.HostMemoryPoolsSupported, () => 1],
  // Launch limits of compute capability 9.0.
  [LaunchDeviceAttribute.MaxThreadsPerBlock, () => 1024],
  [LaunchDeviceAttribute.MaxBlockDimX, () => 1024],
  [LaunchDeviceAttribute.MaxBlockDimY, () => 1024],
  [LaunchDeviceAttribute.MaxBlockDimZ, () => 64],
  [LaunchDeviceAttribute.MaxGridDimX, () => 2147483647],
  [LaunchDeviceAttribute.MaxGridDimY, () => 65535],
  [LaunchDeviceAttribute.MaxGridDimZ, () => 65535],
  [LaunchDeviceAttribute.MaxSharedMemoryPerBlock, () => 49152],
  [LaunchDeviceAttribute.MaxSharedMemoryPerBlockOptin, () => 232448],
  [LaunchDeviceAttribute.ClusterLaunch, () => 1],
  // VMM: supported; no POSIX-fd export (no other process to share with) and no GPUDirect RDMA.
  [VirtualMemoryDeviceAttribute.VirtualMemoryManagementSupported, () => 1],
]);

/** The value of `attribute` for device `ordinal`; 0 for valid attributes the reference does not model. */
export function deviceAttribute(attribute: number, ordinal: number): number {
  return attributes.get(attribute)?.(ordinal) ?? 0;
}

/** A stable, distinct 16-byte UUID per device, shaped like a random (version 4) UUID. */
export function deviceUuid(ordinal: number): Uint8Array {
  const uuid = new Uint8Array(16);
  for (let index = 0; index < 16; index++) uuid[index] = (0x5c + index * 37 + ordinal * 101) & 0xff;
  uuid[6] = ((uuid[6] as number) & 0x0f) | 0x40;
  uuid[8] = ((uuid[8] as number) & 0x3f) | 0x80;
  return uuid;
}
