// Issue 45, DLPack facts: the device a DLPack struct names is the one that can read it.
// Pageable JS memory wrapped by Buffer.fromHandle is kDLCPU (1), never kDLCUDAHost (3), which
// tells a consumer it may hand the pointer to a kernel; page-locked memory is kDLCUDAHost;
// device memory kDLCUDA (2), managed memory kDLCUDAManaged (13).
import { check, memory, setUp } from './support.mjs';

const { driver } = await setUp();
// DLManagedTensorVersioned: version (8), manager_ctx (8), deleter (8), flags (8), then
// DLTensor: data (8), device { int32 device_type, int32 device_id }.
function deviceOf(capsule) {
  const bytes = driver.readNativeMemory(capsule.pointer, 48);
  const view = new DataView(bytes.buffer, bytes.byteOffset, 48);
  return { type: view.getInt32(40, true), id: view.getInt32(44, true) };
}
const js = new Uint8Array(4096).fill(7);
const pageable = memory.Buffer.fromHandle(driver.addressOf(js), js.byteLength, { owner: js });
check(pageable.isHostAccessible && !pageable.isDeviceAccessible, 'the driver sees pageable memory');
const cases = [
  ['pageable JS memory', pageable, 1],
  ['device memory', new memory.DeviceMemoryResource(0).allocate(4096), 2],
  ['page-locked memory', new memory.LegacyPinnedMemoryResource().allocate(4096), 3],
  ['managed memory', new memory.ManagedMemoryResource().allocate(4096), 13],
];
for (const [what, buffer, type] of cases) {
  const capsule = buffer.toDLPack();
  const device = deviceOf(capsule);
  check(device.type === type, `${what}: DLPack device type ${device.type}, expected ${type}`);
  capsule.close();
  buffer.close();
}
