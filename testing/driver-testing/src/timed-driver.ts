import type { Driver, DriverHandle } from '@cumem/core-types';
import { cudaError } from './reference/cuda-errors.js';

/**
 * How long the device is busy with each call, for {@link timedDriver}: per Driver member
 * (`memPrefetchBatchAsync`, `memcpyAsync`, ...), a function of the call's arguments returning
 * milliseconds. Members not named cost no device time.
 */
export type DeviceCostModel = { readonly [Member in keyof Driver]?: (...args: never[]) => number };

/** The device clock of a {@link timedDriver}, and what a test can make its events do. */
export interface DeviceClock {
  /** Device time so far, in milliseconds: the sum of the cost model over every call made. */
  readonly nowMs: number;
  /**
   * While true, `eventQuery` reports every event as not completed yet and `eventElapsedTime`
   * fails with `CUDA_ERROR_NOT_READY`, as for work still running on a real device. Default false.
   */
  holdEvents: boolean;
  /**
   * While true, `eventCreate`, `eventRecord`, `eventQuery` and `eventElapsedTime` fail with
   * `CUDA_ERROR_NOT_SUPPORTED` before reaching the inner driver. Default false.
   */
  failEvents: boolean;
}

type Method = (...args: unknown[]) => unknown;

/**
 * Wraps a driver (typically the reference driver) so that event timing is deterministic: every
 * call of a member `model` names advances a device clock by what the model says it costs,
 * `eventRecord` stamps the event with that clock, and `eventElapsedTime` returns the difference
 * of the stamps (after the inner driver checked both events, as it always does). Tests of code
 * that measures the device — the learned batch strategy of `@cumem/utils` — drive its choices
 * through `model`. Every other member is the inner driver's, called on it.
 */
export function timedDriver(inner: Driver, model: DeviceCostModel): { driver: Driver; clock: DeviceClock } {
  const clock = { nowMs: 0, holdEvents: false, failEvents: false };
  const stamps = new Map<DriverHandle, number>();
  const call = (member: keyof Driver, args: unknown[]): unknown =>
    Reflect.apply(inner[member] as Method, inner, args);
  const failing = (member: string): void => {
    if (clock.failEvents) {
      throw cudaError(`cu${member[0]!.toUpperCase()}${member.slice(1)}`, 'CUDA_ERROR_NOT_SUPPORTED');
    }
  };
  const overrides: Record<string, Method> = {
    eventCreate: (...args) => {
      failing('eventCreate');
      return call('eventCreate', args);
    },
    eventRecord: (...args) => {
      failing('eventRecord');
      call('eventRecord', args);
      stamps.set(args[0] as DriverHandle, clock.nowMs);
      return undefined;
    },
    eventQuery: (...args) => {
      failing('eventQuery');
      return (call('eventQuery', args) as boolean) && !clock.holdEvents;
    },
    eventElapsedTime: (...args) => {
      failing('eventElapsedTime');
      call('eventElapsedTime', args);
      if (clock.holdEvents) throw cudaError('cuEventElapsedTime', 'CUDA_ERROR_NOT_READY');
      return stamps.get(args[1] as DriverHandle)! - stamps.get(args[0] as DriverHandle)!;
    },
    eventDestroy: (...args) => {
      call('eventDestroy', args);
      stamps.delete(args[0] as DriverHandle);
      return undefined;
    },
  };
  for (const [member, cost] of Object.entries(model) as [keyof Driver, Method][]) {
    const before = overrides[member];
    overrides[member] = (...args) => {
      const result = before === undefined ? call(member, args) : before(...args);
      clock.nowMs += cost(...args) as number;
      return result;
    };
  }
  // Every other member runs with the inner driver as `this` (the adapters' getters and a class
  // with private fields need it): forwarders for each member of the inner driver's chain.
  const properties: PropertyDescriptorMap = {};
  for (let level: object | null = inner; level !== null && level !== Object.prototype; ) {
    for (const name of Object.getOwnPropertyNames(level)) {
      if (name === 'constructor' || name in properties) continue;
      const descriptor = Object.getOwnPropertyDescriptor(level, name)!;
      properties[name] =
        typeof descriptor.value === 'function'
          ? { value: (...args: unknown[]) => Reflect.apply(descriptor.value as Method, inner, args) }
          : { get: () => Reflect.get(inner, name, inner) };
    }
    level = Object.getPrototypeOf(level) as object | null;
  }
  for (const [key, value] of Object.entries(overrides)) properties[key] = { value };
  for (const descriptor of Object.values(properties)) descriptor.enumerable = true;
  return { driver: Object.freeze(Object.defineProperties({}, properties)) as Driver, clock };
}
