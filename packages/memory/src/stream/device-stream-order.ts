// Work on memory of one device, asked for on a stream of another. The copy engines of the
// stream's device may not reach that memory (pool memory of another device needs
// cuMemPoolSetAccess), so the work runs on the memory's own device, in the stream's order: that
// device's default stream first waits for what was queued on `stream`, and `stream` then waits
// for the work. Only taken when the devices differ; never on the same-device hot path.
import type { DriverRuntime } from '../runtime/driver-runtime.js';
import { runtimeDefaultStream, type Stream } from './stream.js';

/** Runs `work(own)` on device `device`'s default stream, ordered as if it had been queued on `stream`. */
export function inStreamOrderOn(
  runtime: DriverRuntime,
  stream: Stream,
  device: number,
  work: (own: Stream) => void,
): void {
  const own = runtimeDefaultStream(runtime, device);
  own.wait(stream);
  work(own);
  stream.wait(own);
}
