// VirtualMemoryResource's options (cuda.core's VirtualMemoryResourceOptions in camelCase, plus
// reserveSize) and their checks: every refusal happens here, before the resource makes any
// driver call that allocates.
import {
  checkAddress,
  checkBoolean,
  checkOptions,
  checkSize,
  type Device,
  describeValue,
  MemAccessFlags,
  MemAllocationGranularity,
  type MemAllocationProperties,
  MemAllocationType,
  MemHandleType,
  MemLocationType,
  NotSupportedError,
  VirtualMemoryDeviceAttribute,
} from '@cumem/core-types';
import type { Buffer } from '../../buffer/buffer.js';
import type { DriverRuntime } from '../../runtime/driver-runtime.js';
import { checkPeerDevices } from '../peer-access-view.js';

/** Access a device gets to a VMM buffer (`CUmemAccess_flags`). */
export type VirtualMemoryAccess = 'readWrite' | 'read';

/** Options of {@link VirtualMemoryResource}; every member optional. */
export interface VirtualMemoryResourceOptions {
  /** `'pinned'` (default; the only kind cumem supports; cuda.core's `'managed'` is refused). */
  readonly allocationType?: 'pinned' | 'managed';
  /** `'device'` (default). Host locations (`'host'`, `'hostNuma'`, `'hostNumaCurrent'`) are refused in this version. */
  readonly locationType?: 'device' | 'host' | 'hostNuma' | 'hostNumaCurrent';
  /**
   * How the physical chunks can be shared with other processes: `'none'` (default; cuda.core's
   * default is `'posixFd'`) or `'posixFd'` (Linux). `'win32'`, `'win32Kmt'` and `'fabric'` are
   * refused (NotSupportedError): cumem runs on Linux and does not export fabric handles.
   */
  readonly handleType?: 'none' | 'posixFd' | 'win32' | 'win32Kmt' | 'fabric';
  /** Which granularity sizes round up to: `'recommended'` (default) or `'minimum'`. */
  readonly granularity?: 'recommended' | 'minimum';
  /** Ask for GPUDirect RDMA capable chunks. Default false; refused where the device cannot. */
  readonly gpuDirectRdma?: boolean;
  /** Address to try to reserve at (the driver may pick another). Default 0 (the driver chooses). */
  readonly addressHint?: bigint | number;
  /** Alignment of reserved ranges, a power of two multiple of the granularity. Default: the granularity. */
  readonly addressAlignment?: number;
  /** Devices (other than the owner) given access to every allocation. Default none. */
  readonly peers?: Iterable<Device | number>;
  /** The owner's access. Default `'readWrite'`. */
  readonly selfAccess?: VirtualMemoryAccess;
  /** The peers' access. Default `'readWrite'`. */
  readonly peerAccess?: VirtualMemoryAccess;
  /** NUMA node of a host NUMA location; host locations are refused in this version, so this must be omitted. */
  readonly numaId?: number;
  /**
   * Bytes of address space each allocation reserves (rounded up to the granularity; at least the
   * allocation's size). `modifyAllocation` grows in place, keeping `buffer.handle`, up to it.
   * Address space is not memory: reserving far ahead is cheap. Default 0: just the allocation.
   */
  readonly reserveSize?: number;
}

/** The checked settings (not exported from the package). */
export interface VirtualMemorySettings {
  readonly properties: MemAllocationProperties;
  readonly granularity: number;
  readonly alignment: number;
  readonly addressHint: bigint;
  readonly reserveSize: number;
  readonly selfFlags: number;
  readonly peerFlags: number;
  readonly peers: ReadonlySet<number>;
}

const accessFlags = { readWrite: MemAccessFlags.ReadWrite, read: MemAccessFlags.Read } as const;

function pick<K extends string>(value: unknown, allowed: readonly K[], fallback: K, name: string): K {
  if (value === undefined) return fallback;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as K;
  throw new TypeError(
    `${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${describeValue(value)}`,
  );
}

/** `value` rounded up to a multiple of `granularity` (a power of two). */
export function roundUp(value: number, granularity: number): number {
  return Math.ceil(value / granularity) * granularity;
}

/**
 * `size` rounded up to `granularity`, for an allocation of device `ordinal` (`deviceMemory` bytes).
 * @throws TypeError / RangeError for a size that is not a positive safe integer or rounds up to
 *   more than the device has.
 */
export function checkVirtualSize(
  size: number,
  name: string,
  granularity: number,
  ordinal: number,
  deviceMemory: number,
): number {
  checkSize(size, name);
  if (size === 0) throw new RangeError(`${name} must be at least 1 byte (VMM maps whole granules)`);
  const aligned = roundUp(size, granularity);
  if (aligned > deviceMemory) {
    throw new RangeError(
      `${name} ${size} rounds up to ${aligned} bytes, more than device ${ordinal} has (${deviceMemory})`,
    );
  }
  return aligned;
}

/**
 * Checks `options` for device `ordinal` (the runtime's device count already checked it).
 * @throws TypeError / RangeError for a bad value; NotSupportedError for what the platform,
 *   driver or device cannot do.
 */
