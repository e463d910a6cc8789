// Issue 45, item 6: a Proxy of a Kernel, or an object inheriting from one, passes `instanceof`
// and then failed on its first private read with the engine's "Cannot read private member",
// which names neither the class nor the member. Each class now has one brand test
// (`Kernel.isKernel`, `ObjectCode.isObjectCode`, `Program.isProgram`,
// `LaunchConfig.isLaunchConfig`) in front of every public method and getter, and `launch`
// takes its arguments by brand. The members are listed from the prototypes, so a member added
// later is tested without being named here.

import { inspect } from 'node:util';
import type { DeviceMemoryResource, Stream } from '@cumem/memory';
import { useDriver } from '@cumem/memory';
import { withCountingDriver } from '@cumem/test-support';
import { describeEachDriver, referenceKernelsPTX } from '@cumem/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adapters, useDeviceZero } from '../test/support.js';
import { float32, Kernel, LaunchConfig, launch, ObjectCode, Program, uint32 } from './index.js';

// Members the package calls only on objects it has checked (not public API), and those that
// answer for any receiver (tested apart, below).
const notGuarded = new Set<string | symbol>([
  'constructor',
  'layout',
  'functionOn',
  'launchFunctionOn',
  'toString',
  inspect.custom,
]);

/** Reads or calls member `key` of `target`, as a program would. */
function use(target: object, key: string | symbol): unknown {
  const member = (target as Record<string | symbol, unknown>)[key];
  return typeof member === 'function' ? (member as () => unknown).call(target) : member;
}

/** The public methods and getters of `type` (symbols included). */
function membersOf(type: { prototype: object }): (string | symbol)[] {
  return Reflect.ownKeys(type.prototype).filter((key) => !notGuarded.has(key));
}

function imitationsOf(real: object): { what: string; value: object }[] {
  return [
    { what: 'a transparent Proxy of it', value: new Proxy(real, {}) },
    { what: 'an object inheriting from it', value: Object.create(real) as object },
  ];
}

describeEachDriver(adapters, 'brand checks of compute objects', (entry) => {
  let pool: DeviceMemoryResource;
  let stream: Stream;
  let code: ObjectCode;
  let classes: () => {
    type: { prototype: object };
    name: string;
    real: object;
    isX: (value: unknown) => boolean;
  }[];

  beforeAll(() => {
    ({ pool, stream } = useDeviceZero(entry.driver));
    code = ObjectCode.fromPTX(referenceKernelsPTX);
    const list = [
      { type: Kernel, name: 'Kernel', real: code.getKernel('fill_f32'), isX: Kernel.isKernel },
      { type: ObjectCode, name: 'ObjectCode', real: code, isX: ObjectCode.isObjectCode },
      {
        type: Program,
        name: 'Program',
        real: new Program(referenceKernelsPTX, 'ptx'),
        isX: Program.isProgram,
      },
    ];
    classes = () => list;
  });
  afterAll(() => {
    code.close();
    stream.close();
  });

  it('every public method and getter refuses a Proxy and an heir with a TypeError naming the class and member', () => {
    for (const { type, name, real } of classes()) {
      const members = membersOf(type);
      expect(members.length, name).toBeGreaterThan(0);
      for (const { what, value } of imitationsOf(real)) {
        for (const key of members) {
          const member = typeof key === 'symbol' ? `[${key.description}]` : key;
          const pattern = new RegExp(
            `^${name}\\.${member.replace(/[[\].]/g, '\\$&')} was called on an object \\(${name}\\), which is not a ${name} \\(a Proxy of one, or an object inheriting from one, is not accepted\\)$`,
          );
          expect(() => use(value, key), `${name}.${member} on ${what}`).toThrow(pattern);
        }
      }
    }
  });

  it('isX answers true for the real object and false for imitations and other values', () => {
    for (const { name, real, isX } of classes()) {
      expect(isX(real), name).toBe(true);
      for (const { what, value } of imitationsOf(real)) expect(isX(value), `${name}: ${what}`).toBe(false);
      for (const value of [null, undefined, 0, 'Kernel', {}, [], () => real]) expect(isX(value)).toBe(false);
    }
    const config = new LaunchConfig({ grid: 1, block: 1 });
    expect(LaunchConfig.isLaunchConfig(config)).toBe(true);
    for (const { value } of imitationsOf(config)) expect(LaunchConfig.isLaunchConfig(value)).toBe(false);
    expect(
      LaunchConfig.isLaunchConfig({ grid: [1, 1, 1], block: [1, 1, 1], sharedMemBytes: 0, cluster: null }),
    ).toBe(false);
  });

  it('launch refuses a Proxy or heir of a Kernel or LaunchConfig by name, before any driver call', () => {
    const kernel = code.getKernel('fill_f32');
    const config = new LaunchConfig({ grid: 1, block: 32 });
    const out = pool.allocate(32 * 4);
    withCountingDriver(useDriver, entry.driver, (log) => {
      for (const { what, value } of imitationsOf(kernel)) {
        expect(() => launch(stream, config, value as Kernel, out, float32(1), uint32(32)), what).toThrow(
          /^kernel must be a Kernel, got an object \(Kernel\) \(a Proxy of one, or an object inheriting from one, is not accepted\)$/,
        );
      }
      for (const { what, value } of imitationsOf(config)) {
        expect(
          () => launch(stream, value as LaunchConfig, kernel, out, float32(1), uint32(32)),
          what,
        ).toThrow(/^config must be a LaunchConfig, got an object \(LaunchConfig\)/);
      }
      expect(log.calls).toEqual([]);
    });
    // The real ones still launch.
    launch(stream, config, kernel, out, float32(4), uint32(32));
    stream.sync();
    out.close();
  });

  it('launch refuses a revoked Proxy of a Kernel by name', () => {
    // (Reading a member of a revoked Proxy fails in the engine before any code of ours runs.)
    const { proxy, revoke } = Proxy.revocable(code.getKernel('fill_f32'), {});
    revoke();
    expect(() => launch(stream, new LaunchConfig({ grid: 1, block: 1 }), proxy)).toThrow(
      /^kernel must be a Kernel, got an object/,
    );
  });

  it("a Program subclass's instances are Programs: they pass the brand and compile", () => {
    class NamedProgram extends Program {
      get label(): string {
        return `program ${this.codeType}`;
      }
    }
    const program = new NamedProgram(referenceKernelsPTX, 'ptx');
    expect(Program.isProgram(program)).toBe(true);
    expect(program.label).toBe('program ptx');
    const compiled = program.compile('ptx');
    expect(program.log).toBe('');
    expect(compiled.getKernel('fill_f32').name).toBe('fill_f32');
    compiled.close();
  });
});
