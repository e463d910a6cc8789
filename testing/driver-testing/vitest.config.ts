import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@cumem/source'] },
  test: { name: 'testing', include: ['src/**/*.test.ts', 'test/**/*.test.ts'] },
});
