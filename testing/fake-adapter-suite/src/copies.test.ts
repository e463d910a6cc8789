// Copies over the fake libcuda, the same claims for both adapters: JS memory and "device" memory
// (host memory in the fake) round-trip through every copy and fill, CUDA_MEMCPY2D / 3D carry host
// and unified endpoints, and batched copies use cuMemcpyBatchAsync_v2 with one stream-ordered
// attribute.
import { NotSupportedError } from '@cumem/core-types';
import { expect, it } from 'vitest';
import { describeOverFake } from './fake-harness.js';

describeOverFake('copies', (fake) => {
  it('copies between JS memory and "device" memory through the out-parameters, and views it in place', () => {
    const driver = fake.driver();
    const pointer = driver.memAlloc(64);
    driver.memcpyHtoD(
      pointer,
      Uint8Array.from({ length: 64 }, (_, i) => i),
    );
    const back = new Uint8Array(64);
    driver.memcpyDtoH(back, pointer);
    expect(back[63]).toBe(63);
    driver.memsetD8Async(pointer, 0x1ff, 4, 0n);
    driver.memsetD16Async(pointer + 4n, 0xabcd, 2, 0n);
    driver.memsetD32Async(pointer + 8n, -1, 1, 0n);
    const view = driver.hostView(pointer, 16);
    expect([...view.subarray(0, 12)]).toEqual([
      255, 255, 255, 255, 0xcd, 0xab, 0xcd, 0xab, 255, 255, 255, 255,
    ]);
    const other = driver.memAlloc(16);
    driver.memcpyAsync(other, pointer, 16, 0n);
    const words = new Uint16Array(8);
    driver.memcpyDtoHAsync(new DataView(words.buffer), other, 0n);
    expect(words[2]).toBe(0xabcd);
    driver.memcpyHtoDAsync(other, new Float64Array([1.5, 2.5]), 0n);
    expect(new Float64Array(driver.hostView(other, 16).slice().buffer)).toEqual(new Float64Array([1.5, 2.5]));
    const doubles = new Float64Array(2);
    driver.memcpyDtoH(doubles, other);
    expect([...doubles]).toEqual([1.5, 2.5]);
    expect([...driver.hostView(other, 16)]).toEqual([...new Uint8Array(doubles.buffer)]);
    driver.memFree(pointer);
    driver.memFree(other);
  });

  it('builds CUDA_MEMCPY2D and CUDA_MEMCPY3D with host and unified endpoints', () => {
    const driver = fake.driver();
    const source = Uint8Array.from({ length: 4 * 8 }, (_, i) => i); // 4 rows, pitch 8
    const device = driver.memAlloc(4 * 16);
    driver.memsetD8Async(device, 0, 64, 0n);
    driver.memcpy2DAsync(
      { src: source, srcPitch: 8, dst: device, dstPitch: 16, widthInBytes: 5, height: 4 },
      0n,
    );
    const rows = driver.hostView(device, 64);
    expect([...rows.subarray(16, 21)]).toEqual([8, 9, 10, 11, 12]);
    expect(rows[21]).toBe(0);
    const out = new Uint8Array(4 * 5);
    driver.memcpy2DAsync(
      { src: device, srcPitch: 16, dst: out.subarray(0), dstPitch: 5, widthInBytes: 5, height: 4 },
      0n,
    );
    expect([...out.subarray(15, 20)]).toEqual([24, 25, 26, 27, 28]);

    const volume = Uint8Array.from({ length: 2 * 3 * 4 }, (_, i) => i); // depth 2, height 3, pitch 4
    const target = new Uint8Array(2 * 4 * 8); // depth 2, dstHeight 4, pitch 8
    driver.memcpy3DAsync(
      {
        src: volume,
        srcPitch: 4,
        srcHeight: 3,
        dst: target,
        dstPitch: 8,
        dstHeight: 4,
        widthInBytes: 4,
        height: 3,
        depth: 2,
      },
      0n,
    );
    expect([...target.subarray(32 + 16, 32 + 20)]).toEqual([20, 21, 22, 23]);
    driver.memFree(device);
  });

  it('batches copies through cuMemcpyBatchAsync_v2 with one stream-ordered attribute', () => {
    const driver = fake.driver();
    const legacy = fake.driver({ entryPoints: 'legacy' });
    const a = driver.memAlloc(8);
    const b = driver.memAlloc(8);
    driver.memcpyHtoD(a, new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]));
    fake.clearLog();
    driver.memcpyBatchAsync(
      new BigUint64Array([b, b + 4n]),
      new BigUint64Array([a + 4n, a]),
      new BigUint64Array([4n, 4n]),
      2,
      0n,
    );
    expect([...driver.hostView(b, 8)]).toEqual([5, 6, 7, 8, 1, 2, 3, 4]);
    expect(fake.last()).toMatchObject({
      symbol: 'cuMemcpyBatchAsync_v2',
      count: 2,
      extra: 1,
      type: 0,
      id: 0,
    });
    expect(() =>
      driver.memcpyBatchAsync(new BigUint64Array(1), new BigUint64Array(1), new BigUint64Array(1), 2, 0n),
    ).toThrow(RangeError);
    expect(() =>
      legacy.memcpyBatchAsync(new BigUint64Array(1), new BigUint64Array(1), new BigUint64Array(1), 1, 0n),
    ).toThrow(NotSupportedError);
    driver.memFree(a);
    driver.memFree(b);
  });

  it('batches copies with the CUDA 12.8 form on a 12.8 driver, though the library exports _v2', () => {
    // driver-kit's chooseEntryPoints: no form newer than the version the driver reports.
    const driver = fake.driver({ version: 12080 });
    expect(driver.capabilities.batchMemcpy).toBe(true);
    const a = driver.memAlloc(8);
    const b = driver.memAlloc(8);
    driver.memcpyHtoD(a, new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]));
    driver.memcpyBatchAsync(
      new BigUint64Array([b]),
      new BigUint64Array([a]),
      new BigUint64Array([8n]),
      1,
      0n,
    );
    expect(fake.last()).toMatchObject({ symbol: 'cuMemcpyBatchAsync', count: 1, extra: 1 });
    expect([...driver.hostView(b, 8)]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    driver.memFree(a);
    driver.memFree(b);
  });
});
