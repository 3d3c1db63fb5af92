import { describe, expect, it } from 'vitest';
import { formatDuration, formatProgress, fraction, remainingMs, samplesPerSecond } from './progress';

describe('progress', () => {
  it('computes rate and time left from the average so far', () => {
    const p = { done: 50, total: 200, elapsedMs: 500 };
    expect(samplesPerSecond(p)).toBe(100);
    expect(remainingMs(p)).toBe(1500);
    expect(fraction(p)).toBe(0.25);
    expect(samplesPerSecond({ done: 0, total: 10, elapsedMs: 100 })).toBeUndefined();
    expect(fraction({ done: 0, total: 0, elapsedMs: 0 })).toBe(0);
    expect(fraction({ done: 12, total: 10, elapsedMs: 0 })).toBe(1);
  });

  it('formats durations', () => {
    expect(formatDuration(420)).toBe('420 ms');
    expect(formatDuration(0.25)).toBe('250 µs');
    expect(formatDuration(1500)).toBe('1.5 s');
    expect(formatDuration(12_345)).toBe('12 s');
    expect(formatDuration(185_000)).toBe('3 min 05 s');
    expect(formatDuration(3_720_000)).toBe('1 h 02 min');
    expect(formatDuration(NaN)).toBe('—');
    expect(formatDuration(-1)).toBe('—');
  });

  it('formats the status line', () => {
    expect(formatProgress({ done: 0, total: 16, elapsedMs: 0 })).toBe('0 / 16 samples');
    expect(formatProgress({ done: 1200, total: 2000, elapsedMs: 3000 })).toBe('1,200 / 2,000 samples · 400 samples/s · 2.0 s left');
    expect(formatProgress({ done: 3, total: 10, elapsedMs: 200 })).toBe('3 / 10 samples · 15.0 samples/s · 467 ms left');
    expect(formatProgress({ done: 16, total: 16, elapsedMs: 80 })).toBe('16 / 16 samples · 200 samples/s · done in 80.0 ms');
  });
});
