// When and how copies from and to pageable JS memory go through the drivers' staged-copy engine.
// Read once from the environment, changeable with configureStaging(). The defaults come from
// the pageable-memory probe; bench/README.md records the sweep that chooses them and the size
// below which the driver's direct copy is faster.
import { checkOptions, checkSize, checkStagedCopyOptions, type StagedCopyOptions } from '@cumem/core-types';

/** How copies of pageable JS memory are staged. */
export interface StagingSettings extends StagedCopyOptions {
  /** Copies of fewer bytes than this take the driver's direct copy; 0 stages every copy, Infinity none. */
  readonly minBytes: number;
}

const MiB = 1024 * 1024;
// The fastest settings of the staging sweep (bench/README.md), and the size from which staging
// beat the direct copy.
const defaults = { chunkBytes: 4 * MiB, threads: 8, minBytes: 64 * MiB };

function fromEnvironment(name: string, fallback: number): number {
  const text = typeof process === 'undefined' ? undefined : process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = text === 'Infinity' ? Number.POSITIVE_INFINITY : Number(text);
  if (!(value >= 0)) {
    process.emitWarning(`cumem: ignoring ${name}=${text} (not a non-negative number)`, 'CumemWarning');
    return fallback;
  }
  return value;
}

let current: StagingSettings = fromEnvironmentChecked();

// Settings no adapter can use (a chunk past 4 GiB, say) would fail every staged copy, or with
// the FFI adapter abort the process: the environment's are dropped with a warning instead of
// making `import '@cumem/memory'` throw.
function fromEnvironmentChecked(): StagingSettings {
  try {
    return check({
      chunkBytes: fromEnvironment('CUMEM_STAGING_CHUNK', defaults.chunkBytes),
      threads: fromEnvironment('CUMEM_STAGING_THREADS', defaults.threads),
      minBytes: fromEnvironment('CUMEM_STAGING_MIN', defaults.minBytes),
    });
  } catch (error) {
    process.emitWarning(
      `cumem: ignoring the CUMEM_STAGING_* settings: ${(error as Error).message}`,
      'CumemWarning',
    );
    return check(defaults);
  }
}

/** The adapters' limits (core-types' checkStagedCopyOptions, which every staged copy applies), at configuration time. */
function check(settings: StagingSettings): StagingSettings {
  const chunkBytes = checkSize(settings.chunkBytes, 'chunkBytes');
  const threads = checkSize(settings.threads, 'threads');
  checkStagedCopyOptions('configureStaging', { chunkBytes, threads });
  const minBytes =
    settings.minBytes === Number.POSITIVE_INFINITY ? minBytesNever : checkSize(settings.minBytes, 'minBytes');
  return Object.freeze({ chunkBytes, threads, minBytes });
}
const minBytesNever = Number.POSITIVE_INFINITY;

/** The settings copies use now. */
export function stagingSettings(): StagingSettings {
  return current;
}

/**
 * Changes how copies between device memory and pageable JS memory (`Buffer.copyFrom` /
 * `copyTo` and everything built on them) are staged; omitted fields keep their values.
 * The environment sets the starting values: `CUMEM_STAGING_CHUNK` (bytes per pinned chunk),
 * `CUMEM_STAGING_THREADS`, `CUMEM_STAGING_MIN` (bytes; `Infinity` turns staging off).
 * Memory registered with `registerHostMemory` is never staged: it is copied at pinned speed.
 * Limits (the same for every adapter, checked here rather than at the first copy): `chunkBytes`
 * from 1 to `STAGED_COPY_MAX_CHUNK_BYTES` (4 GiB), `threads` from 1 to `STAGED_COPY_MAX_THREADS` (64).
 * @returns the settings now in force.
 * @throws TypeError / RangeError for a field of the wrong kind or out of range (the settings
 *   in force do not change).
 */
export function configureStaging(settings: Partial<StagingSettings> = {}): StagingSettings {
  current = check({ ...current, ...checkOptions(settings, 'settings') });
  return current;
}
