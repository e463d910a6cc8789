// FormLearner on its own: which samples it asks for and how it chooses from them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BatchForm, FormLearner, learningSettings } from './batch-learning.js';

const defaults = { ...learningSettings };

/** Feeds the learner one sample per planned form, from `times[form]` in order, until it decides. */
function learn(times: Record<BatchForm, number[]>): { learner: FormLearner; order: BatchForm[] } {
  const learner = new FormLearner();
  const next = { batch: 0, loop: 0 };
  const order: BatchForm[] = [];
  for (let form = learner.plan(); form !== undefined; form = learner.plan()) {
    const sample = times[form][next[form]++];
    if (sample === undefined) throw new Error(`no ${form} sample ${next[form]} left`);
    order.push(form);
    learner.issued(form);
    learner.record(form, sample);
  }
  return { learner, order };
}

describe('FormLearner', () => {
  beforeEach(() => {
    // The choice from the samples; the warm-up calls have tests of their own below.
    learningSettings.warmUpPerForm = 0;
  });

  afterEach(() => {
    Object.assign(learningSettings, defaults);
  });

  it('chooses by the median sample: one batch call that ran unusually fast does not win', () => {
    // Loop ~34 ms per call, batch ~38 ms with one 30 ms call among them: the best sample would
    // pick the batch, the median picks the loop.
    const { learner, order } = learn({ batch: [30, 38, 39], loop: [34, 35, 34] });
    expect(learner.decided).toBe('loop');
    expect(learner.median).toEqual({ batch: 38, loop: 34 });
    expect(order).toEqual(['batch', 'loop', 'loop', 'batch', 'batch', 'loop']);
  });

  it('one slow call (a GC pause) does not decide either: the median of three', () => {
    // Batch ~20 ms, loop ~30 ms; one batch call took 95 ms. The mean of two would choose the loop.
    const { learner } = learn({ batch: [95, 20, 21], loop: [30, 31, 30] });
    expect(learner.decided).toBe('batch');
    expect(learner.median).toEqual({ batch: 21, loop: 30 });
  });

  it('times each form five times when the medians of three are within closeMargin', () => {
    const { learner, order } = learn({ batch: [34, 30, 38, 39, 38], loop: [34, 35, 34, 36, 35] });
    // After three each: batch 34, loop 34 (close); after five: batch 38, loop 35.
    expect(order).toHaveLength(10);
    expect(learner.median).toEqual({ batch: 38, loop: 35 });
    expect(learner.decided).toBe('loop');
  });

  it('a slow sample of the faster form moves the median of five by one place, not the choice', () => {
    // After three each: batch 25, loop 27 (close): five each.
    const { learner } = learn({ batch: [25, 26, 25, 26, 25], loop: [24, 27, 90, 24, 23] });
    expect(learner.median).toEqual({ batch: 25, loop: 24 });
    expect(learner.decided).toBe('loop');
  });

  it("drops the first call of each form on the class's first measurement, keeping the order", () => {
    learningSettings.warmUpPerForm = 1;
    // Each form's first call ran cold (90 ms) and is not counted.
    const { learner, order } = learn({ batch: [90, 20, 21, 20], loop: [90, 30, 31, 30] });
    const pattern = ['batch', 'loop', 'loop', 'batch'];
    expect(order).toEqual([...pattern, ...pattern]);
    expect(learner.median).toEqual({ batch: 20, loop: 30 });
    expect(learner.decided).toBe('batch');
  });

  it('takes no warm-up call when it times the choice again', () => {
    learningSettings.warmUpPerForm = 1;
    learningSettings.recheckCalls = 2;
    const learner = new FormLearner();
    const feed = (form: BatchForm, ms: number) => {
      learner.issued(form);
      learner.record(form, ms);
    };
    const first = [
      ['batch', 90],
      ['loop', 90],
      ['loop', 30],
      ['batch', 20],
      ['batch', 21],
      ['loop', 31],
      ['loop', 30],
      ['batch', 20],
    ] as const;
    for (const [form, ms] of first) {
      expect(learner.plan()).toBe(form);
      feed(form, ms);
    }
    expect(learner.decided).toBe('batch');
    expect(learner.plan()).toBeUndefined();
    // The second call since the choice times it again: three calls of each form, all counted,
    // the order going on from the form timed last.
    const again: BatchForm[] = [];
    for (let form = learner.plan(); form !== undefined; form = learner.plan()) {
      again.push(form);
      feed(form, form === 'loop' ? 10 : 20);
    }
    expect(again).toEqual(['batch', 'loop', 'loop', 'batch', 'batch', 'loop']);
    expect(learner.decided).toBe('loop');
    expect(learner.median).toEqual({ batch: 20, loop: 10 });
  });
});
