// FormLearner on its own: which samples it asks for and how it chooses from them.
import { afterEach, describe, expect, it } from 'vitest';
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
  afterEach(() => {
    Object.assign(learningSettings, defaults);
  });

  it('chooses by the median sample: one batch call that ran unusually fast does not win', () => {
    // Loop ~34 ms per call, batch ~38 ms with one 30 ms call among them: the best sample would
    // pick the batch, the median picks the loop.
    const { learner, order } = learn({ batch: [30, 38, 39, 38, 37], loop: [34, 35, 34, 36, 35] });
    expect(learner.decided).toBe('loop');
    expect(learner.median).toEqual({ batch: 38, loop: 35 });
    // After two each the medians (batch 34, loop 34.5) are close: five each, the order kept.
    const pattern = ['batch', 'loop', 'loop', 'batch'];
    expect(order).toEqual([...pattern, ...pattern, 'batch', 'loop']);
  });

  it('decides after two samples each when their medians are more than closeMargin apart', () => {
    const { learner, order } = learn({ batch: [20, 22], loop: [30, 31] });
    expect(order).toHaveLength(4);
    expect(learner.decided).toBe('batch');
    expect(learner.median).toEqual({ batch: 21, loop: 30.5 });
  });

  it('a slow sample of the faster form moves the median of five by one place, not the choice', () => {
    const { learner } = learn({ batch: [25, 26, 25, 26, 25], loop: [24, 27, 90, 24, 23] });
    expect(learner.median).toEqual({ batch: 25, loop: 24 });
    expect(learner.decided).toBe('loop');
  });
});
