// Compiled programs, kept because NVRTC takes hundreds of milliseconds per compile: in memory
// for the process (the last 256), and optionally as files in a directory, so a restarted
// server skips its compiles. The key is a SHA-256 of everything that decides the output
// except the NVRTC version: a cache directory made by one toolkit serves machines without
// NVRTC (clear it when upgrading the toolkit).
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One compile's result. */
export interface CompiledProgram {
  readonly target: 'ptx' | 'cubin';
  readonly image: Uint8Array;
  readonly log: string;
  /** Name expression to lowered (mangled) name. */
  readonly loweredNames: Readonly<Record<string, string>>;
}

const capacity = 256;
const memory = new Map<string, CompiledProgram>();

/** The cache key of a compile's inputs. */
export function compileKey(parts: readonly string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(`${part.length}:${part}`);
  return hash.digest('hex');
}

function fromDisk(directory: string, key: string): CompiledProgram | undefined {
  try {
    const stored = JSON.parse(readFileSync(join(directory, `${key}.json`), 'utf8')) as {
      target: 'ptx' | 'cubin';
      image: string;
      log: string;
      loweredNames: Record<string, string>;
    };
    if (stored.target !== 'ptx' && stored.target !== 'cubin') return undefined;
    return { ...stored, image: new Uint8Array(Buffer.from(stored.image, 'base64')) };
  } catch {
    // Absent, unreadable or damaged: compile again.
    return undefined;
  }
}

/** The cached result for `key`: from memory, else from `directory` when given. */
export function cachedCompile(key: string, directory: string | undefined): CompiledProgram | undefined {
  const hit = memory.get(key);
  if (hit !== undefined) {
    memory.delete(key);
    memory.set(key, hit);
    return hit;
  }
  if (directory === undefined) return undefined;
  const stored = fromDisk(directory, key);
  if (stored !== undefined) remember(key, stored);
  return stored;
}

function remember(key: string, value: CompiledProgram): void {
  memory.set(key, value);
  if (memory.size > capacity) memory.delete(memory.keys().next().value as string);
}

/** The code of the warning for a cache directory that cannot be written. */
export const unwritableCacheWarning = 'CUMEM_COMPILE_CACHE_UNWRITABLE';

// Directories already warned about: a server compiling many programs warns once per directory.
const warnedDirectories = new Set<string>();

function writeToDisk(directory: string, key: string, value: CompiledProgram): void {
  mkdirSync(directory, { recursive: true });
  const file = join(directory, `${key}.json`);
  const temporary = `${file}.${randomUUID()}.tmp`;
  try {
    writeFileSync(
      temporary,
      JSON.stringify({ ...value, image: Buffer.from(value.image).toString('base64') }),
    );
    renameSync(temporary, file);
  } catch (error) {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // Nothing to remove where nothing could be written.
    }
    throw error;
  }
}

/**
 * Keeps `value` in memory and, when `directory` is given, in a file (written whole, then
 * renamed). The file is a convenience: a directory that cannot be written warns once and the
 * compile that made `value` still succeeds.
 */
export function storeCompile(key: string, value: CompiledProgram, directory: string | undefined): void {
  remember(key, value);
  if (directory === undefined) return;
  try {
    writeToDisk(directory, key, value);
  } catch (error) {
    if (warnedDirectories.has(directory)) return;
    warnedDirectories.add(directory);
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    process.emitWarning(
      `cumem: cannot write the compile cache in ${directory} (${reason}); compiling without it there`,
      { type: 'CumemWarning', code: unwritableCacheWarning },
    );
  }
}

/** Forgets the in-memory cache (files stay). For tests and benchmarks of uncached compiles. */
export function clearCompileCache(): void {
  memory.clear();
}
