// The non-blocking waits (streamSynchronizeAsync, eventSynchronizeAsync) poll cuStreamQuery /
// cuEventQuery from the event loop instead of running cuStreamSynchronize on a koffi worker
// thread. A koffi async call settles through node-addon-api's AsyncWorker: when a worker_threads
// Worker was terminated while such a call ran, settling it into the dead environment aborted the
// whole process (FATAL ERROR ... napi_throw). Timers are simply dropped with their environment,
// so a terminated Worker's wait just stops, and nothing native is left in flight.
//
// Latency. A query is one cheap koffi call. The first one runs at once, so finished work resolves
// in the same turn. Then, for `spinMs`, the wait re-polls on every event-loop turn (setImmediate:
// other callbacks still run in between), which catches short work soon after it ends. After that
// it sleeps on timers whose period grows with the wait's age (the `setTimeout` below), so a wait
// ends within a small fraction of its own length after the work, and a pending wait costs a
// bounded number of queries a second.

/** Returns the CUresult of one query: 0 done, 600 (CUDA_ERROR_NOT_READY) pending, else failed. */
export type CompletionQuery = () => number;

export const CUDA_ERROR_NOT_READY = 600;
const spinMs = 0.2;

/**
 * Resolves once `query` reports completion; rejects with `failure(result)` when it reports an
 * error. `settled` runs once, after either.
 */
export function pollUntilDone(
  query: CompletionQuery,
  failure: (result: number) => Error,
  settled?: () => void,
): Promise<void> {
  let first: number;
  try {
    first = query();
  } catch (error) {
    settled?.();
    return Promise.reject(error);
  }
  if (first !== CUDA_ERROR_NOT_READY) {
    settled?.();
    return first === 0 ? Promise.resolve() : Promise.reject(failure(first));
  }
  const started = performance.now();
  return new Promise<void>((resolve, reject) => {
    const poll = () => {
      let result: number;
      try {
        result = query();
      } catch (error) {
        settled?.();
        reject(error);
        return;
      }
      if (result === CUDA_ERROR_NOT_READY) {
        const waited = performance.now() - started;
        if (waited < spinMs) setImmediate(poll);
        else setTimeout(poll, waited < 10 ? 1 : waited < 100 ? 2 : 4);
        return;
      }
      settled?.();
      if (result === 0) resolve();
      else reject(failure(result));
    };
    setImmediate(poll);
  });
}
