// Issue 46, "debuggable objects": `util.inspect` and `String()` of a Kernel, ObjectCode or
// Program show its kind and the facts a reader can act on (name, code type, size, closed or
// not), never the driver's handles or the reference driver's internals; an imitation (an
// object inheriting from one) is described without throwing.

import { inspect } from 'node:util';
import { describeEachDriver, referenceKernelsPTX } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters, useDeviceZero } from '../test/support.js';
import { ObjectCode, Program } from './index.js';

describeEachDriver(adapters, 'inspect and toString of compute objects', (entry) => {
  beforeAll(() => {
    useDeviceZero(entry.driver).stream.close();
  });

  it('an ObjectCode and its Kernel show kind, name, size and closed state', () => {
    const code = ObjectCode.fromPTX(referenceKernelsPTX);
    const kernel = code.getKernel('fill_f32');
    const size = new TextEncoder().encode(referenceKernelsPTX).length + 1;
    expect(String(code)).toBe(`ObjectCode(codeType: ptx, size: ${size}, closed: false)`);
    expect(inspect(code)).toBe(`ObjectCode { codeType: 'ptx', size: ${size}, closed: false }`);
    expect(String(kernel)).toBe('Kernel(name: fill_f32, codeType: ptx, closed: false)');
    expect(inspect(kernel)).toBe("Kernel { name: 'fill_f32', codeType: 'ptx', closed: false }");
    code.close();
    expect(String(code)).toMatch(/closed: true\)$/);
    expect(inspect(kernel)).toMatch(/closed: true\s*\}$/);
    // Nested below the depth asked: the kind alone.
    expect(inspect({ a: { b: kernel } }, { depth: 0 })).toBe('{ a: [Object] }');
    expect(inspect({ a: kernel }, { depth: 0 })).toBe('{ a: [Kernel] }');
  });

  it('a Program shows its language, architecture and name', () => {
    const ptx = new Program(referenceKernelsPTX, 'ptx', { name: 'kernels.ptx' });
    expect(String(ptx)).toBe('Program(codeType: ptx, arch: null, name: kernels.ptx)');
    const cpp = new Program('__global__ void k() {}', 'c++', { arch: 'sm_90' });
    expect(String(cpp)).toBe('Program(codeType: c++, arch: sm_90, name: program.cu)');
    expect(inspect(cpp)).toBe("Program { codeType: 'c++', arch: 'sm_90', name: 'program.cu' }");
  });

  it('shows no driver handle or driver internals', () => {
    const code = ObjectCode.fromPTX(referenceKernelsPTX);
    const kernel = code.getKernel('fill_f32');
    for (const text of [inspect(code, { depth: 10, showHidden: true }), inspect(kernel, { depth: 10 })]) {
      expect(text).not.toMatch(/driver|handle|library|\dn\b/i);
    }
    code.close();
  });

  it('describes an object inheriting from one without throwing', () => {
    const code = ObjectCode.fromPTX(referenceKernelsPTX);
    const heirs = [
      Object.create(code),
      Object.create(code.getKernel('fill_f32')),
      Object.create(new Program('', 'ptx')),
    ];
    expect(heirs.map((heir) => String(heir))).toEqual([
      '[ObjectCode imitation]',
      '[Kernel imitation]',
      '[Program imitation]',
    ]);
    for (const heir of heirs) expect(inspect(heir)).toMatch(/imitation\]/);
    code.close();
  });
});
