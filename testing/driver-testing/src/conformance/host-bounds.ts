import { expect, it } from 'vitest';
import type { SuiteContext } from './suite-context.js';
import { expectSameBytes, randomBytes, readBack } from './support.js';

const fourGiB = 2 ** 32;

/** `action` throws a RangeError (the class, not only the message) with exactly `message`. */
function expectRangeError(action: () => unknown, message: string): void {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(RangeError);
  expect((thrown as Error).message).toBe(message);
}

/**
 * JS memory as a copy endpoint or a view: every adapter checks a host view against the extent
 * of a 2D/3D copy (the driver would otherwise read or write past it) with the same RangeError,
 * and refuses or handles views over 4 GiB the same way (koffi aborts the process on them).
 */
export function hostBoundsCases(suite: SuiteContext): void {
  it('memcpy2DAsync refuses a JS endpoint shorter than the copy reaches, before any driver work', () => {
    const [width, height, pitch] = [10, 4, 16];
    const reach = (height - 1) * pitch + width; // 58
    const pointer = suite.driver.memAlloc(pitch * height);
    try {
      suite.driver.memsetD8Async(pointer, 0x77, pitch * height, suite.stream);
      // The destination is a window of a larger buffer: nothing past it may change.
      const backing = new Uint8Array(reach + 64).fill(0xee);
      const shortDst = backing.subarray(0, reach - 1);
      expectRangeError(
        () =>
          suite.driver.memcpy2DAsync(
            { src: pointer, srcPitch: pitch, dst: shortDst, dstPitch: pitch, widthInBytes: width, height },
            suite.stream,
          ),
        `memcpy2DAsync: dst holds ${reach - 1} bytes, fewer than the copy reaches (${reach})`,
      );
      const shortSrc = randomBytes(reach - 1);
      expectRangeError(
        () =>
          suite.driver.memcpy2DAsync(
            { src: shortSrc, srcPitch: pitch, dst: pointer, dstPitch: pitch, widthInBytes: width, height },
            suite.stream,
          ),
        `memcpy2DAsync: src holds ${reach - 1} bytes, fewer than the copy reaches (${reach})`,
      );
      suite.driver.streamSynchronize(suite.stream);
      expect(backing.every((byte) => byte === 0xee)).toBe(true);
      expect(readBack(suite.driver, pointer, pitch * height).every((byte) => byte === 0x77)).toBe(true);
      // A view exactly as long as the copy reaches (no padding after the last row) is enough.
      const exact = backing.subarray(0, reach);
      suite.driver.memcpy2DAsync(
        { src: pointer, srcPitch: pitch, dst: exact, dstPitch: pitch, widthInBytes: width, height },
        suite.stream,
      );
      suite.driver.streamSynchronize(suite.stream);
      for (let index = 0; index < backing.length; index++) {
        const inRow = index < reach && index % pitch < width;
        expect(backing[index]).toBe(inRow ? 0x77 : 0xee);
      }
    } finally {
      suite.driver.memFree(pointer);
    }
  });

  it('memcpy3DAsync refuses a JS endpoint shorter than the copy reaches (slices counted by srcHeight / dstHeight)', () => {
    const [width, height, depth] = [8, 3, 2];
    const [pitch, sliceRows] = [12, 5];
    const reach = ((depth - 1) * sliceRows + (height - 1)) * pitch + width; // 92
    const pointer = suite.driver.memAlloc(pitch * sliceRows * depth);
    const copy = (src: Uint8Array | bigint, dst: Uint8Array | bigint) =>
      suite.driver.memcpy3DAsync(
        {
          src,
          srcPitch: pitch,
          srcHeight: sliceRows,
          dst,
          dstPitch: pitch,
          dstHeight: sliceRows,
          widthInBytes: width,
          height,
          depth,
        },
        suite.stream,
      );
    try {
      expectRangeError(
        () => copy(pointer, new Uint8Array(reach - 1)),
        `memcpy3DAsync: dst holds ${reach - 1} bytes, fewer than the copy reaches (${reach})`,
      );
      expectRangeError(
        () => copy(new Uint8Array(reach - 1), pointer),
        `memcpy3DAsync: src holds ${reach - 1} bytes, fewer than the copy reaches (${reach})`,
      );
      const source = randomBytes(reach);
      const back = new Uint8Array(reach);
      copy(source, pointer);
      copy(pointer, back);
      suite.driver.streamSynchronize(suite.stream);
      for (let slice = 0; slice < depth; slice++) {
        for (let row = 0; row < height; row++) {
          const start = (slice * sliceRows + row) * pitch;
          expectSameBytes(back.subarray(start, start + width), source.subarray(start, start + width));
        }
      }
    } finally {
      suite.driver.memFree(pointer);
    }
  });

  it('hostView refuses more than 4 GiB with a RangeError, before looking at the memory', () => {
    const pointer = suite.driver.memHostAlloc(4096, 0);
    try {
      expect(suite.driver.hostView(pointer, 4096).byteLength).toBe(4096);
      expectRangeError(
        () => suite.driver.hostView(pointer, fourGiB + 1),
        `hostView: ${fourGiB + 1} bytes are more than one view can show (at most 4294967296 bytes, 4 GiB)`,
      );
    } finally {
      suite.driver.memFreeHost(pointer);
    }
  });

  it('a JS view over 4 GiB works with addressOf and as a 2D copy endpoint (bytes past 4 GiB included)', () => {
    // 4 GiB + 4 KiB of zeroed host memory: only the pages touched below become resident.
    const whole = new Float64Array((fourGiB + 4096) / 8);
    const high = new Uint8Array(whole.buffer, fourGiB, 4096);
    const base = suite.driver.addressOf(whole);
    expect(suite.driver.addressOf(high)).toBe(base + BigInt(fourGiB));
    const [width, height, pitch] = [100, 8, 512];
    const pointer = suite.driver.memAlloc(pitch * height);
    try {
      const pattern = randomBytes(pitch * height);
      suite.driver.memcpyHtoD(pointer, pattern);
      // Device -> the view's last 4 KiB (past 4 GiB), then back from there to the device.
      suite.driver.memcpy2DAsync(
        { src: pointer, srcPitch: pitch, dst: high, dstPitch: pitch, widthInBytes: width, height },
        suite.stream,
      );
      suite.driver.memsetD8Async(pointer, 0, pitch * height, suite.stream);
      suite.driver.memcpy2DAsync(
        { src: whole, srcPitch: pitch, dst: pointer, dstPitch: pitch, widthInBytes: width, height: 1 },
        suite.stream,
      );
      suite.driver.memcpy2DAsync(
        { src: high, srcPitch: pitch, dst: pointer + 4n, dstPitch: pitch, widthInBytes: width, height },
        suite.stream,
      );
      suite.driver.streamSynchronize(suite.stream);
      for (let row = 0; row < height; row++) {
        const start = row * pitch;
        expectSameBytes(high.subarray(start, start + width), pattern.subarray(start, start + width));
      }
      const device = readBack(suite.driver, pointer, pitch * height);
      expect(device.subarray(0, 4).every((byte) => byte === 0)).toBe(true);
      expectSameBytes(device.subarray(4, 4 + width), pattern.subarray(0, width));
    } finally {
      suite.driver.memFree(pointer);
    }
  });
}
