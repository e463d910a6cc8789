import { describe, expect, it } from 'vitest';
import {
  calibrate,
  gatedRun,
  LOOPS,
  MAX_CALIBRATIONS,
  MAX_TRIES,
  MIN_CALIBRATIONS,
  SLOW_MODE_EXIT,
} from '../process-gate.mjs';

describe('calibrate', () => {
  it('stops once both modes were seen in every loop, after the minimum', () => {
    const times = [
      { poolPairNs: 700, vmmPairUs: 60 },
      { poolPairNs: 1200, vmmPairUs: 80 },
      { poolPairNs: 710, vmmPairUs: 61 },
      { poolPairNs: 1250, vmmPairUs: 85 },
      { poolPairNs: 700, vmmPairUs: 60 },
    ];
    let calls = 0;
    const { limits, calibrations, bothModesSeen } = calibrate(() => times[calls++]);
    expect(calls).toBe(MIN_CALIBRATIONS);
    expect(calibrations).toHaveLength(MIN_CALIBRATIONS);
    expect(bothModesSeen).toEqual({ poolPairNs: true, vmmPairUs: true });
    expect(limits.poolPairNs).toBeCloseTo(700 * LOOPS.poolPairNs.margin, 1);
    expect(limits.vmmPairUs).toBeCloseTo(60 * LOOPS.vmmPairUs.margin, 1);
  });
  it('goes on to the maximum when one mode only shows, and says so', () => {
    let calls = 0;
    const { bothModesSeen } = calibrate(() => {
      calls++;
      return { poolPairNs: 700 };
    });
    expect(calls).toBe(MAX_CALIBRATIONS);
    expect(bothModesSeen).toEqual({ poolPairNs: false });
  });
  it('leaves the gate off when no calibration gave a time', () => {
    expect(calibrate(() => undefined).limits).toBeUndefined();
  });
});

describe('gatedRun', () => {
  const limits = { poolPairNs: 875 };
  it('runs ungated without a limit for the loop', () => {
    const { gate } = gatedRun(
      () => ({ status: 0 }),
      undefined,
      'poolPairNs',
      () => undefined,
    );
    expect(gate.off).toMatch(/no calibration/);
  });
  it('starts the process again while it exits in the slow mode', () => {
    const statuses = [SLOW_MODE_EXIT, SLOW_MODE_EXIT, 0];
    const environments = [];
    const { run, gate } = gatedRun(
      (env) => {
        environments.push(env);
        return { status: statuses[environments.length - 1] };
      },
      limits,
      'poolPairNs',
      () => ({ poolPairNs: 800 }),
    );
    expect(run.status).toBe(0);
    expect(gate).toMatchObject({ tries: 3, passed: true, limit: { poolPairNs: 875 } });
    expect(JSON.parse(environments[0].BENCH_PROCESS_GATE)).toEqual({ poolPairNs: 875 });
  });
  it('measures ungated once the tries are spent, and records why', () => {
    let started = 0;
    const { gate } = gatedRun(
      () => {
        started++;
        return { status: started > MAX_TRIES ? 0 : SLOW_MODE_EXIT };
      },
      limits,
      'poolPairNs',
      () => undefined,
      () => started < 2,
    );
    expect(gate).toMatchObject({ passed: false, tries: 3, stoppedBy: 'the time for tries' });
  });
});
