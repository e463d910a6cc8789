// State a concept folder keeps per driver runtime (a stream's known streams, a resource's
// current choice per device): each folder owns its own table, so the runtime names none of the
// folders above it and a runtime dropped with its driver takes their state with it.
import type { DriverRuntime } from './driver-runtime.js';

/**
 * A reader of per-runtime state made by `make` on the first read for a runtime and kept, in a
 * WeakMap the calling module owns, for as long as that runtime lives.
 */
export function perRuntimeState<T>(make: (runtime: DriverRuntime) => T): (runtime: DriverRuntime) => T {
  const states = new WeakMap<DriverRuntime, T>();
  return (runtime) => {
    let state = states.get(runtime);
    if (state === undefined) {
      state = make(runtime);
      states.set(runtime, state);
    }
    return state;
  };
}
