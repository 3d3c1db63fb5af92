import { describe, expect, it } from 'vitest';
import { ARITHMETICS, ARITHMETIC_DIFFERENCE, ARITHMETIC_LABELS, ARITHMETIC_TAG, DEFAULT_ARITHMETIC, failureMessage, isArithmetic, ranWith, staleNote } from './arithmetic';

describe('arithmetic labels', () => {
  it('offers the reference first, as the default, and names each by the LiteRT path it equals', () => {
    expect(ARITHMETICS).toEqual(['reference', 'xnnpack']);
    expect(DEFAULT_ARITHMETIC).toBe('reference');
    expect(ARITHMETIC_LABELS.reference).toBe('Same bits as LiteRT reference kernels (BUILTIN_REF)');
    expect(ARITHMETIC_LABELS.xnnpack).toBe('Same bits as LiteRT’s default CPU path (XNNPACK)');
  });

  it('explains the difference in one line: f32 with one rounding vs fixed point with two', () => {
    expect(ARITHMETIC_DIFFERENCE).not.toContain('\n');
    expect(ARITHMETIC_DIFFERENCE).toMatch(/f32 with one rounding/);
    expect(ARITHMETIC_DIFFERENCE).toMatch(/fixed point with two roundings/);
  });

  it('accepts only the two names the engine knows', () => {
    expect(isArithmetic('reference')).toBe(true);
    expect(isArithmetic('xnnpack')).toBe(true);
    expect(isArithmetic('ref')).toBe(false);
    expect(isArithmetic('XNNPACK')).toBe(false);
    expect(isArithmetic('')).toBe(false);
  });

  it('tags the quantized latency with the arithmetic it was timed in', () => {
    expect(ARITHMETIC_TAG.reference).toBe('reference arithmetic');
    expect(ARITHMETIC_TAG.xnnpack).toBe('XNNPACK arithmetic');
  });

  it('says which arithmetic results came from', () => {
    expect(ranWith('xnnpack')).toBe('Quantized model run with: Same bits as LiteRT’s default CPU path (XNNPACK)');
    expect(ranWith('reference')).toContain('BUILTIN_REF');
  });
});

describe('staleNote', () => {
  it('is silent without results or when the results match the choice', () => {
    expect(staleNote(undefined, 'xnnpack')).toBeUndefined();
    expect(staleNote('reference', 'reference')).toBeUndefined();
    expect(staleNote('xnnpack', 'xnnpack')).toBeUndefined();
  });

  it('names both arithmetics when the choice changed after the run', () => {
    const note = staleNote('reference', 'xnnpack');
    expect(note).toMatch(/^Stale: /);
    expect(note).toContain('from the reference kernels (BUILTIN_REF)');
    expect(note).toContain('you chose the XNNPACK');
    expect(staleNote('xnnpack', 'reference')).toContain('from the XNNPACK');
  });
});

describe('failureMessage', () => {
  const refused = 'operator 2 (CONV_2D): unsupported: input 1 \'w\': requantization scale 1024 (XNNPACK takes scales below 256)';

  it('says an operator XNNPACK refuses is XNNPACK\'s limit and points to the reference arithmetic', () => {
    const m = failureMessage('xnnpack', refused);
    expect(m).toContain('the XNNPACK arithmetic cannot run this quantized model');
    expect(m).toContain(refused);
    expect(m).toContain('Same bits as LiteRT reference kernels (BUILTIN_REF)');
    expect(m).toContain('your model and earlier results are kept');
  });

  it('passes other failures through as they are', () => {
    expect(failureMessage('reference', refused)).toBe(`Compare failed: ${refused}`);
    expect(failureMessage('xnnpack', 'sample 9 does not exist')).toBe('Compare failed: sample 9 does not exist');
  });
});
