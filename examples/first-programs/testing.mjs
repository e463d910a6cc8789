// @cumem/testing's first program: cumem code run on the reference driver, in host memory, with
// no GPU (the same code runs on a GPU with the useDriver line removed).
import { Device, DeviceMemoryResource, useDriver } from '@cumem/memory';
import { createReferenceDriver } from '@cumem/testing';

useDriver(createReferenceDriver({ deviceCount: 2, totalMemory: 1 << 30 }));
const resource = new DeviceMemoryResource(new Device(1));
const buffer = resource.allocate(1024);
try {
  buffer.copyFrom(new Uint8Array(1024).fill(7));
  const back = new Uint8Array(1024);
  buffer.copyTo(back);
  console.log(`device 1 of 2 (reference driver): read back ${back[0]}`);
} finally {
  buffer.close();
  resource.close();
}
