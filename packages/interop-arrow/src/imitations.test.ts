// Issue 21, item 2: every safe entry point of @cumem/interop-arrow that takes a CudaBuffer,
// HostBuffer or @cumem/memory Buffer refuses imitations (shaped objects, objects inheriting
// from a real one with lying getters, Proxies) with a TypeError before any driver call.
import { DeviceMemoryResource, useDriver } from '@cumem/memory';
import { imitationsOf, withCountingDriver } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { Schema } from 'apache-arrow';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../test/support.js';
import { BufferReader } from './buffer/buffer-reader.js';
import { BufferWriter } from './buffer/buffer-writer.js';
import { CudaBuffer } from './buffer/cuda-buffer.js';
import { Context } from './context/context.js';
import { newHostBuffer } from './host/host-buffer.js';
import { readMessage, readRecordBatch } from './table/device-message.js';
import { tableFromDevice } from './table/device-table.js';

describeEachDriver(adapters, 'imitations of cumem objects (interop-arrow)', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('refuses imitations of a CudaBuffer before any driver call', () =>
    withCountingDriver(useDriver, entry.driver, (log) => {
      const context = new Context(0);
      const victim = context.deviceBuffer(4096);
      const real = context.deviceBuffer(64);
      for (const { what, value } of imitationsOf(real, { handle: victim.address, size: 4096 })) {
        const fake = value as CudaBuffer;
        log.reset();
        expect(() => real.copyFromDevice(fake), what).toThrow(TypeError);
        expect(() => new BufferReader(fake), what).toThrow(TypeError);
        expect(() => new BufferWriter(fake), what).toThrow(TypeError);
        expect(() => readMessage(fake), what).toThrow(TypeError);
        expect(() => readRecordBatch(fake, new Schema([])), what).toThrow(TypeError);
        expect(() => tableFromDevice(fake), what).toThrow(TypeError);
        expect(() => CudaBuffer.fromBuffer(fake), what).toThrow(TypeError);
        expect(log.calls, what).toEqual([]);
      }
      victim.close();
      real.close();
    }));

  it('refuses imitations of a memory Buffer and of a HostBuffer before any driver call', () =>
    withCountingDriver(useDriver, entry.driver, (log) => {
      const context = new Context(0);
      using memory = new DeviceMemoryResource(0).allocate(64);
      const host = newHostBuffer(64);
      const target = context.deviceBuffer(64);
      for (const { what, value } of [...imitationsOf(memory), ...imitationsOf(host)]) {
        log.reset();
        expect(() => CudaBuffer.fromMemoryBuffer(value as never), what).toThrow(TypeError);
        expect(() => CudaBuffer.fromBuffer(value as never), what).toThrow(TypeError);
        expect(() => target.copyFromHost(value as never), what).toThrow(TypeError);
        expect(log.calls, what).toEqual([]);
      }
      // bufferFromObject takes any object with a cudaArrayInterface: imitations without one are refused.
      for (const { what, value } of imitationsOf(host)) {
        expect(() => context.bufferFromObject(value), what).toThrow(TypeError);
      }
      target.close();
      host.close();
    }));

  it('a real CudaBuffer and HostBuffer are frozen: no own property shadows their facts', () => {
    const context = new Context(0);
    const real = context.deviceBuffer(64);
    const host = newHostBuffer(64);
    expect(Object.isFrozen(real)).toBe(true);
    expect(Object.isFrozen(host)).toBe(true);
    expect(() => Object.defineProperty(real, 'address', { get: () => 0x1000n })).toThrow(TypeError);
    expect(() => Object.defineProperty(host, 'address', { get: () => 0x1000n })).toThrow(TypeError);
    real.close();
    host.close();
  });
});
