// Exchanging memory with native code (DLPack) without compiled code of ours. The release
// function cumem puts in the structs it exports is the driver's own cuDriverGetVersion: a
// native function any thread can call, that writes 4 bytes at its argument and needs no JS. A
// koffi callback would not do: koffi runs a callback made on another thread on the JS thread,
// and blocks the calling thread until then, which deadlocks when the JS thread is itself
// waiting for that thread. Reads of native memory go through process_vm_readv on the own
// process, which fails with EFAULT instead of faulting.

import type { DevicePointer } from '@cumem/core-types';
import type { DriverState } from './driver-state.js';
import { addressOf } from './host-memory.js';
import { type Koffi, loadKoffi } from './koffi-module.js';

/** The most readNativeMemory copies at once (DLPack structs are a few hundred bytes). */
const maxRead = 2 ** 20;

type ReadV = (
  pid: number,
  local: BigUint64Array,
  localCount: number,
  remote: BigUint64Array,
  remoteCount: number,
  flags: number,
) => number | bigint;

let readv: ReadV | undefined;
let deleterType: unknown;

function loadReadv(koffi: Koffi): ReadV {
  readv ??= koffi
    .load('libc.so.6')
    .func(
      'intptr_t process_vm_readv(int pid, void *local_iov, unsigned long liovcnt, void *remote_iov, unsigned long riovcnt, unsigned long flags)',
    ) as ReadV;
  return readv;
}

/** Address of the loaded driver's cuDriverGetVersion (see the contract). */
export function nativeReleaseFunction(state: DriverState): DevicePointer {
  const symbol = (state.library as { symbol(name: string): unknown }).symbol('cuDriverGetVersion');
  return typeof symbol === 'bigint' ? symbol : state.koffi.address(symbol);
}

/** A copy of `size` bytes at `address`; RangeError (EFAULT), never a fault, when unmapped. */
export function readNativeMemory(address: DevicePointer, size: number): Uint8Array {
  if (!Number.isSafeInteger(size) || size < 0 || size > maxRead) {
    throw new RangeError(`readNativeMemory: size must be an integer from 0 to 1 MiB, got ${size}`);
  }
  const out = new Uint8Array(size);
  if (size === 0) return out;
  const koffi = loadKoffi();
  const local = BigUint64Array.of(addressOf(out), BigInt(size));
  const remote = BigUint64Array.of(address, BigInt(size));
  const copied = Number(loadReadv(koffi)(process.pid, local, 1, remote, 1, 0));
  if (copied !== size) {
    const errno = copied < 0 ? koffi.errno() : 0;
    throw new RangeError(
      `readNativeMemory: ${size} bytes at 0x${address.toString(16)} cannot be read (${copied < 0 ? `errno ${errno}` : `only ${copied} readable`}: not mapped)`,
    );
  }
  return out;
}

/** Calls `void fn(void *arg)` (unsafe by nature, see the contract). */
export function callNativeFunction(fn: DevicePointer, arg: DevicePointer): void {
  const koffi = loadKoffi();
  deleterType ??= koffi.proto('void cumem_native_release(void *self)');
  koffi.call(fn, deleterType as Parameters<Koffi['call']>[1], arg);
}
