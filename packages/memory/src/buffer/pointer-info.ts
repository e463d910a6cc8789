// How memory a buffer wraps without a resource (Buffer.fromHandle) is accessible: asked of the
// driver's pointer attributes once per buffer (buffer-state.ts).
import { CudaError, MemoryType, PointerAttribute } from '@cumem/core-types';
import type { DriverRuntime } from '../runtime/driver-runtime.js';
import { type MemoryFacts, pageableMemoryFacts, pageLockedMemoryFacts } from './memory-facts.js';

/** What the driver says of the memory at `pointer`. */
export function queryPointer(runtime: DriverRuntime, pointer: bigint): MemoryFacts {
  const driver = runtime.driver;
  let memoryType: number;
  try {
    memoryType = driver.pointerGetAttribute(pointer, PointerAttribute.MemoryType);
  } catch (error) {
    // The driver answers CUDA_ERROR_INVALID_VALUE for memory it never saw: ordinary pageable
    // host memory, which only the CPU can touch (cuda.core reads it the same way).
    if (CudaError.isInstance(error) && error.codeName === 'CUDA_ERROR_INVALID_VALUE')
      return pageableMemoryFacts;
    throw error;
  }
  const isManaged = driver.pointerGetAttribute(pointer, PointerAttribute.IsManaged) !== 0;
  if (memoryType === MemoryType.Host && !isManaged) return pageLockedMemoryFacts;
  const deviceId = driver.pointerGetAttribute(pointer, PointerAttribute.DeviceOrdinal);
  return { deviceId, isDeviceAccessible: true, isHostAccessible: isManaged, isManaged };
}
