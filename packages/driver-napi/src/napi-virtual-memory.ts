// The virtual memory members over the addon (native/binding-virtual-memory.cc): properties and
// locations cross into C++ as integers, access descriptors as packed (type, id, flags) triples.
import {
  checkInt32,
  type DevicePointer,
  type DriverHandle,
  type DriverVirtualMemory,
  type MemAccessDescriptor,
  type MemAllocationProperties,
} from '@cumem/core-types';

/** The addon's VMM functions. @internal */
export interface NativeVirtualMemoryBinding
  extends Pick<
    DriverVirtualMemory,
    | 'memAddressReserve'
    | 'memAddressFree'
    | 'memRelease'
    | 'memMap'
    | 'memUnmap'
    | 'memExportToFileDescriptor'
    | 'memImportFromFileDescriptor'
    | 'memGetAllocationPropertiesFromHandle'
  > {
  memGetAllocationGranularity(...args: [...AllocationPropArguments, option: number]): number;
  memCreate(size: number, ...properties: AllocationPropArguments): DriverHandle;
  memSetAccess(pointer: DevicePointer, size: number, packed: Int32Array): void;
  memGetAccess(pointer: DevicePointer, locationType: number, locationId: number): number;
}

/** `CUmemAllocationProp` as six integers. */
type AllocationPropArguments = [
  allocationType: number,
  requestedHandleTypes: number,
  locationType: number,
  locationId: number,
  gpuDirectRdmaCapable: number,
  usage: number,
];

function propArguments(p: MemAllocationProperties): AllocationPropArguments {
  return [
    p.allocationType,
    p.requestedHandleTypes,
    p.location.type,
    p.location.id,
    p.gpuDirectRdmaCapable ? 1 : 0,
    p.usage,
  ];
}

/** `CUmemAccessDesc`s as (type, id, flags) triples, the form the addon reads. */
export function packAccessDescriptors(descriptors: readonly MemAccessDescriptor[]): Int32Array {
  const packed = new Int32Array(descriptors.length * 3);
  // Each a C int, checked as the addon's ReadInt would (an Int32Array coerces 1.5 to 1 and NaN to 0).
  descriptors.forEach(({ location, flags }, i) => {
    packed[3 * i] = checkInt32(location.type, 'location.type');
    packed[3 * i + 1] = checkInt32(location.id, 'location.id');
    packed[3 * i + 2] = checkInt32(flags, 'flags');
  });
  return packed;
}

/** The Driver's VMM members over binding `b`. @internal */
export function virtualMemoryMembers(b: NativeVirtualMemoryBinding): DriverVirtualMemory {
  return {
    memGetAllocationGranularity: (properties, option) =>
      b.memGetAllocationGranularity(...propArguments(properties), option),
    memAddressReserve: b.memAddressReserve,
    memAddressFree: b.memAddressFree,
    memCreate: (size, properties) => b.memCreate(size, ...propArguments(properties)),
    memRelease: b.memRelease,
    memMap: b.memMap,
    memUnmap: b.memUnmap,
    memSetAccess: (pointer, size, descriptors) => {
      if (descriptors.length !== 0) b.memSetAccess(pointer, size, packAccessDescriptors(descriptors));
    },
    memGetAccess: (pointer, location) => b.memGetAccess(pointer, location.type, location.id),
    memExportToFileDescriptor: b.memExportToFileDescriptor,
    memImportFromFileDescriptor: b.memImportFromFileDescriptor,
    memGetAllocationPropertiesFromHandle: b.memGetAllocationPropertiesFromHandle,
  };
}
