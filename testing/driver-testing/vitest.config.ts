import { defineConfig } from 'vitest/config';

// Tests run in Vite's SSR environment, which reads `ssr.resolve.conditions`: both name
// @cumem/source so workspace packages load from src/ without a build.
const conditions = ['@cumem/source', 'module', 'node', 'import', 'default'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  // Generous limits (issue 21): under turbo's parallel load on two cores, compiling a fake
  // libcuda or a property test's hundreds of runs take far longer than vitest's default 5 s.
  test: {
    name: 'testing',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // CUMEM_FAKE_PLATFORM=darwin|win32: the suite as on macOS / Windows (test/fake-platform.setup.ts).
    setupFiles: ['test/fake-platform.setup.ts'],
  },
});
