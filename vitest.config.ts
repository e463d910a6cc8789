import { defineConfig } from 'vitest/config';

// One vitest project per package; `pnpm test` runs them through turbo, this file lets
// `pnpm vitest` run every project at once from the root.
export default defineConfig({
  test: {
    projects: ['packages/*', 'testing/*'],
  },
});
