// The vitest settings cumem's packages share; each package's vitest.config.ts names itself and
// adds what only it needs.
import { defineConfig } from 'vitest/config';

/**
 * A package's vitest config: tests in `src/` and `test/`, workspace packages loaded from their
 * sources, and limits generous enough for two busy cores.
 * @param {string} name the vitest project name (the package's short name).
 * @param {import('vitest/node').InlineConfig} [test] settings added to (or overriding) the shared ones.
 */
export function packageTestConfig(name, test = {}) {
  return defineConfig({
    // Workspace packages resolve to their src/ through the '@cumem/source' export condition. Vite 7
    // applies `resolve.conditions` to the client environment only; the tests run in the SSR (Node)
    // environment, which takes its conditions from `ssr.resolve`, so both name it.
    resolve: { conditions: ['@cumem/source'] },
    ssr: { resolve: { conditions: ['@cumem/source'] } },
    test: {
      name,
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      // Generous limits (issue 21): under turbo's parallel load on two cores, compiling a fake
      // libcuda or a property test's hundreds of runs take far longer than vitest's default 5 s.
      testTimeout: 60_000,
      hookTimeout: 180_000,
      ...test,
    },
  });
}
