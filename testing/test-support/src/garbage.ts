// Garbage collection for tests of finalizers, without needing node's --expose-gc flag.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/**
 * Collects garbage up to `rounds` times (default 50), stopping once `until()` holds; after each
 * round it lets finalizers run (FinalizationRegistry callbacks are tasks of their own), then
 * calls `eachRound` (a test that must sync a stream between rounds passes it).
 * `until()` runs in a task of its own: a `WeakRef.deref()` there keeps its target alive only
 * until that task ends, not through the next collection.
 * @returns whether `until()` held in the end.
 */
export async function collectGarbageUntil(
  until: () => boolean,
  rounds = 50,
  eachRound: () => void = () => {},
): Promise<boolean> {
  const nextTask = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  await nextTask(0);
  for (let round = 0; round < rounds; round++) {
    collect();
    await nextTask(5);
    eachRound();
    if (until()) return true;
    await nextTask(0);
  }
  return false;
}
