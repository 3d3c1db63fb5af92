/** Progress of a calibration run: "12 / 16 samples · 340 samples/s · 1.2 s left". Pure. */
import { formatMs } from '../format';

export interface Progress {
  done: number;
  total: number;
  /** Milliseconds since the run started. */
  elapsedMs: number;
}

/** Samples per second, or undefined before there is anything to measure. */
export function samplesPerSecond(p: Progress): number | undefined {
  if (p.done <= 0 || p.elapsedMs <= 0) return undefined;
  return (p.done * 1000) / p.elapsedMs;
}

/** Estimated milliseconds left at the average rate so far. */
export function remainingMs(p: Progress): number | undefined {
  const rate = samplesPerSecond(p);
  if (rate === undefined) return undefined;
  return ((p.total - p.done) / rate) * 1000;
}

/** "420 ms" (below 1 s: [formatMs]), "1.2 s", "12 s", "3 min 05 s", "1 h 02 min". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return formatMs(ms);
  const s = ms / 1000;
  if (s < 10) return `${s.toFixed(1)} s`;
  if (s < 60) return `${String(Math.round(s))} s`;
  const totalS = Math.round(s);
  if (totalS < 3600) return `${String(Math.floor(totalS / 60))} min ${String(totalS % 60).padStart(2, '0')} s`;
  const totalMin = Math.round(s / 60);
  return `${String(Math.floor(totalMin / 60))} h ${String(totalMin % 60).padStart(2, '0')} min`;
}

function formatRate(rate: number): string {
  if (rate >= 100) return String(Math.round(rate));
  if (rate >= 10) return rate.toFixed(1);
  return rate.toFixed(2);
}

/** The line under the progress bar. */
export function formatProgress(p: Progress): string {
  const count = `${p.done.toLocaleString('en-US')} / ${p.total.toLocaleString('en-US')} samples`;
  const rate = samplesPerSecond(p);
  if (rate === undefined) return count;
  const left = p.done >= p.total ? `done in ${formatDuration(p.elapsedMs)}` : `${formatDuration(remainingMs(p) ?? NaN)} left`;
  return `${count} · ${formatRate(rate)} samples/s · ${left}`;
}

/** Fraction done in [0, 1] for the progress element. */
export function fraction(p: Progress): number {
  return p.total > 0 ? Math.min(1, Math.max(0, p.done / p.total)) : 0;
}
