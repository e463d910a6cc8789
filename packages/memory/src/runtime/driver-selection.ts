// The one file of @cumem/memory that may load an adapter package (a dependency-cruiser rule
// enforces it); everything else talks to the `Driver` contract it returns.
import { createRequire } from 'node:module';
import { debuglog } from 'node:util';
import {
  type CreateDriver,
  DRIVER_CONTRACT_VERSION,
  type Driver,
  DriverUnavailableError,
} from '@cumem/core-types';

/** The adapters cumem ships, in the order auto-detection tries them. */
export type AdapterName = 'napi' | 'ffi';

const adapterPackages: Record<AdapterName, string> = {
  napi: '@cumem/driver-napi',
  ffi: '@cumem/driver-ffi',
};

// require(esm) (Node >= 20.19) loads the ESM adapters synchronously, so `currentDriver()` can stay
// synchronous and a missing optional @cumem/driver-napi costs nothing until detection runs.
const requireFromHere = createRequire(import.meta.url);

// NODE_DEBUG=cumem: which adapter is tried, why one is passed over, which is chosen.
const debug = debuglog('cumem');

/** Loads an adapter's `createDriver`, or throws (MODULE_NOT_FOUND when it is not installed). */
export type AdapterLoader = (name: AdapterName) => CreateDriver;

function loadInstalledAdapter(name: AdapterName): CreateDriver {
  const exports = requireFromHere(adapterPackages[name]) as { createDriver?: unknown };
  if (typeof exports.createDriver !== 'function') {
    throw new TypeError(`${adapterPackages[name]} does not export createDriver()`);
  }
  return exports.createDriver as CreateDriver;
}

let adapterLoader: AdapterLoader = loadInstalledAdapter;

/**
 * @internal Replaces how adapters are loaded by name (tests: under vitest, `require` sees the
 * workspace's TypeScript sources). `undefined` restores the installed packages.
 * @returns the loader that was in use.
 */
export function replaceAdapterLoader(loader: AdapterLoader | undefined): AdapterLoader {
  const previous = adapterLoader;
  adapterLoader = loader ?? loadInstalledAdapter;
  return previous;
}

function isModuleNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND';
}

/** Why one adapter could not be used: a line of the final error message. */
interface Attempt {
  readonly name: AdapterName;
  readonly problem: string;
}

const howToFix = [
  'Possible solutions:',
  '- install a driver adapter: `npm install @cumem/driver-napi` (fastest) or `npm install @cumem/driver-ffi`',
  '- run on a machine with an NVIDIA GPU and its driver (libcuda.so.1), or set CUMEM_DRIVER=napi|ffi to pick one',
  "- to develop or test without a GPU, use cumem's reference driver: `npm install --save-dev @cumem/testing`, then `useDriver(createReferenceDriver())`",
].join('\n');

function contractProblem(driver: Driver): string | undefined {
  if (driver.contractVersion === DRIVER_CONTRACT_VERSION) return undefined;
  return `it implements driver contract version ${driver.contractVersion}, this @cumem/memory needs ${DRIVER_CONTRACT_VERSION}: install matching versions`;
}

/**
 * Tries one adapter: it must load, `createDriver()` must work, and its first call must not say
 * 'no-adapter' (the native part missing). Any other DriverUnavailableError (no libcuda, no
 * device) still selects it: the adapter is fine and the user's first call explains the machine.
 * Anything that is neither "module not found" nor a DriverUnavailableError is a bug: rethrown.
 */
function tryAdapter(name: AdapterName, load: AdapterLoader): Driver | Attempt {
  let driver: Driver;
  try {
    driver = load(name)();
  } catch (error) {
    if (isModuleNotFound(error)) {
      return { name, problem: `${adapterPackages[name]} is not installed (${firstLine(error)})` };
    }
    if (DriverUnavailableError.isInstance(error)) return { name, problem: firstLine(error) };
    throw error;
  }
  const problem = contractProblem(driver);
  if (problem) return { name, problem };
  try {
    void driver.driverVersion;
  } catch (error) {
    if (!DriverUnavailableError.isInstance(error)) throw error;
    if (error.reason === 'no-adapter') return { name, problem: firstLine(error) };
  }
  return driver;
}

function firstLine(error: unknown): string {
  return String((error as Error | null)?.message ?? error).split('\n')[0] ?? '';
}

function unavailable(attempts: readonly Attempt[]): DriverUnavailableError {
  const tried = attempts.map((attempt) => `- ${attempt.name}: ${attempt.problem}`).join('\n');
  return new DriverUnavailableError(
    'no-adapter',
    `No usable CUDA driver adapter. Tried:\n${tried}\n${howToFix}`,
  );
}

/**
 * The driver auto-detection picks: `CUMEM_DRIVER` (`napi` | `ffi`) when set, else the N-API
 * adapter when installed and loadable, else the FFI adapter.
 * @param load loads an adapter by name (tests pass a fake); default: the installed packages.
 * @param environment the variables to read; default `process.env`.
 * @throws DriverUnavailableError listing each adapter tried and why it failed.
 */
