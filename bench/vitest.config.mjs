import { defineConfig } from 'vitest/config';

// The judging code of the bench (checks, merging, rounds, verdicts, gates, reports): plain
// functions over results, tested without a GPU. The benchmark programs themselves run on the
// GPU machine (bench/run.mjs), not here.
export default defineConfig({
  test: {
    name: 'bench',
    include: ['test/**/*.test.mjs'],
  },
});
