import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Workspace packages resolve to their src/ through the '@cumem/source' export condition; the
  // tests run in Vite's SSR environment, which takes its conditions from `ssr.resolve`.
  resolve: { conditions: ['@cumem/source'] },
  ssr: { resolve: { conditions: ['@cumem/source'] } },
  // Generous limits (issue 21): under turbo's parallel load on two cores, compiling a fake
  // libcuda or a property test's hundreds of runs take far longer than vitest's default 5 s.
  test: {
    name: 'driver-ffi',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
