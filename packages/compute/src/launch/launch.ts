// launch(): one kernel launch on a stream, cuda.core's `launch(stream, config, kernel, *args)`.
import { CudaStateError, describeValue } from '@cumem/core-types';
import type { Stream } from '@cumem/memory';
import { bindStreamDriver, isStream } from '@cumem/memory/internal';
import { type KernelArgument, packArguments } from './argument-packing.js';
import { Kernel, notePassedLimits, passedLimits } from './kernel.js';
import { LaunchConfig } from './launch-config.js';
import { checkLaunchLimits } from './launch-limits.js';

// The device of each stream, read once (Stream.device makes a Device per read).
const ordinals = new WeakMap<Stream, number>();
function streamOrdinal(stream: Stream): number {
  let ordinal = ordinals.get(stream);
  if (ordinal === undefined) {
    ordinal = stream.device.ordinal;
    ordinals.set(stream, ordinal);
  }
  return ordinal;
}

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
  if (!isStream(stream)) throw new TypeError(`stream must be a Stream, got ${describeValue(stream)}`);
  if (stream.isClosed) throw CudaStateError.closed('Stream');
  if (!(config instanceof LaunchConfig))
    throw new TypeError(`config must be a LaunchConfig, got ${describeValue(config)}`);
  if (!(kernel instanceof Kernel))
    throw new TypeError(`kernel must be a Kernel, got ${describeValue(kernel)}`);
  const driver = bindStreamDriver(stream);
  if (driver !== kernel.driver) {
    throw new CudaStateError(
      `the stream belongs to driver ${driver.name}, the kernel to ${kernel.driver.name}`,
    );
  }
  const ordinal = streamOrdinal(stream);
  // Buffers passed are noted as used by a kernel while packed, before the driver call.
  const packed = packArguments(kernel.name, kernel.layout(), args, stream);
  const fn = kernel.launchFunctionOn(ordinal);
  // A repeat of the kernel's last launch within the limits (same config and CUfunction, which
  // belongs to one device; both immutable) skips checkLaunchLimits' map lookups.
  if (!passedLimits(kernel, config, fn)) {
    checkLaunchLimits(driver, ordinal, fn, kernel.name, config);
    notePassedLimits(kernel, config, fn);
  }
  driver.launchKernelEx(fn, config, packed.bytes, packed.offsets, stream.handle);
}
