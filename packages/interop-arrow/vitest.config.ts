import { defineConfig } from 'vitest/config';

// Vitest runs tests in Vite's SSR environment, whose conditions come from `ssr.resolve`:
// both are set so workspace packages resolve to their src/ without a build.
const conditions = ['@cumem/source', 'module', 'node', 'import', 'default'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@cumem/source'] } },
  test: {
    name: 'interop-arrow',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The IPC case starts a child process; tables of a few MB cross the device.
    testTimeout: 60_000,
  },
});
