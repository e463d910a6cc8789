import { defineConfig } from 'vitest/config';

const conditions = ['@cumem/source', 'module', 'node', 'import', 'default'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  // One file at a time: the waits are timed and both adapters load native code.
  test: {
    name: 'fake-adapter-suite',
    include: ['src/**/*.test.ts'],
    testTimeout: 30_000,
    fileParallelism: false,
  },
});
