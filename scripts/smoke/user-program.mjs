// A user's program in a fresh project (scripts/smoke-tarballs.mjs copies it there): cumem from
// the packed tarballs, on the public reference driver, with Arrow tables through device memory.
// Prints one JSON line the smoke test checks.
import { Context, tableFromDevice, tableToDevice } from '@cumem/interop-arrow';
import { DeviceMemoryResource, useDriver } from '@cumem/memory';
import { createReferenceDriver } from '@cumem/testing';
import { tableFromArrays } from 'apache-arrow';
import * as otherArrow from 'arrow-other';

useDriver(createReferenceDriver());
const result = {};

const resource = new DeviceMemoryResource(0);
const buffer = resource.allocate(64);
try {
  buffer.copyFrom(new Uint8Array(64).fill(9));
  const back = new Uint8Array(64);
  buffer.copyTo(back);
  result.bufferRoundTrip = back.every((byte) => byte === 9);
} finally {
  buffer.close();
  resource.close();
}

const context = new Context(0);
const table = tableFromArrays({
  id: Int32Array.from([1, 2, 3, 4]),
  x: Float64Array.from([0.5, 1.5, 2.5, 3.5]),
});
const onDevice = tableToDevice(table, context);
try {
  const back = tableFromDevice(onDevice);
  result.arrowRows = back.numRows;
  result.arrowSum = [...back.getChild('x')].reduce((sum, value) => sum + value, 0);
} finally {
  onDevice.close();
}

// A table from the project's second copy of apache-arrow: refused, never an empty result.
const foreign = otherArrow.tableFromArrays({ id: Int32Array.from([1, 2, 3]) });
try {
  const device = tableToDevice(foreign, context);
  result.foreign = { accepted: true, bytes: device.buffer.size, rows: tableFromDevice(device).numRows };
} catch (error) {
  result.foreign = { accepted: false, type: error.constructor.name, message: error.message };
}
console.log(JSON.stringify(result));
