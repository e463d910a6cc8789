// CommonJS: cumem is ESM-only, and require() loads it on Node >= 20.19 (require(esm)), the
// engines floor. The README's CommonJS section; the smoke test runs it in each project.
const { Device, DeviceMemoryResource, useDriver } = require('@cumem/memory');
const { createReferenceDriver } = require('@cumem/testing');

useDriver(createReferenceDriver());
const resource = new DeviceMemoryResource(new Device(0));
const buffer = resource.allocate(16);
buffer.copyFrom(new Uint8Array(16).fill(3));
const back = new Uint8Array(16);
buffer.copyTo(back);
buffer.close();
resource.close();
console.log(JSON.stringify({ required: true, value: back[0] }));
