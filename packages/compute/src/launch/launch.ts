// launch(): one kernel launch on a stream, cuda.core's `launch(stream, config, kernel, *args)`.
import { CudaStateError, notBranded } from '@cumem/core-types';
import { Stream } from '@cumem/memory';
import { bindStreamDriver, openStreamFacts } from '@cumem/memory/internal';
import { Kernel } from '../kernel/kernel.js';
import { type KernelArgument, packArguments } from './argument-packing.js';
import { LaunchConfig } from './launch-config.js';
import { checkLaunchLimits } from './launch-limits.js';

/**
 * Queues `kernel` on `stream` with `config` and `args` (`cuLaunchKernelEx`); returns at once.
 * Arguments are checked and packed into one parameter buffer before any driver call: their count
 * and sizes against what the driver reports of the kernel (CUDA 12.4 drivers and newer), buffers
 * for being open and reachable from the stream's device, the geometry against the device's and
 * kernel's limits. Buffers passed are not freed before the kernel has run, even if closed or
 * dropped right after this call (their free is ordered after the work queued on every stream).
 *
 * **Unsafe:** a kernel runs code cumem cannot check: it can read or write any memory of its
 * context, also past the buffers it was given, and a fault (an illegal address) poisons the
 * context for the rest of the process, as in C. cumem guarantees what it passes (open,
 * reachable buffers; arguments of the sizes the kernel declares), not what the kernel does.
 * @throws TypeError for arguments of no kernel type (a plain number names the wrapper to use),
 *   RangeError for wrong counts, sizes or limits, CudaStateError for closed objects or a stream
 *   of another driver, NotSupportedError for clusters on a device without them, CudaError from
 *   the driver (`call` `'cuLaunchKernelEx'`; faults surface at the next synchronization).
 */
export function launch(
  stream: Stream,
  config: LaunchConfig,
  kernel: Kernel,
  ...args: KernelArgument[]
): void {
  if (!Stream.isStream(stream)) throw notBranded('stream', 'Stream', stream);
  // Refused when closed. Read from the stream's own fields, not its public getters, which each
  // check the brand again.
  const { ordinal } = openStreamFacts(stream);
  // By brand, not instanceof: a Proxy of a Kernel or an object inheriting from a LaunchConfig
  // passes instanceof, and the launch reads their state.
  if (!LaunchConfig.isLaunchConfig(config)) throw notBranded('config', 'LaunchConfig', config);
  if (!Kernel.isKernel(kernel)) throw notBranded('kernel', 'Kernel', kernel);
  const driver = bindStreamDriver(stream);
  if (driver !== kernel.driver) {
    throw new CudaStateError(
      `the stream belongs to driver ${driver.name}, the kernel to ${kernel.driver.name}`,
    );
  }
  // Buffers passed are noted as used by a kernel while packed, before the driver call.
  const packed = packArguments(kernel.name, kernel.layout(), args, stream);
  const fn = kernel.launchFunctionOn(ordinal);
  checkLaunchLimits(driver, ordinal, fn, kernel.name, config);
  // Asked again: an argument's getter, called while the arguments were packed, may have closed it.
  const { streamHandle } = openStreamFacts(stream);
  driver.launchKernelEx(fn, config, packed.bytes, packed.offsets, streamHandle);
}
