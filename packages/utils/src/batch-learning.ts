// Which form of a batch operation — one batch call, or a loop of single calls — is faster on
// the running machine, learned from timed calls of one size class (batch-timing.ts times them).
// A fixed table cannot know: on one host (4x H100, driver 580) a loop of cuMemPrefetchAsync
// beat cuMemPrefetchBatchAsync (C: 26.3 vs 34.5 ms for 1024 x 64 KiB), on another (H200, the
// same driver) the batch call won migrations to the device by up to 2x.
//
// Each form is timed `samplesPerForm` (3) times, in the order batch, loop, loop, batch, batch, loop
// (so a drift in time, pages warming up or clocks ramping, weighs on both), and the form with the
// smaller median sample wins.
//
// Not the smaller best sample: migration times are not a fixed cost plus noise that only slows, a
// form's calls spread both ways. In the bench's 1024 x 64 KiB migrations to the device on 1x H100
// (d5c184d), the loop's median step was 4-11% below the batch's, yet in three of twelve adapter /
// operation / host runs `auto`'s median to the device sat at the batch's (`auto` 6-14% behind the
// loop on the row): the best of two or four samples can fall to a batch call that ran unusually
// fast. And not the median of two, which is their mean: one slow call (a GC pause, a preempted
// thread) decides it. With the driver's calls replaced by no-ops (bench/js/copy-batch-parts.mjs on
// a 2-core VM, where such pauses are as long as a call), two samples each (no warm-up call) chose
// the loop for a 1024-range cross-device copy in some runs, `auto` then costing 60-80 us a call
// against the batch's 48-56. The median of three lets no one call decide either way.
//
// The first call of each form in a size class's first measurement is timed but not counted
// (`warmUpPerForm`): the form's JS may still run before V8 compiled it, a slow call that no later
// one repeats. When the choice is timed again the code is warm, and every call counts.
//
// When the two medians are within `closeMargin` of each other, three samples cannot tell the forms
// apart (on 2x H100 a 1024 x 64 KiB discard+prefetch to the device took 34.5 ms as a loop and 37.0
// ms as one batch call, 7% apart, with samples of one form 5-10% apart), so both are timed until
// `closeSamplesPerForm` (5) samples each; forms closer than that cost about the same either way.
// The choice is timed again after `recheckCalls` calls or `recheckMs` milliseconds, whichever comes
// first.

/** The two ways a batch operation can reach the driver. */
export type BatchForm = 'batch' | 'loop';

/** How the learning proceeds; module state, changed by tests only. */
export const learningSettings = {
  /** Timed calls of each form before choosing: three, so that no one call decides. */
  samplesPerForm: 3,
  /** Median samples closer than this fraction of the faster one: time each form more. */
  closeMargin: 0.1,
  /** Timed calls of each form before choosing between close forms. */
  closeSamplesPerForm: 5,
  /**
   * Calls of each form a size class's first measurement times but does not count: the form's
   * code may still run cold then (not yet compiled by V8), which no later call pays.
   */
  warmUpPerForm: 1,
  /** Calls of a size class after which its choice is timed again. */
  recheckCalls: 1000,
  /** Milliseconds after which a choice is timed again (at its next call). */
  recheckMs: 60_000,
  /** The host clock, in milliseconds: for `recheckMs` and the time a timed call took to issue. */
  now: (): number => performance.now(),
};

/** The learning of one size class: samples of both forms, then the choice. */
export class FormLearner {
  /** The faster form, once measured (kept while it is timed again). */
  decided: BatchForm | undefined = undefined;
  /** Median sample of each form in the last completed measurement, in milliseconds. */
  readonly median = { batch: Number.NaN, loop: Number.NaN };
  private exploring = true;
  private readonly samples: Record<BatchForm, number[]> = { batch: [], loop: [] };
  /** Timed calls of each form this measurement issued (warm-ups and those in flight included). */
  private readonly taken: Record<BatchForm, number> = { batch: 0, loop: 0 };
  /** Warm-up calls of each form this measurement still drops: the first to complete. */
  private readonly warmUpsLeft: Record<BatchForm, number> = {
    batch: learningSettings.warmUpPerForm,
    loop: learningSettings.warmUpPerForm,
  };
  /** Warm-up calls of each form this measurement takes in all (none when timed again). */
  private warmUps = learningSettings.warmUpPerForm;
  private last: BatchForm = 'batch';
  private callsSinceDecision = 0;
  private decidedAt = 0;
  /** Samples of each form this measurement takes: more once the first ones came out close. */
  private need = learningSettings.samplesPerForm;

  /**
   * The form to time on this call, or undefined when the call should go untimed (the choice
   * stands, or every sample needed is in flight): then use {@link decided}, else a fallback.
   */
  plan(): BatchForm | undefined {
    if (!this.exploring) {
      const settings = learningSettings;
      if (
        ++this.callsSinceDecision < settings.recheckCalls &&
        settings.now() - this.decidedAt < settings.recheckMs
      )
        return undefined;
      // Timed again: the code is warm by now, so every call counts.
      this.exploring = true;
      this.samples.batch.length = 0;
      this.samples.loop.length = 0;
      this.taken.batch = 0;
      this.taken.loop = 0;
      this.warmUps = 0;
      this.warmUpsLeft.batch = 0;
      this.warmUpsLeft.loop = 0;
      this.need = learningSettings.samplesPerForm;
    }
    const target = this.need + this.warmUps;
    const { batch, loop } = this.taken;
    if (batch >= target && loop >= target) return undefined;
    // Fewer calls first; on a tie the form timed last again (batch, loop, loop, batch).
    const form: BatchForm = batch < loop ? 'batch' : loop < batch ? 'loop' : this.last;
    this.last = form;
    return form;
  }

  /** A timed call of `form` was issued; its time comes later through {@link record} or {@link drop}. */
  issued(form: BatchForm): void {
    this.taken[form]++;
  }

  /** The device time of an issued call of `form`, in milliseconds. */
  record(form: BatchForm, ms: number): void {
    if (!this.exploring) return;
    if (this.warmUpsLeft[form] > 0) {
      this.warmUpsLeft[form]--;
      return;
    }
    this.samples[form].push(ms);
    const need = this.need;
    if (this.samples.batch.length < need || this.samples.loop.length < need) return;
    const batch = medianOf(this.samples.batch);
    const loop = medianOf(this.samples.loop);
    const settings = learningSettings;
    if (
      need < settings.closeSamplesPerForm &&
      Math.abs(batch - loop) < settings.closeMargin * Math.min(batch, loop)
    ) {
      this.need = settings.closeSamplesPerForm;
      return;
    }
    this.median.batch = batch;
    this.median.loop = loop;
    this.decided = loop < batch ? 'loop' : 'batch';
    this.exploring = false;
    this.callsSinceDecision = 0;
    this.decidedAt = learningSettings.now();
  }

  /** An issued call's time is lost (its events failed): it will be timed again. */
  drop(form: BatchForm): void {
    this.taken[form]--;
  }
}

/** The median of samples (the mean of the middle two for an even count). */
function medianOf(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
