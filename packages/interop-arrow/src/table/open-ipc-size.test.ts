// openIpcBuffer checks the size a handle claims with @cumem/memory's rule (rangeOverrun), and
// closes the mapping when it refuses. On the reference driver, with cuIpcOpenMemHandle emulated:
// the "mapping" is an allocation of the reference driver's own.
import type { Driver } from '@cumem/core-types';
import { Buffer as MemoryBuffer, useDriver } from '@cumem/memory';
import { createReferenceDriver } from '@cumem/testing/reference-driver';
import { afterEach, describe, expect, it } from 'vitest';
import { IpcMemHandle } from '../buffer/ipc-mem-handle.js';
import { Context } from '../context/context.js';

const exported = 64 * 1024;

function emulatedIpc() {
  const base = createReferenceDriver();
  const closed: bigint[] = [];
  let mapping = 0n;
  const driver: Driver = Object.create(base, {
    capabilities: { value: { ...base.capabilities, interprocess: true } },
    ipcOpenMemHandle: {
      value: () => {
        mapping = base.memAlloc(exported);
        return mapping;
      },
    },
    ipcCloseMemHandle: {
      value: (pointer: bigint) => {
        closed.push(pointer);
        base.memFree(pointer);
      },
    },
  });
  return { driver, closed, mapping: () => mapping };
}

function handleClaiming(size: number): IpcMemHandle {
  const bytes = new Uint8Array(72);
  new DataView(bytes.buffer).setBigInt64(0, BigInt(size), true);
  return IpcMemHandle.fromBuffer(bytes);
}

describe('Context.openIpcBuffer: the claimed size against the mapped range (reference driver)', () => {
  afterEach(() => useDriver(createReferenceDriver()));

  it("refuses a handle claiming more than was mapped, with memory's message, and unmaps", () => {
    const ipc = emulatedIpc();
    useDriver(ipc.driver);
    const context = new Context(0);
    let refusal: unknown;
    try {
      context.openIpcBuffer(handleClaiming(1 << 30));
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(RangeError);
    expect((refusal as Error).message).toBe(
      `the IpcMemHandle claims ${1 << 30} bytes at 0x${ipc.mapping().toString(16)}, but the allocation ` +
        `there ends ${exported} bytes from it (CU_POINTER_ATTRIBUTE_RANGE_SIZE)`,
    );
    expect(ipc.closed).toEqual([ipc.mapping()]);
    // Buffer.fromHandle refuses the same claim with the same rule and wording.
    const pointer = ipc.driver.memAlloc(exported);
    expect(() => MemoryBuffer.fromHandle(pointer, exported + 1)).toThrow(
      /^Buffer\.fromHandle claims 65537 bytes at 0x[0-9a-f]+, but the allocation there ends 65536 bytes/,
    );
    ipc.driver.memFree(pointer);
  });

  it('opens a handle whose size fits, and unmaps once when the buffer closes', () => {
    const ipc = emulatedIpc();
    useDriver(ipc.driver);
    const buffer = new Context(0).openIpcBuffer(handleClaiming(exported));
    expect(buffer.size).toBe(exported);
    expect(ipc.closed).toEqual([]);
    buffer.close();
    expect(ipc.closed).toEqual([ipc.mapping()]);
  });
});
