import { describe, expect, it } from 'vitest';
import { LONG_WARNING, groupWarnings, splitLong, warningKind } from './warnings';

describe('warnings by kind', () => {
  it('takes numbers and quoted names out, not the digits of op names or formulas', () => {
    expect(warningKind("operator 12 (CONV_2D) stays float: kept float by --float-ops")).toBe('operator # (CONV_2D) stays float: kept float by --float-ops');
    expect(warningKind("tensor 7 'a/b:0' is quantized after float operator 3")).toBe('tensor # ‘…’ is quantized after float operator #');
    expect(warningKind('operators 1, 4, 9 run with int16 activations (16x8)')).toBe('operators # run with int16 activations (16x8)');
    expect(warningKind("'w': weight and bias scales widened (|bias| / (s_in · s_w) > 2^30)")).toBe('‘…’: weight and bias scales widened (|bias| / (s_in · s_w) > 2^30)');
  });

  it('groups 192 warnings of one kind into one group, kinds in first-seen order', () => {
    const many = Array.from({ length: 192 }, (_, i) => `operator ${String(i)} (DEQUANTIZE) stays float: not quantizable`);
    const groups = groupWarnings(["tensor 3 'x' is quantized after float operator 2", ...many, "tensor 5 'y' is quantized after float operator 4"]);
    expect(groups.map((g) => g.items.length)).toEqual([2, 192]);
    expect(groups[1]?.kind).toBe('operator # (DEQUANTIZE) stays float: not quantizable');
    expect(groups[0]?.items[1]).toBe("tensor 5 'y' is quantized after float operator 4");
    // Different ops or reasons are different kinds.
    expect(groupWarnings(['operator 1 (ADD) stays float: a', 'operator 2 (MUL) stays float: a', 'operator 3 (ADD) stays float: b'])).toHaveLength(3);
    expect(groupWarnings([])).toEqual([]);
  });

  it('cuts a long warning to its head', () => {
    const names = Array.from({ length: 80 }, (_, i) => `'layer_${String(i)}/weights'`).join(', ');
    const long = `80 DEQUANTIZE of constants folded into float32 constants before quantizing: ${names}`;
    expect(splitLong(long)).toEqual({ head: '80 DEQUANTIZE of constants folded into float32 constants before quantizing', rest: names });
    expect(splitLong('short: one')).toEqual({ head: 'short: one', rest: undefined });
    const plain = 'x'.repeat(LONG_WARNING + 5);
    expect(splitLong(plain)).toEqual({ head: `${'x'.repeat(LONG_WARNING)}…`, rest: plain });
  });
});
