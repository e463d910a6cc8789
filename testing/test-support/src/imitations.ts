// Objects that imitate a real cumem object (issue 21, "duck-typed buffers"): each must be refused
// with a TypeError before any driver call by every safe API that takes the real kind.
import type { DriverCallLog } from '@cumem/testing';
import { expect } from 'vitest';

/** One imitation and what it is, for test titles. */
export interface Imitation {
  readonly what: string;
  readonly value: object;
}

/**
 * Imitations of `real` (a Buffer, CudaBuffer, StridedMemoryView, ...): a plain object with its
 * public facts copied (and `handle` / `size` naming other memory, `other`), objects whose
 * prototype is `real` with overridden `deviceId` / `handle` / `size` getters, and Proxies of it
 * (transparent and lying).
 */
export function imitationsOf(
  real: object,
  other: { handle: bigint; size: number } = { handle: 0x1000n, size: 64 },
): Imitation[] {
  const facts: Record<string, unknown> = {};
  for (const key of [
    'handle',
    'size',
    'deviceId',
    'isClosed',
    'isManaged',
    'isDeviceAccessible',
    'isHostAccessible',
    'isMapped',
    'memoryResource',
    'owner',
    'isMutable',
    'context',
    'address',
    'layout',
    'dtype',
    'buffer',
    'shape',
    'strides',
  ]) {
    try {
      facts[key] = (real as Record<string, unknown>)[key];
    } catch {
      // A getter of a closed object may throw: the imitation simply lacks that fact.
    }
  }
  const inheriting = (overrides: PropertyDescriptorMap) => Object.create(real, overrides) as object;
  return [
    { what: 'a plain object shaped like it', value: { ...facts, handle: other.handle, size: other.size } },
    { what: 'a plain object with its very facts', value: { ...facts } },
    { what: 'an object inheriting from it', value: inheriting({}) },
    {
      what: 'an object inheriting from it, deviceId overridden',
      value: inheriting({ deviceId: { get: () => 1 } }),
    },
    {
      what: 'an object inheriting from it, handle and size overridden',
      value: inheriting({ handle: { get: () => other.handle }, size: { get: () => other.size } }),
    },
    { what: 'a transparent Proxy of it', value: new Proxy(real, {}) },
    {
      what: 'a Proxy of it lying about handle, size and deviceId',
      value: new Proxy(real, {
        get(target, key, receiver) {
          if (key === 'handle') return other.handle;
          if (key === 'size') return other.size;
          if (key === 'deviceId') return 1;
          return Reflect.get(target, key, receiver);
        },
      }),
    },
  ];
}

/**
 * Hands each imitation of `real` (see {@link imitationsOf}; `other` as there) to `refuse`, which
 * asserts the refusals, and requires that none of them reached the driver: `log` (a counting
 * driver's) records no call from the start of `refuse` to its end.
 */
export function refuseImitations<T extends object>(
  log: DriverCallLog,
  real: T,
  refuse: (fake: T, what: string) => void,
  other?: { handle: bigint; size: number },
): void {
  for (const { what, value } of imitationsOf(real, other)) {
    log.reset();
    refuse(value as T, what);
    expect(log.calls, what).toEqual([]);
  }
}
