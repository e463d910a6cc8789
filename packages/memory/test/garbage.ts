// The tests of finalizers collect garbage through @cumem/test-support's one loop; this keeps the
// argument order those tests were written with (rounds first).
import { collectGarbageUntil } from '@cumem/test-support';

/**
 * Collects garbage up to `rounds` times, stopping once `until()` holds; after each round it lets
 * finalizers run (they are tasks of their own after the collection), then calls `eachRound`.
 */
export async function collectGarbage(
  rounds: number,
  until: () => boolean = () => false,
  eachRound: () => void = () => {},
): Promise<void> {
  await collectGarbageUntil(until, rounds, eachRound);
}
