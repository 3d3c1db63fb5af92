import { describe, expect, it } from 'vitest';
import { FakeCalibrator } from './fake.test-util';
import { macrotask, runCalibration, type LoopHooks, type SampleSource } from './loop';
import type { Progress } from './progress';

/** A manual clock: each sample "takes" `msPerSample`. */
function hooks(opts: { msPerSample?: number; cancelAfterYields?: number } = {}) {
  let t = 1000;
  let yields = 0;
  let cancelled = false;
  const progress: Progress[] = [];
  const h: LoopHooks = {
    onProgress: (p) => progress.push(p),
    isCancelled: () => cancelled,
    yieldToEventLoop: () => {
      yields++;
      if (opts.cancelAfterYields !== undefined && yields > opts.cancelAfterYields) cancelled = true;
      return Promise.resolve();
    },
    now: () => t,
  };
  const source = (total: number): SampleSource => ({
    total,
    sample: (i) => {
      t += opts.msPerSample ?? 1;
      return [new Float32Array([i, -i, 0.5, 1])];
    },
  });
  return { h, source, progress, yields: () => yields };
}

describe('runCalibration', () => {
  it('feeds every sample once, in order, and reports start and end', async () => {
    const cal = new FakeCalibrator();
    const { h, source, progress } = hooks();
    const result = await runCalibration(cal, source(16), h);
    expect(result).toEqual({ status: 'done', samples: 16, elapsedMs: 16 });
    expect(cal.fed.map((s) => s[0]?.[0])).toEqual([...Array(16).keys()]);
    expect(progress[0]).toEqual({ done: 0, total: 16, elapsedMs: 0 });
    expect(progress.at(-1)).toEqual({ done: 16, total: 16, elapsedMs: 16 });
  });

  it('throttles progress and yields to the event loop while working', async () => {
    const cal = new FakeCalibrator();
    const { h, source, progress, yields } = hooks({ msPerSample: 10 });
    await runCalibration(cal, source(100), { ...h, progressEveryMs: 100, yieldEveryMs: 25 });
    // 1 s of work: a report every 100 ms (+ start), a yield every 30 ms (+ the one before the first sample).
    expect(progress.length).toBe(11);
    expect(progress.every((p, i) => i === 0 || p.done > (progress[i - 1]?.done ?? -1))).toBe(true);
    expect(yields()).toBeGreaterThanOrEqual(30);
  });

  it('stops between samples when cancelled', async () => {
    const cal = new FakeCalibrator();
    const { h, source } = hooks({ msPerSample: 10, cancelAfterYields: 3 });
    const result = await runCalibration(cal, source(2000), { ...h, yieldEveryMs: 25 });
    expect(result.status).toBe('cancelled');
    expect(result.samples).toBe(cal.samples());
    expect(result.samples).toBeGreaterThan(0);
    expect(result.samples).toBeLessThan(20);
  });

  it('a cancel that arrives before the first sample runs nothing', async () => {
    const cal = new FakeCalibrator();
    const { h, source } = hooks({ cancelAfterYields: 0 });
    expect(await runCalibration(cal, source(5), h)).toMatchObject({ status: 'cancelled', samples: 0 });
  });

  it('names sample and input when data does not fit, and passes engine errors through', async () => {
    const cal = new FakeCalibrator();
    const { h } = hooks();
    const bad: SampleSource = { total: 3, sample: (i) => [new Float32Array(i === 2 ? 3 : 4)] };
    await expect(runCalibration(cal, bad, h)).rejects.toThrow('sample 2: expected 4 elements, got 3');
    const nan = new FakeCalibrator();
    nan.failAt = 1;
    const ok: SampleSource = { total: 3, sample: () => [new Float32Array(4)] };
    await expect(runCalibration(nan, ok, h)).rejects.toThrow('sample 1: input "x" contains NaN');
    const wrongCount: SampleSource = { total: 1, sample: () => [] };
    await expect(runCalibration(new FakeCalibrator(), wrongCount, h)).rejects.toThrow(/0 arrays for 1 model inputs/);
  });

  it('awaits asynchronous samples (decoded images)', async () => {
    const cal = new FakeCalibrator();
    const { h } = hooks();
    const src: SampleSource = { total: 3, sample: async (i) => Promise.resolve([new Float32Array([i, i, i, i])]) };
    expect(await runCalibration(cal, src, h)).toMatchObject({ status: 'done', samples: 3 });
  });
});

describe('macrotask', () => {
  it('resolves on a later task, after the microtasks already queued', async () => {
    const order: string[] = [];
    const task = macrotask().then(() => order.push('task'));
    void Promise.resolve()
      .then(() => order.push('micro 1'))
      .then(() => order.push('micro 2'));
    await task;
    expect(order).toEqual(['micro 1', 'micro 2', 'task']);
  });
});
