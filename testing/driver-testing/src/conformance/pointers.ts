import {
  closeSync,
  fstatSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  MemAllocationType,
  MemAttachFlags,
  MemLocationType,
  MemoryType,
  PointerAttribute,
  PointerHandleAttribute,
} from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import type { SuiteContext } from './suite-context.js';
import { expectCudaError, expectSameBytes, MiB, poolProperties, randomBytes } from './support.js';

/** Pointer attributes of each kind of memory, host views, and addresses of JS memory. */
export function pointerCases(suite: SuiteContext): void {
  describe('pointers', () => {
    const number = (pointer: bigint, which: number) => suite.driver.pointerGetAttribute(pointer, which);
    const handle = (pointer: bigint, which: number) => suite.driver.pointerGetHandleAttribute(pointer, which);

    it('memAlloc memory: device memory of this device and context, in a range that holds it', () => {
      const size = MiB + 100;
      const pointer = suite.driver.memAlloc(size);
      try {
        const inside = pointer + 100n;
        expect(number(inside, PointerAttribute.MemoryType)).toBe(MemoryType.Device);
        expect(number(inside, PointerAttribute.IsManaged)).toBe(0);
        expect(number(inside, PointerAttribute.DeviceOrdinal)).toBe(suite.device);
        expect(number(inside, PointerAttribute.Mapped)).toBe(1);
        expect(handle(inside, PointerHandleAttribute.Context)).toBe(suite.context);
        expect(handle(inside, PointerHandleAttribute.DevicePointer)).toBe(inside);
        const start = handle(inside, PointerHandleAttribute.RangeStartAddress);
        const rangeSize = number(inside, PointerAttribute.RangeSize);
        expect(start).toBeLessThanOrEqual(pointer);
        expect(start + BigInt(rangeSize)).toBeGreaterThanOrEqual(pointer + BigInt(size));
      } finally {
        suite.driver.memFree(pointer);
      }
    });

    it('memAlloc memory has no host pointer: CUDA_ERROR_INVALID_VALUE', () => {
      const pointer = suite.driver.memAlloc(4096);
      try {
        // cuda.h: "If there exists no host pointer value through which the host program may directly access ptr then CUDA_ERROR_INVALID_VALUE is returned."
        expectCudaError(
          () => handle(pointer, PointerHandleAttribute.HostPointer),
          'cuPointerGetAttribute',
          'CUDA_ERROR_INVALID_VALUE',
        );
      } finally {
        suite.driver.memFree(pointer);
      }
    });

    it('memHostAlloc memory: host memory whose host pointer is itself', () => {
      const pointer = suite.driver.memHostAlloc(65536, 0);
      try {
        expect(number(pointer, PointerAttribute.MemoryType)).toBe(MemoryType.Host);
        expect(number(pointer, PointerAttribute.IsManaged)).toBe(0);
        expect(handle(pointer + 8n, PointerHandleAttribute.HostPointer)).toBe(pointer + 8n);
      } finally {
        suite.driver.memFreeHost(pointer);
      }
    });

    it('memAllocManaged memory: IsManaged, reachable from the host at the same address', () => {
      const pointer = suite.driver.memAllocManaged(2 * MiB, MemAttachFlags.Global);
      try {
        expect(number(pointer, PointerAttribute.IsManaged)).toBe(1);
        expect(handle(pointer, PointerHandleAttribute.HostPointer)).toBe(pointer);
        expect(handle(pointer, PointerHandleAttribute.DevicePointer)).toBe(pointer);
      } finally {
        suite.driver.memFree(pointer);
      }
    });

    it('pool memory names its pool in MempoolHandle', () => {
      const pool = suite.driver.deviceGetMemPool(suite.device);
      const pointer = suite.driver.memAllocFromPoolAsync(MiB, pool, suite.stream);
      try {
        suite.driver.streamSynchronize(suite.stream);
        expect(handle(pointer, PointerHandleAttribute.MempoolHandle)).toBe(pool);
        expect(number(pointer, PointerAttribute.MemoryType)).toBe(MemoryType.Device);
      } finally {
        suite.driver.memFreeAsync(pointer, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
      }
    });

    // @cumem/memory tells an imported pool's kind by this: the driver describes no imported pool.
    suite.itWith(
      'hostMemoryPools',
      "a Host pool's memory has a host pointer, a device pool's has none (CUDA_ERROR_INVALID_VALUE)",
      () => {
        const hostPool = suite.driver.memPoolCreate(
          poolProperties(MemAllocationType.Pinned, { type: MemLocationType.Host, id: 0 }),
        );
        const devicePool = suite.driver.deviceGetMemPool(suite.device);
        const onHost = suite.driver.memAllocFromPoolAsync(MiB, hostPool, suite.stream);
        const onDevice = suite.driver.memAllocFromPoolAsync(MiB, devicePool, suite.stream);
        try {
          suite.driver.streamSynchronize(suite.stream);
          expect(handle(onHost + 8n, PointerHandleAttribute.HostPointer)).toBe(onHost + 8n);
          expect(number(onHost, PointerAttribute.IsManaged)).toBe(0);
          expectCudaError(
            () => handle(onDevice, PointerHandleAttribute.HostPointer),
            'cuPointerGetAttribute',
            'CUDA_ERROR_INVALID_VALUE',
          );
          expect(number(onDevice, PointerAttribute.DeviceOrdinal)).toBe(suite.device);
          // each range holds its allocation
          const end = (pointer: bigint) =>
            handle(pointer, PointerHandleAttribute.RangeStartAddress) +
            BigInt(number(pointer, PointerAttribute.RangeSize));
          // The CUDA 13.0 driver reports RANGE_START_ADDR 0 for host-pool memory (RANGE_SIZE is
          // right): @cumem/memory's range checks take the pointer as the start then.
          const hostStart = handle(onHost, PointerHandleAttribute.RangeStartAddress);
          if (hostStart === 0n)
            expect(number(onHost, PointerAttribute.RangeSize)).toBeGreaterThanOrEqual(MiB);
          else expect(end(onHost)).toBeGreaterThanOrEqual(onHost + BigInt(MiB));
          expect(end(onDevice)).toBeGreaterThanOrEqual(onDevice + BigInt(MiB));
        } finally {
          suite.driver.memFreeAsync(onHost, suite.stream);
          suite.driver.memFreeAsync(onDevice, suite.stream);
          suite.driver.streamSynchronize(suite.stream);
          suite.driver.memPoolDestroy(hostPool);
        }
      },
    );

    it('attributes of a freed pointer fail with CUDA_ERROR_INVALID_VALUE', () => {
      const pointer = suite.driver.memAlloc(65536);
      suite.driver.memFree(pointer);
      // cuda.h (IS_MANAGED): "If ptr is not a valid CUDA pointer then CUDA_ERROR_INVALID_VALUE is returned."
      expectCudaError(
        () => number(pointer, PointerAttribute.IsManaged),
        'cuPointerGetAttribute',
        'CUDA_ERROR_INVALID_VALUE',
      );
    });

    it('addressOf is stable per buffer, distinct between buffers, and offset by byteOffset', () => {
      const buffer = new ArrayBuffer(MiB);
      const other = new ArrayBuffer(MiB);
      const base = suite.driver.addressOf(buffer);
      expect(base).not.toBe(0n);
      expect(suite.driver.addressOf(buffer)).toBe(base);
      expect(suite.driver.addressOf(new Uint8Array(buffer))).toBe(base);
      expect(suite.driver.addressOf(new Uint32Array(buffer, 64, 4))).toBe(base + 64n);
      expect(suite.driver.addressOf(new DataView(buffer, 1000))).toBe(base + 1000n);
      expect(suite.driver.addressOf(other)).not.toBe(base);
    });

    it('hostView(addressOf(view)) is the same memory as the view, both ways', () => {
      const data = new Uint8Array(MiB);
      const view = suite.driver.hostView(suite.driver.addressOf(data) + 16n, 4096);
      expect(view.length).toBe(4096);
      const bytes = randomBytes(4096);
      view.set(bytes);
      expectSameBytes(data.subarray(16, 16 + 4096), bytes);
      const again = randomBytes(4096);
      data.set(again, 16);
      expectSameBytes(view, again);
    });

    // Adapters that can detach say true; the FFI adapter documents false (koffi's views cannot
    // be detached from JS) and its views keep reading the memory.
    it('detachView of a hostView of page-locked memory: napi and reference detach it, ffi says it cannot', () => {
      const size = 4096;
      const pointer = suite.driver.memHostAlloc(size, 0);
      try {
        const data = randomBytes(size);
        const view = suite.driver.hostView(pointer, size);
        view.set(data);
        const second = new Uint8Array(view.buffer, 16, 32);
        const detached = suite.driver.detachView(view.buffer as ArrayBuffer);
        if (suite.driver.name === 'ffi') {
          expect(detached).toBe(false);
          expectSameBytes(view, data);
        } else {
          expect(detached).toBe(true);
          expect(view.length).toBe(0);
          expect(second.length).toBe(0);
          expect(view.buffer.byteLength).toBe(0);
        }
        expect(() => suite.driver.detachView(view as never)).toThrow(TypeError);
        expect(() => suite.driver.detachView({} as never)).toThrow(TypeError);
      } finally {
        suite.driver.memFreeHost(pointer);
      }
    });
    it('duplicateFileDescriptor: a new descriptor of the same file, independent of the original', () => {
      const directory = mkdtempSync(join(tmpdir(), 'cumem-dup-'));
      const path = join(directory, 'file');
      writeFileSync(path, 'cumem');
      const fd = openSync(path, 'r');
      let duplicate = -1;
      try {
        duplicate = suite.driver.duplicateFileDescriptor(fd);
        expect(duplicate).not.toBe(fd);
        expect(fstatSync(duplicate).ino).toBe(fstatSync(fd).ino);
        // closing the original leaves the duplicate open, and the other way round
        closeSync(fd);
        expect(fstatSync(duplicate).ino).toBe(statSync(path).ino);
        expect(readFileSync(duplicate, 'utf8')).toBe('cumem');
      } finally {
        if (duplicate >= 0) closeSync(duplicate);
        try {
          closeSync(fd);
        } catch {
          // closed in the test already
        }
        rmSync(directory, { recursive: true });
      }
    });

    it('duplicateFileDescriptor refuses a closed descriptor (EBADF) and a number that is not one', () => {
      const fd = openSync(tmpdir(), 'r');
      closeSync(fd);
      const error = (() => {
        try {
          suite.driver.duplicateFileDescriptor(fd);
        } catch (caught) {
          return caught as { name: string; code: string; message: string };
        }
        return undefined;
      })();
      expect(error?.name).toBe('RangeError');
      expect(error?.code).toBe('EBADF');
      expect(error?.message).toMatch(/EBADF/);
      expect(() => suite.driver.duplicateFileDescriptor(-1)).toThrow(RangeError);
      expect(() => suite.driver.duplicateFileDescriptor(1.5)).toThrow(RangeError);
      expect(() => suite.driver.duplicateFileDescriptor(2 ** 31)).toThrow(RangeError);
      expect(() => suite.driver.duplicateFileDescriptor('3' as never)).toThrow(TypeError);
    });
  });
}
