import { CudaError, type Driver, type DriverOptions, StreamFlags } from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import { driverConformanceSuite } from './conformance/index.js';
import { countingDriver } from './counting-driver.js';
import { createReferenceDriver } from './reference-driver.js';

// Small fakes with the shapes of the real adapters, built over the reference driver. Wrapping
// only the reference driver (a class without #private fields, not frozen) hid the first GPU
// run's failures: both shapes broke the Proxy countingDriver used to be.

type Method = (...args: unknown[]) => unknown;
/** Read by getters in both adapters (they load libcuda lazily). */
const getterMembers = ['driverVersion', 'capabilities'] as const;

/** Every method of `driver`, own or inherited. */
function methodNames(driver: Driver): string[] {
  const names = new Set<string>();
  for (let level: object | null = driver; level && level !== Object.prototype; ) {
    for (const name of Object.getOwnPropertyNames(level)) {
      const descriptor = Object.getOwnPropertyDescriptor(level, name);
      if (name !== 'constructor' && typeof descriptor?.value === 'function') names.add(name);
    }
    level = Object.getPrototypeOf(level);
  }
  return [...names];
}

/** The N-API adapter's shape: a frozen plain object of functions, with getters for lazy members. */
function frozenDriver(inner: Driver): Driver {
  const members: Record<string, unknown> = {
    name: `${inner.name} (frozen)`,
    contractVersion: inner.contractVersion,
  };
  for (const member of getterMembers) {
    Object.defineProperty(members, member, { get: () => inner[member], enumerable: true });
  }
  for (const name of methodNames(inner)) {
    const method = (inner as unknown as Record<string, Method>)[name] as Method;
    members[name] = (...args: unknown[]) => method.apply(inner, args);
  }
  return Object.freeze(members) as unknown as Driver;
}

/** The FFI adapter's shape: a class instance whose getters and methods read a #private field. */
class PrivateFieldsDriver {
  readonly #inner: Driver;
  readonly name: string;
  readonly contractVersion: number;

  constructor(inner: Driver) {
    this.#inner = inner;
    this.name = `${inner.name} (#private)`;
    this.contractVersion = inner.contractVersion;
  }
  get driverVersion(): number {
    return this.#inner.driverVersion;
  }
  get capabilities(): Driver['capabilities'] {
    return this.#inner.capabilities;
  }
  /** Throws a TypeError unless `self` really is an instance, exactly as `this.#state` does in FfiDriver. */
  static invoke(self: PrivateFieldsDriver, name: string, args: unknown[]): unknown {
    const inner = self.#inner as unknown as Record<string, Method>;
    return (inner[name] as Method).apply(self.#inner, args);
  }
}

function privateFieldsDriver(inner: Driver): Driver {
  for (const name of methodNames(inner)) {
    if (Object.hasOwn(PrivateFieldsDriver.prototype, name)) continue;
    Object.defineProperty(PrivateFieldsDriver.prototype, name, {
      value(this: PrivateFieldsDriver, ...args: unknown[]) {
        return PrivateFieldsDriver.invoke(this, name, args);
      },
    });
  }
  return new PrivateFieldsDriver(inner) as unknown as Driver;
}

// Each with the error the first GPU run saw from the Proxy over the adapter itself.
const shapes = [
  { shape: 'frozen object (N-API shape)', make: frozenDriver, failure: /non-configurable/ },
  { shape: 'class with #private fields (FFI shape)', make: privateFieldsDriver, failure: /private member/ },
] as const;

/** What countingDriver used to be: a Proxy over the driver itself, calling with the Proxy as receiver. */
function naiveCountingProxy(inner: Driver): Driver {
  return new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (...args: unknown[]) => value.apply(target, args) : value;
    },
  });
}

for (const { shape, make, failure } of shapes) {
  describe(`countingDriver over a ${shape}`, () => {
    it('the fake has the shape that broke a Proxy over the driver itself', () => {
      const naive = naiveCountingProxy(make(createReferenceDriver()));
      expect(() => [naive.capabilities, naive.deviceGetCount()]).toThrow(failure);
    });

    it('counts driver calls in order, not property reads, addressOf or hostView', () => {
      const { driver, log } = countingDriver(make(createReferenceDriver()));
      expect(driver.capabilities.hostMemoryPools).toBe(true);
      expect(driver.driverVersion).toBe(13000);
      expect(driver.name).toContain('reference');
      const context = driver.primaryContextRetain(0);
      driver.contextSetCurrent(context);
      const stream = driver.streamCreate(StreamFlags.NonBlocking, 0);
      const pointer = driver.memAlloc(16);
      const data = new Uint8Array(16).map((_, index) => index + 1);
      driver.memcpyAsync(pointer, driver.addressOf(data), 16, stream);
      const back = new Uint8Array(16);
      driver.memcpyDtoH(back, pointer);
      expect(back).toEqual(data);
      const host = driver.memHostAlloc(16, 0);
      driver.memcpyAsync(host, pointer, 16, stream);
      expect(driver.hostView(host, 16)).toEqual(data);
      expect(log.calls).toEqual([
        'primaryContextRetain',
        'contextSetCurrent',
        'streamCreate',
        'memAlloc',
        'memcpyAsync',
        'memcpyDtoH',
        'memHostAlloc',
        'memcpyAsync',
      ]);
      log.reset();
      expect(log.calls).toEqual([]);
      // A failing call is counted too, and its CudaError comes through unchanged.
      expect(() => driver.memFree(host)).toThrow(CudaError);
      expect(log.calls).toEqual(['memFree']);
      driver.memFreeHost(host);
      driver.memFree(pointer);
      driver.streamDestroy(stream);
      driver.primaryContextRelease(0);
    });

    it('reads like the inner driver: same members, stable method identity, writes refused', () => {
      const inner = make(createReferenceDriver());
      const { driver } = countingDriver(inner);
      expect(driver.memAlloc).toBe(driver.memAlloc);
      expect(driver.addressOf).toBe(driver.addressOf);
      expect('memPoolCreate' in driver).toBe(true);
      expect('notAMember' in driver).toBe(false);
      expect(Object.keys(driver)).toEqual(Object.keys(inner));
      expect(Object.getPrototypeOf(driver)).toBe(Object.getPrototypeOf(inner));
      const own = Object.getOwnPropertyDescriptor(driver, 'name');
      expect(own?.value).toBe(inner.name);
      expect(() => {
        (driver as unknown as Record<string, unknown>).name = 'other';
      }).toThrow(TypeError);
      expect(driver.name).toBe(inner.name);
    });
  });

  // The whole contract, through the wrapper over each shape.
  driverConformanceSuite(
    `reference, counted ${shape}`,
    (options?: DriverOptions) => countingDriver(make(createReferenceDriver(options))).driver,
  );
}
