// Issue 46, "debuggable objects": `util.inspect` and `String()` of the package's objects show
// their kind and the facts a reader can act on (size, device, address, position, closed or not),
// never the driver's handles or the reference driver's internals; an imitation (an object
// inheriting from one) is described without throwing.
import { inspect } from 'node:util';
import { describeEachDriver } from '@cumem/testing/vitest';
import { tableFromArrays } from 'apache-arrow';
import { beforeAll, expect, it } from 'vitest';
import { adapters, contextWith } from '../test/support.js';
import { BufferReader } from './buffer/buffer-reader.js';
import { BufferWriter } from './buffer/buffer-writer.js';
import { IpcMemHandle } from './buffer/ipc-mem-handle.js';
import type { Context } from './context/context.js';
import { newHostBuffer } from './host/host-buffer.js';
import { type DeviceMessage, readMessage, serializeRecordBatch } from './table/device-message.js';
import { tableToDevice } from './table/device-table.js';

const table = tableFromArrays({ id: Int32Array.from([1, 2, 3]) });

describeEachDriver(adapters, 'inspect and toString of interop-arrow objects', (entry) => {
  let context: Context;
  beforeAll(() => {
    context = contextWith(entry.driver);
  });

  it('a CudaBuffer and its views: address, size, device, mutability, view, closed', () => {
    const buffer = context.deviceBuffer(64);
    const address = `0x${buffer.address.toString(16)}`;
    expect(String(buffer)).toBe(
      `CudaBuffer(address: ${address}, size: 64, device: 0, mutable: true, view: false, closed: false)`,
    );
    expect(inspect(buffer, { breakLength: Number.POSITIVE_INFINITY })).toBe(
      `CudaBuffer { address: '${address}', size: 64, device: 0, mutable: true, view: false, closed: false }`,
    );
    const view = buffer.slice(16, 8);
    expect(String(view)).toBe(
      `CudaBuffer(address: 0x${(buffer.address + 16n).toString(16)}, size: 8, device: 0, mutable: true, view: true, closed: false)`,
    );
    buffer.close();
    // Closed: still described, no getter throws.
    expect(String(buffer)).toMatch(/closed: true\)$/);
    expect(inspect(view)).toMatch(/closed: true\s*\}$/);
    expect(inspect({ a: view }, { depth: 0 })).toBe('{ a: [CudaBuffer] }');
  });

  it('a HostBuffer, a Context, a reader and a writer', () => {
    const host = newHostBuffer(32);
    expect(String(host)).toBe(
      `HostBuffer(address: 0x${host.address.toString(16)}, size: 32, device: 0, closed: false)`,
    );
    host.close();
    expect(inspect(host)).toMatch(
      /^HostBuffer \{ address: '0x[0-9a-f]+', size: 32, device: 0, closed: true\s*\}$/,
    );
    const own = context.deviceBuffer(16);
    expect(String(context)).toMatch(/^Context\(device: 0, bytesAllocated: \d+\)$/);
    const writer = new BufferWriter(own);
    writer.bufferSize = 8;
    writer.write(new Uint8Array(3));
    expect(String(writer)).toBe('BufferWriter(position: 3, size: 16, buffered: 3, closed: false)');
    writer.close();
    const reader = new BufferReader(own);
    reader.seek(5);
    expect(inspect(reader)).toBe('BufferReader { position: 5, size: 16, closed: false }');
    own.close();
  });

  it('a DeviceMessage, a DeviceTable and an IpcMemHandle', () => {
    const message = readMessage(serializeRecordBatch(table.batches[0] as never, context)) as DeviceMessage;
    expect(String(message)).toBe(
      `DeviceMessage(headerType: RecordBatch, bodyLength: ${message.bodyLength}, byteLength: ${message.byteLength})`,
    );
    const device = tableToDevice(table, context);
    expect(String(device)).toBe(
      `DeviceTable(numRows: 3, columns: 1, byteLength: ${device.byteLength}, device: 0, closed: false)`,
    );
    device.close();
    expect(inspect(device)).toMatch(/closed: true\s*\}$/);
    expect(String(IpcMemHandle.fromBuffer(new Uint8Array(8)))).toBe('IpcMemHandle(size: 0)');
  });

  it("shows neither a driver handle nor the driver's internals", () => {
    const buffer = context.deviceBuffer(64);
    for (const text of [inspect(buffer, { depth: 10, showHidden: true }), inspect(context, { depth: 10 })]) {
      expect(text).not.toMatch(/driver|handle|memory|runtime|\dn\b/i);
    }
    buffer.close();
  });

  it('describes an object inheriting from one without throwing', () => {
    const buffer = context.deviceBuffer(8);
    const heirs = [Object.create(buffer), Object.create(context), Object.create(new BufferReader(buffer))];
    expect(heirs.map((heir) => String(heir))).toEqual([
      '[CudaBuffer imitation]',
      '[Context imitation]',
      '[BufferReader imitation]',
    ]);
    for (const heir of heirs) expect(inspect(heir)).toMatch(/imitation\]$/);
    buffer.close();
  });
});
