import { closeSync } from 'node:fs';
import { EventFlags, IPC_HANDLE_SIZE, MemHandleType, POOL_POINTER_EXPORT_SIZE } from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import { devicePoolProperties } from './pools.js';
import type { SuiteContext } from './suite-context.js';
import { expectCudaError, MiB } from './support.js';

/**
 * Cross-process sharing, export side only. Importing needs a second process (the driver does
 * not promise that a process may import its own exports), so the import entry points are not
 * exercised here.
 */
export function ipcCases(suite: SuiteContext): void {
  describe('interprocess', () => {
    suite.itWith(
      'interprocess',
      'memPoolExportToFileDescriptor of an IPC pool gives a descriptor the caller owns',
      () => {
        const pool = suite.driver.memPoolCreate(
          devicePoolProperties(suite.device, MemHandleType.PosixFileDescriptor),
        );
        try {
          const fd = suite.driver.memPoolExportToFileDescriptor(pool);
          expect(Number.isInteger(fd)).toBe(true);
          expect(fd).toBeGreaterThanOrEqual(0);
          closeSync(fd);
        } finally {
          suite.driver.memPoolDestroy(pool);
        }
      },
    );

    suite.itWith(
      'interprocess',
      `memPoolExportPointer of an IPC pool's allocation gives ${POOL_POINTER_EXPORT_SIZE} bytes`,
      () => {
        const pool = suite.driver.memPoolCreate(
          devicePoolProperties(suite.device, MemHandleType.PosixFileDescriptor),
        );
        const pointer = suite.driver.memAllocFromPoolAsync(MiB, pool, suite.stream);
        let fd = -1;
        try {
          // The allocation exists once its stream has run the allocation; and cuda.h exports an
          // allocation "from an already shared memory pool", so the pool is exported first, as
          // @cumem/memory does (its IPC path got past this call on a real GPU when this case did not).
          suite.driver.streamSynchronize(suite.stream);
          fd = suite.driver.memPoolExportToFileDescriptor(pool);
          const data = suite.driver.memPoolExportPointer(pointer);
          expect(data).toBeInstanceOf(Uint8Array);
          expect(data.length).toBe(POOL_POINTER_EXPORT_SIZE);
          expect(data.some((byte) => byte !== 0)).toBe(true);
        } finally {
          if (fd >= 0) closeSync(fd);
          suite.driver.memFreeAsync(pointer, suite.stream);
          suite.driver.streamSynchronize(suite.stream);
          suite.driver.memPoolDestroy(pool);
        }
      },
    );

    suite.itWith('interprocess', `ipcGetMemHandle of memAlloc memory gives ${IPC_HANDLE_SIZE} bytes`, () => {
      const pointer = suite.driver.memAlloc(2 * MiB);
      try {
        const handle = suite.driver.ipcGetMemHandle(pointer);
        expect(handle).toBeInstanceOf(Uint8Array);
        expect(handle.length).toBe(IPC_HANDLE_SIZE);
        expect(handle.some((byte) => byte !== 0)).toBe(true);
      } finally {
        suite.driver.memFree(pointer);
      }
    });

    suite.itWith(
      'interprocess',
      `ipcGetEventHandle of an interprocess event gives ${IPC_HANDLE_SIZE} bytes`,
      () => {
        // cuda.h: an interprocess event must also disable timing.
        const event = suite.driver.eventCreate(EventFlags.Interprocess | EventFlags.DisableTiming);
        try {
          suite.driver.eventRecord(event, suite.stream);
          const handle = suite.driver.ipcGetEventHandle(event);
          expect(handle).toBeInstanceOf(Uint8Array);
          expect(handle.length).toBe(IPC_HANDLE_SIZE);
          expect(handle.some((byte) => byte !== 0)).toBe(true);
          suite.driver.eventSynchronize(event);
        } finally {
          suite.driver.eventDestroy(event);
        }
      },
    );

    it('ipcGetEventHandle of an event without the Interprocess flag is a CudaError', () => {
      const event = suite.driver.eventCreate(EventFlags.DisableTiming);
      try {
        const error = expectCudaError(() => suite.driver.ipcGetEventHandle(event), 'cuIpcGetEventHandle');
        // The reference driver shares nothing between processes (capabilities.interprocess false).
        if (!suite.driver.capabilities.interprocess) expect(error.codeName).toBe('CUDA_ERROR_NOT_SUPPORTED');
      } finally {
        suite.driver.eventDestroy(event);
      }
    });

    it(`ipcOpenEventHandle refuses a handle that is not ${IPC_HANDLE_SIZE} bytes with a RangeError`, () => {
      expect(() => suite.driver.ipcOpenEventHandle(new Uint8Array(3))).toThrow(RangeError);
      expect(() => suite.driver.ipcOpenEventHandle(new Uint8Array(IPC_HANDLE_SIZE + 1))).toThrow(RangeError);
    });
  });
}
