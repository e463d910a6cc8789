// One copy of Apache Arrow JS: @cumem/interop-arrow uses the `apache-arrow` its user installed
// (a peer dependency). When a Table, RecordBatch or Schema comes from ANOTHER copy (two versions
// in one project), Arrow JS's writer does not recognise it and writes nothing: a silent empty
// result. So every Arrow object entering this package is checked here first, and one from
// another copy is refused with a TypeError naming both versions and the fix.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describeValue } from '@cumem/core-types';
import { RecordBatch, Schema, Table } from 'apache-arrow';

/** The version of the package whose entry file is `entry` (the nearest package.json named apache-arrow). */
function versionAbove(entry: string): string | undefined {
  for (let directory = dirname(entry); dirname(directory) !== directory; directory = dirname(directory)) {
    const manifest = join(directory, 'package.json');
    if (!existsSync(manifest)) continue;
    const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as {
      name?: string;
      version?: string;
    };
    if (name === 'apache-arrow') return version;
  }
  return undefined;
}

function resolvedVersion(from: string): string | undefined {
  try {
    return versionAbove(createRequire(from).resolve('apache-arrow'));
  } catch {
    return undefined;
  }
}

let ours: string | undefined;
/** The version of the apache-arrow this package uses, e.g. `'21.1.0'` (`'unknown'` if unreadable). */
export function arrowVersion(): string {
  ours ??= resolvedVersion(import.meta.url) ?? 'unknown';
  return ours;
}

const classes = { Table, RecordBatch, Schema } as const;
type ArrowKind = keyof typeof classes;

/** Duck-typed: what another copy's object of each kind looks like. */
function looksLike(value: object, kind: ArrowKind): boolean {
  const candidate = value as Record<string, unknown>;
  if (kind === 'Schema') return Array.isArray(candidate.fields) && candidate.metadata instanceof Map;
  const isTable = Array.isArray(candidate.batches);
  return typeof candidate.numRows === 'number' && 'schema' in candidate && (kind === 'Table') === isTable;
}

/**
 * Checks that `value` is an Arrow `kind` of the apache-arrow this package uses.
 * @throws TypeError naming both versions when it is one from another copy of apache-arrow, and
 *   a plain TypeError when it is no Arrow object at all.
 */
export function checkArrowObject(value: unknown, kind: ArrowKind, name: string): void {
  if (value instanceof classes[kind]) return;
  if (typeof value === 'object' && value !== null && looksLike(value, kind)) {
    // Where the application's own `import 'apache-arrow'` resolves: usually the other copy.
    const theirs = resolvedVersion(join(process.cwd(), 'package.json'));
    const other =
      theirs && theirs !== arrowVersion() ? `apache-arrow ${theirs}` : 'another copy of apache-arrow';
    throw new TypeError(
      `${name} is an Arrow ${kind} from ${other}, but @cumem/interop-arrow uses apache-arrow ${arrowVersion()}: ` +
        "Arrow JS cannot write another copy's objects (it would write nothing). Install one apache-arrow in the " +
        "range @cumem/interop-arrow's peerDependencies accept, so both use the same copy (`npm ls apache-arrow` " +
        'shows the copies), or re-read the data with that copy: tableFromIPC(yourTableToIPC(table)).',
    );
  }
  throw new TypeError(`${name} must be an Arrow ${kind}, got ${describeValue(value)}`);
}