export function resolveDriver(
  load: AdapterLoader = adapterLoader,
  environment: Record<string, string | undefined> = process.env,
): Driver {
  const requested = environment.CUMEM_DRIVER;
  if (requested !== undefined && requested !== '') {
    if (requested !== 'napi' && requested !== 'ffi') {
      throw new DriverUnavailableError(
        'no-adapter',
        `CUMEM_DRIVER is ${JSON.stringify(requested)}; it must be 'napi' or 'ffi' (or unset for auto-detection)`,
      );
    }
    const result = tryAdapter(requested, load);
    if ('problem' in result) {
      debug('adapter %s (CUMEM_DRIVER) is not usable: %s', requested, result.problem);
      throw unavailable([result]);
    }
    debug('adapter %s chosen: CUMEM_DRIVER=%s', requested, requested);
    return result;
  }
  const attempts: Attempt[] = [];
  for (const name of ['napi', 'ffi'] as const) {
    const result = tryAdapter(name, load);
    if (!('problem' in result)) {
      debug('adapter %s chosen by auto-detection%s', name, attempts.length > 0 ? ' (fallback)' : '');
      return result;
    }
    debug('adapter %s is not usable, trying the next: %s', name, result.problem);
    attempts.push(result);
  }
  debug('no adapter is usable');
  throw unavailable(attempts);
}

let selected: Driver | undefined;

function isDriver(value: unknown): value is Driver {
  const candidate = value as Partial<Driver> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.contractVersion === 'number' &&
    typeof candidate.deviceGetCount === 'function' &&
    typeof candidate.memAllocFromPoolAsync === 'function'
  );
}

/**
 * Chooses the driver every later call of @cumem/memory uses: a `Driver` object (an adapter's
 * `createDriver()`, or a test double), or the name of an installed adapter. Objects made before
 * keep the driver they were made with.
 * @throws TypeError for anything else; DriverUnavailableError when the named adapter cannot load
 *   or the driver implements another contract version.
 */
export function useDriver(driver: Driver | AdapterName): void {
  if (driver === 'napi' || driver === 'ffi') {
    const result = tryAdapter(driver, adapterLoader);
    if ('problem' in result) throw unavailable([result]);
    debug('adapter %s chosen: useDriver(%s)', driver, JSON.stringify(driver));
    selected = result;
    return;
  }
  if (!isDriver(driver)) {
    throw new TypeError(
      `useDriver() takes a Driver object or 'napi' | 'ffi', got ${typeof driver === 'string' ? JSON.stringify(driver) : typeof driver}`,
    );
  }
  const problem = contractProblem(driver);
  if (problem) throw new DriverUnavailableError('no-adapter', `Driver ${driver.name}: ${problem}`);
  debug('driver %s chosen: useDriver(driver)', driver.name);
  selected = driver;
}

/**
 * The driver in use, resolving it on first use (see {@link resolveDriver}) and keeping the
 * result. Cheap after the first call.
 */
export function currentDriver(): Driver {
  if (selected === undefined) selected = resolveDriver();
  return selected;
}

/** One adapter as {@link inspectAdapters} found it. */
export interface AdapterInspection {
  readonly name: AdapterName;
  /** The adapter's package. */
  readonly packageName: string;
  /** Its driver when it loaded (it may still fail on its first call: no libcuda, no device). */
  readonly driver?: Driver;
  /** Why it cannot be used, when it cannot. */
  readonly problem?: string;
}

/**
 * Tries every adapter the way auto-detection does, for diagnostics (`cumem info`): each one's
 * driver or why it is unusable, the one chosen and why. Changes nothing.
 */
export function inspectAdapters(environment: Record<string, string | undefined> = process.env): {
  readonly adapters: readonly AdapterInspection[];
  readonly chosen?: AdapterName;
  readonly why: string;
} {
  const adapters = (['napi', 'ffi'] as const).map((name): AdapterInspection => {
    const result = tryAdapter(name, adapterLoader);
    const packageName = adapterPackages[name];
    return 'problem' in result
      ? { name, packageName, problem: result.problem }
      : { name, packageName, driver: result };
  });
  const requested = environment.CUMEM_DRIVER;
  if (requested) {
    const found = adapters.find((adapter) => adapter.name === requested);
    return found?.driver
      ? { adapters, chosen: found.name, why: `CUMEM_DRIVER=${requested}` }
      : { adapters, why: `CUMEM_DRIVER=${requested} names an adapter that is not usable` };
  }
  const usable = adapters.find((adapter) => adapter.driver !== undefined);
  if (!usable) return { adapters, why: 'no adapter is usable' };
  return {
    adapters,
    chosen: usable.name,
    why:
      usable.name === 'napi'
        ? 'auto-detection: the N-API adapter (the faster one) loaded'
        : 'auto-detection: the N-API adapter is not usable, so the FFI adapter (fallback)',
  };
}

/**
 * An adapter package's version and, for the N-API adapter, where its addon came from (the
 * adapter's `nativeAddonInfo()`), for `cumem info`. Undefined fields when it is not installed.
 */
export function adapterPackageDetails(name: AdapterName): {
  readonly version?: string;
  readonly addon?: unknown;
} {
  try {
    const { version } = requireFromHere(`${adapterPackages[name]}/package.json`) as { version?: string };
    const exports = requireFromHere(adapterPackages[name]) as { nativeAddonInfo?: () => unknown };
    return { version, addon: exports.nativeAddonInfo?.() };
  } catch {
    return {};
  }
}
