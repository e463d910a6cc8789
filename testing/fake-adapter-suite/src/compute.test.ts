// Modules, kernels and launches over the fake libcuda (src/fake-compute.c), the same claims for
// both adapters: handles and attributes come back as the driver gave them, parameter info ends
// at the driver's CUDA_ERROR_INVALID_VALUE, and a launch reaches C with CUlaunchConfig, its
// cluster attribute and kernelParams laid out as cuda.h declares them.
import { CudaError, FunctionAttribute } from '@cumem/core-types';
import { expect, it } from 'vitest';
import { describeOverFake } from './fake-harness.js';

const ptx = new TextEncoder().encode('.version 7.8\n.target sm_75\n\0');

describeOverFake('compute', (fake) => {
  it('loads a library, finds a kernel and reads its attributes and parameters', () => {
    const driver = fake.driver();
    driver.contextSetCurrent(driver.primaryContextRetain(0));
    const library = driver.libraryLoadData(ptx);
    expect(library).toBe(0x5100n);
    const fn = driver.kernelGetFunction(driver.libraryGetKernel(library, 'fill_f32'));
    expect(fn).toBe(0x5300n);
    expect(driver.funcGetAttribute(FunctionAttribute.MaxThreadsPerBlock, fn)).toBe(1024);
    expect(driver.funcGetAttribute(FunctionAttribute.NumRegs, fn)).toBe(10);
    expect([0, 1, 2, 3].map((index) => driver.funcGetParamInfo(fn, index))).toEqual([
      { offset: 0, size: 8 },
      { offset: 8, size: 4 },
      { offset: 12, size: 4 },
      null,
    ]);
    expect(driver.occupancyMaxActiveBlocksPerMultiprocessor(fn, 256, 0)).toBe(8);
    expect(driver.occupancyMaxPotentialBlockSize(fn, 0, 128)).toEqual({ minGridSize: 264, blockSize: 128 });
    driver.funcSetAttribute(FunctionAttribute.MaxDynamicSharedSizeBytes, fn, 100000);
    expect(fake.last()).toMatchObject({ symbol: 'cuFuncSetAttribute', advice: 8, size: 100000 });
    driver.libraryUnload(library);
  });

  it('encodes a launch as cuda.h lays it out, with and without a cluster', () => {
    const driver = fake.driver();
    driver.contextSetCurrent(driver.primaryContextRetain(0));
    const fn = driver.kernelGetFunction(driver.libraryGetKernel(driver.libraryLoadData(ptx), 'fill_f32'));
    const bytes = new Uint8Array(16);
    new DataView(bytes.buffer).setBigUint64(0, 0x1234_5678_9abcn, true);
    const offsets = Uint32Array.of(0, 8, 12);
    const stream = driver.streamCreate(1, 0);
    driver.launchKernelEx(
      fn,
      { grid: [3, 2, 5], block: [64, 2, 1], sharedMemBytes: 128, cluster: null },
      bytes,
      offsets,
      stream,
    );
    expect(fake.last()).toMatchObject({
      symbol: 'cuLaunchKernelEx',
      pointer: 0x1234_5678_9abcn,
      size: 128,
      advice: 3,
      type: 2,
      id: 5,
      device: 64,
      count: 2001,
      extra: -1,
    });
    driver.launchKernelEx(
      fn,
      { grid: [4, 2, 1], block: [32, 1, 1], sharedMemBytes: 0, cluster: [2, 1, 1] },
      bytes,
      offsets,
      stream,
    );
    // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (4) with clusterDim 2 x 1 x 1.
    expect(fake.last()).toMatchObject({ symbol: 'cuLaunchKernelEx', advice: 4, extra: 4_020_101 });
    driver.streamDestroy(stream);
  });

  it('reads parameters where each launch puts them: views at an offset, new buffers, no stale cluster', () => {
    // The adapters keep state between launches (the FFI launch block, the N-API geometry
    // words): each launch must still pass its own arguments and attributes.
    const driver = fake.driver();
    driver.contextSetCurrent(driver.primaryContextRetain(0));
    const fn = driver.kernelGetFunction(driver.libraryGetKernel(driver.libraryLoadData(ptx), 'fill_f32'));
    const stream = driver.streamCreate(1, 0);
    const offsets = Uint32Array.of(0, 8, 12);
    const whole = new Uint8Array(64);
    const view = new DataView(whole.buffer);
    view.setBigUint64(0, 0x1111n, true);
    view.setBigUint64(16, 0x2222n, true);
    const clustered = { grid: [2, 1, 1], block: [32, 1, 1], sharedMemBytes: 0, cluster: [2, 1, 1] } as const;
    const plain = { grid: [7, 1, 1], block: [32, 1, 1], sharedMemBytes: 0, cluster: null } as const;
    driver.launchKernelEx(fn, clustered, whole.subarray(0, 16), offsets, stream);
    expect(fake.last()).toMatchObject({ pointer: 0x1111n, advice: 2, extra: 4_020_101 });
    driver.launchKernelEx(fn, plain, whole.subarray(16, 32), offsets, stream);
    expect(fake.last()).toMatchObject({ pointer: 0x2222n, advice: 7, extra: -1 });
    const other = new Uint8Array(16);
    new DataView(other.buffer).setBigUint64(0, 0x3333n, true);
    driver.launchKernelEx(fn, plain, other, offsets, stream);
    expect(fake.last()).toMatchObject({ pointer: 0x3333n });
    driver.launchKernelEx(fn, plain, whole.subarray(0, 16), offsets, stream);
    expect(fake.last()).toMatchObject({ pointer: 0x1111n });
    driver.streamDestroy(stream);
  });

  it('passes launches past the N-API launch area (over 64 parameters, over 4096 bytes) and refuses an offset past the bytes', () => {
    const driver = fake.driver();
    driver.contextSetCurrent(driver.primaryContextRetain(0));
    const fn = driver.kernelGetFunction(driver.libraryGetKernel(driver.libraryLoadData(ptx), 'fill_f32'));
    const stream = driver.streamCreate(1, 0);
    const plain = { grid: [1, 1, 1], block: [1, 1, 1], sharedMemBytes: 0, cluster: null } as const;
    // The fake reads parameter 0's 8 bytes: each launch's own value must arrive.
    const many = new Uint8Array(8 * 80);
    new DataView(many.buffer).setBigUint64(0, 0x4444n, true);
    driver.launchKernelEx(
      fn,
      plain,
      many,
      Uint32Array.from({ length: 80 }, (_, i) => 8 * i),
      stream,
    );
    expect(fake.last()).toMatchObject({ symbol: 'cuLaunchKernelEx', pointer: 0x4444n });
    const large = new Uint8Array(8192);
    new DataView(large.buffer).setBigUint64(0, 0x5555n, true);
    driver.launchKernelEx(fn, plain, large, Uint32Array.of(0, 8, 8000), stream);
    expect(fake.last()).toMatchObject({ pointer: 0x5555n });
    const small = new Uint8Array(16);
    new DataView(small.buffer).setBigUint64(0, 0x6666n, true);
    driver.launchKernelEx(fn, plain, small, Uint32Array.of(0, 8, 12), stream);
    expect(fake.last()).toMatchObject({ pointer: 0x6666n });
    const calls = fake.calls().length;
    expect(() => driver.launchKernelEx(fn, plain, small, Uint32Array.of(0, 8, 16), stream)).toThrow(
      RangeError,
    );
    expect(fake.calls().length).toBe(calls);
    driver.streamDestroy(stream);
  });

  it('turns the driver refusals into CudaErrors naming the entry point', () => {
    const driver = fake.driver();
    driver.contextSetCurrent(driver.primaryContextRetain(0));
    const garbage = new TextEncoder().encode('garbage\0');
    expect(() => driver.libraryLoadData(garbage)).toThrow(
      expect.objectContaining({ code: 218, call: 'cuLibraryLoadData' }),
    );
    const library = driver.libraryLoadData(ptx);
    let error: unknown;
    try {
      driver.libraryGetKernel(library, 'missing');
    } catch (caught) {
      error = caught;
    }
    expect(CudaError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ codeName: 'CUDA_ERROR_NOT_FOUND', call: 'cuLibraryGetKernel' });
  });

  it("'legacy' keeps parameter info off", () => {
    const driver = fake.driver({ entryPoints: 'legacy' });
    expect(driver.capabilities.kernelParameterInfo).toBe(false);
  });
});
