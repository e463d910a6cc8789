// Staged copies over the fake libcuda, the same claims for both adapters: the N-API engine's
// native threads and the FFI adapter's worker threads (staging-worker.js) move every byte of a
// slice through their pinned chunks, and a driver failure in a thread is the CudaError of the
// entry point that failed.
import { CudaError } from '@cumem/core-types';
import { expect, it } from 'vitest';
import { describeOverFake } from './fake-harness.js';

/** Whether `a` and `b` hold the same bytes (quicker than a deep equality over megabytes). */
const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);

const shapes = [
  { bytes: 1, chunkBytes: 4096, threads: 1 },
  { bytes: 3 * 4096 + 13, chunkBytes: 4096, threads: 1 },
  { bytes: 1 << 20, chunkBytes: 4096 + 7, threads: 3 },
  { bytes: (1 << 20) + 5, chunkBytes: 65536, threads: 8 },
];

describeOverFake('staged copies', (fake) => {
  /** A driver over the fake with device 0's primary context current, as a staged copy needs. */
  const driverWithContext = () => {
    const driver = fake.driver();
    driver.contextSetCurrent(driver.primaryContextRetain(0));
    return driver;
  };

  it.each(shapes)(
    'round-trips $bytes bytes in chunks of $chunkBytes on $threads threads, byte-exact',
    ({ bytes, chunkBytes, threads }) => {
      process.env.FAKE_CUDA_SYNC_US = '0';
      const driver = driverWithContext();
      const device = driver.memAlloc(bytes + 64);
      const source = Uint8Array.from({ length: bytes }, (_, i) => (i * 7 + 3) & 0xff);
      driver.stagedCopyHtoD(device + 32n, source, 0n, { chunkBytes, threads });
      expect(sameBytes(driver.hostView(device + 32n, bytes), source)).toBe(true);
      const back = new Uint8Array(bytes + 2);
      driver.stagedCopyDtoH(back.subarray(1, bytes + 1), device + 32n, 0n, { chunkBytes, threads });
      expect(back[0]).toBe(0);
      expect(back[bytes + 1]).toBe(0);
      expect(sameBytes(back.subarray(1, bytes + 1), source)).toBe(true);
      driver.memFree(device);
    },
  );

  it.each(['stagedCopyHtoD', 'stagedCopyDtoH'] as const)(
    '%s turns a failure in a copying thread into the CudaError of that entry point',
    (name) => {
      process.env.FAKE_CUDA_SYNC_US = '0';
      const driver = driverWithContext();
      const bytes = 8 * 4096;
      const device = driver.memAlloc(bytes);
      const host = new Uint8Array(bytes);
      // Only the copying threads wait on events: a direct copy would not fail.
      process.env.FAKE_CUDA_FAIL = 'cuEventSynchronize=999';
      const options = { chunkBytes: 4096, threads: 2 };
      let caught: unknown;
      try {
        if (name === 'stagedCopyHtoD') driver.stagedCopyHtoD(device, host, 0n, options);
        else driver.stagedCopyDtoH(host, device, 0n, options);
      } catch (error) {
        caught = error;
      }
      delete process.env.FAKE_CUDA_FAIL;
      expect(CudaError.isInstance(caught)).toBe(true);
      expect(caught).toMatchObject({ call: 'cuEventSynchronize', code: 999 });
      // The threads stay usable after the failure.
      host.fill(5);
      driver.stagedCopyHtoD(device, host, 0n, options);
      expect(driver.hostView(device, bytes).every((byte) => byte === 5)).toBe(true);
      driver.memFree(device);
    },
  );
});
