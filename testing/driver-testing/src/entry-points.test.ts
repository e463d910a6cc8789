// The published entry (`@cumem/testing`) must run in a user's CI without vitest: nothing it
// reaches may import a test framework. Only `@cumem/testing/vitest` does.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const source = dirname(fileURLToPath(import.meta.url));

/** Every module specifier reachable from `entry` through relative imports, with the importer. */
function reachableImports(entry: string): Map<string, string> {
  const found = new Map<string, string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const [, specifier] of text.matchAll(/(?:import|export)[^'";]*?from\s+'([^']+)'/g)) {
      if (specifier?.startsWith('.')) visit(join(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else if (specifier) found.set(specifier, file);
    }
  };
  visit(join(source, entry));
  return found;
}

describe('@cumem/testing entry points', () => {
  it('the main entry reaches no test framework, only @cumem/core-types, @cumem/driver-kit and Node built-ins', () => {
    const imports = reachableImports('index.ts');
    expect([...imports.keys()].filter((name) => !name.startsWith('node:')).sort()).toEqual([
      '@cumem/core-types',
      '@cumem/driver-kit',
    ]);
  });

  it('the vitest entry is the one that imports vitest', () => {
    expect(reachableImports('vitest.ts').has('vitest')).toBe(true);
  });
});
