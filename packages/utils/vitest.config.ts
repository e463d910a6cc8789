import { defineConfig } from 'vitest/config';

// Vite 7 applies `resolve.conditions` to the client environment only; tests run in the SSR
// (Node) environment, which needs the condition too, or workspace packages resolve to dist/.
export default defineConfig({
  resolve: { conditions: ['@cumem/source'] },
  ssr: { resolve: { conditions: ['@cumem/source'] } },
  // Generous limits (issue 21): under turbo's parallel load on two cores, compiling a fake
  // libcuda or a property test's hundreds of runs take far longer than vitest's default 5 s.
  test: {
    name: 'utils',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Forked workers with --expose-gc, so the DLPack tests can prove a collected view calls the deleter.
    pool: 'forks',
    poolOptions: { forks: { execArgv: ['--expose-gc'] } },
  },
});
