// Interprocess events in one process: the options, the refusals before any driver call, the
// handle's shape, and what an opened event answers (over a stand-in for the handle calls).
// Opening a real handle needs another process: the Python hand-off tests (testing/python-handoff)
// and the cuda.core translations (test/upstream) do that on the GPU.
import { CudaError, CudaStateError, type Driver, EventFlags, IPC_HANDLE_SIZE } from '@cumem/core-types';
import { createReferenceDriver, describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { adapters } from '../../../test/adapters.js';
import { useDriver } from '../../runtime/driver-selection.js';
import { Event } from '../../stream/event.js';
import { Stream } from '../../stream/stream.js';

describeEachDriver(adapters, 'interprocess Event', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('refuses timing on an interprocess event and bad option types with a TypeError', () => {
    expect(() => Event.create(0, { interprocess: true, enableTiming: true })).toThrow(TypeError);
    expect(() => Event.create(0, { interprocess: 1 as never })).toThrow(TypeError);
  });

  it('has an ipcHandle only when created with { interprocess: true }', () => {
    using plain = Event.create(0, { enableTiming: false });
    expect(plain.isInterprocess).toBe(false);
    expect(() => plain.ipcHandle).toThrow(TypeError);
    using shared = Event.create(0, { interprocess: true });
    expect(shared.isInterprocess).toBe(true);
    const stream = Stream.create();
    stream.record(shared);
    if (entry.driver.capabilities.interprocess) {
      const handle = shared.ipcHandle;
      expect(handle).toBeInstanceOf(Uint8Array);
      expect(handle.byteLength).toBe(IPC_HANDLE_SIZE);
      expect(handle.some((byte) => byte !== 0)).toBe(true);
    } else {
      // The reference driver shares nothing between processes.
      expect(() => shared.ipcHandle).toThrow(CudaError);
    }
    shared.sync();
    stream.close();
    shared.close();
    expect(() => shared.ipcHandle).toThrow(CudaStateError);
  });

  it('fromIpcHandle refuses anything but 64 bytes before asking the driver', () => {
    expect(() => Event.fromIpcHandle(new Uint8Array(IPC_HANDLE_SIZE - 1))).toThrow(RangeError);
    expect(() => Event.fromIpcHandle(new ArrayBuffer(IPC_HANDLE_SIZE + 1))).toThrow(RangeError);
    expect(() => Event.fromIpcHandle('handle' as never)).toThrow(TypeError);
    expect(() => Event.fromIpcHandle(new Uint8Array(IPC_HANDLE_SIZE), 'gpu0' as never)).toThrow(TypeError);
  });
});

// A real driver refuses cuIpcGetEventHandle on an event it opened from a handle
// (CUDA_ERROR_INVALID_HANDLE); cumem answers with the bytes the event was opened from, as cuda.core
// does. The stand-in opens a handle as a fresh event of the reference driver and refuses the rest.
describe('an event opened from another process’s handle (reference driver, stand-in handle calls)', () => {
  it('gives back the handle it was opened from, as a fresh copy, without asking the driver', () => {
    const base = createReferenceDriver();
    const getHandle = vi.fn(() => {
      throw new CudaError({ code: 400, codeName: 'CUDA_ERROR_INVALID_HANDLE', call: 'cuIpcGetEventHandle' });
    });
    const driver: Driver = Object.create(base, {
      ipcOpenEventHandle: {
        value: () => base.eventCreate(EventFlags.Interprocess | EventFlags.DisableTiming),
      },
      ipcGetEventHandle: { value: getHandle },
    });
    useDriver(driver);
    const bytes = new Uint8Array(IPC_HANDLE_SIZE).fill(7);
    const event = Event.fromIpcHandle(bytes);
    // Changing the caller's bytes after the open changes nothing.
    bytes.fill(0);
    const first = event.ipcHandle;
    expect(first).toEqual(new Uint8Array(IPC_HANDLE_SIZE).fill(7));
    first.fill(1);
    expect(event.ipcHandle).toEqual(new Uint8Array(IPC_HANDLE_SIZE).fill(7));
    expect(event.isInterprocess).toBe(true);
    expect(getHandle).not.toHaveBeenCalled();
    event.close();
    expect(() => event.ipcHandle).toThrow(CudaStateError);
  });
});
