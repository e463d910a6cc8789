// Garbage collection for the tests of finalizers (vitest.config.ts runs them with --expose-gc).
const collect = (globalThis as { gc?: () => void }).gc;

/**
 * Collects garbage up to `rounds` times, stopping once `until()` holds; after each round it lets
 * finalizers run (they are tasks of their own after the collection), then calls `eachRound`.
 */
export async function collectGarbage(
  rounds: number,
  until: () => boolean = () => false,
  eachRound: () => void = () => {},
): Promise<void> {
  if (!collect) throw new Error('run with --expose-gc (see vitest.config.ts)');
  for (let round = 0; round < rounds && !until(); round++) {
    collect();
    await new Promise((resolve) => setTimeout(resolve, 5));
    eachRound();
  }
}
