// The contract's argument rules, the same in both adapters: a size_t argument is a non-negative
// safe integer (core-types' checkSize, the addon's ReadSize), a pointer or handle a bigint in
// [0, 2**64) or a non-negative safe-integer number (checkAddress, ReadAddress), a C int (flags,
// attributes, an advice, a location's type and id, a device ordinal) an integer from -2**31 to
// 2**32 - 1 (checkInt32, ReadInt). Anything else is
// a TypeError or RangeError before any driver call. The FFI adapter used to pass many of these
// to koffi as they came: 1.5 bytes became 1 (memAlloc allocated one byte), -1 became 2**64 - 1,
// NaN became 0, and -1n a pointer or stream of 2**64 - 1 (which the fake dereferences).
import { type Driver, MemLocationType } from '@cumem/core-types';
import { expect, it } from 'vitest';
import { describeOverFake } from './fake-harness.js';

const badSizes: unknown[] = [-1, 1.5, Number.NaN, 2 ** 53, Number.POSITIVE_INFINITY, '64', 64n];
const badInts: unknown[] = [1.5, Number.NaN, 2 ** 32, -(2 ** 31) - 1, 'x', undefined, 1n];
const badPointers: unknown[] = [-1n, 2n ** 64n, -(2n ** 64n) + 4096n, -1, 1.5, 'x'];

const device = { type: MemLocationType.Device, id: 0 } as const;
const chunk = 2 * 1024 * 1024;
const properties = {
  allocationType: 1,
  requestedHandleTypes: 0,
  location: device,
  gpuDirectRdmaCapable: false,
  usage: 0,
} as const;

type Member = (driver: Driver, value: never, memory: { managed: bigint; device: bigint }) => unknown;

/** Members with a size_t argument: the call with `value` in that place, valid elsewhere. */
const sizeMembers: Record<string, Member> = {
  memAlloc: (d, z) => d.memAlloc(z),
  memHostAlloc: (d, z) => d.memHostAlloc(z, 0),
  memAllocManaged: (d, z) => d.memAllocManaged(z, 1),
  memcpyAsync: (d, z, m) => d.memcpyAsync(m.device, m.managed, z, 0n),
  memsetD8Async: (d, z, m) => d.memsetD8Async(m.device, 1, z, 0n),
  memsetD16Async: (d, z, m) => d.memsetD16Async(m.device, 1, z, 0n),
  memsetD32Async: (d, z, m) => d.memsetD32Async(m.device, 1, z, 0n),
  memAdvise: (d, z, m) => d.memAdvise(m.managed, z, 1, device),
  memPrefetchAsync: (d, z, m) => d.memPrefetchAsync(m.managed, z, device, 0n),
  memRangeGetAttribute: (d, z, m) => d.memRangeGetAttribute(m.managed, z, 1),
  memRangeGetAccessedBy: (d, z, m) => d.memRangeGetAccessedBy(m.managed, z),
  'memAddressReserve size': (d, z) => d.memAddressReserve(z, 0, 0n),
  'memAddressReserve alignment': (d, z) => d.memAddressReserve(chunk, z, 0n),
  memAddressFree: (d, z) => d.memAddressFree(0x7f0000000000n, z),
  memCreate: (d, z) => d.memCreate(z, properties),
  'memMap size': (d, z) => d.memMap(0x7f0000000000n, z, 0, 1n),
  'memMap offset': (d, z) => d.memMap(0x7f0000000000n, chunk, z, 1n),
  memUnmap: (d, z) => d.memUnmap(0x7f0000000000n, z),
  memSetAccess: (d, z) => d.memSetAccess(0x7f0000000000n, z, [{ location: device, flags: 3 }]),
  hostView: (d, z) => d.hostView(0x1000n, z),
  memPoolTrimTo: (d, z) => d.memPoolTrimTo(0x10n, z),
};

