// What `cumem info` reports, gathered once as data: printed as text by default, as JSON with
// `--json` (for bug reports and scripts). Which adapter was chosen and why, what failed to load
// and why, which native binary loaded (prebuilt or built from source), the driver version, every
// device with its properties and the driver's capabilities, and memory statistics when present.
import { createRequire } from 'node:module';
import { inspect } from 'node:util';
import { DriverUnavailableError, formatCudaVersion } from '@cumem/core-types';
import * as memory from '../index.js';
import { adapterPackageDetails, inspectAdapters } from '../runtime/driver-selection.js';

const require = createRequire(import.meta.url);

/** The version of this @cumem/memory (`cumem --version`). */
export function cumemVersion(): string {
  return (require('../../package.json') as { version: string }).version;
}

/** The native addon an adapter package loaded (driver-napi's `nativeAddonInfo()`), if it has one. */
export interface AddonReport {
  readonly loaded: boolean;
  readonly path?: string;
  /** True: a binary shipped in the package (prebuilds/); false: built from source here. */
  readonly prebuilt?: boolean;
  readonly message?: string;
}

/** Everything `cumem info` prints. */
export interface InfoReport {
  readonly cumem: string;
  readonly node: string;
  readonly platform: string;
  readonly adapters: readonly {
    readonly name: string;
    readonly package: string;
    readonly version?: string;
    readonly loads: boolean;
    readonly problem?: string;
    readonly addon?: AddonReport;
  }[];
  readonly chosen?: string;
  readonly why: string;
  readonly driver?: { readonly version: number; readonly cuda: string; readonly adapter: string };
  readonly driverUnavailable?: { readonly reason: string; readonly message: string };
  readonly capabilities?: unknown;
  readonly devices?: readonly {
    readonly ordinal: number;
    readonly free: number;
    readonly total: number;
    readonly properties: unknown;
  }[];
  readonly memoryStatistics?: unknown;
}

/** Gathers the report; `ok` is false when no driver works (the report says why). */
export function collectInfo(): { readonly report: InfoReport; readonly ok: boolean } {
  const { adapters, chosen, why } = inspectAdapters();
  const base = {
    cumem: cumemVersion(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    adapters: adapters.map((adapter) => {
      const details = adapterPackageDetails(adapter.name);
      return {
        name: adapter.name,
        package: adapter.packageName,
        ...(details.version ? { version: details.version } : {}),
        loads: adapter.driver !== undefined,
        ...(adapter.problem ? { problem: adapter.problem } : {}),
        ...(details.addon ? { addon: details.addon as AddonReport } : {}),
      };
    }),
    why,
    ...(chosen ? { chosen } : {}),
  };
  const driver = adapters.find((adapter) => adapter.name === chosen)?.driver;
  if (!driver) return { report: base, ok: false };
  memory.useDriver(driver);
  let count: number;
  try {
    count = memory.deviceCount();
  } catch (error) {
    if (!DriverUnavailableError.isInstance(error)) throw error;
    return {
      report: { ...base, driverUnavailable: { reason: error.reason, message: error.message } },
      ok: false,
    };
  }
  const devices = Array.from({ length: count }, (_, ordinal) => ({
    ordinal,
    ...memory.memoryInfo(ordinal),
    properties: memory.deviceProperties(ordinal),
  }));
  // Another part of cumem adds memory statistics; shown when this version has them.
  const statistics = (memory as Record<string, unknown>).memoryReport;
  return {
    report: {
      ...base,
      driver: {
        version: driver.driverVersion,
        cuda: formatCudaVersion(driver.driverVersion),
        adapter: driver.name,
      },
      capabilities: driver.capabilities,
      devices,
      ...(typeof statistics === 'function' ? { memoryStatistics: statistics() as unknown } : {}),
    },
    ok: true,
  };
}

const indent = (text: string, by = '    ') => text.replace(/^/gm, by);
const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GiB`;

function describeAddon(addon: AddonReport | undefined): string {
  if (addon?.loaded === true)
    return `binary: ${addon.path} (${addon.prebuilt ? 'prebuilt binary, shipped in the package' : 'built from source'})`;
  if (addon?.loaded === false) return `binary: not loaded:\n${indent(addon.message ?? '')}`;
  return '';
}

/** The report as the text `cumem info` prints. */
export function formatInfo(report: InfoReport): string {
  const lines = [
    `cumem info: @cumem/memory ${report.cumem}, Node ${report.node}, ${report.platform}`,
    '',
    'adapters:',
  ];
  for (const adapter of report.adapters) {
    const label = `${adapter.package}${adapter.version ? ` ${adapter.version}` : ''}`;
    lines.push(`  ${adapter.name}: ${label}: ${adapter.loads ? 'loads' : `not usable: ${adapter.problem}`}`);
    const addon = describeAddon(adapter.addon);
    if (addon) lines.push(indent(addon));
  }
  lines.push(`  chosen: ${report.chosen ?? 'none'} (${report.why})`);
  if (report.driverUnavailable) {
    lines.push(
      '',
      `driver: unavailable (${report.driverUnavailable.reason}):`,
      indent(report.driverUnavailable.message),
    );
  }
  if (report.driver) {
    const { cuda, version, adapter } = report.driver;
    lines.push('', `driver: CUDA ${cuda} (${version}), through the ${adapter} adapter`);
    lines.push(`capabilities: ${inspect(report.capabilities, { breakLength: Number.POSITIVE_INFINITY })}`);
    lines.push(`devices: ${report.devices?.length ?? 0}`);
    for (const device of report.devices ?? []) {
      const properties = device.properties as { name: string; computeCapability: readonly number[] };
      lines.push(
        `  device ${device.ordinal}: ${properties.name}, compute ${properties.computeCapability.join('.')}, ${gib(device.free)} free of ${gib(device.total)}`,
      );
      lines.push(indent(inspect(device.properties, { breakLength: 100 }), '    '));
    }
  }
  if (report.memoryStatistics !== undefined) {
    const value = report.memoryStatistics;
    lines.push('', 'memory statistics:');
    lines.push(
      indent(typeof value === 'string' ? value : inspect(value, { depth: 6, breakLength: 100 }), '  '),
    );
  }
  return `${lines.join('\n')}\n`;
}
