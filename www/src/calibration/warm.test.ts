import { describe, expect, it } from 'vitest';
import type { QuantizeSettings } from '../engine/types';
import { FakeCalibrator } from './fake.test-util';
import type { CalibrationStats } from './types';
import { WARM_SAMPLES, warmUp, type WarmEngine } from './warm';

/** A fake engine recording the quantizations it is asked for. */
function fakeEngine(quantizeFails = false) {
  const quantized: { json: string; settings: QuantizeSettings; freed: boolean }[] = [];
  const engine: WarmEngine = {
    // The real constructor takes the model bytes; the fake has one input "x" of 1×4.
    Calibrator: class extends FakeCalibrator {
      constructor(model: Uint8Array) {
        super();
        if (model.length === 0) throw new Error('empty model');
      }
    },
    randomData: (n: number, lo: number, hi: number) => new Float32Array(n).fill((lo + hi) / 2),
    statsJson: (stats: CalibrationStats) => JSON.stringify(stats),
    quantizeModel: (_model: Uint8Array, json: string, settings: QuantizeSettings) => {
      if (quantizeFails) throw new Error('cannot quantize');
      const q = { json, settings, freed: false };
      quantized.push(q);
      return {
        free: () => {
          q.freed = true;
        },
      };
    },
  };
  return { engine, quantized };
}

describe('warmUp', () => {
  it('calibrates a few random samples, quantizes int8 from their statistics, and frees everything', async () => {
    FakeCalibrator.instances = [];
    const { engine, quantized } = fakeEngine();
    await warmUp(engine, new Uint8Array(8));
    const [calibrator, ...others] = FakeCalibrator.instances;
    expect(others).toHaveLength(0);
    expect(calibrator?.samples()).toBe(WARM_SAMPLES);
    expect(calibrator?.freed).toBe(true);
    expect(quantized).toHaveLength(1);
    expect(quantized[0]?.settings.mode).toBe('int8');
    expect(JSON.parse(quantized[0]?.json ?? '{}')).toMatchObject({ samples: WARM_SAMPLES });
    expect(quantized[0]?.freed).toBe(true);
  });

  it('frees the calibrator when quantizing throws, and throws', async () => {
    FakeCalibrator.instances = [];
    const { engine } = fakeEngine(true);
    await expect(warmUp(engine, new Uint8Array(8))).rejects.toThrow('cannot quantize');
    expect(FakeCalibrator.instances[0]?.freed).toBe(true);
  });
});
