import { describe, expect, it } from 'vitest';
import { MAX_BATCH, MIN_BATCH_MS, timeInvokes } from './timing';

/** A clock that advances only by the calls (each costs `costMs`) and reads in `stepMs` steps. */
function fakeClock(costMs: number, stepMs: number): { invoke: () => void; now: () => number; calls: () => number } {
  let t = 0;
  let calls = 0;
  return {
    invoke: () => {
      t += costMs;
      calls += 1;
    },
    now: () => Math.floor(t / stepMs) * stepMs,
    calls: () => calls,
  };
}

describe('timeInvokes', () => {
  it('times a call shorter than the timer step in batches: never 0', () => {
    // 3 µs per call, a 100 µs timer (Chromium without cross-origin isolation).
    const clock = fakeClock(0.003, 0.1);
    const t = timeInvokes(clock.invoke, clock.now, 5);
    expect(t.firstMs).toBe(0); // one call alone reads 0 ...
    expect(t.batch).toBeGreaterThan(1); // ... so the batches are longer
    expect(t.batch * 0.003).toBeGreaterThanOrEqual(MIN_BATCH_MS - 0.1);
    expect(t.timesMs).toHaveLength(5);
    for (const ms of t.timesMs) {
      expect(ms).toBeGreaterThan(0.0025);
      expect(ms).toBeLessThan(0.0035);
    }
  });

  it('times a slow call one at a time', () => {
    const clock = fakeClock(40, 0.1);
    const t = timeInvokes(clock.invoke, clock.now, 3);
    expect(t.batch).toBe(1);
    expect(t.firstMs).toBe(40);
    expect(t.timesMs).toEqual([40, 40, 40]);
    expect(clock.calls()).toBe(1 + 2 + 3); // first, two batch probes, 3 runs
  });

  it('is not fooled by one slow call into batches too short to time', () => {
    // 5 µs calls on a 100 µs timer; the second call (the first probe) takes 3 ms.
    let t = 0;
    let calls = 0;
    const invoke = (): void => {
      calls += 1;
      t += calls === 2 ? 3 : 0.005;
    };
    const now = (): number => Math.floor(t / 0.1) * 0.1;
    const r = timeInvokes(invoke, now, 3);
    expect(r.batch * 0.005).toBeGreaterThanOrEqual(MIN_BATCH_MS - 0.1);
    for (const ms of r.timesMs) expect(Math.abs(ms - 0.005)).toBeLessThan(0.0006);
  });

  it('stops growing the batch at MAX_BATCH when the clock never moves', () => {
    const clock = fakeClock(0, 0.1);
    const t = timeInvokes(clock.invoke, clock.now, 2);
    expect(t.batch).toBe(MAX_BATCH);
    expect(t.timesMs).toEqual([0, 0]);
  });
});
