import { afterEach, describe, expect, it, vi } from 'vitest';
import { IDLE_MS, SliceWorkers, type HelperWorker } from './slice-client';
import type { SliceRequest } from './parallel';
import type { SliceWorkerReply, SliceWorkerRequest } from './slice-worker';

/** A stand-in helper: records what it is sent; `reply` answers its current slice. */
class FakeHelper extends EventTarget {
  readonly sent: SliceWorkerRequest[] = [];
  terminated = false;
  postMessage(message: SliceWorkerRequest): void {
    this.sent.push(message);
  }
  reply(data: SliceWorkerReply): void {
    this.dispatchEvent(new MessageEvent('message', { data }));
  }
  fail(message: string): void {
    this.dispatchEvent(Object.assign(new Event('error'), { message }));
  }
  terminate(): void {
    this.terminated = true;
  }
}

const SLICE: SliceRequest = { model: new Uint8Array(4), config: { source: { kind: 'random', count: 4, lo: 0, hi: 1, seed: 1 }, method: { kind: 'minmax' } }, start: 2, end: 4 };

function pool(): { helpers: SliceWorkers; made: FakeHelper[] } {
  const made: FakeHelper[] = [];
  const helpers = new SliceWorkers('simd', undefined, () => {
    const w = new FakeHelper();
    made.push(w);
    return w as unknown as HelperWorker;
  });
  return { helpers, made };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('SliceWorkers (the helper pool)', () => {
  it('keeps a helper whose slice is done and gives it the next slice', async () => {
    const { helpers, made } = pool();
    const first = helpers.run(SLICE, () => undefined);
    made[0]?.reply({ type: 'state', state: new Uint8Array([1]) });
    expect(await first).toEqual(new Uint8Array([1]));
    expect(helpers.idleCount).toBe(1);
    const progress: number[] = [];
    const second = helpers.run({ ...SLICE, start: 0 }, (n) => progress.push(n));
    made[0]?.reply({ type: 'progress', done: 1 });
    made[0]?.reply({ type: 'state', state: new Uint8Array([2]) });
    expect(await second).toEqual(new Uint8Array([2]));
    expect(made).toHaveLength(1);
    expect(progress).toEqual([1]);
    expect(made[0]?.sent.map((m) => m.type)).toEqual(['slice', 'slice']);
    expect(made[0]?.terminated).toBe(false);
  });

  it('prewarm starts helpers loading the engine and resolves once they have; a calibration takes them', async () => {
    const { helpers, made } = pool();
    let ready = false;
    const warming = helpers.prewarm(2).then(() => {
      ready = true;
    });
    void helpers.prewarm(2);
    expect(made).toHaveLength(2);
    expect(made.map((w) => w.sent[0]?.type)).toEqual(['load', 'load']);
    made[0]?.reply({ type: 'loaded' });
    await Promise.resolve();
    expect(ready).toBe(false);
    made[1]?.fail('no wasm');
    await warming;
    expect(ready).toBe(true);
    const run = helpers.run(SLICE, () => undefined);
    expect(made).toHaveLength(2);
    expect(helpers.idleCount).toBe(1);
    made[0]?.reply({ type: 'state', state: undefined });
    expect(await run).toBeUndefined();
  });

  it('a failed helper ends and is not reused; stop ends running helpers only; close ends all', async () => {
    const { helpers, made } = pool();
    const failing = helpers.run(SLICE, () => undefined);
    made[0]?.reply({ type: 'error', message: 'sample 3: NaN' });
    await expect(failing).rejects.toThrow('sample 3: NaN');
    expect(made[0]?.terminated).toBe(true);
    expect(helpers.idleCount).toBe(0);
    const crashing = helpers.run(SLICE, () => undefined);
    made[1]?.fail('out of memory');
    await expect(crashing).rejects.toThrow('a calibration helper worker failed: out of memory');
    void helpers.prewarm(1);
    const running = helpers.run(SLICE, () => undefined);
    void helpers.prewarm(1);
    helpers.stop();
    expect(await running).toBeUndefined();
    expect(made[2]?.terminated).toBe(true);
    expect(made[3]?.terminated).toBe(false);
    expect(helpers.idleCount).toBe(1);
    helpers.close();
    expect(made[3]?.terminated).toBe(true);
    expect(helpers.idleCount).toBe(0);
  });

  it('an idle helper ends after IDLE_MS', () => {
    vi.useFakeTimers();
    const { helpers, made } = pool();
    void helpers.prewarm(1);
    vi.advanceTimersByTime(IDLE_MS - 1);
    expect(made[0]?.terminated).toBe(false);
    vi.advanceTimersByTime(1);
    expect(made[0]?.terminated).toBe(true);
    expect(helpers.idleCount).toBe(0);
  });
});
