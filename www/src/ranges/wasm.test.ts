/**
 * The bindings the Ranges view and the details panel use (`quantParams`, `requantMultipliers`,
 * `quantizeMultiplier`, `weightScales`), on the real wasm package in Node. Expected values are
 * worked out here from the formulas, not taken from the engine.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EngineModule } from '../engine/loader';
import { loadTestEngine } from '../engine/testing';

const EXAMPLE = 'www/assets/example.tflite';

let api: EngineModule;

beforeAll(async () => {
  api = await loadTestEngine();
});

describe('quantParams', () => {
  it('int8 [-1, 3]: scale (3 − (−1)) / 255 in float32, zero point −64 (0.0 exact)', () => {
    const s = api.quantParams(-1, 3, 'int8');
    expect(s.scale).toBe(Math.fround(Math.fround(4) / 255));
    expect(s.zero_point).toBe(-64);
    expect([s.widened_min, s.widened_max]).toEqual([-1, 3]);
    expect(s.zp_side).toBe('min');
    expect(s.nudged_min).toBeCloseTo(-64 * s.scale, 12);
    expect(s.nudged_max).toBeCloseTo(191 * s.scale, 12);
  });

  it('widens a positive range to include 0 (zero point −128) and a negative one (127)', () => {
    const pos = api.quantParams(0.5, 2, 'int8');
    expect([pos.widened_min, pos.zero_point]).toEqual([0, -128]);
    expect(pos.scale).toBe(Math.fround(2 / 255));
    const neg = api.quantParams(-2, -0.5, 'int8');
    expect([neg.widened_max, neg.zero_point]).toEqual([0, 127]);
  });

  it('widens an all-zero range by 1e-6 each side', () => {
    const z = api.quantParams(0, 0, 'int8');
    expect(z.near_zero_widened).toBe(true);
    expect(z.zero_point).toBe(0);
    expect(z.rmax).toBe(1e-6);
  });

  it('int16 is symmetric with zero point 0', () => {
    const s = api.quantParams(-0.5, 2, 'int16');
    expect(s.zero_point).toBe(0);
    expect(s.scale).toBe(Math.fround(2 / 32767));
  });

  it('refuses what the quantizer refuses', () => {
    expect(() => api.quantParams(1, 0, 'int8')).toThrow(/min > max/);
    expect(() => api.quantParams(0, 1, 'uint4')).toThrow(/unknown type/);
  });
});

describe('multipliers', () => {
  it('splits M into a Q31 mantissa and a shift', () => {
    // 0.75 = 0.75 · 2^0: M0 = 0.75 · 2^31.
    expect(api.quantizeMultiplier(0.75)).toMatchObject({ m0: 1610612736, shift: 0 });
    // 1/3 = 0.6666… · 2^−1: M0 = round(2^31 · 2/3) = 1431655765.
    expect(api.quantizeMultiplier(1 / 3)).toMatchObject({ m0: 1431655765, shift: -1 });
  });

  it('computes M = S_x · S_w[c] / S_y in double per channel', () => {
    const steps = api.requantMultipliers(0.5, new Float32Array([0.25, 0.125]), 0.25);
    expect(steps.map((m) => m.multiplier)).toEqual([0.5, 0.25]);
    expect(steps.map((m) => m.shift)).toEqual([0, -1]);
    expect(steps.every((m) => m.m0 === 1 << 30)).toBe(true);
  });
});

describe('weightScales', () => {
  it('gives max|w|/127 per output channel of the example model’s first conv weights', () => {
    const bytes = new Uint8Array(readFileSync(EXAMPLE));
    const summary = api.inspectModel(bytes);
    const main = summary.subgraphs[0];
    const conv = main?.operators.find((op) => op.op === 'CONV_2D');
    const w = main?.tensors.find((t) => t.index === conv?.inputs[1]);
    if (!w) throw new Error('no conv weights in the example');
    const scales = api.weightScales(bytes, w.index, 0);
    expect(scales.length).toBe(w.shape[0]);
    for (const s of scales) expect(s).toBeGreaterThan(0);
    expect(() => api.weightScales(bytes, main?.inputs[0] ?? 0, 0)).toThrow(/no constant data/);
  });
});
