// The numeric values the contract passes through unchanged, copied from cuda.h (CUDA 13.0).
// Only the subset that cumem uses is declared, so core-types never depends on a native package.

/** `CUdevice_attribute` values used by cumem. */
export const DeviceAttribute = {
  MultiprocessorCount: 16,
  CanMapHostMemory: 19,
  PciBusId: 33,
  PciDeviceId: 34,
  UnifiedAddressing: 41,
  ComputeCapabilityMajor: 75,
  ComputeCapabilityMinor: 76,
  ManagedMemory: 83,
  PageableMemoryAccess: 88,
  ConcurrentManagedAccess: 89,
  MemoryPoolsSupported: 115,
  MempoolSupportedHandleTypes: 119,
  NumaConfig: 130,
  HostNumaId: 134,
  HostNumaMemoryPoolsSupported: 142,
  HostMemoryPoolsSupported: 144,
} as const;
export type DeviceAttribute = (typeof DeviceAttribute)[keyof typeof DeviceAttribute];

/** `CUdevice_P2PAttribute`: properties of the link from one device to another. */
export const P2PAttribute = {
  /** A relative value: the lower, the faster the link. */
  PerformanceRank: 1,
  /** 1 when peer access is possible. */
  AccessSupported: 2,
  /** 1 when every CUDA atomic works natively over the link. */
  NativeAtomicSupported: 3,
  /** 1 when CUDA arrays can be accessed over the link. */
  CudaArrayAccessSupported: 4,
  /** 1 when only some atomics work natively over the link (CUDA 13). */
  OnlyPartialNativeAtomicSupported: 5,
} as const;
export type P2PAttribute = (typeof P2PAttribute)[keyof typeof P2PAttribute];

/** `CUmemLocationType`. */
export const MemLocationType = {
  Invalid: 0,
  Device: 1,
  Host: 2,
  HostNuma: 3,
  HostNumaCurrent: 4,
} as const;
export type MemLocationType = (typeof MemLocationType)[keyof typeof MemLocationType];

/** `CUmemLocation`: where memory is, or is advised / prefetched to. `id` is a device ordinal or a NUMA node id. */
export interface MemLocation {
  readonly type: MemLocationType;
  readonly id: number;
}

/** `CUmem_advise`. */
export const MemAdvise = {
  SetReadMostly: 1,
  UnsetReadMostly: 2,
  SetPreferredLocation: 3,
  UnsetPreferredLocation: 4,
  SetAccessedBy: 5,
  UnsetAccessedBy: 6,
} as const;
export type MemAdvise = (typeof MemAdvise)[keyof typeof MemAdvise];

/** `CUmem_range_attribute` values with a 4-byte integer result (ACCESSED_BY has its own method). */
export const MemRangeAttribute = {
  ReadMostly: 1,
  PreferredLocation: 2,
  LastPrefetchLocation: 4,
  PreferredLocationType: 5,
  PreferredLocationId: 6,
  LastPrefetchLocationType: 7,
  LastPrefetchLocationId: 8,
} as const;
export type MemRangeAttribute = (typeof MemRangeAttribute)[keyof typeof MemRangeAttribute];

/** Device ids the driver uses in range attributes: the CPU, and "no device". */
export const CU_DEVICE_CPU = -1;
export const CU_DEVICE_INVALID = -2;

/** `CUpointer_attribute` values whose result fits a number. */
export const PointerAttribute = {
  MemoryType: 2,
  IsManaged: 8,
  DeviceOrdinal: 9,
  IsLegacyCudaIpcCapable: 10,
  RangeSize: 12,
  Mapped: 13,
  AllowedHandleTypes: 14,
  AccessFlags: 16,
} as const;
export type PointerAttribute = (typeof PointerAttribute)[keyof typeof PointerAttribute];

/** `CUpointer_attribute` values whose result is an address or handle (bigint). */
export const PointerHandleAttribute = {
  Context: 1,
  DevicePointer: 3,
  HostPointer: 4,
  RangeStartAddress: 11,
  MempoolHandle: 17,
} as const;
export type PointerHandleAttribute = (typeof PointerHandleAttribute)[keyof typeof PointerHandleAttribute];

/** `CUmemorytype`. */
export const MemoryType = { Host: 1, Device: 2, Array: 3, Unified: 4 } as const;
export type MemoryType = (typeof MemoryType)[keyof typeof MemoryType];

/** `CUmemPool_attribute`. Reuse attributes are 0/1 integers; the others are byte counts. */
export const MemPoolAttribute = {
  ReuseFollowEventDependencies: 1,
  ReuseAllowOpportunistic: 2,
  ReuseAllowInternalDependencies: 3,
  ReleaseThreshold: 4,
  ReservedMemCurrent: 5,
  ReservedMemHigh: 6,
  UsedMemCurrent: 7,
  UsedMemHigh: 8,
} as const;
export type MemPoolAttribute = (typeof MemPoolAttribute)[keyof typeof MemPoolAttribute];

/** `CUmemAllocationType`. Managed pools need a CUDA 13 driver. */
export const MemAllocationType = { Pinned: 1, Managed: 2 } as const;
export type MemAllocationType = (typeof MemAllocationType)[keyof typeof MemAllocationType];

/** `CUmemAllocationHandleType` (Linux subset). */
export const MemHandleType = { None: 0, PosixFileDescriptor: 1 } as const;
export type MemHandleType = (typeof MemHandleType)[keyof typeof MemHandleType];

/** `CUmemAccess_flags`. */
export const MemAccessFlags = { None: 0, Read: 1, ReadWrite: 3 } as const;
export type MemAccessFlags = (typeof MemAccessFlags)[keyof typeof MemAccessFlags];

/** `cuMemHostAlloc` flags. */
export const MemHostAllocFlags = { Portable: 1, DeviceMap: 2, WriteCombined: 4 } as const;

/** `cuMemHostRegister` flags. */
export const MemHostRegisterFlags = { Portable: 1, DeviceMap: 2, IoMemory: 4, ReadOnly: 8 } as const;

/** `cuMemAllocManaged` flags. */
export const MemAttachFlags = { Global: 1, Host: 2, Single: 4 } as const;

/** `cuStreamCreate` flags. */
export const StreamFlags = { Default: 0, NonBlocking: 1 } as const;

/** `cuEventCreate` flags. */
export const EventFlags = { Default: 0, BlockingSync: 1, DisableTiming: 2, Interprocess: 4 } as const;

/** `cuIpcOpenMemHandle` flags. */
export const IpcMemFlags = { LazyEnablePeerAccess: 1 } as const;

/** Byte sizes of the opaque IPC records. */
export const IPC_HANDLE_SIZE = 64;
export const POOL_POINTER_EXPORT_SIZE = 64;