/** Members with a pointer or handle argument the driver alone would judge. */
const pointerMembers: Record<string, Member> = {
  memFree: (d, p) => d.memFree(p),
  memFreeHost: (d, p) => d.memFreeHost(p),
  memAdvise: (d, p) => d.memAdvise(p, 64, 1, device),
  memPrefetchAsync: (d, p) => d.memPrefetchAsync(p, 64, device, 0n),
  memRangeGetAccessedBy: (d, p) => d.memRangeGetAccessedBy(p, 64),
  'memAddressReserve hint': (d, p) => d.memAddressReserve(chunk, 0, p),
  memAddressFree: (d, p) => d.memAddressFree(p, chunk),
  memRelease: (d, p) => d.memRelease(p),
  'memMap pointer': (d, p) => d.memMap(p, chunk, 0, 1n),
  'memMap handle': (d, p) => d.memMap(0x7f0000000000n, chunk, 0, p),
  memUnmap: (d, p) => d.memUnmap(p, chunk),
  memSetAccess: (d, p) => d.memSetAccess(p, chunk, [{ location: device, flags: 3 }]),
  memGetAccess: (d, p) => d.memGetAccess(p, device),
  pointerGetAttribute: (d, p) => d.pointerGetAttribute(p, 9),
  hostView: (d, p) => d.hostView(p, 64),
  streamDestroy: (d, p) => d.streamDestroy(p),
  streamQuery: (d, p) => d.streamQuery(p),
  'streamWaitEvent stream': (d, p) => d.streamWaitEvent(p, 0x10n),
  'streamWaitEvent event': (d, p) => d.streamWaitEvent(0n, p),
  eventDestroy: (d, p) => d.eventDestroy(p),
  'eventRecord event': (d, p) => d.eventRecord(p, 0n),
  'eventRecord stream': (d, p) => d.eventRecord(0x10n, p),
  eventSynchronize: (d, p) => d.eventSynchronize(p),
  eventQuery: (d, p) => d.eventQuery(p),
  memPoolDestroy: (d, p) => d.memPoolDestroy(p),
  memPoolSetAttribute: (d, p) => d.memPoolSetAttribute(p, 4, 0),
  memPoolGetAttribute: (d, p) => d.memPoolGetAttribute(p, 4),
  memPoolSetAccess: (d, p) => d.memPoolSetAccess(p, device, 3),
  memPoolGetAccess: (d, p) => d.memPoolGetAccess(p, device),
  memPoolTrimTo: (d, p) => d.memPoolTrimTo(p, 0),
  memPoolExportPointer: (d, p) => d.memPoolExportPointer(p),
  memPoolExportToFileDescriptor: (d, p) => d.memPoolExportToFileDescriptor(p),
  memExportToFileDescriptor: (d, p) => d.memExportToFileDescriptor(p),
  ipcGetMemHandle: (d, p) => d.ipcGetMemHandle(p),
  ipcCloseMemHandle: (d, p) => d.ipcCloseMemHandle(p),
  ipcGetEventHandle: (d, p) => d.ipcGetEventHandle(p),
};

const withProperty = (key: string, value: unknown) =>
  key.startsWith('location.')
    ? { ...properties, location: { ...device, [key.slice(9)]: value } }
    : { ...properties, [key]: value };

