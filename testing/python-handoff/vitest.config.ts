import { defineConfig } from 'vitest/config';

// Tests run in Vite's SSR environment, which reads `ssr.resolve.conditions`: both name
// @cumem/source so workspace packages load from src/ without a build. The Node children the
// Python side starts import the BUILT packages (dist/).
const conditions = ['@cumem/source', 'module', 'node', 'import', 'default'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@cumem/source'] } },
  test: {
    name: 'python-handoff',
    include: ['test/**/*.test.ts'],
    // Python children import cuda.core, CuPy and PyTorch (seconds each) before the work starts.
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
