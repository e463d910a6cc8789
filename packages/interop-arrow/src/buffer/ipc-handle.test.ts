import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { NotSupportedError } from '@cumem/core-types';
import { useDriver } from '@cumem/memory';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters, patternBytes, requiresInterprocess } from '../../test/support.js';
import { Context } from '../context/context.js';
import { IpcMemHandle } from './ipc-mem-handle.js';

const run = promisify(execFile);
const fixture = fileURLToPath(new URL('../../test/fixtures/open-ipc-buffer.mjs', import.meta.url));
const builtPackage = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

describe('IpcMemHandle serialisation (pyarrow layout: int64 size, then 64 handle bytes)', () => {
  it('round-trips and refuses malformed bytes', () => {
    const raw = new Uint8Array(72);
    new DataView(raw.buffer).setBigInt64(0, 1000n, true);
    raw.set(patternBytes(64), 8);
    const handle = IpcMemHandle.fromBuffer(raw);
    expect(handle.size).toBe(1000);
    expect(handle.handle).toEqual(patternBytes(64));
    expect(handle.serialize()).toEqual(raw);
    const empty = new Uint8Array(8);
    expect(IpcMemHandle.fromBuffer(empty).size).toBe(0);
    expect(IpcMemHandle.fromBuffer(empty).serialize()).toEqual(empty);
    expect(() => IpcMemHandle.fromBuffer(raw.subarray(0, 40))).toThrow(RangeError);
    expect(() => IpcMemHandle.fromBuffer(raw.subarray(0, 71))).toThrow(RangeError);
    // trailing bytes are refused as well: the layout has no room for them
    const trailing = new Uint8Array(73);
    trailing.set(raw);
    expect(() => IpcMemHandle.fromBuffer(trailing)).toThrow(/has 72 bytes, got 73/);
    expect(() => IpcMemHandle.fromBuffer(new Uint8Array(9))).toThrow(/has 8 bytes, got 9/);
    expect(() => IpcMemHandle.fromBuffer(trailing.buffer)).toThrow(RangeError);
    expect(() => IpcMemHandle.fromBuffer(new Uint8Array(4))).toThrow(RangeError);
    expect(() => IpcMemHandle.fromBuffer('abc' as never)).toThrow(TypeError);
    const negative = new Uint8Array(8);
    new DataView(negative.buffer).setBigInt64(0, -1n, true);
    expect(() => IpcMemHandle.fromBuffer(negative)).toThrow(RangeError);
  });
});

describeEachDriver(
  adapters,
  'exportForIpc on a driver without IPC',
  (entry) => {
    it('is a NotSupportedError naming the capability', () => {
      useDriver(entry.driver);
      const context = new Context(0);
      const buffer = context.deviceBuffer(16);
      expect(() => buffer.exportForIpc()).toThrow(NotSupportedError);
      expect(() => context.openIpcBuffer(IpcMemHandle.fromBuffer(new Uint8Array(72).fill(1, 0, 1)))).toThrow(
        /interprocess/,
      );
      expect(context.deviceBuffer(0).exportForIpc().size).toBe(0);
      buffer.close();
    });
  },
  {
    requires: (driver) =>
      driver.capabilities.interprocess ? 'not applicable: the driver has IPC' : undefined,
  },
);

// pyarrow's test_IPC: a handle serialised here opens in another process and sees the same bytes.
describeEachDriver(
  adapters,
  'IPC handle in a child process',
  (entry) => {
    let context: Context;
    beforeAll(() => {
      useDriver(entry.driver);
      context = new Context(0);
    });

    for (const size of [0, 1, 1000]) {
      it(`the child reads the exported bytes (size ${size})`, async () => {
        expect(existsSync(builtPackage), 'build the packages first (turbo build)').toBe(true);
        const data = patternBytes(size, 31);
        const buffer = context.bufferFromData(data);
        const handle = buffer.exportForIpc();
        const { stdout } = await run(process.execPath, [
          fixture,
          entry.name,
          Buffer.from(handle.serialize()).toString('hex'),
        ]);
        const result = JSON.parse(stdout) as { size: number; hex: string };
        expect(result.size).toBe(size);
        expect(result.hex).toBe(Buffer.from(data).toString('hex'));
        // a slice at an offset cannot be exported: cuIpcGetMemHandle takes whole allocations
        if (size > 1) expect(() => buffer.slice(1).exportForIpc()).toThrow(TypeError);
        buffer.close();
      });
    }

    it('a handle claiming more than the exported allocation is refused in the child (RangeError)', async () => {
      expect(existsSync(builtPackage), 'build the packages first (turbo build)').toBe(true);
      const size = 64 * 1024;
      const buffer = context.bufferFromData(patternBytes(size, 7));
      const bytes = buffer.exportForIpc().serialize();
      // 1 GiB claimed over a 64 KiB export: the child must not get a 1 GiB view
      new DataView(bytes.buffer, bytes.byteOffset).setBigInt64(0, BigInt(1 << 30), true);
      const { stdout } = await run(process.execPath, [
        fixture,
        entry.name,
        Buffer.from(bytes).toString('hex'),
      ]);
      const result = JSON.parse(stdout) as { error?: string; message?: string };
      expect(result.error, result.message).toBe('RangeError');
      expect(result.message).toMatch(/claims 1073741824 bytes/);
      buffer.close();
    });
  },
  { requires: requiresInterprocess, gpuOnly: true },
);
