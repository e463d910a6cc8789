import { defineConfig } from 'vitest/config';

// Vite 7 applies `resolve.conditions` to the client environment only; tests run in the SSR
// (Node) environment, which needs the condition too, or workspace packages resolve to dist/.
export default defineConfig({
  resolve: { conditions: ['@cumem/source'] },
  ssr: { resolve: { conditions: ['@cumem/source'] } },
  test: {
    name: 'utils',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Forked workers with --expose-gc, so the DLPack tests can prove a collected view calls the deleter.
    pool: 'forks',
    poolOptions: { forks: { execArgv: ['--expose-gc'] } },
  },
});