/** Members with a C int argument. */
const intMembers: Record<string, Member> = {
  'memAllocManaged flags': (d, v) => d.memAllocManaged(64, v),
  'memHostAlloc flags': (d, v) => d.memHostAlloc(64, v),
  'memAdvise advice': (d, v, m) => d.memAdvise(m.managed, 64, v, device),
  'memAdvise location.type': (d, v, m) => d.memAdvise(m.managed, 64, 1, { type: v, id: 0 }),
  'memAdvise location.id': (d, v, m) => d.memAdvise(m.managed, 64, 1, { type: 1, id: v }),
  'memPrefetchAsync location.id': (d, v, m) => d.memPrefetchAsync(m.managed, 64, { type: 1, id: v }, 0n),
  'memRangeGetAttribute attribute': (d, v, m) => d.memRangeGetAttribute(m.managed, 64, v),
  'deviceTotalMem ordinal': (d, v) => d.deviceTotalMem(v),
  'deviceGetAttribute attribute': (d, v) => d.deviceGetAttribute(v, 0),
  'deviceGetAttribute ordinal': (d, v) => d.deviceGetAttribute(1, v),
  'streamCreate flags': (d, v) => d.streamCreate(v, 0),
  'streamCreate priority': (d, v) => d.streamCreate(0, v),
  'eventCreate flags': (d, v) => d.eventCreate(v),
  'memsetD8Async value': (d, v, m) => d.memsetD8Async(m.device, v, 64, 0n),
  'memsetD32Async value': (d, v, m) => d.memsetD32Async(m.device, v, 16, 0n),
  'pointerGetAttribute attribute': (d, v, m) => d.pointerGetAttribute(m.device, v),
  'memPoolSetAttribute attribute': (d, v) => d.memPoolSetAttribute(0x10n, v, 0),
  'memPoolGetAttribute attribute': (d, v) => d.memPoolGetAttribute(0x10n, v),
  'memPoolSetAccess flags': (d, v) => d.memPoolSetAccess(0x10n, device, v),
  'memPoolGetAccess location.id': (d, v) => d.memPoolGetAccess(0x10n, { type: 1, id: v }),
  'ipcOpenMemHandle flags': (d, v) => d.ipcOpenMemHandle(new Uint8Array(64), v),
  'memGetAllocationGranularity option': (d, v) => d.memGetAllocationGranularity(properties, v),
  'memCreate allocationType': (d, v) => d.memCreate(chunk, withProperty('allocationType', v) as never),
  'memCreate requestedHandleTypes': (d, v) =>
    d.memCreate(chunk, withProperty('requestedHandleTypes', v) as never),
  'memCreate location.id': (d, v) => d.memCreate(chunk, withProperty('location.id', v) as never),
  'memCreate usage': (d, v) => d.memCreate(chunk, withProperty('usage', v) as never),
  'memSetAccess flags': (d, v) => d.memSetAccess(0x7f0000000000n, chunk, [{ location: device, flags: v }]),
  'memGetAccess location.type': (d, v) => d.memGetAccess(0x7f0000000000n, { type: v, id: 0 }),
};

function refusedBeforeAnyCall(fake: { clearLog(): void; calls(): unknown[] }, call: () => unknown): void {
  fake.clearLog();
  let error: unknown;
  try {
    call();
  } catch (caught) {
    error = caught;
  }
  expect(error instanceof TypeError || error instanceof RangeError, String(error)).toBe(true);
  expect(fake.calls()).toEqual([]);
}

describeOverFake('argument rules', (fake) => {
  /** `member` refuses each of `values` before any driver call (the memory it names allocated around it). */
  function refusesEach(member: Member, values: readonly unknown[]): void {
    const driver = fake.driver();
    const memory = { managed: driver.memAllocManaged(1 << 20, 1), device: driver.memAlloc(1 << 20) };
    for (const value of values) refusedBeforeAnyCall(fake, () => member(driver, value as never, memory));
    driver.memFree(memory.managed);
    driver.memFree(memory.device);
  }

  it.each(Object.keys(sizeMembers))('%s refuses a size that is not a non-negative safe integer', (name) =>
    refusesEach(sizeMembers[name] as Member, badSizes),
  );

  it.each(Object.keys(intMembers))('%s refuses a value that is not a 32-bit integer', (name) =>
    refusesEach(intMembers[name] as Member, badInts),
  );

  it.each(Object.keys(pointerMembers))('%s refuses a malformed pointer or handle', (name) =>
    refusesEach(pointerMembers[name] as Member, badPointers),
  );

  it.each(['stagedCopyHtoD', 'stagedCopyDtoH'] as const)(
    '%s refuses options that are no { chunkBytes, threads } object, naming the call',
    (name) => {
      const driver = fake.driver();
      const device = driver.memAlloc(4096);
      const host = new Uint8Array(4096);
      const copy = (options: unknown) => () =>
        name === 'stagedCopyHtoD'
          ? driver.stagedCopyHtoD(device, host, 0n, options as never)
          : driver.stagedCopyDtoH(host, device, 0n, options as never);
      fake.clearLog();
      for (const options of [null, undefined, 4096]) {
        expect(copy(options)).toThrow(new RegExp(`^${name}: options must be \\{ chunkBytes, threads \\}`));
      }
      for (const options of [
        { chunkBytes: 0, threads: 1 },
        { chunkBytes: 4096, threads: 65 },
      ]) {
        expect(copy(options)).toThrow(RangeError);
      }
      expect(fake.calls()).toEqual([]);
      driver.memFree(device);
    },
  );
});
