// Issue 10's crash suite: each case program (cases/*.mjs) runs in its own process against every
// driver, so a use-after-free or an abort is a failed test naming its signal, never a dead
// runner. On CPU the adapters load the hostile fake libcuda, where freed memory faults.
import { describeGated } from '@cumem/testing/vitest';
import { expect, it } from 'vitest';
import { crashCases } from './crash-cases.js';
import { isKnownFailure } from './known-failures.js';
import { runCase } from './run-case.js';
import { caseSkipReason, crashTargets } from './targets.js';

const cases = crashCases();

for (const target of crashTargets()) {
  describeGated(target.entry, `crash suite [${target.entry.name}]`, target.entry.skipReason, () => {
    for (const crashCase of cases) {
      // vitest collects skipped blocks too: capabilities are read only of an available driver.
      const reason =
        target.entry.skipReason === undefined
          ? caseSkipReason(crashCase, target, target.entry.driver)
          : undefined;
      if (reason === undefined && isKnownFailure(crashCase.name, target.key)) {
        it.skip(`${crashCase.name} — skipped: known failure until its issue 10 fix merges`, () => {});
        continue;
      }
      if (reason !== undefined) {
        it.skip(`${crashCase.name} — skipped: ${reason}`, () => {});
        continue;
      }
      it(crashCase.name, async () => {
        const failure = await runCase(crashCase, target.target);
        expect(failure, failure).toBeUndefined();
      });
    }
  });
}

// A fake that builds but no longer loads (an adapter started requiring an entry point the fake
// lacks) would otherwise turn every CPU crash case into a quiet skip.
it('the hostile fake libcuda loads in both adapters wherever it builds', () => {
  for (const target of crashTargets().filter((candidate) => candidate.isFake)) {
    const reason = target.entry.skipReason;
    if (reason?.startsWith('not applicable')) continue;
    expect(reason, `${target.entry.name}: ${reason}`).toBeUndefined();
  }
});
