import { defineConfig } from 'vitest/config';

// Tests run in Vite's SSR environment, which reads `ssr.resolve.conditions`: both name
// @cumem/source so workspace packages load from src/ without a build.
const conditions = ['@cumem/source', 'module', 'node', 'import', 'default'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: { name: 'driver-kit', include: ['src/**/*.test.ts', 'test/**/*.test.ts'] },
});
