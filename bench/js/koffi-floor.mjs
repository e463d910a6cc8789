// The floor koffi itself puts under the FFI adapter's small calls: the driver's
// cuMemAllocFromPoolAsync + cuMemFreeAsync declared straight through koffi, number arguments, no
// adapter code (no argument checks, no error mapping, no bigint conversions). The FFI adapter
// cannot go below this while its calls go through koffi; the difference to C is koffi's cost
// per call on this machine. Used by the contract and memory suites' FFI runs (variants).
import { createRequire } from 'node:module';

/**
 * `batch(n)`: n bare koffi allocate + free pairs of 4 KiB on `pool` and `stream` (driver handles,
 * bigints), then a bare cuStreamSynchronize. The context current on the calling thread is the
 * one the suite's adapter made current: koffi loads the same library the adapter did
 * (`libraryPath`: a test passes the fake libcuda's).
 */
export function bareKoffiPoolPair(pool, stream, libraryPath = 'libcuda.so.1') {
  const require = createRequire(createRequire(import.meta.url).resolve('@cumem/driver-ffi'));
  const koffi = require('koffi');
  const library = koffi.load(libraryPath);
  const allocate = library.func('cuMemAllocFromPoolAsync', 'int', [
    'uintptr_t',
    'size_t',
    'uint64_t',
    'uint64_t',
  ]);
  const free = library.func('cuMemFreeAsync', 'int', ['uint64_t', 'uint64_t']);
  const synchronize = library.func('cuStreamSynchronize', 'int', ['uint64_t']);
  const slot = koffi.alloc('uint64_t', 1);
  const address = Number(koffi.address(slot));
  const pointer = new BigUint64Array(koffi.view(slot, 8));
  const poolNumber = Number(pool);
  const streamNumber = Number(stream);
  const check = (result, call) => {
    if (result !== 0) throw new Error(`${call} returned ${result}`);
  };
  return (n) => {
    for (let i = 0; i < n; i++) {
      check(allocate(address, 4096, poolNumber, streamNumber), 'cuMemAllocFromPoolAsync');
      check(free(Number(pointer[0]), streamNumber), 'cuMemFreeAsync');
    }
    check(synchronize(streamNumber), 'cuStreamSynchronize');
  };
}

/**
 * `batch(n)`: n bare koffi cuMemAdvise_v2 calls on the `size` bytes at `pointer` (a bigint),
 * alternating set and unset of read-mostly advice (1, 2) for device 0, the location packed as
 * the FFI adapter passes it on x86-64 and AArch64 (type | id << 32 in one uint64): the floor of
 * the memory.readMostlySet row's FFI run.
 */
export function bareKoffiAdvise(pointer, size, libraryPath = 'libcuda.so.1') {
  const require = createRequire(createRequire(import.meta.url).resolve('@cumem/driver-ffi'));
  const koffi = require('koffi');
  const library = koffi.load(libraryPath);
  const advise = library.func('cuMemAdvise_v2', 'int', ['uint64_t', 'size_t', 'int', 'uint64_t']);
  const address = Number(pointer);
  const deviceLocation = 1; // CU_MEM_LOCATION_TYPE_DEVICE, id 0
  return (n) => {
    for (let i = 0; i < n; i++) {
      const result = advise(address, size, (i & 1) === 0 ? 1 : 2, deviceLocation);
      if (result !== 0) throw new Error(`cuMemAdvise_v2 returned ${result}`);
    }
  };
}
