import {
  formatCudaVersion,
  MemAllocationType,
  MemHandleType,
  MemLocationType,
  NotSupportedError,
} from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import { deriveCapabilities } from './capabilities.js';
import { capabilityRules, symbolsOfVersion } from './entry-points.js';
import { checkLocationSupported, checkPoolKindSupported } from './refusals.js';

const derive = (driverVersion: number, mode: 'auto' | 'legacy', resolved = symbolsOfVersion(driverVersion)) =>
  deriveCapabilities({ resolved, driverVersion, mode, interprocess: true });

describe('deriveCapabilities', () => {
  it('a CUDA 13.0 driver has every capability in auto mode', () => {
    expect(Object.values(derive(13000, 'auto')).every(Boolean)).toBe(true);
  });

  it("'legacy' keeps only interprocess, whatever the driver offers", () => {
    const legacy = derive(13000, 'legacy');
    for (const [flag, value] of Object.entries(legacy))
      expect([flag, value]).toEqual([flag, flag === 'interprocess']);
  });

  it('follows the driver version: 12.0 none, 12.2 locations, 12.8 batch copies', () => {
    expect(derive(12000, 'auto')).toMatchObject({
      memoryLocations: false,
      batchMemcpy: false,
      hostMemoryPools: false,
    });
    expect(derive(12020, 'auto')).toMatchObject({
      memoryLocations: true,
      hostNumaLocations: false,
      batchMemcpy: false,
    });
    expect(derive(12080, 'auto')).toMatchObject({
      batchMemcpy: true,
      batchPrefetchDiscard: false,
      hostMemoryPools: false,
    });
  });

  it('needs every entry-point group of a rule: one missing symbol turns its flag off', () => {
    const missing = new Set(symbolsOfVersion(13000));
    missing.delete('cuMemDiscardBatchAsync');
    expect(derive(13000, 'auto', missing)).toMatchObject({ batchPrefetchDiscard: false, batchMemcpy: true });
    const oneCopyForm = new Set(symbolsOfVersion(13000));
    oneCopyForm.delete('cuMemcpyBatchAsync_v2');
    expect(derive(13000, 'auto', oneCopyForm).batchMemcpy).toBe(true);
  });

  it('interprocess is the caller’s platform answer', () => {
    expect(
      deriveCapabilities({ resolved: [], driverVersion: 13000, mode: 'auto', interprocess: false })
        .interprocess,
    ).toBe(false);
  });

  it('every flag of the contract has a rule', () => {
    expect(Object.keys(derive(13000, 'auto')).sort()).toEqual(Object.keys(capabilityRules).sort());
  });
});

describe('refusals', () => {
  const facts = { capabilities: derive(13000, 'legacy'), driverVersion: 13000, mode: 'legacy' as const };
  it('refuse host NUMA locations and host or managed pools with one message form', () => {
    expect(() =>
      checkLocationSupported(facts, { type: MemLocationType.HostNuma, id: 0 }, 'cuMemAdvise'),
    ).toThrow(
      new NotSupportedError(
        "cuMemAdvise: a host NUMA location (HostNuma, HostNumaCurrent) needs a CUDA 13.0 driver (capabilities.hostNumaLocations is false: createDriver({ entryPoints: 'legacy' }) uses the CUDA 12.0 entry points)",
      ),
    );
    const pool = {
      allocationType: MemAllocationType.Managed,
      location: { type: MemLocationType.Device, id: 0 },
      handleTypes: MemHandleType.None,
      maxSize: 0,
    };
    expect(() => checkPoolKindSupported(facts, pool, 'cuMemPoolCreate')).toThrow(
      /managedMemoryPools is false/,
    );
    const host = {
      ...pool,
      allocationType: MemAllocationType.Pinned,
      location: { type: MemLocationType.Host, id: 0 },
    };
    expect(() => checkPoolKindSupported(facts, host, 'cuMemPoolCreate')).toThrow(/hostMemoryPools is false/);
    expect(() =>
      checkPoolKindSupported({ ...facts, capabilities: derive(13000, 'auto') }, host, 'cuMemPoolCreate'),
    ).not.toThrow();
  });

  it('formats versions as NVIDIA does', () => {
    expect([formatCudaVersion(13000), formatCudaVersion(12080), formatCudaVersion(12020)]).toEqual([
      '13.0',
      '12.8',
      '12.2',
    ]);
  });
});
