import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@cumem/source'] },
  test: { name: 'memory', include: ['src/**/*.test.ts', 'test/**/*.test.ts'] },
});
