/*
 * The step protocol of the C floor's batch rows (utils.c): a step is one call (loop variant) or
 * one batch call, timed one by one with an untimed setup before each, so the page state every
 * step starts from is the same in all four implementations (rows.mjs holds the protocol).
 * Include after bench.h.
 */
#ifndef CUMEM_BENCH_STEP_TIMING_H
#define CUMEM_BENCH_STEP_TIMING_H

/* One step of work; `iteration` counts from 0 across the whole measurement. */
typedef CUresult (*step_fn)(void *state, long iteration);

/* Per-step times (us) of the timed repetitions, split by the parity of the step. */
typedef struct {
  double even[MAX_SAMPLES], odd[MAX_SAMPLES];
  int neven, nodd;
} steps_t;

/*
 * Microseconds per timed step (which ends with a stream synchronize), median over `reps` of the
 * mean of `per_rep` steps, after one untimed repetition. `setup`, when given, runs untimed
 * before each step.
 */
static CUresult measure_steps(row_t *r, steps_t *steps, step_fn setup, step_fn timed, void *state, int per_rep,
                              int reps, const char *reset) {
  long iteration = 0;
  CUresult e;
  reps = bench_reps(reps);
  if (reps > MAX_SAMPLES) reps = MAX_SAMPLES;
  memset(steps, 0, sizeof *steps);
  for (int rep = -1; rep < reps; rep++) { /* rep == -1 is the warm-up */
    double total = 0;
    for (int i = 0; i < per_rep; i++, iteration++) {
      if (setup && (e = setup(state, iteration)) != CUDA_SUCCESS) return e;
      double t0 = now_s();
      if ((e = timed(state, iteration)) != CUDA_SUCCESS) return e;
      double step = now_s() - t0;
      total += step;
      if (rep < 0) continue;
      if (iteration & 1) {
        if (steps->nodd < MAX_SAMPLES) steps->odd[steps->nodd++] = step * 1e6;
      } else if (steps->neven < MAX_SAMPLES) {
        steps->even[steps->neven++] = step * 1e6;
      }
    }
    if (rep >= 0) r->samples[rep] = total / per_rep * 1e6;
  }
  r->nsamples = reps;
  r->value = median(r->samples, reps);
  r->has_value = 1;
  snprintf(r->protocol, sizeof r->protocol, "\"stepsPerRep\":%d,\"reps\":%d,\"warmupReps\":1,\"reset\":\"%s\"",
           per_rep, reps, reset);
  return CUDA_SUCCESS;
}

/* Copies a measured variant's value and samples into the row. */
static void take_result(row_t *r, const row_t *from) {
  r->value = from->value;
  r->nsamples = from->nsamples;
  r->has_value = 1;
  memcpy(r->samples, from->samples, sizeof from->samples);
}

/* `loop` / `batch` variants; with `alternating`, each one's median step per direction too. */
static void record_variant(row_t *r, const char *name, const row_t *result, const steps_t *steps, int alternating) {
  char label[64];
  row_variant(r, name, result->value);
  if (!alternating) return;
  snprintf(label, sizeof label, "%sToDevice", name);
  row_variant(r, label, median(steps->even, steps->neven));
  snprintf(label, sizeof label, "%sToHost", name);
  row_variant(r, label, median(steps->odd, steps->nodd));
}

/*
 * Measures the loop and batch variants; the row keeps the faster. A missing batch entry point
 * (driver older than CUDA 13) leaves the loop as the floor and says so in the variants.
 */
static void measure_two(row_t *r, step_fn setup, step_fn loop, step_fn batch, int batch_available, void *state,
                        int per_rep, int reps, const char *reset, int alternating) {
  row_t loop_result, batch_result;
  static steps_t steps;
  memset(&loop_result, 0, sizeof loop_result);
  memset(&batch_result, 0, sizeof batch_result);
  CK(measure_steps(&loop_result, &steps, setup, loop, state, per_rep, reps, reset));
  take_result(r, &loop_result);
  memcpy(r->protocol, loop_result.protocol, sizeof r->protocol);
  record_variant(r, "loop", &loop_result, &steps, alternating);
  if (!batch_available) {
    row_variant(r, "batchUnavailable", 1);
    return;
  }
  CK(measure_steps(&batch_result, &steps, setup, batch, state, per_rep, reps, reset));
  record_variant(r, "batch", &batch_result, &steps, alternating);
  if (batch_result.value < r->value) take_result(r, &batch_result);
done:;
}

#endif
