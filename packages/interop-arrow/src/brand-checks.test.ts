// Issue 45, item 6, for @cumem/interop-arrow: a Proxy of one of the package's objects, or an
// object inheriting from one, passed `instanceof` and then failed on its first private read
// with the engine's "Cannot read private member", which names neither the class nor the
// member. Each public class now has one brand test (`CudaBuffer.isCudaBuffer`,
// `Context.isContext`, ...) in front of every public method, getter and setter, and the
// functions taking these objects check the brand. The members are listed from the prototypes,
// so a member added later is tested without being named here.
import { inspect } from 'node:util';
import { useDriver } from '@cumem/memory';
import { withCountingDriver } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { tableFromArrays } from 'apache-arrow';
import { beforeAll, expect, it } from 'vitest';
import { adapters, contextWith } from '../test/support.js';
import { BufferReader } from './buffer/buffer-reader.js';
import { BufferWriter } from './buffer/buffer-writer.js';
import { CudaBuffer } from './buffer/cuda-buffer.js';
import { IpcMemHandle } from './buffer/ipc-mem-handle.js';
import { Context } from './context/context.js';
import { HostBuffer, newHostBuffer } from './host/host-buffer.js';
import { DeviceMessage, readMessage, readRecordBatch, serializeRecordBatch } from './table/device-message.js';
import { DeviceTable, tableFromDevice, tableToDevice } from './table/device-table.js';

// Members that answer for any receiver (tested in object-description.test.ts).
const describing = new Set<string | symbol>(['constructor', 'toString', inspect.custom]);

interface Branded {
  readonly type: { readonly name: string; readonly prototype: object };
  readonly real: object;
  readonly isX: (value: unknown) => boolean;
}

function imitationsOf(real: object): { what: string; value: object }[] {
  return [
    { what: 'a transparent Proxy of it', value: new Proxy(real, {}) },
    { what: 'an object inheriting from it', value: Object.create(real) as object },
  ];
}

const table = tableFromArrays({ id: Int32Array.from([1, 2, 3]), value: Float64Array.from([0.5, 1.5, 2.5]) });

describeEachDriver(adapters, 'brand checks of interop-arrow objects', (entry) => {
  let context: Context;
  let classes: Branded[];

  beforeAll(() => {
    context = contextWith(entry.driver);
    const buffer = context.deviceBuffer(64);
    const message = readMessage(serializeRecordBatch(table.batches[0] as never, context)) as DeviceMessage;
    classes = [
      { type: Context, real: context, isX: Context.isContext },
      { type: CudaBuffer, real: buffer, isX: CudaBuffer.isCudaBuffer },
      { type: HostBuffer, real: newHostBuffer(64), isX: HostBuffer.isHostBuffer },
      { type: BufferReader, real: new BufferReader(buffer), isX: BufferReader.isBufferReader },
      { type: BufferWriter, real: new BufferWriter(buffer), isX: BufferWriter.isBufferWriter },
      { type: DeviceMessage, real: message, isX: DeviceMessage.isDeviceMessage },
      { type: DeviceTable, real: tableToDevice(table, context), isX: DeviceTable.isDeviceTable },
      {
        type: IpcMemHandle,
        real: IpcMemHandle.fromBuffer(new Uint8Array(8)),
        isX: IpcMemHandle.isIpcMemHandle,
      },
    ];
  });

  it('every public method, getter and setter refuses a Proxy and an heir with a TypeError naming the class and member', () => {
    let checked = 0;
    for (const { type, real } of classes) {
      for (const { what, value } of imitationsOf(real)) {
        for (const key of Reflect.ownKeys(type.prototype)) {
          if (describing.has(key)) continue;
          const descriptor = Object.getOwnPropertyDescriptor(type.prototype, key) as PropertyDescriptor;
          const member = typeof key === 'symbol' ? `[${key.description}]` : key;
          const pattern = new RegExp(
            `^${type.name}\\.${member.replace(/[[\].]/g, '\\$&')} was called on an object \\(${type.name}\\), which is not a ${type.name} \\(a Proxy of one, or an object inheriting from one, is not accepted\\)$`,
          );
          const target = value as Record<string | symbol, unknown>;
          const use = () => {
            const found = target[key];
            return typeof found === 'function' ? (found as () => unknown).call(value) : found;
          };
          expect(use, `${type.name}.${member} on ${what}`).toThrow(pattern);
          if (descriptor.set !== undefined) {
            expect(() => {
              target[key] = 0;
            }, `setting ${type.name}.${member} on ${what}`).toThrow(pattern);
          }
          checked++;
        }
      }
    }
    // Every class has members, and each was tried on both imitations.
    expect(checked).toBeGreaterThan(2 * 8 * 3);
  });

  it('isX answers true for the real object and false for imitations and other values', () => {
    for (const { type, real, isX } of classes) {
      expect(isX(real), type.name).toBe(true);
      for (const { what, value } of imitationsOf(real))
        expect(isX(value), `${type.name}: ${what}`).toBe(false);
      for (const value of [null, undefined, 0, type.name, {}, []]) expect(isX(value), type.name).toBe(false);
    }
  });

  it('the functions taking these objects refuse Proxies and heirs by name, before any driver call', () => {
    const real = (type: unknown) => classes.find((entry) => entry.type === type)?.real as never;
    withCountingDriver(useDriver, entry.driver, (log) => {
      for (const { what, value } of imitationsOf(real(DeviceMessage))) {
        expect(() => readRecordBatch(value as DeviceMessage, table.schema), what).toThrow(
          /^source must be a CudaBuffer or a BufferReader, got an object \(DeviceMessage\)/,
        );
      }
      for (const { what, value } of imitationsOf(real(DeviceTable))) {
        expect(() => tableFromDevice(value as DeviceTable), what).toThrow(
          /^source must be a DeviceTable, CudaBuffer or BufferReader, got an object \(DeviceTable\)/,
        );
      }
      for (const { what, value } of imitationsOf(real(BufferReader))) {
        expect(() => tableFromDevice(value as BufferReader), what).toThrow(/^source must be a DeviceTable/);
        expect(() => readMessage(value as BufferReader), what).toThrow(
          /^source must be a CudaBuffer or a BufferReader/,
        );
      }
      for (const { what, value } of imitationsOf(context)) {
        expect(() => tableToDevice(table, value as Context), what).toThrow(/^context must be a Context/);
        expect(() => serializeRecordBatch(table.batches[0] as never, value as Context), what).toThrow(
          /^context must be a Context/,
        );
      }
      for (const { what, value } of imitationsOf(real(IpcMemHandle))) {
        expect(() => context.openIpcBuffer(value as IpcMemHandle), what).toThrow(
          /^handle must be an IpcMemHandle/,
        );
      }
      expect(log.calls).toEqual([]);
    });
  });

  it('a Context subclass, BufferReader subclass and BufferWriter subclass are real: they pass the brand and work', () => {
    class NamedContext extends Context {}
    class CountingReader extends BufferReader {}
    class CountingWriter extends BufferWriter {}
    const own = new NamedContext(0);
    expect(Context.isContext(own)).toBe(true);
    using buffer = own.deviceBuffer(16);
    const writer = new CountingWriter(buffer);
    expect(writer.write(new Uint8Array(16).fill(3))).toBe(16);
    writer.close();
    const reader = new CountingReader(buffer);
    expect(BufferReader.isBufferReader(reader)).toBe(true);
    expect([...reader.read(4)]).toEqual([3, 3, 3, 3]);
  });
});
