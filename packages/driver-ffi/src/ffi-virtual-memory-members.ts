// The Driver's virtual memory members over koffi: one-line forwards to ffi-virtual-memory.ts
// with the loaded state. FfiDriver extends this class (it keeps ffi-driver.ts small).

import type { DriverVirtualMemory } from '@cumem/core-types';
import { FfiDeviceMembers, load, loaded } from './ffi-device-members.js';
import * as vmm from './ffi-virtual-memory.js';

type Vmm = DriverVirtualMemory;

/** Device members plus the virtual memory members. */
export class FfiVirtualMemoryMembers extends FfiDeviceMembers implements DriverVirtualMemory {
  readonly memGetAllocationGranularity: Vmm['memGetAllocationGranularity'] = (...a) =>
    vmm.memGetAllocationGranularity(this[loaded] ?? this[load](), ...a);
  readonly memAddressReserve: Vmm['memAddressReserve'] = (...a) =>
    vmm.memAddressReserve(this[loaded] ?? this[load](), ...a);
  readonly memAddressFree: Vmm['memAddressFree'] = (...a) =>
    vmm.memAddressFree(this[loaded] ?? this[load](), ...a);
  readonly memCreate: Vmm['memCreate'] = (...a) => vmm.memCreate(this[loaded] ?? this[load](), ...a);
  readonly memRelease: Vmm['memRelease'] = (...a) => vmm.memRelease(this[loaded] ?? this[load](), ...a);
  readonly memMap: Vmm['memMap'] = (...a) => vmm.memMap(this[loaded] ?? this[load](), ...a);
  readonly memUnmap: Vmm['memUnmap'] = (...a) => vmm.memUnmap(this[loaded] ?? this[load](), ...a);
  readonly memSetAccess: Vmm['memSetAccess'] = (...a) => vmm.memSetAccess(this[loaded] ?? this[load](), ...a);
  readonly memGetAccess: Vmm['memGetAccess'] = (...a) => vmm.memGetAccess(this[loaded] ?? this[load](), ...a);
  readonly memExportToFileDescriptor: Vmm['memExportToFileDescriptor'] = (...a) =>
    vmm.memExportToFileDescriptor(this[loaded] ?? this[load](), ...a);
  readonly memImportFromFileDescriptor: Vmm['memImportFromFileDescriptor'] = (...a) =>
    vmm.memImportFromFileDescriptor(this[loaded] ?? this[load](), ...a);
  readonly memGetAllocationPropertiesFromHandle: Vmm['memGetAllocationPropertiesFromHandle'] = (...a) =>
    vmm.memGetAllocationPropertiesFromHandle(this[loaded] ?? this[load](), ...a);
}
