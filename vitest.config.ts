import { defineConfig } from 'vitest/config';

// One vitest project per package; `pnpm test` runs them through turbo, this file lets
// `pnpm vitest` (and `pnpm test:gpu`) run every project at once from the root.
// Markdown files under testing/ (upstream-tests.md) are documents, not projects.
export default defineConfig({
  test: {
    projects: ['packages/*', 'testing/*', '!testing/*.md'],
  },
});
