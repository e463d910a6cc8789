// The legacy handle (cuIpcGetMemHandle, pyarrow.cuda's serialised form) with CuPy, and Arrow
// record batches across the boundary, both ways. The exporter keeps its allocation until the
// importer has closed its mapping: Node closes the child's buffer before saying "done"; the
// child frees its memory only after reading that line.
import { createHash } from 'node:crypto';
import { Context, IpcMemHandle, tableFromDevice, tableToDevice } from '@cumem/interop-arrow';
import { tableFromArrays, tableToIPC } from 'apache-arrow';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeHandOff } from './adapters.js';
import { startScenario } from './python.js';

const size = 1 << 20;
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describeHandOff('legacy IPC handle and Arrow hand-off', (_entry) => {
  let context: Context;
  beforeAll(() => {
    context = new Context(0);
  });
  afterAll(() => context?.synchronize());

  it('Node -> Python: CuPy opens CudaBuffer.exportForIpc() bytes, reads and writes them', async () => {
    using buffer = context.deviceBuffer(size);
    buffer.copyFromHost(new Uint8Array(size).fill(0x55));
    const child = await startScenario({
      scenario: 'legacy-import',
      handle: base64(buffer.exportForIpc().serialize()),
      expect: 0x55,
      write: 0x66,
    });
    try {
      expect(await child.result()).toEqual({ sawExpected: true, size });
    } finally {
      child.kill();
    }
    expect(buffer.copyToHost().every((byte) => byte === 0x66)).toBe(true);
  });

  it('Python -> Node: Context.openIpcBuffer opens a CuPy allocation, reads and writes it', async () => {
    const child = await startScenario({ scenario: 'legacy-export', size, fill: 0x12, write: 0x34 });
    try {
      const { handle } = await child.receive<{ handle: string }>();
      const opened = context.openIpcBuffer(IpcMemHandle.fromBuffer(Buffer.from(handle, 'base64')));
      expect(opened.size).toBe(size);
      expect(opened.copyToHost().every((byte) => byte === 0x12)).toBe(true);
      opened.copyFromHost(new Uint8Array(size).fill(0x34));
      context.synchronize();
      opened.close();
      child.send('done');
      expect(await child.result()).toEqual({ sawNodeWrite: true });
    } finally {
      child.kill();
    }
  });

  it('Node -> Python: pyarrow reads the record batch Node serialised into device memory, byte-exact', async () => {
    const ids = Int32Array.from({ length: 1000 }, (_, i) => i * 3 - 7);
    const scores = Float64Array.from({ length: 1000 }, (_, i) => i / 8);
    const table = tableFromArrays({ id: ids, score: scores });
    const expected = tableToIPC(table, 'stream');
    using onDevice = tableToDevice(table, context);
    const child = await startScenario({
      scenario: 'arrow-import',
      handle: base64(onDevice.buffer.exportForIpc().serialize()),
      length: expected.byteLength,
    });
    try {
      const result = await child.result<{
        via: string;
        sha256: string;
        columns: Record<string, number[]>;
      }>();
      process.stderr.write(`arrow to python via ${result.via}\n`);
      expect(result.sha256).toBe(sha256(expected));
      expect(result.columns.id).toEqual([...ids]);
      expect(result.columns.score).toEqual([...scores]);
    } finally {
      child.kill();
    }
  });

  it('Python -> Node: a record batch pyarrow wrote into device memory is read by Node', async () => {
    const ids = [5, 4, 3, 2, 1, 0, -1];
    const names = ['a', 'bb', '', 'dddd', 'é', 'f', 'gg'];
    const child = await startScenario({ scenario: 'arrow-export', ids, names });
    try {
      const message = await child.receive<{ handle: string; sha256: string; length: number }>();
      const opened = context.openIpcBuffer(IpcMemHandle.fromBuffer(Buffer.from(message.handle, 'base64')));
      expect(sha256(opened.copyToHost().subarray(0, message.length))).toBe(message.sha256);
      const table = tableFromDevice(opened);
      expect([...(table.getChild('id')?.toArray() ?? [])]).toEqual(ids);
      expect(table.getChild('name')?.toJSON()).toEqual(names);
      opened.close();
      child.send('done');
      expect(await child.result()).toEqual({ done: true });
    } finally {
      child.kill();
    }
  });
});
