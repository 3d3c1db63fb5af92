import { describe, expect, it } from 'vitest';
import type { ModelSummary } from './engine/types';
import { createPageStore } from './page-state';
import { Latest, Store, latest } from './store';

interface S {
  a: number;
  b: string | undefined;
}

describe('Store', () => {
  it('tells the subscribers of a field, in the order they subscribed, with the new value and state', () => {
    const store = new Store<S>({ a: 0, b: undefined });
    const heard: string[] = [];
    store.subscribe('a', (value, state) => heard.push(`1:${String(value)}:${String(state.b)}`));
    store.subscribe('a', (value) => heard.push(`2:${String(value)}`));
    store.subscribe('b', (value) => heard.push(`b:${String(value)}`));
    store.set({ a: 1 });
    expect(heard).toEqual(['1:1:undefined', '2:1']);
    expect(store.get()).toEqual({ a: 1, b: undefined });
    store.set({ b: 'x', a: 2 });
    expect(heard.slice(2)).toEqual(['b:x', '1:2:x', '2:2']);
  });

  it('tells every set, also of the value the field already had', () => {
    const store = new Store<S>({ a: 0, b: undefined });
    let calls = 0;
    store.subscribe('b', () => calls++);
    store.set({ b: undefined });
    store.set({ b: undefined });
    expect(calls).toBe(2);
  });

  it('queues a set made while telling: told after the current round, with the value it set', () => {
    const store = new Store<S>({ a: 0, b: undefined });
    const heard: string[] = [];
    store.subscribe('a', (value) => {
      heard.push(`first a=${String(value)}`);
      if (value === 1) store.set({ b: 'reset' });
    });
    store.subscribe('b', (value) => heard.push(`b=${String(value)}`));
    store.subscribe('a', (value, state) => heard.push(`second a=${String(value)} (b is already ${String(state.b)})`));
    store.set({ a: 1 });
    expect(heard).toEqual(['first a=1', 'second a=1 (b is already reset)', 'b=reset']);
  });

  it('tells queued sets of one field in order, each with its own value', () => {
    const store = new Store<S>({ a: 0, b: undefined });
    const heard: (string | undefined)[] = [];
    store.subscribe('a', () => {
      store.set({ b: 'one' });
      store.set({ b: 'two' });
    });
    store.subscribe('b', (value) => heard.push(value));
    store.set({ a: 1 });
    expect(heard).toEqual(['one', 'two']);
    expect(store.get().b).toBe('two');
  });

  it('unsubscribes', () => {
    const store = new Store<S>({ a: 0, b: undefined });
    let calls = 0;
    const off = store.subscribe('a', () => calls++);
    store.set({ a: 1 });
    off();
    off();
    store.set({ a: 2 });
    expect(calls).toBe(1);
  });

  it('a listener that throws stops the telling; the next set works again', () => {
    const store = new Store<S>({ a: 0, b: undefined });
    const heard: number[] = [];
    store.subscribe('a', (value) => {
      if (value === 1) {
        store.set({ b: 'dropped' });
        throw new Error('boom');
      }
    });
    store.subscribe('a', (value) => heard.push(value));
    let b = 0;
    store.subscribe('b', () => b++);
    expect(() => {
      store.set({ a: 1 });
    }).toThrow('boom');
    expect(heard).toEqual([]);
    expect(b).toBe(0);
    store.set({ a: 2 });
    expect(heard).toEqual([2]);
  });

  it('the page store starts empty (inputs at their stored shapes, the reference arithmetic)', () => {
    expect(createPageStore().get()).toEqual({
      model: undefined,
      calibration: undefined,
      quantized: undefined,
      selection: undefined,
      inputShapes: { shapes: [] },
      arithmetic: 'reference',
    });
  });

  it('a new model: every panel hears of it before any hears of the results reset for it', () => {
    // The wiring of main.ts and the panels, reduced to what each says and does.
    const store = createPageStore();
    const heard: string[] = [];
    store.subscribe('model', (m) => {
      heard.push(`model tab shows ${m?.name ?? '-'}`);
      store.set({ selection: undefined });
    });
    store.subscribe('model', () => {
      heard.push('calibrate resets');
      store.set({ calibration: undefined });
    });
    store.subscribe('model', () => {
      heard.push('quantize resets');
      store.set({ quantized: undefined });
    });
    store.subscribe('model', (m) => heard.push(`ranges takes ${m?.name ?? '-'}`));
    store.subscribe('selection', (s) => heard.push(`details shows ${s === undefined ? 'nothing' : s.kind}`));
    store.subscribe('calibration', (c, state) => heard.push(`ranges: ${c ? 'stats' : 'no stats'} for ${state.model?.name ?? '-'}`));
    store.subscribe('quantized', (q) => heard.push(`compare: ${q ? 'quantized' : 'nothing to compare'}`));
    const summary = { subgraphs: [] } as unknown as ModelSummary;
    store.set({ model: { name: 'm.tflite', size: 1, summary, bytes: new Uint8Array(1) } });
    expect(heard).toEqual([
      'model tab shows m.tflite',
      'calibrate resets',
      'quantize resets',
      'ranges takes m.tflite',
      'details shows nothing',
      'ranges: no stats for m.tflite',
      'compare: nothing to compare',
    ]);
  });
});

/** A promise and its resolve/reject, to settle replies in any order. */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('Latest', () => {
  it('a ticket is current until the next request or a cancel', () => {
    const requests = latest();
    const first = requests.next();
    expect(first()).toBe(true);
    const second = requests.next();
    expect(first()).toBe(false);
    expect(second()).toBe(true);
    requests.cancel();
    expect(second()).toBe(false);
  });

  it('current() does not start a request: it goes stale with the next one', () => {
    const requests = new Latest();
    const started = requests.next();
    const now = requests.current();
    expect(now()).toBe(true);
    expect(started()).toBe(true);
    requests.next();
    expect(now()).toBe(false);
  });

  it('guards are independent of each other', () => {
    const a = latest();
    const b = latest();
    const ticket = a.next();
    b.next();
    b.cancel();
    expect(ticket()).toBe(true);
  });

  it('run() uses only the latest reply, whatever order the replies come in', async () => {
    const requests = latest();
    const used: string[] = [];
    const slow = deferred<string>();
    const fast = deferred<string>();
    requests.run(slow.promise, (v) => used.push(v), () => used.push('error'));
    requests.run(fast.promise, (v) => used.push(v), () => used.push('error'));
    fast.resolve('second');
    slow.resolve('first (stale)');
    await Promise.all([slow.promise, fast.promise]);
    await Promise.resolve();
    expect(used).toEqual(['second']);
  });

  it('run() drops a stale error and reports a current one', async () => {
    const requests = latest();
    const errors: unknown[] = [];
    const stale = deferred<number>();
    requests.run(stale.promise, () => undefined, (e) => errors.push(e));
    requests.cancel();
    stale.reject(new Error('stale'));
    await stale.promise.catch(() => undefined);
    await Promise.resolve();
    expect(errors).toEqual([]);
    const current = deferred<number>();
    requests.run(current.promise, () => undefined, (e) => errors.push(e));
    current.reject(new Error('current'));
    await current.promise.catch(() => undefined);
    await Promise.resolve();
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toBe('current');
  });
});
