import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { NotSupportedError } from '@cumem/core-types';
import { useDriver } from '@cumem/memory';
import { describeEachDriver } from '@cumem/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters, patternBytes, requiresInterprocess } from '../test/support.js';
import { Context } from './context.js';
import { IpcMemHandle } from './ipc-mem-handle.js';

const run = promisify(execFile);
const fixture = fileURLToPath(new URL('../test/fixtures/open-ipc-buffer.mjs', import.meta.url));
const builtPackage = fileURLToPath(new URL('../dist/index.js', import.meta.url));

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

    it('a handle whose size field claims more than the exported allocation is a RangeError', async () => {
      expect(existsSync(builtPackage), 'build the packages first (turbo build)').toBe(true);
      const buffer = context.bufferFromData(patternBytes(1000, 5));
      const { stdout } = await run(process.execPath, [
        fixture,
        entry.name,
        Buffer.from(buffer.exportForIpc().serialize()).toString('hex'),
        'oversized',
      ]);
      expect(JSON.parse(stdout)).toEqual({ error: 'RangeError' });
      buffer.close();
    });
  },
  { requires: requiresInterprocess, gpuOnly: true },
);
