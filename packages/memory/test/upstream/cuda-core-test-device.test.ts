/**
 * cuda.core's device tests, translated case by case into an acceptance suite for `Device`,
 * `deviceCount`, `deviceProperties`, `setCurrentDevice` and `currentResource` of `@cumem/memory`.
 *
 * Upstream: NVIDIA/cuda-python, `cuda_core/tests/test_device.py`, as read at commit
 * f02b730dad535ad10102f7ec44a1d205a0048142. Each case title starts with the upstream function name.
 *
 * How cuda.core's Python maps here:
 * - `Device` in cumem is identity and location only (interned: `new Device(0) === new Device(0)`);
 *   its runtime members are functions: `device.set_current()` -> `setCurrentDevice(device)`,
 *   `device.properties` / `name` / `uuid` / `compute_capability` -> `deviceProperties(device)`,
 *   `device.allocate(n)` -> `currentResource(device).allocate(n)`, `device.create_stream()` ->
 *   `Stream.create(device)`, `device.create_event()` -> `Event.create(device)`.
 * - What upstream asks cuda.bindings directly (`cuCtxGetCurrent`, `cuDeviceGetName`, ...) is asked
 *   here through `currentDriver()`, cumem's raw driver contract.
 * - `==` / `hash()` / dict and set keys -> identity, `Map` and `Set`.
 * - cumem's documented differences: `uuid` reads `GPU-xxxxxxxx-...` (as nvidia-smi prints it;
 *   cuda.core leaves out `GPU-`), `pciBusId` is the bus number attribute (cuda.core's `pci_bus_id`
 *   is the `domain:bus:device.function` string), `String(device)` is `Device(0)`.
 *
 * Partly ported:
 * - test_device_property_types: cuda.core reports every device attribute (about 140); cumem's
 *   `deviceProperties` reports the subset its README lists. Each of those is checked for its type;
 *   the other attributes are not there to check.
 *
 * Not ported:
 * - test_device_init_disabled: cumem's DeviceProperties is a type (a frozen plain object), with no
 *   class to construct.
 * - test_to_system_device: NVML (`cuda.core.system`); cumem has no NVML layer.
 * - test_arch: cumem has no `arch` string, only `computeCapability` (tested in
 *   test_compute_capability).
 * - test_device_equality_reflexive: `===` is reflexive by the language; a case could not fail.
 * - test_context_manager_basic, test_context_manager_restores_previous,
 *   test_context_manager_exception_safety, test_context_manager_returns_device,
 *   test_context_manager_nesting_same_device, test_context_manager_deep_nesting,
 *   test_context_manager_nesting_different_devices, test_context_manager_deep_nesting_multi_gpu,
 *   test_context_manager_set_current_inside, test_context_manager_device_usable_after_exit,
 *   test_context_manager_initializes_device, test_context_manager_thread_safety: cumem's Device is
 *   no scope guard (no `using` block that makes a device current and restores the previous
 *   context on exit); the current device is set with `setCurrentDevice` only.
 */
import { DeviceAttribute } from '@cumem/core-types';
import {
  currentDriver,
  currentResource,
  Device,
  defaultStream,
  deviceCount,
  deviceProperties,
  Event,
  isLocation,
  Stream,
  setCurrentDevice,
  useDriver,
} from '@cumem/memory';
import { describeEachDriver, describeEachDriverWithDevices } from '@cumem/testing/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapters } from '../adapters.js';

/** What each member of `deviceProperties` holds: the table upstream's type and completeness cases check. */
const propertyKinds = {
  name: 'string',
  computeCapability: 'capability',
  totalMemory: 'integer',
  multiProcessorCount: 'integer',
  concurrentManagedAccess: 'boolean',
  pageableMemoryAccess: 'boolean',
  hostNumaId: 'integer',
  uuid: 'string',
  memoryPoolsSupported: 'boolean',
  managedMemory: 'boolean',
  unifiedAddressing: 'boolean',
  canMapHostMemory: 'boolean',
  pciBusId: 'integer',
  pciDeviceId: 'integer',
  memoryPoolSupportedHandleTypes: 'integer',
  hostMemoryPoolsSupported: 'boolean',
  hostNumaMemoryPoolsSupported: 'boolean',
} as const;

