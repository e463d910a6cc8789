import { defineConfig } from 'vitest/config';

// The harness runs in Vite's SSR environment (sources through @cumem/source); the cases it
// spawns are plain node programs that import the built packages (dist/).
const conditions = ['@cumem/source', 'module', 'node', 'import', 'default'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: { name: 'crash-suite', include: ['src/**/*.test.ts'], testTimeout: 120_000 },
});
