import {
  type CreateDriver,
  DRIVER_CONTRACT_VERSION,
  type Driver,
  DriverUnavailableError,
} from '@cumem/core-types';
import { createReferenceDriver } from '@cumem/testing';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type AdapterLoader,
  type AdapterName,
  currentDriver,
  replaceAdapterLoader,
  resolveDriver,
  useDriver,
} from './driver-selection.js';

function notInstalled(name: string): Error {
  return Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
}

/** A driver whose first real use says what an adapter on a machine without libcuda says. */
function driverFailing(reason: 'no-adapter' | 'library-missing', name: string): Driver {
  const reference = createReferenceDriver();
  return new Proxy(reference, {
    get(target, property, receiver) {
      if (property === 'name') return name;
      if (property === 'driverVersion')
        throw new DriverUnavailableError(reason, `${name}: ${reason} (simulated)`);
      return Reflect.get(target, property, receiver);
    },
  });
}

function loader(factories: Partial<Record<AdapterName, CreateDriver | Error>>): AdapterLoader {
  return (name) => {
    const factory = factories[name];
    if (factory === undefined) throw notInstalled(`@cumem/driver-${name}`);
    if (factory instanceof Error) throw factory;
    return factory;
  };
}

describe('resolveDriver', () => {
  const napi = createReferenceDriver();
  const ffi = createReferenceDriver();

  it('prefers the N-API adapter when it loads', () => {
    expect(resolveDriver(loader({ napi: () => napi, ffi: () => ffi }), {})).toBe(napi);
  });

  it('falls back to FFI when the N-API adapter is not installed or its native part is missing', () => {
    expect(resolveDriver(loader({ ffi: () => ffi }), {})).toBe(ffi);
    const noAddon = driverFailing('no-adapter', 'napi');
    expect(resolveDriver(loader({ napi: () => noAddon, ffi: () => ffi }), {})).toBe(ffi);
  });

  it('keeps the N-API adapter when only the machine lacks a GPU (the first call explains it)', () => {
    const noGpu = driverFailing('library-missing', 'napi');
    expect(resolveDriver(loader({ napi: () => noGpu, ffi: () => ffi }), {})).toBe(noGpu);
  });

  it('lists what was tried when nothing works', () => {
    const noAddon = driverFailing('no-adapter', 'napi');
    let error: unknown;
    try {
      resolveDriver(loader({ napi: () => noAddon }), {});
    } catch (caught) {
      error = caught;
    }
    expect(DriverUnavailableError.isInstance(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toMatch(/- napi: napi: no-adapter/);
    expect(message).toMatch(/- ffi: @cumem\/driver-ffi is not installed/);
    expect(message).toMatch(/npm install @cumem\/driver-napi/);
  });

  it('honours CUMEM_DRIVER, without falling back', () => {
    const factories = loader({ napi: () => napi, ffi: () => ffi });
    expect(resolveDriver(factories, { CUMEM_DRIVER: 'ffi' })).toBe(ffi);
    expect(resolveDriver(factories, { CUMEM_DRIVER: 'napi' })).toBe(napi);
    expect(() => resolveDriver(loader({ napi: () => napi }), { CUMEM_DRIVER: 'ffi' })).toThrow(
      DriverUnavailableError,
    );
    expect(() => resolveDriver(factories, { CUMEM_DRIVER: 'cuda' })).toThrow(/must be 'napi' or 'ffi'/);
  });

  it('rethrows an error that is not "module not found"', () => {
    const broken = new SyntaxError('Unexpected token in adapter');
    expect(() => resolveDriver(loader({ napi: broken, ffi: () => ffi }), {})).toThrow(SyntaxError);
  });

  it('refuses an adapter of another contract version', () => {
    const other = new Proxy(createReferenceDriver(), {
      get: (target, property, receiver) =>
        property === 'contractVersion'
          ? DRIVER_CONTRACT_VERSION + 1
          : Reflect.get(target, property, receiver),
    });
    expect(resolveDriver(loader({ napi: () => other, ffi: () => ffi }), {})).toBe(ffi);
  });
});

describe('useDriver / currentDriver', () => {
  afterAll(() => useDriver(createReferenceDriver()));

  it('uses the driver object given', () => {
    const driver = createReferenceDriver();
    useDriver(driver);
    expect(currentDriver()).toBe(driver);
    expect(currentDriver()).toBe(driver);
  });

  it('refuses what is not a driver, or an unknown adapter name', () => {
    expect(() => useDriver({} as never)).toThrow(TypeError);
    expect(() => useDriver('cuda' as never)).toThrow(TypeError);
    expect(() => useDriver(42 as never)).toThrow(TypeError);
  });

  it('loads an adapter by name, and says why when it cannot', () => {
    const ffi = createReferenceDriver();
    const previous = replaceAdapterLoader(loader({ ffi: () => ffi }));
    try {
      useDriver('ffi');
      expect(currentDriver()).toBe(ffi);
      expect(() => useDriver('napi')).toThrow(DriverUnavailableError);
      expect(() => useDriver('napi')).toThrow(/@cumem\/driver-napi is not installed/);
      expect(currentDriver()).toBe(ffi);
    } finally {
      replaceAdapterLoader(previous);
    }
  });
});

describe('auto-detection in a fresh process (built package)', () => {
  it('picks an installed adapter, or says in one DriverUnavailableError what was tried', async () => {
    const { execFileSync } = await import('node:child_process');
    const { existsSync } = await import('node:fs');
    const packageRoot = new URL('../..', import.meta.url);
    if (!existsSync(new URL('dist/index.js', packageRoot))) {
      throw new Error('this case imports the built package: run `tsc -b` in packages/memory first');
    }
    const script = [
      "const m = await import('@cumem/memory');",
      'try { console.log(m.currentDriver().name); }',
      "catch (e) { console.log(m.DriverUnavailableError.isInstance(e) ? 'unavailable' : 'other: ' + e); }",
    ].join('\n');
    const environment = { ...process.env };
    delete environment.CUMEM_DRIVER;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: packageRoot,
      env: environment,
      encoding: 'utf8',
    }).trim();
    expect(['napi', 'ffi', 'unavailable']).toContain(output);
  });
});
