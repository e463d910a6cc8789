// A Proxy of a Kernel, or an object inheriting from one, passed `instanceof` in launch() and then
// failed on its first private read with the engine's "Cannot read private member", which names
// neither the argument nor the class; so did every method and getter of Kernel, ObjectCode and
// Program called on one. Each class now checks its brand (Kernel.isKernel, ObjectCode.isObjectCode,
// Program.isProgram, LaunchConfig.isLaunchConfig: one private-field test) in front of every
// public member, and launch() takes its arguments by brand: a TypeError naming the class, before
// any driver call, also for an heir of a LaunchConfig with a lying `block` or an heir of a Kernel
// with its own `launchFunctionOn`. The real objects keep working.

import { inspect } from 'node:util';
import { float32, Kernel, LaunchConfig, launch, ObjectCode, Program, uint32 } from '@cumem/compute';
import { referenceKernelsPTX } from '@cumem/testing';
import { check, expectThrows, memory, setUp } from './support.mjs';

await setUp();
const stream = memory.Stream.create(0);
const mr = new memory.DeviceMemoryResource(0);
const out = mr.allocate(32 * 4, { stream });
const code = ObjectCode.fromPTX(referenceKernelsPTX);
const kernel = code.getKernel('fill_f32');
const config = new LaunchConfig({ grid: 1, block: 32 });
const program = new Program(referenceKernelsPTX, 'ptx');

// Members the package calls only on objects it has checked, and those that describe any receiver.
const notPublic = new Set(['constructor', 'layout', 'functionOn', 'launchFunctionOn']);
const describes = new Set(['toString', inspect.custom]);

function imitationsOf(real) {
  return {
    'a Proxy': new Proxy(real, {}),
    'an heir': Object.create(real),
    'a Proxy of an heir': new Proxy(Object.create(real), {}),
  };
}

for (const [Class, real] of [
  [Kernel, kernel],
  [ObjectCode, code],
  [Program, program],
]) {
  for (const [what, fake] of Object.entries(imitationsOf(real))) {
    for (const key of Reflect.ownKeys(Class.prototype)) {
      if (notPublic.has(key)) continue;
      const name = `${Class.name}.${String(key)} on ${what}`;
      if (describes.has(key)) {
        // Describing an imitation answers; it never throws.
        const text = key === 'toString' ? String(fake) : inspect(fake);
        check(typeof text === 'string' && text.length > 0, `${name} describes it`);
        continue;
      }
      const error = expectThrows(TypeError, name, () => {
        const member = fake[key];
        return typeof member === 'function' ? member.call(fake) : member;
      });
      check(
        error.message.includes(`which is not a ${Class.name}`) && !error.message.includes('private member'),
        `${name}: the class's own TypeError, got "${error.message}"`,
      );
    }
  }
}

for (const [what, fake] of Object.entries(imitationsOf(kernel))) {
  const error = expectThrows(TypeError, `launch of ${what} of a Kernel`, () =>
    launch(stream, config, fake, out, float32(1), uint32(32)),
  );
  check(/^kernel must be a Kernel/.test(error.message), `launch names the kernel argument: ${error.message}`);
}
// An heir's own launchFunctionOn would answer any CUfunction: refused before it is asked.
const lyingKernel = Object.create(kernel, { launchFunctionOn: { value: () => 2n ** 64n - 1n } });
expectThrows(TypeError, 'launch of a Kernel heir with its own launchFunctionOn', () =>
  launch(stream, config, lyingKernel, out, float32(1), uint32(32)),
);
// An heir's own block would skip the device's limits: refused as not a LaunchConfig.
const lyingConfig = Object.create(config, { block: { get: () => [1 << 20, 1 << 20, 64] } });
expectThrows(TypeError, 'launch with a LaunchConfig heir with a lying block', () =>
  launch(stream, lyingConfig, kernel, out, float32(1), uint32(32)),
);
for (const [what, fake] of Object.entries(imitationsOf(config))) {
  expectThrows(TypeError, `launch with ${what} of a LaunchConfig`, () =>
    launch(stream, fake, kernel, out, float32(1), uint32(32)),
  );
}
check(Kernel.isKernel(kernel) && !Kernel.isKernel(new Proxy(kernel, {})), 'Kernel.isKernel tells them apart');

// The real objects still work.
check(code.getKernel('fill_f32').name === 'fill_f32', 'the ObjectCode still finds kernels');
check(!code.isClosed && program.log === '', 'their getters still answer');
out.close({ stream });
stream.sync();
stream.close();
code.close();
check(code.isClosed, 'the ObjectCode closes');
mr.close();
console.log('compute proxies and heirs: every member and launch refused them by name');
