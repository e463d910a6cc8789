import { MemHostRegisterFlags } from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import type { SuiteContext } from './suite-context.js';
import { expectCudaError, expectSameBytes, MiB, randomBytes, readBack, withDeviceMemory } from './support.js';

// Odd sizes and offsets: slices and chunks that do not divide the copy evenly, a chunk size that
// is not a power of two, more threads than chunks, and a view that starts inside its buffer.
const stagedShapes = [
  { size: 1, offset: 0, chunkBytes: 4096, threads: 4 },
  { size: 4096 * 3 + 5, offset: 7, chunkBytes: 4096, threads: 2 },
  { size: 3 * MiB + 17, offset: 13, chunkBytes: 256 * 1024 + 3, threads: 3 },
  { size: 2 * MiB, offset: 0, chunkBytes: 64 * 1024, threads: 8 },
  { size: 1 * MiB + 1, offset: 1, chunkBytes: 8 * MiB, threads: 1 },
];

/** cuMemHostRegister / cuMemHostUnregister and the staged copies through pinned chunks. */
export function hostRegistrationCases(suite: SuiteContext): void {
  describe('host registration and staged copies', () => {
    it('memHostRegister pins JS memory in place: its address, copies through it, and memHostUnregister', () => {
      const size = 2 * MiB;
      const data = randomBytes(size);
      const pointer = suite.driver.memHostRegister(data, 0);
      try {
        expect(pointer).toBe(suite.driver.addressOf(data));
        withDeviceMemory(suite.driver, size, (device) => {
          suite.driver.memcpyAsync(device, pointer, size, suite.stream);
          const back = new Uint8Array(size);
          suite.driver.memcpyDtoHAsync(back, device, suite.stream);
          suite.driver.streamSynchronize(suite.stream);
          expectSameBytes(back, data);
        });
      } finally {
        suite.driver.memHostUnregister(pointer);
      }
    });

    it('memHostRegister of a bare ArrayBuffer and of a view inside one, then both unregistered', () => {
      const buffer = new ArrayBuffer(3 * 65536);
      const whole = suite.driver.memHostRegister(buffer, MemHostRegisterFlags.Portable);
      suite.driver.memHostUnregister(whole);
      const view = new Uint8Array(buffer, 65536, 65536);
      const part = suite.driver.memHostRegister(view, 0);
      expect(part).toBe(suite.driver.addressOf(view));
      suite.driver.memHostUnregister(part);
    });

    it('registering a range twice is CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED; unregistering what is not registered is CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED', () => {
      const data = new Uint8Array(65536);
      const pointer = suite.driver.memHostRegister(data, 0);
      try {
        expectCudaError(
          () => suite.driver.memHostRegister(data, 0),
          'cuMemHostRegister',
          'CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED',
        );
      } finally {
        suite.driver.memHostUnregister(pointer);
      }
      expectCudaError(
        () => suite.driver.memHostUnregister(pointer),
        'cuMemHostUnregister',
        'CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED',
      );
    });

    for (const shape of stagedShapes) {
      const { size, offset, chunkBytes, threads } = shape;
      it(`stagedCopyHtoD / stagedCopyDtoH round-trip ${size} bytes at offset ${offset}, chunks of ${chunkBytes}, ${threads} threads, byte-exact`, () => {
        const source = randomBytes(size + offset + 9).subarray(offset, offset + size);
        const options = { chunkBytes, threads };
        withDeviceMemory(suite.driver, size + 64, (device) => {
          suite.driver.memsetD8Async(device, 0xee, size + 64, suite.stream);
          suite.driver.stagedCopyHtoD(device + 32n, source, suite.stream, options);
          const expected = new Uint8Array(size + 64).fill(0xee);
          expected.set(source, 32);
          expectSameBytes(readBack(suite.driver, device, size + 64), expected);
          const landing = new Uint8Array(size + offset + 9).fill(0x11);
          suite.driver.stagedCopyDtoH(
            landing.subarray(offset, offset + size),
            device + 32n,
            suite.stream,
            options,
          );
          expectSameBytes(landing.subarray(offset, offset + size), source);
          expect(landing.subarray(0, offset).every((byte) => byte === 0x11)).toBe(true);
          expect(landing.subarray(offset + size).every((byte) => byte === 0x11)).toBe(true);
        });
      });
    }

    it('staged copies of zero bytes do nothing, and come after work queued on the stream', () => {
      withDeviceMemory(suite.driver, MiB, (device) => {
        suite.driver.stagedCopyHtoD(device, new Uint8Array(0), suite.stream, {
          chunkBytes: 4096,
          threads: 2,
        });
        suite.driver.stagedCopyDtoH(new Uint8Array(0), device, suite.stream, {
          chunkBytes: 4096,
          threads: 2,
        });
        // The fill is queued, not waited for: the staged copy must see it.
        suite.driver.memsetD8Async(device, 0x42, MiB, suite.stream);
        const back = new Uint8Array(MiB);
        suite.driver.stagedCopyDtoH(back, device, suite.stream, { chunkBytes: 65536, threads: 4 });
        expect(back.every((byte) => byte === 0x42)).toBe(true);
      });
    });

    it('staged copies refuse a bad chunk size or thread count with a RangeError, options that are no object with a TypeError', () => {
      withDeviceMemory(suite.driver, 4096, (device) => {
        const data = new Uint8Array(4096);
        for (const options of [
          { chunkBytes: 0, threads: 1 },
          { chunkBytes: 1.5, threads: 1 },
          { chunkBytes: 4096, threads: 0 },
          { chunkBytes: 4096, threads: 65 },
          // Past 4 GiB the FFI adapter's worker views abort inside koffi: every adapter refuses it.
          { chunkBytes: 2 ** 32 + 1, threads: 1 },
        ]) {
          expect(() => suite.driver.stagedCopyHtoD(device, data, suite.stream, options)).toThrow(RangeError);
          expect(() => suite.driver.stagedCopyDtoH(data, device, suite.stream, options)).toThrow(RangeError);
        }
        for (const options of [null, undefined, 4096]) {
          const given = options as never;
          expect(() => suite.driver.stagedCopyHtoD(device, data, suite.stream, given)).toThrow(
            /stagedCopyHtoD: options must be \{ chunkBytes, threads \}/,
          );
          expect(() => suite.driver.stagedCopyDtoH(data, device, suite.stream, given)).toThrow(TypeError);
        }
      });
    });
  });
}
