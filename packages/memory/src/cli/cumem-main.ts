// `cumem`'s argument handling with node:util's parseArgs: `cumem info [--json]`, `cumem --version`,
// `cumem --help`. Exit code 0 when a driver works (or for --version / --help), 1 when none does
// (the report says why), 2 for bad usage.
import { parseArgs } from 'node:util';
import { collectInfo, cumemVersion, formatInfo } from './cumem-report.js';

const USAGE = [
  'usage: cumem info [--json]   the adapter chosen and why, the binary loaded, the driver, devices and capabilities',
  '       cumem --version       the version of @cumem/memory',
  '',
].join('\n');

/** Runs the CLI on `argv` (without node and the script), writing to `out` / `err`; returns the exit code. */
export function runCli(
  argv: readonly string[],
  out: (text: string) => void,
  err: (text: string) => void,
): number {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    err(`cumem: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.version) {
    out(`${cumemVersion()}\n`);
    return 0;
  }
  if (values.help || positionals.length === 0) {
    err(USAGE);
    return 0;
  }
  if (positionals[0] !== 'info' || positionals.length > 1) {
    err(`cumem: unknown command ${positionals.join(' ')}\n${USAGE}`);
    return 2;
  }
  const { report, ok } = collectInfo();
  out(
    values.json
      ? `${JSON.stringify(report, (_, value) => (typeof value === 'bigint' ? `${value}` : value), 2)}\n`
      : formatInfo(report),
  );
  return ok ? 0 : 1;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: 'boolean', default: false },
      version: { type: 'boolean', short: 'v', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}