type PropertyKind = (typeof propertyKinds)[keyof typeof propertyKinds];

function hasKind(value: unknown, kind: PropertyKind): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isSafeInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'capability':
      return Array.isArray(value) && value.length === 2 && value.every((part) => Number.isSafeInteger(part));
  }
}

describe('cuda.core test_device.py: Device identity (no driver involved)', () => {
  it('test_device_equality_same_id: Device(0) is one interned object', () => {
    expect(new Device(0)).toBe(new Device(0));
    expect(new Device()).toBe(new Device(0));
  });

  it('test_device_type_safety: values of other kinds are not devices, and comparing never throws', () => {
    const device = new Device(0);
    for (const other of ['not a device', 123, null, undefined, { ordinal: 0 }]) {
      expect(Device.isInstance(other)).toBe(false);
      expect(isLocation(other)).toBe(false);
      expect(Object.is(device, other)).toBe(false);
    }
    expect(Device.isInstance(device)).toBe(true);
  });

  it('test_device_hash_consistency: a Device cannot change its ordinal (the key stays the same)', () => {
    const device = new Device(0);
    expect(Object.isFrozen(device)).toBe(true);
    expect(() => {
      (device as { ordinal: number }).ordinal = 1;
    }).toThrow(TypeError);
    expect(device.ordinal).toBe(0);
  });

  it('test_device_equality_same_id_hash: Device(0) reached twice is the same key', () => {
    const first = new Device(0);
    const second = new Device(0);
    expect(first).toBe(second);
    const keyed = new Map<Device, string>([[first, 'first']]);
    expect(keyed.get(second)).toBe('first');
  });

  it('test_device_dict_key: a Map keyed by Device(0) finds its entry through a new Device(0)', () => {
    const cache = new Map<Device, string>([[new Device(0), 'gpu0_data']]);
    expect(cache.get(new Device(0))).toBe('gpu0_data');
  });

  it('test_device_set_membership: Device(0) added twice is one Set member', () => {
    const devices = new Set<Device>([new Device(0)]);
    devices.add(new Device(0));
    expect(devices.size).toBe(1);
  });

  it('test_device_repr: String(Device(0)) names the device (cumem’s form: Device(0))', () => {
    expect(String(new Device(0)).startsWith('Device(0')).toBe(true);
  });
});

