import { describe, expect, it } from 'vitest';
import type { QuantSteps } from '../engine/types';
import { num, stepLines } from './steps';

/** [-1, 3] in int8, worked by hand: scale 4/255, zero point −128 + 1/(4/255) = −64.25 → −64. */
const STEPS: QuantSteps = {
  dtype: 'int8',
  min: -1,
  max: 3,
  widened_min: -1,
  widened_max: 3,
  near_zero_widened: false,
  rmin: -1,
  rmax: 3,
  qmin: -128,
  qmax: 127,
  storage_min: -128,
  scale_f64: 4 / 255,
  zp_from_min: -64.25,
  zp_from_min_error: 128 + 63.75,
  zp_from_max: -64.25,
  zp_from_max_error: 127 + 191.25,
  zp_side: 'min',
  zp_nudged_f64: -64,
  scale: Math.fround(4 / 255),
  zp_real: -64.25,
  zero_point: -64,
  nudged_min: (-128 + 64) * Math.fround(4 / 255),
  nudged_max: (127 + 64) * Math.fround(4 / 255),
};

describe('num', () => {
  it('gives 7 significant digits with real minus signs', () => {
    expect(num(0)).toBe('0');
    expect(num(-64.25)).toBe('\u221264.25');
    expect(num(4 / 255)).toBe('0.01568627');
    expect(num(1e-9)).toBe('1e\u22129');
    expect(num(Infinity)).toBe('\u221e');
  });
});

describe('stepLines', () => {
  it('writes the int8 computation with the tensor’s numbers', () => {
    const lines = stepLines(STEPS);
    expect(lines.map((l) => l.id)).toEqual(['widened', 'scale-line', 'zero-point-line', 'nudged', 'zero-exact']);
    const text = (id: string): string => lines.find((l) => l.id === id)?.text ?? '';
    expect(text('widened')).toContain('already contains 0');
    expect(text('scale-line')).toContain('(3 − \u22121) / (127 − \u2212128)');
    expect(text('zero-point-line')).toContain('the min side');
    expect(text('zero-point-line')).toContain('zero point \u221264');
    expect(text('zero-exact')).toContain('0.0 exactly');
  });

  it('says when the range was widened to include 0 or was too narrow', () => {
    const lines = stepLines({ ...STEPS, min: 0.5, widened_min: 0, near_zero_widened: true });
    expect(lines[0]?.text).toContain('must contain 0');
    expect(lines[1]?.id).toBe('near-zero');
  });

  it('writes the symmetric int16 rule', () => {
    const lines = stepLines({ ...STEPS, dtype: 'int16', qmin: -32767, qmax: 32767, storage_min: -32768, zero_point: 0, scale: Math.fround(3 / 32767) });
    expect(lines.find((l) => l.id === 'scale-line')?.text).toContain('max(|min|, |max|) / 32767');
    expect(lines.find((l) => l.id === 'zero-point-line')?.text).toContain('zero point 0');
  });
});
