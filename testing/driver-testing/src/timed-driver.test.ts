import { CudaError, EventFlags } from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import { createReferenceDriver } from './reference-driver.js';
import { timedDriver } from './timed-driver.js';

describe('timedDriver', () => {
  function setUp() {
    const inner = createReferenceDriver();
    const { driver, clock } = timedDriver(inner, {
      memsetD8Async: (_pointer: bigint, _value: number, size: number) => size / 1000,
    });
    driver.contextSetCurrent(driver.primaryContextRetain(0));
    const stream = driver.streamCreate(0, 0);
    const memory = driver.memAlloc(4096);
    return { inner, driver, clock, stream, memory };
  }

  it('gives event times from the cost model, the rest of the contract unchanged', () => {
    const { inner, driver, clock, stream, memory } = setUp();
    expect(driver.driverVersion).toBe(inner.driverVersion);
    expect(driver.capabilities).toBe(inner.capabilities);
    const start = driver.eventCreate(EventFlags.Default);
    const end = driver.eventCreate(EventFlags.Default);
    driver.eventRecord(start, stream);
    driver.memsetD8Async(memory, 1, 4096, stream);
    driver.memsetD8Async(memory, 2, 1000, stream);
    driver.eventRecord(end, stream);
    expect(clock.nowMs).toBeCloseTo(5.096, 9);
    expect(driver.eventQuery(end)).toBe(true);
    expect(driver.eventElapsedTime(start, end)).toBeCloseTo(5.096, 9);
    const byte = new Uint8Array(1);
    driver.memcpyDtoH(byte, memory);
    expect(byte[0]).toBe(2);
    driver.eventDestroy(start);
    expect(() => driver.eventElapsedTime(start, end)).toThrow(CudaError);
    expect(Object.isFrozen(driver)).toBe(true);
  });

  it('holds events incomplete and fails them on request', () => {
    const { driver, clock, stream } = setUp();
    const start = driver.eventCreate(EventFlags.Default);
    const end = driver.eventCreate(EventFlags.Default);
    driver.eventRecord(start, stream);
    driver.eventRecord(end, stream);
    clock.holdEvents = true;
    expect(driver.eventQuery(end)).toBe(false);
    expect(() => driver.eventElapsedTime(start, end)).toThrow(/CUDA_ERROR_NOT_READY/);
    clock.holdEvents = false;
    expect(driver.eventElapsedTime(start, end)).toBe(0);
    clock.failEvents = true;
    expect(() => driver.eventCreate(EventFlags.Default)).toThrow(/CUDA_ERROR_NOT_SUPPORTED/);
    expect(() => driver.eventRecord(end, stream)).toThrow(/cuEventRecord/);
    expect(() => driver.eventQuery(end)).toThrow(CudaError);
    // Timing disabled: the inner driver's refusal stands.
    clock.failEvents = false;
    const untimed = driver.eventCreate(EventFlags.DisableTiming);
    driver.eventRecord(untimed, stream);
    expect(() => driver.eventElapsedTime(start, untimed)).toThrow(/CUDA_ERROR_INVALID_HANDLE/);
  });
});