describeEachDriver(adapters, 'cuda.core test_device.py', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  describe('current device', () => {
    it('test_device_set_current: setCurrentDevice binds a context where none was current', () => {
      const driver = currentDriver();
      // Start as upstream does, with no context current; setCurrentDevice always binds again
      // (the README's way to resync after native code changed the thread's context).
      driver.contextSetCurrent(0n);
      expect(driver.contextGetCurrent()).toBe(0n);
      setCurrentDevice(new Device(0));
      expect(driver.contextGetCurrent()).not.toBe(0n);
      expect(driver.contextGetDevice()).toBe(0);
    });

    it('test_device_id: each device made current is the device the driver reports current', () => {
      const driver = currentDriver();
      const count = deviceCount();
      expect(count).toBeGreaterThan(0);
      try {
        for (let ordinal = 0; ordinal < count; ordinal++) {
          const device = new Device(ordinal);
          setCurrentDevice(device);
          expect(driver.contextGetDevice()).toBe(device.ordinal);
          using stream = Stream.create();
          expect(stream.device).toBe(device);
        }
      } finally {
        setCurrentDevice(0);
      }
    });
  });

  describe('allocation, streams and events', () => {
    it('test_device_alloc: the device’s current resource allocates 1024 bytes on it', () => {
      const device = new Device(0);
      setCurrentDevice(device);
      using buffer = currentResource(device).allocate(1024);
      defaultStream(device).sync();
      expect(buffer.handle).not.toBe(0n);
      expect(buffer.size).toBe(1024);
      expect(buffer.deviceId).toBe(device.ordinal);
    });

    it('test_device_alloc_zero_bytes: a 0-byte allocation has size 0 and a handle >= 0', () => {
      const device = new Device(0);
      setCurrentDevice(device);
      using buffer = currentResource(device).allocate(0);
      defaultStream(device).sync();
      expect(buffer.handle >= 0n).toBe(true);
      expect(buffer.size).toBe(0);
      expect(buffer.deviceId).toBe(device.ordinal);
    });

    it('test_device_create_stream: Stream.create(device) gives a stream with a handle', () => {
      using stream = Stream.create(new Device(0));
      expect(stream).toBeDefined();
      expect(stream.handle).not.toBe(0n);
    });

    it('test_device_create_event: Event.create(device) gives an event with a handle', () => {
      using event = Event.create(new Device(0));
      expect(event).toBeDefined();
      expect(event.handle).not.toBe(0n);
    });
  });

  describe('properties', () => {
    it('test_pci_bus_id: pciBusId is the driver’s PCI bus id attribute', () => {
      const properties = deviceProperties(new Device(0));
      const driver = currentDriver();
      expect(properties.pciBusId).toBe(driver.deviceGetAttribute(DeviceAttribute.PciBusId, 0));
      expect(properties.pciDeviceId).toBe(driver.deviceGetAttribute(DeviceAttribute.PciDeviceId, 0));
    });

    it('test_uuid: uuid is the driver’s 16 bytes as GPU-8-4-4-4-12 hex (cumem keeps nvidia-smi’s GPU- prefix)', () => {
      const bytes = currentDriver().deviceGetUuid(0);
      expect(bytes.length).toBe(16);
      const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
      const expected = `GPU-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      expect(deviceProperties(new Device(0)).uuid).toBe(expected);
    });

    it('test_name: name is the driver’s device name', () => {
      expect(deviceProperties(0).name).toBe(currentDriver().deviceGetName(0));
    });

    it('test_compute_capability: computeCapability is [major, minor] of the driver’s attributes', () => {
      const driver = currentDriver();
      expect(deviceProperties(new Device(0)).computeCapability).toEqual([
        driver.deviceGetAttribute(DeviceAttribute.ComputeCapabilityMajor, 0),
        driver.deviceGetAttribute(DeviceAttribute.ComputeCapabilityMinor, 0),
      ]);
    });

    it.each(Object.entries(propertyKinds))('test_device_property_types: %s is a %s', (name, kind) => {
      const properties = deviceProperties(new Device(0)) as unknown as Record<string, unknown>;
      expect(hasKind(properties[name], kind)).toBe(true);
    });

    it('test_device_properties_complete: deviceProperties has exactly the members of the table', () => {
      const properties = deviceProperties(new Device(0));
      expect(Object.keys(properties).sort()).toEqual(Object.keys(propertyKinds).sort());
    });
  });
});

describeEachDriverWithDevices(adapters, 2, 'cuda.core test_device.py, two devices', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('test_device_inequality_different_id: Device(0) and Device(1) differ, and streams land on each', () => {
    const first = new Device(0);
    const second = new Device(1);
    expect(first).not.toBe(second);
    using onFirst = Stream.create(first);
    using onSecond = Stream.create(second);
    expect(onFirst.device).toBe(first);
    expect(onSecond.device).toBe(second);
  });

  it('test_device_inequality_different_id_hash: Device(0) and Device(1) are different keys', () => {
    const keyed = new Map<Device, string>([
      [new Device(0), 'gpu0'],
      [new Device(1), 'gpu1'],
    ]);
    expect(keyed.size).toBe(2);
    expect(keyed.get(new Device(1))).toBe('gpu1');
    expect(deviceProperties(1).uuid).not.toBe(deviceProperties(0).uuid);
  });
});
