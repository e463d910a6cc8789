// A Proxy of one of @cumem/interop-arrow's objects (CudaBuffer, Context, HostBuffer, the reader
// and writer, DeviceMessage, DeviceTable, IpcMemHandle), or an object inheriting from one,
// passed `instanceof` and then failed on its first private read with the engine's "Cannot read
// private member", naming neither the class nor the member. Each class now checks its brand
// (CudaBuffer.isCudaBuffer, Context.isContext, ...: one private-field test) in front of every
// public method, getter and setter: a TypeError naming the class and member, before any driver
// call, including the heirs of a CudaBuffer whose own getters name memory the program freed.
// The functions that take these objects check the brand too. The real objects keep working.

import { inspect } from 'node:util';
import {
  BufferReader,
  BufferWriter,
  Context,
  CudaBuffer,
  DeviceMessage,
  DeviceTable,
  HostBuffer,
  IpcMemHandle,
  newHostBuffer,
  readMessage,
  readRecordBatch,
  serializeRecordBatch,
  tableFromDevice,
  tableToDevice,
} from '@cumem/interop-arrow';
import { tableFromArrays } from 'apache-arrow';
import { check, expectThrows, setUp } from './support.mjs';

await setUp();
const context = new Context(0);
const freed = context.deviceBuffer(1 << 16);
const freedAddress = freed.address;
freed.close();
context.synchronize();

const table = tableFromArrays({ id: Int32Array.from([1, 2, 3]), score: Float64Array.from([1, 2, 3]) });
const buffer = context.deviceBuffer(64);
buffer.copyFromHost(new Uint8Array(64).fill(0x5a));
const reals = [
  [Context, context],
  [CudaBuffer, buffer],
  [HostBuffer, newHostBuffer(64)],
  [BufferReader, new BufferReader(buffer)],
  [BufferWriter, new BufferWriter(buffer)],
  [DeviceMessage, readMessage(serializeRecordBatch(table.batches[0], context))],
  [DeviceTable, tableToDevice(table, context)],
  [IpcMemHandle, IpcMemHandle.fromBuffer(new Uint8Array(8))],
];

function imitationsOf(real) {
  return {
    'a Proxy': new Proxy(real, {}),
    'an heir': Object.create(real),
    'an heir naming freed memory': Object.create(real, {
      address: { get: () => freedAddress },
      size: { get: () => 1 << 16 },
    }),
    'a Proxy of an heir': new Proxy(Object.create(real), {}),
  };
}

let refused = 0;
for (const [Class, real] of reals) {
  for (const [what, fake] of Object.entries(imitationsOf(real))) {
    for (const key of Reflect.ownKeys(Class.prototype)) {
      if (key === 'constructor') continue;
      const name = `${Class.name}.${String(key)} on ${what}`;
      if (key === 'toString' || key === inspect.custom) {
        // Describing an imitation answers; it never throws.
        check(
          typeof (key === 'toString' ? String(fake) : inspect(fake)) === 'string',
          `${name} describes it`,
        );
        continue;
      }
      const descriptor = Object.getOwnPropertyDescriptor(Class.prototype, key);
      // An heir's own getters shadow the class's: those are the program's, not cumem's.
      if (Object.hasOwn(fake, key)) continue;
      const error = expectThrows(TypeError, name, () => {
        const member = fake[key];
        return typeof member === 'function' ? member.call(fake) : member;
      });
      check(
        error.message.includes(`which is not a ${Class.name}`) && !error.message.includes('private member'),
        `${name}: the class's own TypeError, got "${error.message}"`,
      );
      if (descriptor.set) {
        expectThrows(TypeError, `setting ${name}`, () => {
          fake[key] = 0;
        });
      }
      refused++;
    }
  }
}
check(refused > 100, `every member was tried (${refused})`);

// The functions that take these objects: by brand, with their own messages.
const [, message] = reals.find(([Class]) => Class === DeviceMessage);
const [, device] = reals.find(([Class]) => Class === DeviceTable);
for (const fake of Object.values(imitationsOf(message))) {
  expectThrows(TypeError, 'readRecordBatch of an imitated DeviceMessage', () =>
    readRecordBatch(fake, table.schema),
  );
}
for (const fake of Object.values(imitationsOf(device))) {
  expectThrows(TypeError, 'tableFromDevice of an imitated DeviceTable', () => tableFromDevice(fake));
}
for (const fake of Object.values(imitationsOf(buffer))) {
  expectThrows(TypeError, 'copyFromDevice of an imitated CudaBuffer', () => buffer.copyFromDevice(fake));
  expectThrows(TypeError, 'a reader over an imitated CudaBuffer', () => new BufferReader(fake));
}
for (const fake of Object.values(imitationsOf(context))) {
  expectThrows(TypeError, 'tableToDevice into an imitated Context', () => tableToDevice(table, fake));
}

// The real objects still work.
const back = buffer.copyToHost({ output: 'pageable' });
check(back.length === 64 && back.every((byte) => byte === 0x5a), 'the buffer kept its bytes');
check(tableFromDevice(device, { output: 'pageable' }).numRows === 3, 'the device table reads back');
for (const [, real] of reals) real.close?.();
check(buffer.isClosed, 'the buffer closes');
console.log(`arrow proxies and heirs: ${refused} members refused them by name`);
