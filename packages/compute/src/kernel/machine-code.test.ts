// Loads of machine code (cubin, fatbin) made from the reference kernels' PTX by the CUDA
// toolkit's nvcc for the device's own architecture, and one ObjectCode launched on every
// device. GPU only: the reference driver runs PTX alone.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceAttribute } from '@cumem/core-types';
import { DeviceMemoryResource, Stream, useDriver } from '@cumem/memory';
import { expectEvery } from '@cumem/test-support';
import {
  describeEachDriver,
  describeEachDriverWithDevices,
  referenceKernelsPTX,
} from '@cumem/testing/vitest';
import { expect, it } from 'vitest';
import { adapters } from '../../test/support.js';
import { float32, LaunchConfig, launch, ObjectCode, uint32 } from '../index.js';

/** nvcc of CUDA_HOME, CUDA_PATH or /usr/local/cuda, else the one on PATH, else undefined. */
function findNvcc(): string | undefined {
  for (const root of [process.env.CUDA_HOME, process.env.CUDA_PATH, '/usr/local/cuda']) {
    if (root && existsSync(join(root, 'bin', 'nvcc'))) return join(root, 'bin', 'nvcc');
  }
  try {
    return execFileSync('which', ['nvcc'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const nvcc = findNvcc();

/** Runs fill_f32 from `code` on device `ordinal` and checks the result. */
function fillAndCheck(code: ObjectCode, ordinal: number, value: number): void {
  const stream = Stream.create(ordinal);
  const out = new DeviceMemoryResource(ordinal).allocate(4096 * 4, { stream });
  launch(
    stream,
    new LaunchConfig({ grid: 32, block: 128 }),
    code.getKernel('fill_f32'),
    out,
    float32(value),
    uint32(4096),
  );
  stream.sync();
  expectEvery(out, Float32Array, value);
  out.close();
  stream.close();
}

describeEachDriver(
  adapters,
  'machine code',
  (entry) => {
    const compile = (kind: 'cubin' | 'fatbin'): Uint8Array => {
      const driver = entry.driver;
      const arch = `sm_${driver.deviceGetAttribute(DeviceAttribute.ComputeCapabilityMajor, 0)}${driver.deviceGetAttribute(DeviceAttribute.ComputeCapabilityMinor, 0)}`;
      const directory = mkdtempSync(join(tmpdir(), 'cumem-compute-'));
      try {
        writeFileSync(join(directory, 'kernels.ptx'), referenceKernelsPTX);
        const output = join(directory, `kernels.${kind}`);
        execFileSync(
          nvcc as string,
          [`-${kind}`, `-arch=${arch}`, '-o', output, join(directory, 'kernels.ptx')],
          { stdio: 'pipe' },
        );
        return new Uint8Array(readFileSync(output));
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    };

    if (nvcc === undefined) {
      it.skip('skipped: not applicable: no nvcc on this machine to make a cubin or fatbin', () => {});
      return;
    }

    it('loads and runs a cubin made by nvcc', () => {
      useDriver(entry.driver);
      const code = ObjectCode.fromCubin(compile('cubin'));
      expect(code.codeType).toBe('cubin');
      fillAndCheck(code, 0, 4.5);
      const major = entry.driver.deviceGetAttribute(DeviceAttribute.ComputeCapabilityMajor, 0);
      const minor = entry.driver.deviceGetAttribute(DeviceAttribute.ComputeCapabilityMinor, 0);
      expect(code.getKernel('fill_f32').attributes().binaryVersion).toBe(major * 10 + minor);
      code.close();
    });

    it('loads and runs a fatbin made by nvcc', () => {
      useDriver(entry.driver);
      const code = ObjectCode.fromFatbin(compile('fatbin'));
      fillAndCheck(code, 0, -2);
      code.close();
    });

    it('refuses a cubin cut short before the driver reads it', () => {
      useDriver(entry.driver);
      const cubin = compile('cubin');
      expect(() => ObjectCode.fromCubin(cubin.subarray(0, cubin.length - 100))).toThrow(/truncated/);
    });
  },
  { gpuOnly: true },
);

describeEachDriverWithDevices(adapters, 2, 'one ObjectCode on two devices', (entry) => {
  it('launches the same kernel on devices 0 and 1', () => {
    useDriver(entry.driver);
    const code = ObjectCode.fromPTX(referenceKernelsPTX);
    fillAndCheck(code, 0, 1.25);
    fillAndCheck(code, 1, 2.75);
    fillAndCheck(code, 0, 3.5);
    code.close();
  });
});
