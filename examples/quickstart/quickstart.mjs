// The README's first program (Node 20+): device memory from a stream-ordered pool, filled
// from the host and read back. CI runs it from the packed tarballs on the reference driver.
import { Device, DeviceMemoryResource, deviceProperties } from '@cumem/memory';

const device = new Device(0);
console.log(`device 0: ${deviceProperties(0).name}`);
const resource = new DeviceMemoryResource(device);
const buffer = resource.allocate(1024); // device memory, from the device's pool
try {
  buffer.copyFrom(new Float32Array(256).fill(1.5)); // host -> device
  const back = new Float32Array(256);
  buffer.copyTo(back); // device -> host
  console.log(`read back ${back.length} floats, first ${back[0]}`);
} finally {
  buffer.close(); // returns the memory to the pool
  resource.close();
}
