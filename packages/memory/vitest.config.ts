import { defineConfig } from 'vitest/config';

// Vite 7 resolves test files in its SSR environment, which reads `ssr.resolve.conditions`
// rather than `resolve.conditions`: both name @cumem/source so workspace packages load from src/.
const conditions = ['@cumem/source', 'module', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name: 'memory',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Forked workers with --expose-gc, so the tests can prove that dropped buffers are released.
    pool: 'forks',
    poolOptions: { forks: { execArgv: ['--expose-gc'] } },
    // The reliability and IPC cases run long on a GPU (a million allocate/close cycles, a child process).
    testTimeout: 120_000,
  },
});
