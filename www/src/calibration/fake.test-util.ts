/** A fake Calibrator for tests: records min/max of everything fed to it, like the real one's minmax. */
import type { CalibrationStats, CalibratorLike, InputDesc } from './types';

export class FakeCalibrator implements CalibratorLike {
  static instances: FakeCalibrator[] = [];
  readonly fed: Float32Array[][] = [];
  private current: Float32Array[] = [];
  private count = 0;
  freed = false;
  /** Throw from addSample on this sample index (like NaN data would). */
  failAt: number | undefined;

  constructor(private readonly descs: InputDesc[] = [{ name: 'x', shape: [1, 4], dtype: 'FLOAT32' }]) {
    FakeCalibrator.instances.push(this);
  }
  inputs(): InputDesc[] {
    return this.descs;
  }
  setInput(index: number, data: Float32Array): void {
    const want = (this.descs[index]?.shape ?? []).reduce((a, b) => a * b, 1);
    if (data.length !== want) throw new Error(`expected ${String(want)} elements, got ${String(data.length)}`);
    this.current[index] = data;
  }
  addSample(): void {
    if (this.failAt === this.count) throw new Error(`sample ${String(this.count)}: input "x" contains NaN`);
    this.fed.push([...this.current]);
    this.count++;
  }
  samples(): number {
    return this.count;
  }
  stats(method: string): CalibrationStats {
    const all = this.fed.flatMap((s) => s.flatMap((a) => [...a]));
    const min = Math.min(...all);
    const max = Math.max(...all);
    return {
      samples: this.count,
      tensors: [{ index: 0, name: 'x', min, max, chosen_min: min, chosen_max: max, method, histogram: { lo: min, hi: max, counts: [all.length] } }],
    };
  }
  free(): void {
    this.freed = true;
  }
}
