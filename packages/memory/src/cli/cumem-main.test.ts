// The CLI's arguments (node:util parseArgs) and its JSON report. Without a GPU `cumem info`
// exits 1 and still reports every adapter; with one it exits 0 and lists the devices.
import { createDriver as createFfiDriver } from '@cumem/driver-ffi';
import { createDriver as createNapiDriver } from '@cumem/driver-napi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdapterLoader, replaceAdapterLoader } from '../runtime/driver-selection.js';
import { runCli } from './cumem-main.js';
import type { InfoReport } from './cumem-report.js';

function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = runCli(
    argv,
    (text) => {
      stdout += text;
    },
    (text) => {
      stderr += text;
    },
  );
  return { code, stdout, stderr };
}

describe('cumem', () => {
  // Under vitest `require` sees the adapters' TypeScript sources: hand them over already loaded.
  let previous: AdapterLoader;
  beforeAll(() => {
    previous = replaceAdapterLoader((name) => (name === 'napi' ? createNapiDriver : createFfiDriver));
  });
  afterAll(() => replaceAdapterLoader(previous));

  it('--version prints the version of @cumem/memory', () => {
    const { code, stdout } = cli('--version');
    expect(code).toBe(0);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('refuses an unknown command or option with exit code 2 and the usage', () => {
    for (const argv of [['bogus'], ['info', '--bogus'], ['info', 'extra']]) {
      const { code, stderr } = cli(...argv);
      expect(code).toBe(2);
      expect(stderr).toContain('usage: cumem info [--json]');
    }
  });

  it('info --json reports every adapter, the binary napi loaded, and the driver or why not', () => {
    const { code, stdout } = cli('info', '--json');
    const report = JSON.parse(stdout) as InfoReport;
    expect(report.platform).toBe(`${process.platform}-${process.arch}`);
    expect(report.adapters.map((adapter) => adapter.name)).toEqual(['napi', 'ffi']);
    const napi = report.adapters[0];
    if (napi?.addon?.loaded) expect(typeof napi.addon.prebuilt).toBe('boolean');
    if (code === 0) expect(report.driver?.cuda).toMatch(/^\d+\.\d+$/);
    else expect(report.driverUnavailable?.reason ?? report.why).toBeTruthy();
  });

  it('info prints the same report as text', () => {
    const { stdout } = cli('info');
    expect(stdout).toMatch(/^cumem info: @cumem\/memory /);
    expect(stdout).toContain('chosen: ');
  });
});
