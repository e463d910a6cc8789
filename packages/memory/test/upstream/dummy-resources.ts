// cuda.core's tests' own resources (its helpers' `DummyDeviceMemoryResource`, `_SharedStub`):
// a program's MemoryResource subclass handing out device memory it allocates with the driver.
import { Buffer, currentDriver, MemoryResource } from '../../src/index.js';

/** A user resource of device 0's plain device memory (cuMemAlloc / cuMemFree). */
export class DummyDeviceMemoryResource extends MemoryResource {
  allocate(size: number): Buffer {
    return Buffer.fromHandle(currentDriver().memAlloc(size), size, { mr: this });
  }
  deallocate(pointer: bigint | number): void {
    currentDriver().memFree(BigInt(pointer));
  }
  get isDeviceAccessible(): boolean {
    return true;
  }
  get isHostAccessible(): boolean {
    return false;
  }
  get deviceId(): number {
    return 0;
  }
}
