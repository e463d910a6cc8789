// Destroying a stream-ordered pool safely: only after the frees queued on it have run.
import type { DriverHandle } from '@cumem/core-types';
import type { DriverRuntime } from '../../runtime/driver-runtime.js';

/** Bit `ordinal` set for each device a free was queued on; {@link allDevices} from ordinal 31 up. */
export interface QueuedFrees {
  devices: number;
}

/** Every device: set for a free queued on a device whose ordinal has no bit of its own. */
export const allDevices = -1;

/**
 * Synchronizes the context of every device that frees from the pool were queued on (so no
 * cuMemFreeAsync of it is still pending), then destroys the pool. Destruction is rare, so a
 * device-wide sync here costs nothing that matters; the pool's own device alone would not do,
 * as a pinned pool's buffers are freed on any device's streams.
 */
export function destroyAfterQueuedFrees(
  runtime: DriverRuntime,
  pool: DriverHandle,
  ordinal: number,
  queuedFrees: QueuedFrees,
): void {
  const devices = queuedFrees.devices;
  if (devices !== 0) {
    for (let device = 0; device < runtime.deviceCount; device++) {
      if (devices !== allDevices && (device >= 31 || (devices & (1 << device)) === 0)) continue;
      runtime.makeCurrent(device);
      runtime.driver.contextSynchronize();
    }
    queuedFrees.devices = 0;
  }
  runtime.makeCurrent(ordinal);
  runtime.driver.memPoolDestroy(pool);
}
