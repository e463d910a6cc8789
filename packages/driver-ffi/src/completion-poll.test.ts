import { describe, expect, it } from 'vitest';
import { type CompletionQuery, pollUntilDone } from './completion-poll.js';

const notReady = 600;

/** A query that answers NOT_READY until `readyAfterMs`, then `final`; counts its calls, and those that answered done. */
function scriptedQuery(readyAfterMs: number, final: number) {
  const started = performance.now();
  const calls = { count: 0, afterReady: 0 };
  const query = () => {
    calls.count++;
    const ready = performance.now() - started >= readyAfterMs;
    if (ready) calls.afterReady++;
    return ready ? final : notReady;
  };
  return { query, calls };
}

describe("pollUntilDone (the FFI adapter's non-blocking waits)", () => {
  it('resolves at once, in the same turn, when the first query says done', async () => {
    let settled = 0;
    const { query, calls } = scriptedQuery(0, 0);
    await expect(
      pollUntilDone(
        query,
        () => new Error('no'),
        () => settled++,
      ),
    ).resolves.toBeUndefined();
    expect(calls.count).toBe(1);
    expect(settled).toBe(1);
  });

  it('keeps polling past the spin phase on timers, resolves at the first query that says done, and settles once', async () => {
    let settled = 0;
    // Timed from before the query's own clock starts: a pause between the two (a loaded
    // machine, a collection) must not make the wait look shorter than the query's 30 ms.
    const started = performance.now();
    const { query, calls } = scriptedQuery(30, 0);
    await pollUntilDone(
      query,
      () => new Error('no'),
      () => settled++,
    );
    const waited = performance.now() - started;
    // Load only delays the timers, so no upper bound on the time (issue 21: tests must not
    // depend on an idle machine); that the wait ends at completion is the query count below.
    expect(waited).toBeGreaterThanOrEqual(30);
    expect(calls.afterReady).toBe(1);
    expect(settled).toBe(1);
    // Timers, not a busy loop: 30 ms of waiting takes tens of queries, not thousands.
    expect(calls.count).toBeLessThan(400);
  });

  it('rejects with the failure for an error result, at once or after waiting, and settles once', async () => {
    let settled = 0;
    const failure = (result: number) => new Error(`failed with ${result}`);
    await expect(pollUntilDone(scriptedQuery(0, 700).query, failure, () => settled++)).rejects.toThrow(
      'failed with 700',
    );
    await expect(pollUntilDone(scriptedQuery(5, 719).query, failure, () => settled++)).rejects.toThrow(
      'failed with 719',
    );
    expect(settled).toBe(2);
  });

  it('rejects (never throws) when the query itself throws, first or later', async () => {
    let settled = 0;
    const poll = (query: CompletionQuery) =>
      pollUntilDone(
        query,
        () => new Error('no'),
        () => settled++,
      );
    const boom = () => {
      throw new TypeError('bad handle');
    };
    await expect(poll(boom)).rejects.toThrow(TypeError);
    let calls = 0;
    const later = () => {
      if (++calls < 3) return notReady;
      throw new TypeError('later');
    };
    await expect(poll(later)).rejects.toThrow('later');
    expect(settled).toBe(2);
  });
});
