// Out-of-memory recovery needs what JavaScript never offers a library: a synchronous garbage
// collection, and WeakRefs that tell right away which buffers died. Both come from Node's engine
// flags and the vm module; this file keeps those tricks in one place. They run only on
// the recovery path.
import v8 from 'node:v8';
import vm from 'node:vm';

let collector: (() => void) | null | undefined;
let checkpointContext: vm.Context | undefined;

/**
 * A function that runs a full garbage collection now: `globalThis.gc` under `--expose-gc`,
 * else the one a fresh context gets after `--expose-gc` is set at run time (Node 20 and later
 * accept the flag late: the engine installs `gc` in contexts created after it). Null when neither works.
 */
export function garbageCollector(): (() => void) | null {
  if (collector !== undefined) return collector;
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') collector = () => (exposed as () => void)();
  else {
    try {
      v8.setFlagsFromString('--expose-gc');
      const late = vm.runInNewContext('gc') as unknown;
      collector = typeof late === 'function' ? (late as () => void) : null;
    } catch {
      collector = null;
    }
  }
  return collector;
}

/**
 * Lets WeakRefs made in the current job report their target's death. A `new WeakRef(x)` keeps
 * `x` alive until the job ends (the spec's KeepDuringJob), so a buffer registered moments ago
 * would survive any collection in this synchronous call. The engine clears that list at every
 * microtask checkpoint; a context whose microtasks run after each evaluation ('afterEvaluate')
 * performs one synchronously. Cost: user WeakRefs made in the same job may also report their
 * (otherwise unreachable) targets gone before the job ends.
 */
export function clearKeptObjects(): void {
  checkpointContext ??= vm.createContext({}, { microtaskMode: 'afterEvaluate' });
  vm.runInContext('0', checkpointContext);
}
