import { describe, expect, it } from 'vitest';
import { hostBoundsCases } from './host-bounds.js';
import type { SuiteContext } from './suite-context.js';
import { expectCudaError, expectSameBytes, MiB, randomBytes, readBack } from './support.js';

/** Copies of every form and the fills, each checked byte by byte against a host reference. */
export function copyCases(suite: SuiteContext): void {
  describe('copies and fills', () => {
    it('memcpyHtoD / memcpyDtoH round-trip random bytes', () => {
      const size = 4 * MiB + 17;
      const data = randomBytes(size);
      const pointer = suite.driver.memAlloc(size);
      try {
        suite.driver.memcpyHtoD(pointer, data);
        const result = new Uint8Array(size);
        suite.driver.memcpyDtoH(result, pointer);
        expectSameBytes(result, data);
      } finally {
        suite.driver.memFree(pointer);
      }
    });

    it('memcpyHtoDAsync / memcpyAsync / memcpyDtoHAsync on a stream round-trip random bytes', () => {
      const size = 2 * MiB + 3;
      const data = randomBytes(size);
      const first = suite.driver.memAlloc(size);
      const second = suite.driver.memAlloc(size);
      const result = new Uint8Array(size);
      try {
        suite.driver.memcpyHtoDAsync(first, data, suite.stream);
        suite.driver.memcpyAsync(second, first, size, suite.stream);
        suite.driver.memcpyDtoHAsync(result, second, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        expectSameBytes(result, data);
      } finally {
        suite.driver.memFree(first);
        suite.driver.memFree(second);
      }
    });

    it('copies honour view offsets and interior pointers, leaving the bytes around them untouched', () => {
      const size = 4096;
      const pointer = suite.driver.memAlloc(size);
      try {
        suite.driver.memsetD8Async(pointer, 0x5a, size, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        const source = randomBytes(1000);
        const view = source.subarray(100, 600);
        suite.driver.memcpyHtoD(pointer + 64n, view);
        suite.driver.contextSynchronize();
        const expected = new Uint8Array(size).fill(0x5a);
        expected.set(view, 64);
        expectSameBytes(readBack(suite.driver, pointer, size), expected);
        const window = new Uint8Array(new ArrayBuffer(300), 50, 200);
        suite.driver.memcpyDtoH(window, pointer + 164n);
        expectSameBytes(window, view.subarray(100, 300));
        expect(new Uint8Array(window.buffer, 0, 50).every((byte) => byte === 0)).toBe(true);
      } finally {
        suite.driver.memFree(pointer);
      }
    });

    it('memcpyAsync reads and writes JS memory given by addressOf', () => {
      const size = MiB;
      const data = randomBytes(size);
      const result = new Uint8Array(size);
      const pointer = suite.driver.memAlloc(size);
      try {
        suite.driver.memcpyAsync(pointer, suite.driver.addressOf(data), size, suite.stream);
        suite.driver.memcpyAsync(suite.driver.addressOf(result), pointer, size, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        expectSameBytes(result, data);
      } finally {
        suite.driver.memFree(pointer);
      }
    });

    it('memcpy2DAsync copies pitched rows host -> device -> device -> host, leaving padding untouched', () => {
      const width = 37;
      const height = 7;
      const [hostPitch, devicePitch, otherPitch, outPitch] = [64, 128, 96, 50];
      const source = randomBytes(hostPitch * height);
      const output = randomBytes(outPitch * height);
      const before = output.slice();
      const first = suite.driver.memAlloc(devicePitch * height);
      const second = suite.driver.memAlloc(otherPitch * height);
      try {
        suite.driver.memsetD8Async(first, 0xa5, devicePitch * height, suite.stream);
        suite.driver.memcpy2DAsync(
          {
            src: source,
            srcPitch: hostPitch,
            dst: first,
            dstPitch: devicePitch,
            widthInBytes: width,
            height,
          },
          suite.stream,
        );
        suite.driver.memcpy2DAsync(
          {
            src: first,
            srcPitch: devicePitch,
            dst: second,
            dstPitch: otherPitch,
            widthInBytes: width,
            height,
          },
          suite.stream,
        );
        suite.driver.memcpy2DAsync(
          { src: second, srcPitch: otherPitch, dst: output, dstPitch: outPitch, widthInBytes: width, height },
          suite.stream,
        );
        suite.driver.streamSynchronize(suite.stream);
        const device = readBack(suite.driver, first, devicePitch * height);
        for (let row = 0; row < height; row++) {
          for (let column = 0; column < outPitch; column++) {
            const expected =
              column < width ? source[row * hostPitch + column] : before[row * outPitch + column];
            expect(output[row * outPitch + column]).toBe(expected);
          }
          for (let column = 0; column < devicePitch; column++) {
            const expected = column < width ? source[row * hostPitch + column] : 0xa5;
            expect(device[row * devicePitch + column]).toBe(expected);
          }
        }
      } finally {
        suite.driver.memFree(first);
        suite.driver.memFree(second);
      }
    });

    it('memcpy3DAsync copies pitched slices host -> device -> host, element by element', () => {
      const [width, height, depth] = [13, 5, 3];
      const [srcPitch, srcHeight] = [16, 6];
      const [devicePitch, deviceHeight] = [32, 8];
      const [outPitch, outHeight] = [20, 5];
      const source = randomBytes(srcPitch * srcHeight * depth);
      const output = randomBytes(outPitch * outHeight * depth);
      const before = output.slice();
      const deviceSize = devicePitch * deviceHeight * depth;
      const pointer = suite.driver.memAlloc(deviceSize);
      try {
        suite.driver.memsetD8Async(pointer, 0x3c, deviceSize, suite.stream);
        suite.driver.memcpy3DAsync(
          {
            src: source,
            srcPitch,
            srcHeight,
            dst: pointer,
            dstPitch: devicePitch,
            dstHeight: deviceHeight,
            widthInBytes: width,
            height,
            depth,
          },
          suite.stream,
        );
        suite.driver.memcpy3DAsync(
          {
            src: pointer,
            srcPitch: devicePitch,
            srcHeight: deviceHeight,
            dst: output,
            dstPitch: outPitch,
            dstHeight: outHeight,
            widthInBytes: width,
            height,
            depth,
          },
          suite.stream,
        );
        suite.driver.streamSynchronize(suite.stream);
        const device = readBack(suite.driver, pointer, deviceSize);
        for (let slice = 0; slice < depth; slice++) {
          for (let row = 0; row < deviceHeight; row++) {
            for (let column = 0; column < devicePitch; column++) {
              const inside = row < height && column < width;
              const expected = inside ? source[(slice * srcHeight + row) * srcPitch + column] : 0x3c;
              expect(device[(slice * deviceHeight + row) * devicePitch + column]).toBe(expected);
            }
          }
          for (let row = 0; row < outHeight; row++) {
            for (let column = 0; column < outPitch; column++) {
              const index = (slice * outHeight + row) * outPitch + column;
              const expected =
                column < width ? source[(slice * srcHeight + row) * srcPitch + column] : before[index];
              expect(output[index]).toBe(expected);
            }
          }
        }
      } finally {
        suite.driver.memFree(pointer);
      }
    });

    it('memcpy2DAsync with a row wider than its pitch fails', () => {
      const pointer = suite.driver.memAlloc(4096);
      try {
        expectCudaError(
          () =>
            suite.driver.memcpy2DAsync(
              { src: pointer, srcPitch: 32, dst: pointer + 2048n, dstPitch: 64, widthInBytes: 48, height: 4 },
              suite.stream,
            ),
          'cuMemcpy2DAsync',
        );
      } finally {
        suite.driver.streamSynchronize(suite.stream);
        suite.driver.memFree(pointer);
      }
    });

    it('memsetD8Async / memsetD16Async / memsetD32Async write their patterns, little-endian, and nothing else', () => {
      const size = 4096;
      const pointer = suite.driver.memAlloc(size);
      try {
        suite.driver.memsetD8Async(pointer, 0x11, size, suite.stream);
        suite.driver.memsetD8Async(pointer + 100n, 0xab, 200, suite.stream);
        suite.driver.memsetD16Async(pointer + 1024n, 0xbeef, 100, suite.stream);
        suite.driver.memsetD32Async(pointer + 2048n, 0xdeadbeef, 64, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        const expected = new Uint8Array(size).fill(0x11);
        expected.fill(0xab, 100, 300);
        const view = new DataView(expected.buffer);
        for (let index = 0; index < 100; index++) view.setUint16(1024 + 2 * index, 0xbeef, true);
        for (let index = 0; index < 64; index++) view.setUint32(2048 + 4 * index, 0xdeadbeef, true);
        expectSameBytes(readBack(suite.driver, pointer, size), expected);
      } finally {
        suite.driver.memFree(pointer);
      }
    });

    suite.itWith('batchMemcpy', 'memcpyBatchAsync performs every copy of the batch', () => {
      const sizes = [MiB, 4096 + 3, 65536];
      const data = sizes.map((size) => randomBytes(size));
      const sources = sizes.map((size) => suite.driver.memAlloc(size));
      const host = suite.driver.memHostAlloc(sizes[1] as number, 0);
      const targets = [
        suite.driver.memAlloc(sizes[0] as number),
        host,
        suite.driver.memAlloc(sizes[2] as number),
      ];
      try {
        sources.forEach((pointer, index) => {
          suite.driver.memcpyHtoDAsync(pointer, data[index] as Uint8Array, suite.stream);
        });
        suite.driver.memcpyBatchAsync(
          BigUint64Array.from(targets),
          BigUint64Array.from(sources),
          BigUint64Array.from(sizes.map(BigInt)),
          sizes.length,
          suite.stream,
        );
        suite.driver.streamSynchronize(suite.stream);
        targets.forEach((pointer, index) => {
          expectSameBytes(readBack(suite.driver, pointer, sizes[index] as number), data[index] as Uint8Array);
        });
        expectSameBytes(suite.driver.hostView(host, sizes[1] as number), data[1] as Uint8Array);
      } finally {
        for (const pointer of sources) suite.driver.memFree(pointer);
        suite.driver.memFree(targets[0] as bigint);
        suite.driver.memFree(targets[2] as bigint);
        suite.driver.memFreeHost(host);
      }
    });

    suite.itWith('batchMemcpy', 'memcpyBatchAsync on the legacy NULL stream fails', () => {
      const pointer = suite.driver.memAlloc(8192);
      try {
        // cuda.h (cuMemcpyBatchAsync): hStream "Must not be legacy NULL stream".
        expectCudaError(
          () =>
            suite.driver.memcpyBatchAsync(
              BigUint64Array.of(pointer + 4096n),
              BigUint64Array.of(pointer),
              BigUint64Array.of(4096n),
              1,
              0n,
            ),
          'cuMemcpyBatchAsync',
        );
      } finally {
        suite.driver.contextSynchronize();
        suite.driver.memFree(pointer);
      }
    });

    hostBoundsCases(suite);
  });
}
