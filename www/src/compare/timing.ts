/**
 * Timing `invoke()` for the Compare view's latency: browsers coarsen `performance.now()` (5 µs
 * to 100 µs steps), so one call of a small model can read 0. Each timed run is therefore a
 * batch of calls long enough to measure (at least `MIN_BATCH_MS`), divided by its size, and the
 * page shows the median of several such runs. Pure (the clock and the call are passed in), so it
 * is unit-tested with a fake clock.
 */

/** A timed batch lasts at least this long, far above any browser's timer step. */
export const MIN_BATCH_MS = 2;
/** The most calls in one batch (a model this fast is timed over ≥ 2 ms anyway). */
export const MAX_BATCH = 4096;

export interface Timings {
  /** The first call alone (it includes one-time work: buffers, caches). */
  firstMs: number;
  /** Milliseconds per call, one entry per timed batch. */
  timesMs: number[];
  /** Calls per timed batch. */
  batch: number;
}

/**
 * Times `invoke`: the first call alone, then the batch size (doubled until two batches in a row
 * last `MIN_BATCH_MS`, or `MAX_BATCH`), then `runs` batches.
 */
export function timeInvokes(invoke: () => void, now: () => number, runs: number): Timings {
  const timed = (calls: number): number => {
    const started = now();
    for (let i = 0; i < calls; i++) invoke();
    return now() - started;
  };
  const firstMs = timed(1);
  // Two probes at each size, the shorter one counting: one slow call (a collection, a cache
  // refill) must not make a batch look long enough.
  let batch = 1;
  while (batch < MAX_BATCH && Math.min(timed(batch), timed(batch)) < MIN_BATCH_MS) batch *= 2;
  const timesMs = Array.from({ length: runs }, () => timed(batch) / batch);
  return { firstMs, timesMs, batch };
}
