// The NULL / legacy / per-thread stream wait, over a scripted libcuda: it polls the stream in the
// caller's context (a Worker terminated mid-wait then leaves nothing behind; the crash suite's
// case 25 shows that on the fake libcuda), and it never records an event of its own.
import { CudaError } from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import type { DriverState } from './driver-state.js';
import { streamSynchronizeAsync } from './ffi-streams.js';

const notReady = 600;

/** A state whose libcuda has a per-thread current context and a stream busy for `busyPolls` queries. */
function scriptedState(busyPolls: number, queryResult = 0) {
  const u64 = new BigUint64Array(4);
  const calls: string[] = [];
  let current = 0xc1n;
  let left = busyPolls;
  const native = {
    cuCtxGetCurrent: () => {
      u64[0] = current;
      return 0;
    },
    cuCtxSetCurrent: (context: bigint) => {
      calls.push(`set ${context.toString(16)}`);
      current = context;
      return 0;
    },
    cuStreamQuery: (stream: bigint) => {
      calls.push(`query ${stream} in ${current.toString(16)}`);
      return left-- > 0 ? notReady : queryResult;
    },
    cuEventCreate: () => {
      calls.push('event');
      return 0;
    },
    cuEventRecord: () => {
      calls.push('event');
      return 0;
    },
  };
  const state = {
    native,
    scratch: { address: 0x1000, u64 },
    describe: () => ({ name: 'CUDA_ERROR_ILLEGAL_ADDRESS', description: 'scripted' }),
  } as unknown as DriverState;
  return {
    state,
    calls,
    switchTo: (context: bigint) => {
      current = context;
    },
  };
}

describe('FFI streamSynchronizeAsync on the NULL, legacy and per-thread streams', () => {
  for (const stream of [0n, 1n, 2n]) {
    it(`stream ${stream}: polls the stream itself, in the caller's context, with no event`, async () => {
      const { state, calls, switchTo } = scriptedState(3);
      const wait = streamSynchronizeAsync(state, stream);
      // Another context becomes current before the polls run: each poll switches back and restores.
      switchTo(0xc2n);
      await wait;
      expect(calls).not.toContain('event');
      expect(calls[0]).toBe(`query ${stream} in c1`);
      expect(calls.slice(1)).toEqual(
        Array.from({ length: 3 }, () => ['set c1', `query ${stream} in c1`, 'set c2']).flat(),
      );
    });
  }

  it('answers from the first query when the stream is idle, in the same context without switching', async () => {
    const { state, calls } = scriptedState(0);
    await streamSynchronizeAsync(state, 0n);
    expect(calls).toEqual(['query 0 in c1']);
  });

  it("rejects with the query's CudaError named cuStreamSynchronize", async () => {
    const { state } = scriptedState(1, 700);
    const failure = await streamSynchronizeAsync(state, 1n).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CudaError);
    expect(failure).toMatchObject({ code: 700, call: 'cuStreamSynchronize' });
  });
});
