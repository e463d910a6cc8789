import type { Driver } from '@cumem/core-types';

/** The calls a {@link countingDriver} has seen, in order, by member name. */
export interface DriverCallLog {
  readonly calls: string[];
  /** Forget the calls seen so far. */
  reset(): void;
}

/** Members the contract documents as "not a driver call": reaching them is not counted. */
const notDriverCalls: ReadonlySet<PropertyKey> = new Set([
  'addressOf',
  'hostView',
  'detachView',
  'duplicateFileDescriptor',
  'readNativeMemory',
  'callNativeFunction',
]);

type Method = (...args: unknown[]) => unknown;

/**
 * Wraps a driver so a test can assert what reached it — in particular that bad input is
 * refused before any driver call. Method calls are logged by member name; property reads
 * (`name`, `capabilities`, ...) and `addressOf` / `hostView` / `detachView` /
 * `duplicateFileDescriptor` / `readNativeMemory` / `callNativeFunction` (not driver calls) are not.
 *
 * Both adapters build their Driver one way (driver-kit's assembleDriver: a frozen object of
 * own members), so there is one case: a Proxy over a frozen target may return only the
 * target's own values, so the Proxy's target is an empty object of its own and every read is
 * forwarded, getters running with the inner driver as `this`. The wrapper function of a method
 * is made once per member, so
 * a call through the wrapper allocates nothing beyond the inner call.
 * @param observe called before each logged call with its member name and arguments (a test
 *   that asserts on what a call carried, e.g. the sizes of copies, in order).
 */
export function countingDriver(
  inner: Driver,
  observe?: (name: string, args: readonly unknown[]) => void,
): { driver: Driver; log: DriverCallLog } {
  const calls: string[] = [];
  const log: DriverCallLog = {
    calls,
    reset() {
      calls.length = 0;
    },
  };
  // Keyed by member; remembers which inner function the wrapper calls, so a member that is
  // replaced on the inner driver (a test's own Proxy, say) gets a fresh wrapper.
  const wrappers = new Map<PropertyKey, { original: Method; wrapper: Method }>();
  const wrap = (property: PropertyKey, original: Method): Method => {
    const cached = wrappers.get(property);
    if (cached?.original === original) return cached.wrapper;
    const counted = typeof property === 'string' && !notDriverCalls.has(property);
    const wrapper: Method = counted
      ? (...args) => {
          calls.push(property);
          observe?.(property, args);
          return Reflect.apply(original, inner, args);
        }
      : (...args) => Reflect.apply(original, inner, args);
    wrappers.set(property, { original, wrapper });
    return wrapper;
  };
  const forward = (property: PropertyKey, value: unknown): unknown =>
    typeof value === 'function' ? wrap(property, value as Method) : value;

  const handler: ProxyHandler<object> = {
    // The inner driver is the receiver: getters run with it as `this`.
    get: (_target, property) => forward(property, Reflect.get(inner, property, inner)),
    has: (_target, property) => Reflect.has(inner, property),
    ownKeys: () => Reflect.ownKeys(inner),
    getOwnPropertyDescriptor(_target, property) {
      const descriptor = Reflect.getOwnPropertyDescriptor(inner, property);
      if (descriptor === undefined) return undefined;
      // Reported configurable: the empty target has no such property, and a Proxy may only
      // report a non-configurable one that its target really has.
      if ('value' in descriptor)
        return { ...descriptor, value: forward(property, descriptor.value), configurable: true };
      return { ...descriptor, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(inner),
    // Writes would land on the empty target and never be seen by reads: refuse them.
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  };
  return { driver: new Proxy({}, handler) as Driver, log };
}
