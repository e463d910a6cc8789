#!/usr/bin/env node
// On the GPU machine: the N-API adapter loaded from the prebuilt binary the published package
// carries (prebuilds/linux-x64/*.node, made here by pack.sh with scripts/prebuild.cjs), not from
// build/Release/ where the test suite finds the contributor's build. loadAddon is given a package
// root that holds nothing but prebuilds/, so node-gyp-build's rules pick the file, as in a user's
// node_modules; then a real driver over it makes a 1 MiB round trip on device 0.
// Usage: node scripts/device/prebuilt-addon.mjs   (exit 0: loaded from prebuilds/ and the bytes came back)
import { randomFillSync } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = fileURLToPath(new URL('../../packages/driver-napi/', import.meta.url));
const prebuilds = join(packageRoot, 'prebuilds');
if (!existsSync(prebuilds)) {
  console.error(`prebuilt-addon: no ${prebuilds} (pack.sh builds it with scripts/prebuild.cjs)`);
  process.exit(1);
}
const root = mkdtempSync(join(tmpdir(), 'cumem-prebuilt-'));
try {
  cpSync(prebuilds, join(root, 'prebuilds'), { recursive: true });
  const { loadAddon } = await import(join(packageRoot, 'dist', 'load-addon.js'));
  const { createDriverFrom } = await import(join(packageRoot, 'dist', 'napi-driver.js'));
  const loaded = loadAddon({ packageRoot: root });
  if (loaded.addon === undefined) throw loaded.error;
  if (!loaded.path.startsWith(join(root, 'prebuilds')))
    throw new Error(`loaded ${loaded.path}, not a prebuilt binary`);
  const driver = createDriverFrom(loaded);
  driver.contextSetCurrent(driver.primaryContextRetain(0));
  const bytes = 1 << 20;
  const sent = randomFillSync(new Uint8Array(bytes));
  const back = new Uint8Array(bytes);
  const pointer = driver.memAlloc(bytes);
  try {
    driver.memcpyHtoD(pointer, sent);
    driver.memcpyDtoH(back, pointer);
  } finally {
    driver.memFree(pointer);
  }
  if (!Buffer.from(back.buffer).equals(Buffer.from(sent.buffer)))
    throw new Error('the 1 MiB round trip differs');
  console.log(
    `prebuilt-addon: ${loaded.path.slice(root.length + 1)} loaded (no build/Release beside it); ` +
      `1 MiB round trip on ${driver.deviceGetName(0)} (driver ${driver.driverVersion}) ok`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
