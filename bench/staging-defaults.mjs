// cumem's staged-copy parameters, read from the source that sets them (issue 47: the C floor of
// the pageable rows runs cumem's algorithm with cumem's parameters, so they are never restated).
// The file is found by name under packages/memory/src, whichever concept folder holds it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const FILE = 'staging-settings.ts';

/** The path of staging-settings.ts under packages/memory/src, or undefined. */
export function stagingSettingsPath(root) {
  const walk = (directory) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) {
        const found = walk(path);
        if (found) return found;
      } else if (entry.name === FILE) return path;
    }
    return undefined;
  };
  try {
    return walk(join(root, 'packages', 'memory', 'src'));
  } catch {
    return undefined;
  }
}

/**
 * `{ chunkBytes, threads, minBytes, source }` from the `defaults = { chunkBytes: 4 * MiB, ... }`
 * line of staging-settings.ts (its text, so no build is needed). Throws when it cannot be read:
 * a floor with other parameters would not be the floor.
 */
export function parseStagingDefaults(text) {
  const line = /const defaults = \{([^}]*)\}/.exec(text)?.[1];
  if (!line) throw new Error(`${FILE}: no "const defaults = { ... }" found`);
  const units = { KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };
  const field = (name) => {
    const match = new RegExp(`${name}:\\s*(\\d+)(?:\\s*\\*\\s*(KiB|MiB|GiB))?`).exec(line);
    if (!match) throw new Error(`${FILE}: no ${name} in its defaults`);
    return Number(match[1]) * (match[2] ? units[match[2]] : 1);
  };
  return { chunkBytes: field('chunkBytes'), threads: field('threads'), minBytes: field('minBytes') };
}

/** cumem's staging defaults, read from the repository at `root`. */
export function stagingDefaults(root) {
  const path = stagingSettingsPath(root);
  if (!path) throw new Error(`no ${FILE} under packages/memory/src`);
  return { ...parseStagingDefaults(readFileSync(path, 'utf8')), source: relative(root, path) };
}
