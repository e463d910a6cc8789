import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Workspace packages resolve to their src/ through the '@cumem/source' export condition; the
  // tests run in Vite's SSR environment, which takes its conditions from `ssr.resolve`.
  resolve: { conditions: ['@cumem/source'] },
  ssr: { resolve: { conditions: ['@cumem/source'] } },
  test: { name: 'driver-ffi', include: ['src/**/*.test.ts', 'test/**/*.test.ts'] },
});
