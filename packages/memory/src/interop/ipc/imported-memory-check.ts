// Checks of memory an imported IPC pool opened, before any Buffer is handed out. The size in a
// descriptor and the pool behind an allocation handle both come from another process: a size
// past the allocation would let copies run off its end, and a device pool imported as a pinned
// one would make hostView() read device memory from the CPU. The driver cannot describe an
// imported pool (no call returns a pool's location), so the pointer itself is checked.
import {
  CudaError,
  type Driver,
  MemoryType,
  PointerAttribute,
  PointerHandleAttribute,
} from '@cumem/core-types';
import { rangeOverrun } from '../../buffer/pointer-range.js';

/** What the importing resource promises about its buffers. */
export interface ImportingResource {
  readonly isHostAccessible: boolean;
  readonly deviceId: number;
  readonly constructor: { readonly name: string };
}

// The errors below that say the pool is of another kind (or device): the importing resource keeps
// refusing every later use after one of them (pool-memory-resource.ts).
const wrongKindErrors = new WeakSet<Error>();

/** True for an error of {@link importedMemoryError} that says the imported pool is of another kind or device. */
export function isWrongPoolKind(error: unknown): error is TypeError {
  return error instanceof TypeError && wrongKindErrors.has(error);
}

function wrongKind(message: string): TypeError {
  const error = new TypeError(message);
  wrongKindErrors.add(error);
  return error;
}

/** The error refusing `size` bytes imported at `pointer` through `resource`, or undefined when they are fine. */
export function importedMemoryError(
  driver: Driver,
  pointer: bigint,
  size: number,
  resource: ImportingResource,
): Error | undefined {
  const name = resource.constructor.name;
  const overrun = rangeOverrun(driver, pointer, size, 'Buffer.fromIpcDescriptor: the descriptor');
  if (overrun !== undefined) return overrun;
  const managed = driver.pointerGetAttribute(pointer, PointerAttribute.IsManaged) !== 0;
  const deviceType =
    !managed && driver.pointerGetAttribute(pointer, PointerAttribute.MemoryType) === MemoryType.Device;
  if (resource.isHostAccessible) {
    // The unsafe direction (hostView would read device memory from the CPU): refused when the
    // memory is device memory with no host pointer. Asking for the host pointer too keeps host
    // memory accepted whichever memory type a driver reports for an imported host pool's.
    if (!managed && !(deviceType && !hasHostPointer(driver, pointer))) return undefined;
    return wrongKind(
      `the pool imported as ${name} hands out memory the host cannot access: it is another kind of ` +
        "pool (a device pool's handle needs DeviceMemoryResource.fromAllocationHandle)",
    );
  }
  if (!deviceType) {
    return wrongKind(
      `the pool imported as ${name} hands out host-accessible memory: it is another kind of pool ` +
        "(a pinned pool's handle needs PinnedMemoryResource.fromAllocationHandle)",
    );
  }
  const ordinal = driver.pointerGetAttribute(pointer, PointerAttribute.DeviceOrdinal);
  if (ordinal !== resource.deviceId) {
    return wrongKind(
      `the pool imported as ${name} on device ${resource.deviceId} holds memory of device ${ordinal}: ` +
        `import it with fromAllocationHandle(${ordinal}, handle)`,
    );
  }
  return undefined;
}

// cuda.h: memory with no host pointer through which the host may access it answers
// CUDA_ERROR_INVALID_VALUE for CU_POINTER_ATTRIBUTE_HOST_POINTER.
function hasHostPointer(driver: Driver, pointer: bigint): boolean {
  try {
    driver.pointerGetHandleAttribute(pointer, PointerHandleAttribute.HostPointer);
    return true;
  } catch (error) {
    if (CudaError.isInstance(error) && error.codeName === 'CUDA_ERROR_INVALID_VALUE') return false;
    throw error;
  }
}