export function checkVirtualMemoryOptions(
  runtime: DriverRuntime,
  ordinal: number,
  options: VirtualMemoryResourceOptions | undefined,
): VirtualMemorySettings {
  const o = checkOptions(options, 'VirtualMemoryResource options');
  const allocationType = pick(o.allocationType, ['pinned', 'managed'], 'pinned', 'allocationType');
  const locationType = pick(
    o.locationType,
    ['device', 'host', 'hostNuma', 'hostNumaCurrent'],
    'device',
    'locationType',
  );
  const handleType = pick(
    o.handleType,
    ['none', 'posixFd', 'win32', 'win32Kmt', 'fabric'],
    'none',
    'handleType',
  );
  const granularityKind = pick(o.granularity, ['recommended', 'minimum'], 'recommended', 'granularity');
  const gpuDirectRdma =
    o.gpuDirectRdma === undefined ? false : checkBoolean(o.gpuDirectRdma, 'gpuDirectRdma');
  const addressHint = o.addressHint === undefined ? 0n : checkAddress(o.addressHint, 'addressHint');
  const selfFlags = accessFlags[pick(o.selfAccess, ['readWrite', 'read'], 'readWrite', 'selfAccess')];
  const peerFlags = accessFlags[pick(o.peerAccess, ['readWrite', 'read'], 'readWrite', 'peerAccess')];
  const reserveSize = o.reserveSize === undefined ? 0 : checkSize(o.reserveSize, 'reserveSize');
  if (o.addressAlignment !== undefined) {
    const alignment = checkSize(o.addressAlignment, 'addressAlignment');
    if (alignment === 0 || (alignment & (alignment - 1)) !== 0 || alignment > 2 ** 30 * 1024)
      throw new RangeError(`addressAlignment must be a power of two, got ${alignment}`);
  }
  if (o.numaId !== undefined) {
    checkSize(o.numaId, 'numaId');
    throw new NotSupportedError(
      "numaId applies to locationType 'hostNuma', which VirtualMemoryResource does not support yet",
    );
  }
  if (allocationType === 'managed')
    throw new NotSupportedError(
      "VirtualMemoryResource supports allocationType 'pinned' only (managed VMM chunks are not supported)",
    );
  if (locationType !== 'device')
    throw new NotSupportedError(
      `VirtualMemoryResource supports locationType 'device' only, got '${locationType}'`,
    );
  if (handleType === 'win32' || handleType === 'win32Kmt' || handleType === 'fabric')
    throw new NotSupportedError(
      `handleType '${handleType}' is not available on Linux / in cumem: use 'posixFd' or 'none'`,
    );
  const driver = runtime.driver;
  const attribute = (id: number) => driver.deviceGetAttribute(id, ordinal);
  if (attribute(VirtualMemoryDeviceAttribute.VirtualMemoryManagementSupported) === 0)
    throw new NotSupportedError(
      `device ${ordinal} does not support virtual memory management (cuMemCreate / cuMemMap)`,
    );
  if (handleType === 'posixFd') {
    if (!driver.capabilities.interprocess)
      throw new NotSupportedError(
        "handleType 'posixFd' needs interprocess sharing, which this driver does not have",
      );
    if (attribute(VirtualMemoryDeviceAttribute.HandleTypePosixFileDescriptorSupported) === 0)
      throw new NotSupportedError(`device ${ordinal} cannot export VMM memory as POSIX file descriptors`);
  }
  if (gpuDirectRdma && attribute(VirtualMemoryDeviceAttribute.GpuDirectRdmaWithCudaVmmSupported) === 0)
    throw new NotSupportedError(`device ${ordinal} does not support GPUDirect RDMA with VMM memory`);
  const peers = checkPeerDevices(
    { runtime, pool: 0n, deviceId: ordinal, checkPeerAccessOpen: () => {} },
    o.peers === undefined ? [] : o.peers,
    'peers',
  );
  const properties: MemAllocationProperties = {
    allocationType: MemAllocationType.Pinned,
    requestedHandleTypes: handleType === 'posixFd' ? MemHandleType.PosixFileDescriptor : MemHandleType.None,
    location: { type: MemLocationType.Device, id: ordinal },
    gpuDirectRdmaCapable: gpuDirectRdma,
    usage: 0,
  };
  runtime.makeCurrent(ordinal);
  const granularity = driver.memGetAllocationGranularity(
    properties,
    granularityKind === 'minimum' ? MemAllocationGranularity.Minimum : MemAllocationGranularity.Recommended,
  );
  const alignment = o.addressAlignment ?? granularity;
  if (alignment % granularity !== 0)
    throw new RangeError(
      `addressAlignment ${alignment} must be a multiple of the granularity (${granularity} bytes)`,
    );
  if (addressHint % BigInt(alignment) !== 0n)
    throw new RangeError(
      `addressHint 0x${addressHint.toString(16)} must be a multiple of the alignment (${alignment} bytes)`,
    );
  return {
    properties,
    granularity,
    alignment,
    addressHint,
    reserveSize: roundUp(reserveSize, granularity),
    selfFlags,
    peerFlags,
    peers,
  };
}

/** What `VirtualMemoryResource.modifyAllocation` did. */
export interface ModifyAllocationResult {
  /** The buffer now: the one passed in unless `moved`; then a new Buffer, and the old one is closed. */
  readonly buffer: Buffer;
  /**
   * True when the reserved range could not grow in place: the physical chunks were mapped at a
   * new address range (no bytes copied), and the old buffer and its slices are closed.
   */
  readonly moved: boolean;
}
