import {
  CudaError,
  FunctionAttribute,
  type KernelLaunchConfig,
  LaunchDeviceAttribute,
} from '@cumem/core-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceKernelsPTX } from '../reference/builtin-kernels-ptx.js';
import type { SuiteContext } from './suite-context.js';
import { expectCudaError } from './support.js';

function nulTerminated(text: string): Uint8Array {
  const encoded = new TextEncoder().encode(text);
  const bytes = new Uint8Array(encoded.length + 1);
  bytes.set(encoded);
  return bytes;
}

/** fill_f32's parameters packed as the C ABI lays them out: pointer at 0, float at 8, unsigned at 12. */
function fillArguments(out: bigint, value: number, n: number): { bytes: Uint8Array; offsets: Uint32Array } {
  const bytes = new Uint8Array(16);
  const view = new DataView(bytes.buffer);
  view.setBigUint64(0, out, true);
  view.setFloat32(8, value, true);
  view.setUint32(12, n, true);
  return { bytes, offsets: Uint32Array.of(0, 8, 12) };
}

const oneDimension = (grid: number, block: number): KernelLaunchConfig => ({
  grid: [grid, 1, 1],
  block: [block, 1, 1],
  sharedMemBytes: 0,
  cluster: null,
});

/** Libraries, kernels, attributes, parameter info, occupancy and launches of the PTX reference kernels. */
export function computeCases(suite: SuiteContext): void {
  describe('compute', () => {
    let library = 0n;
    let fill = 0n;

    beforeAll(() => {
      library = suite.driver.libraryLoadData(nulTerminated(referenceKernelsPTX));
      fill = suite.driver.kernelGetFunction(suite.driver.libraryGetKernel(library, 'fill_f32'));
    });
    afterAll(() => {
      if (library !== 0n) suite.driver.libraryUnload(library);
    });

    it('loads PTX and reads a kernel attributes in the current context', () => {
      const threads = suite.driver.funcGetAttribute(FunctionAttribute.MaxThreadsPerBlock, fill);
      expect(threads).toBeGreaterThan(0);
      expect(threads).toBeLessThanOrEqual(
        suite.driver.deviceGetAttribute(LaunchDeviceAttribute.MaxThreadsPerBlock, suite.device),
      );
      expect(suite.driver.funcGetAttribute(FunctionAttribute.NumRegs, fill)).toBeGreaterThanOrEqual(0);
      expect(suite.driver.funcGetAttribute(FunctionAttribute.SharedSizeBytes, fill)).toBe(0);
    });

    suite.itWith('kernelParameterInfo', 'reports every parameter offset and size, then null', () => {
      const fn = suite.driver.kernelGetFunction(suite.driver.libraryGetKernel(library, 'store_scalars'));
      const parameters = [];
      for (let index = 0; index < 9; index++) parameters.push(suite.driver.funcGetParamInfo(fn, index));
      expect(parameters).toEqual([
        { offset: 0, size: 8 },
        { offset: 8, size: 4 },
        { offset: 12, size: 4 },
        { offset: 16, size: 8 },
        { offset: 24, size: 8 },
        { offset: 32, size: 4 },
        { offset: 40, size: 8 },
        { offset: 48, size: 1 },
        null,
      ]);
    });

    it('launches a kernel whose writes the stream orders before a copy back', () => {
      const n = 4096;
      const pointer = suite.driver.memAlloc(n * 4);
      try {
        const { bytes, offsets } = fillArguments(pointer, 1.5, n);
        suite.driver.launchKernelEx(fill, oneDimension(n / 128, 128), bytes, offsets, suite.stream);
        // The parameters were copied at the call: changing them now changes nothing.
        bytes.fill(0);
        const out = new Float32Array(n);
        suite.driver.memcpyDtoHAsync(out, pointer, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        expect(out.every((value) => value === 1.5)).toBe(true);
      } finally {
        suite.driver.memFree(pointer);
      }
    });

    it('launches with clusters where the device has them', () => {
      if (suite.driver.deviceGetAttribute(LaunchDeviceAttribute.ClusterLaunch, suite.device) !== 1) return;
      const n = 1024;
      const pointer = suite.driver.memAlloc(n * 4);
      try {
        const { bytes, offsets } = fillArguments(pointer, 7, n);
        const config: KernelLaunchConfig = { ...oneDimension(n / 128, 128), cluster: [2, 1, 1] };
        suite.driver.launchKernelEx(fill, config, bytes, offsets, suite.stream);
        const out = new Float32Array(n);
        suite.driver.memcpyDtoHAsync(out, pointer, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        expect(out.every((value) => value === 7)).toBe(true);
      } finally {
        suite.driver.memFree(pointer);
      }
    });

    it('raises the dynamic shared memory limit up to the opt-in limit', () => {
      const optIn = suite.driver.deviceGetAttribute(
        LaunchDeviceAttribute.MaxSharedMemoryPerBlockOptin,
        suite.device,
      );
      const fn = suite.driver.kernelGetFunction(suite.driver.libraryGetKernel(library, 'reverse_block_u32'));
      suite.driver.funcSetAttribute(FunctionAttribute.MaxDynamicSharedSizeBytes, fn, optIn);
      expect(suite.driver.funcGetAttribute(FunctionAttribute.MaxDynamicSharedSizeBytes, fn)).toBe(optIn);
    });

    it('answers occupancy queries', () => {
      expect(suite.driver.occupancyMaxActiveBlocksPerMultiprocessor(fill, 256, 0)).toBeGreaterThan(0);
      const { minGridSize, blockSize } = suite.driver.occupancyMaxPotentialBlockSize(fill, 0, 0);
      expect(blockSize).toBeGreaterThan(0);
      expect(blockSize % 32).toBe(0);
      expect(minGridSize).toBeGreaterThan(0);
      expect(suite.driver.occupancyMaxPotentialBlockSize(fill, 0, 64).blockSize).toBeLessThanOrEqual(64);
    });

    it('refuses an unknown kernel name and PTX it cannot compile', () => {
      expectCudaError(
        () => suite.driver.libraryGetKernel(library, 'no_such_kernel'),
        'cuLibraryGetKernel',
        'CUDA_ERROR_NOT_FOUND',
      );
      // With lazy loading (CUDA 12.2+ default) the driver may compile PTX only when a kernel of
      // it is first asked for: the refusal comes from the load or from that lookup.
      let thrown: unknown;
      let loaded = 0n;
      try {
        loaded = suite.driver.libraryLoadData(nulTerminated('.version 7.8\n.target sm_75\nnot ptx'));
        suite.driver.kernelGetFunction(suite.driver.libraryGetKernel(loaded, 'fill_f32'));
      } catch (error) {
        thrown = error;
      } finally {
        if (loaded !== 0n) suite.driver.libraryUnload(loaded);
      }
      expect(
        CudaError.isInstance(thrown) &&
          ['cuLibraryLoadData', 'cuLibraryGetKernel', 'cuKernelGetFunction'].includes(thrown.call),
      ).toBe(true);
    });
  });
}
