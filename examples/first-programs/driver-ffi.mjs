// @cumem/driver-ffi's first program: the driver version and the devices, or why there are none.
// Most programs use @cumem/memory, which picks an adapter itself; this calls one directly.
import { DriverUnavailableError, formatCudaVersion } from '@cumem/core-types';
import { createDriver } from '@cumem/driver-ffi';

const driver = createDriver();
try {
  console.log(`CUDA ${formatCudaVersion(driver.driverVersion)}, ${driver.deviceGetCount()} device(s)`);
} catch (error) {
  if (!DriverUnavailableError.isInstance(error)) throw error;
  console.log(`no driver here (${error.reason}): ${error.message.split('\n')[0]}`);
}
