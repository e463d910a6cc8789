#!/usr/bin/env node
// `cumem info` (the package's bin): what a bug report needs. The adapter chosen and why, what
// failed to load and why, the driver version, every device with its properties and the
// driver's capabilities, and memory statistics when this @cumem/memory has `memoryReport`.
// Exit code 0 when a driver works, 1 when none does (the report says why), 2 for bad usage.
import { createRequire } from 'node:module';
import { inspect } from 'node:util';
import { DriverUnavailableError, formatCudaVersion } from '@cumem/core-types';
import { adapterPackageDetails, inspectAdapters } from '../driver-selection.js';
import * as memory from '../index.js';

const require = createRequire(import.meta.url);
const out = (line = '') => process.stdout.write(`${line}\n`);
const indent = (text: string, by = '    ') => text.replace(/^/gm, by);
const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GiB`;

function describeAddon(addon: unknown): string {
  const info = addon as { loaded?: boolean; path?: string; prebuilt?: boolean; message?: string } | undefined;
  if (info?.loaded === true)
    return `addon ${info.path} (${info.prebuilt ? 'prebuilt binary' : 'built from source'})`;
  if (info?.loaded === false) return `addon not loaded:\n${indent(info.message ?? '')}`;
  return '';
}

function info(): number {
  const { version } = require('../../package.json') as { version: string };
  out(`cumem info: @cumem/memory ${version}, Node ${process.version}, ${process.platform}-${process.arch}`);
  const { adapters, chosen, why } = inspectAdapters();
  out('');
  out('adapters:');
  for (const adapter of adapters) {
    const details = adapterPackageDetails(adapter.name);
    const label = `${adapter.packageName}${details.version ? ` ${details.version}` : ''}`;
    out(`  ${adapter.name}: ${label}: ${adapter.driver ? 'loads' : `not usable: ${adapter.problem}`}`);
    const addon = describeAddon(details.addon);
    if (addon) out(indent(addon));
  }
  out(`  chosen: ${chosen ?? 'none'} (${why})`);
  const driver = adapters.find((adapter) => adapter.name === chosen)?.driver;
  if (!driver) return 1;
  memory.useDriver(driver);
  out('');
  let count: number;
  try {
    count = memory.deviceCount();
    out(
      `driver: CUDA ${formatCudaVersion(driver.driverVersion)} (${driver.driverVersion}), through the ${driver.name} adapter`,
    );
  } catch (error) {
    if (!DriverUnavailableError.isInstance(error)) throw error;
    out(`driver: unavailable (${error.reason}):`);
    out(indent(error.message));
    return 1;
  }
  out(`capabilities: ${inspect(driver.capabilities, { breakLength: Number.POSITIVE_INFINITY })}`);
  out(`devices: ${count}`);
  for (let ordinal = 0; ordinal < count; ordinal++) {
    const properties = memory.deviceProperties(ordinal);
    const { free, total } = memory.memoryInfo(ordinal);
    out(
      `  device ${ordinal}: ${properties.name}, compute ${properties.computeCapability.join('.')}, ${gib(free)} free of ${gib(total)}`,
    );
    out(indent(inspect(properties, { breakLength: 100 }), '    '));
  }
  // Another part of cumem adds memory statistics; shown when this version has them.
  const report = (memory as Record<string, unknown>).memoryReport;
  if (typeof report === 'function') {
    out('');
    out('memory statistics:');
    const value: unknown = report();
    out(indent(typeof value === 'string' ? value : inspect(value, { depth: 6, breakLength: 100 }), '  '));
  }
  return 0;
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'info' && rest.length === 0) {
  process.exitCode = info();
} else {
  process.stderr.write(
    'usage: cumem info   (the adapter chosen and why, the driver, devices and capabilities)\n',
  );
  process.exitCode = command === undefined || command === '--help' || command === '-h' ? 0 : 2;
}
