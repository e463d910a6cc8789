// @cumem/core-types' first program: the errors every cumem package throws, told apart safely
// across copies of the package (isInstance, not instanceof).
import { CudaStateError, DriverUnavailableError, formatCudaVersion } from '@cumem/core-types';

const error = new DriverUnavailableError('no-device', 'no CUDA device');
console.log(DriverUnavailableError.isInstance(error), error.reason); // true no-device
console.log(CudaStateError.isInstance(error)); // false
console.log(formatCudaVersion(12080)); // 12.8
