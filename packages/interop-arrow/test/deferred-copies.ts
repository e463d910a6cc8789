// A driver whose device-to-host copies land only when the program waits for them, as on a GPU
// (the reference driver copies at once, so reading a byte before its copy finished would go
// unseen there). Shared by the test files only.
import type { Driver, DriverHandle } from '@cumem/core-types';

type Method = (...args: unknown[]) => unknown;

/** A {@link deferredCopies} driver's queue. */
export interface CopyQueue {
  /** Copies queued and not yet landed. */
  readonly pending: number;
  /** Copies queued so far. */
  readonly queued: number;
}

// Members that neither wait for a stream nor touch memory a queued copy uses: they leave the
// queue alone. Every other member lands every queued copy first (a conservative order).
const leaveQueued: ReadonlySet<PropertyKey> = new Set([
  'addressOf',
  'hostView',
  'eventCreate',
  'eventDestroy',
  'contextGetCurrent',
  'contextSetCurrent',
  'contextPushCurrent',
  'contextPopCurrent',
  'devicePrimaryCtxRetain',
]);

/**
 * Wraps `inner` so that `memcpyDtoHAsync` / `memcpyAsync` calls are queued and run (on `inner`)
 * only when their stream is synchronized, an event recorded after them is synchronized or
 * queried as done, or any other driver call comes (see `leaveQueued`).
 */
export function deferredCopies(inner: Driver): { driver: Driver; queue: CopyQueue } {
  const queue: { stream: DriverHandle; run: () => void; done: boolean }[] = [];
  const marks = new Map<DriverHandle, { stream: DriverHandle; through: number }>();
  const land = (stream: DriverHandle | null, through = queue.length): void => {
    for (let i = 0; i < through; i++) {
      const copy = queue[i];
      if (copy && !copy.done && (stream === null || copy.stream === stream)) {
        copy.done = true;
        copy.run();
      }
    }
  };
  const call = (name: PropertyKey, args: unknown[]): unknown =>
    Reflect.apply(Reflect.get(inner, name, inner) as Method, inner, args);
  const overrides: Record<string, Method> = {
    memcpyDtoHAsync: (...args) => {
      queue.push({ stream: args[2] as DriverHandle, run: () => call('memcpyDtoHAsync', args), done: false });
    },
    memcpyAsync: (...args) => {
      queue.push({ stream: args[3] as DriverHandle, run: () => call('memcpyAsync', args), done: false });
    },
    eventRecord: (...args) => {
      marks.set(args[0] as DriverHandle, { stream: args[1] as DriverHandle, through: queue.length });
      return call('eventRecord', args);
    },
    eventSynchronize: (...args) => {
      const mark = marks.get(args[0] as DriverHandle);
      if (mark) land(mark.stream, mark.through);
      return call('eventSynchronize', args);
    },
    eventQuery: (...args) => {
      const mark = marks.get(args[0] as DriverHandle);
      if (mark && queue.slice(0, mark.through).some((c) => !c.done && c.stream === mark.stream)) return false;
      return call('eventQuery', args);
    },
    streamSynchronize: (...args) => {
      land(args[0] as DriverHandle);
      return call('streamSynchronize', args);
    },
  };
  const get = (property: PropertyKey): unknown => {
    const value = Reflect.get(inner, property, inner);
    if (typeof value !== 'function') return value;
    const override = typeof property === 'string' ? overrides[property] : undefined;
    if (override) return override;
    if (leaveQueued.has(property)) return (...args: unknown[]) => call(property, args);
    return (...args: unknown[]) => {
      land(null);
      return call(property, args);
    };
  };
  const driver = new Proxy(
    {},
    {
      get: (_target, property) => get(property),
      has: (_target, property) => Reflect.has(inner, property),
      getPrototypeOf: () => Reflect.getPrototypeOf(inner),
    },
  ) as Driver;
  return {
    driver,
    queue: {
      get pending() {
        return queue.filter((copy) => !copy.done).length;
      },
      get queued() {
        return queue.length;
      },
    },
  };
}
