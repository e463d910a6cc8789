// Which forced form of a batch row (bench/js/utils.mjs) is the faster one: the smaller median,
// the loop on a tie. The one rule that utils.mjs pairs `auto`'s repetitions by and checks.mjs
// names and judges by (older result files carry only the medians).
export function fasterForm(loopMedian, batchMedian) {
  return loopMedian <= batchMedian ? 'loop' : 'batch';
}
