// The reference driver's native exchange (DLPack): "native memory" is its page-locked and
// managed allocations and JS memory it gave an address (addressOf); "native functions" are its
// release function and JS functions a test registers with referenceNativeFunction.
import type { DevicePointer } from '@cumem/core-types';
import { referenceDriverVersion } from './reference-capabilities.js';
import { ReferenceVirtualMemory } from './reference-virtual-memory.js';

// Plausible code addresses, apart from every data address the reference hands out.
const releaseFunction = 0x5555_0000_1000n;
let nextFunction = 0x5555_0000_2000n;
const registered = new Map<bigint, (arg: bigint) => void>();

/**
 * Test helper: a "native function" of the reference driver that runs `body(arg)` when the
 * driver's `callNativeFunction` calls its address (e.g. a DLPack producer's deleter). Addresses
 * are shared by every reference driver and never reused.
 */
export function referenceNativeFunction(body: (arg: bigint) => void): bigint {
  const address = nextFunction;
  nextFunction += 0x10n;
  registered.set(address, body);
  return address;
}

/** The {@link Driver} members for exchanging memory with native code. */
export abstract class ReferenceNativeExchange extends ReferenceVirtualMemory {
  nativeReleaseFunction(): DevicePointer {
    return releaseFunction;
  }

  readNativeMemory(address: DevicePointer, size: number): Uint8Array {
    if (!Number.isSafeInteger(size) || size < 0 || size > 2 ** 20) {
      throw new RangeError(`readNativeMemory: size must be an integer from 0 to 1 MiB, got ${size}`);
    }
    if (size === 0) return new Uint8Array(0);
    try {
      return this.hostView(address, size).slice();
    } catch {
      throw new RangeError(
        `readNativeMemory: ${size} bytes at 0x${address.toString(16)} cannot be read (EFAULT: not mapped)`,
      );
    }
  }

  callNativeFunction(fn: DevicePointer, arg: DevicePointer): void {
    if (fn === releaseFunction) {
      // cuDriverGetVersion(int *): 4 bytes at arg. Where the real process would crash, a RangeError.
      const target = this.hostView(arg, 4);
      new DataView(target.buffer, target.byteOffset, 4).setInt32(0, referenceDriverVersion, true);
      return;
    }
    const body = registered.get(fn);
    if (body === undefined) {
      throw new RangeError(
        `callNativeFunction: 0x${fn.toString(16)} is no function (a real process would crash)`,
      );
    }
    body(arg);
  }
}
