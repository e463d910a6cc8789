// When and how copies from and to pageable JS memory go through the drivers' staged-copy engine.
// Read once from the environment, changeable with configureStaging(). The defaults come from
// the pageable-memory probe on an H200 (8 MiB chunks, 4 threads); bench/README.md records the
// sweep that chooses them and the size below which the driver's direct copy is faster.
import { checkOptions, checkSize, STAGED_COPY_MAX_THREADS, type StagedCopyOptions } from '@cumem/core-types';

/** How copies of pageable JS memory are staged. */
export interface StagingSettings extends StagedCopyOptions {
  /** Copies of fewer bytes than this take the driver's direct copy; 0 stages every copy, Infinity none. */
  readonly minBytes: number;
}

const MiB = 1024 * 1024;
// From the staging sweep on an H200 (bench/README.md): 4 MiB chunks on 8 threads moved 256 MiB
// fastest both ways, and staging beat the direct copy from 64 MiB up.
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

let current: StagingSettings = check({
  chunkBytes: fromEnvironment('CUMEM_STAGING_CHUNK', defaults.chunkBytes),
  threads: fromEnvironment('CUMEM_STAGING_THREADS', defaults.threads),
  minBytes: fromEnvironment('CUMEM_STAGING_MIN', defaults.minBytes),
});

function check(settings: StagingSettings): StagingSettings {
  const chunkBytes = checkSize(settings.chunkBytes, 'chunkBytes');
  if (chunkBytes < 1) throw new RangeError('chunkBytes must be at least 1');
  const threads = checkSize(settings.threads, 'threads');
  if (threads < 1 || threads > STAGED_COPY_MAX_THREADS) {
    throw new RangeError(`threads must be from 1 to ${STAGED_COPY_MAX_THREADS}, got ${threads}`);
  }
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
 * @returns the settings now in force.
 * @throws TypeError / RangeError for a field of the wrong kind or out of range.
 */
export function configureStaging(settings: Partial<StagingSettings> = {}): StagingSettings {
  current = check({ ...current, ...checkOptions(settings, 'settings') });
  return current;
}
