// ObjectCode refusals: unknown kernel names, text that is not PTX, and cubin / fatbin images whose
// headers lie about their size, each a typed error (launch.test.ts covers launching).
import { CudaError } from '@cumem/core-types';
import { useDriver } from '@cumem/memory';
import { describeEachDriver, referenceKernelsPTX } from '@cumem/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adapters } from '../../test/support.js';
import { ObjectCode } from '../index.js';

describeEachDriver(adapters, 'ObjectCode', (entry) => {
  let code: ObjectCode;

  beforeAll(() => {
    useDriver(entry.driver);
    code = ObjectCode.fromPTX(referenceKernelsPTX);
  });
  afterAll(() => {
    code.close();
  });

  it('refuses unknown kernels, garbage PTX and broken images', () => {
    expect(() => code.getKernel('no_such_kernel')).toThrow(
      expect.objectContaining({ codeName: 'CUDA_ERROR_NOT_FOUND' }),
    );
    expect(() => code.getKernel('' as never)).toThrow(TypeError);
    let error: unknown;
    try {
      // The driver may compile PTX lazily: the refusal comes from the load or the first lookup.
      ObjectCode.fromPTX('this is not PTX at all').getKernel('fill_f32');
    } catch (caught) {
      error = caught;
    }
    expect(CudaError.isInstance(error)).toBe(true);
    expect(() => ObjectCode.fromPTX('x\0y')).toThrow(RangeError);
    expect(() => ObjectCode.fromPTX(42 as never)).toThrow(TypeError);
    const elf = new Uint8Array(64);
    elf.set([0x7f, 0x45, 0x4c, 0x46, 2, 1]);
    new DataView(elf.buffer).setBigUint64(0x28, 4096n, true);
    new DataView(elf.buffer).setUint16(0x3a, 64, true);
    new DataView(elf.buffer).setUint16(0x3c, 3, true);
    expect(() => ObjectCode.fromCubin(elf)).toThrow(/truncated/);
    expect(() => ObjectCode.fromCubin(new Uint8Array(10))).toThrow(/not an ELF/);
    const fatbin = new Uint8Array(16);
    new DataView(fatbin.buffer).setUint32(0, 0xba55ed50, true);
    new DataView(fatbin.buffer).setUint16(6, 16, true);
    new DataView(fatbin.buffer).setBigUint64(8, 1000n, true);
    expect(() => ObjectCode.fromFatbin(fatbin)).toThrow(/truncated/);
    expect(() => ObjectCode.fromFatbin(new Uint8Array(8))).toThrow(/not a fatbin/);
    // Images are read by their true extent: a detached one is empty, a claimed length is no length.
    const detached = new Uint8Array(64);
    structuredClone(detached.buffer, { transfer: [detached.buffer] });
    expect(() => ObjectCode.fromCubin(detached)).toThrow(/not an ELF/);
    const claims = new Uint8Array(10);
    Object.defineProperty(claims, 'byteLength', { value: 4096 });
    expect(() => ObjectCode.fromCubin(claims)).toThrow(/not an ELF/);
  });
});
