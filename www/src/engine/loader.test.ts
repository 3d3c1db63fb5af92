import { describe, expect, it } from 'vitest';
import {
  PROBE_A,
  PROBE_B,
  RELAXED_DOT_MODULE,
  RELAXED_PROBE,
  chooseBuild,
  classifyDot,
  exactDotSums,
  relaxedDot,
  relaxedSimdSupported,
} from './loader';

describe('loader: relaxed SIMD', () => {
  it('relaxed where preferred and supported, else simd, else nosimd', () => {
    expect(chooseBuild('relaxed', true, true)).toBe('relaxed');
    expect(chooseBuild('relaxed', true, false)).toBe('simd');
    expect(chooseBuild('relaxed', false, false)).toBe('nosimd');
    // `auto` takes the relaxed build only where its dot product is exact with full-range bytes.
    expect(chooseBuild('auto', true, true, 'unsigned')).toBe('relaxed');
    expect(chooseBuild('auto', true, true, 'signed')).toBe('relaxed');
    expect(chooseBuild('auto', true, true, 'inexact')).toBe('simd');
    expect(chooseBuild('auto', true, true)).toBe('simd');
    expect(chooseBuild('auto', true, false, 'unsigned')).toBe('simd');
    expect(chooseBuild('auto', false, true, 'unsigned')).toBe('nosimd');
    expect(chooseBuild('simd', true, true)).toBe('simd');
    expect(chooseBuild('nosimd', true, true)).toBe('nosimd');
    expect(chooseBuild('auto', false, true)).toBe('nosimd');
  });

  it('the probe is a relaxed-SIMD module: it compiles exactly when the engine has relaxed SIMD', () => {
    if (relaxedSimdSupported()) {
      expect(() => new WebAssembly.Module(RELAXED_PROBE)).not.toThrow();
    } else {
      // Node 20 without --experimental-wasm-relaxed-simd: the only problem is the relaxed opcode.
      expect(() => new WebAssembly.Module(RELAXED_PROBE)).toThrow(/relaxed/);
    }
  });

  it('the dot probe tells exact unsigned, exact signed and saturating engines apart', () => {
    const [a0 = [], a1 = []] = PROBE_A;
    const [b0 = [], b1 = []] = PROBE_B;
    expect(exactDotSums(a0, b0, true)).toEqual([-130560, -130560, -130560, -130560]);
    expect(exactDotSums(a0, b0, false)).toEqual([512, 512, 512, 512]);
    expect(classifyDot([exactDotSums(a0, b0, true), exactDotSums(a1, b1, true)])).toBe('unsigned');
    expect(classifyDot([exactDotSums(a0, b0, false), exactDotSums(a1, b1, false)])).toBe('signed');
    // x86-64 without VNNI: each pair of products saturates at int16 (−128·255·2 → −32768).
    expect(classifyDot([[-65536, -65536, -65536, -65536], exactDotSums(a1, b1, true)])).toBe('inexact');
    // Node 20's baseline compiler answers −131072.
    expect(classifyDot([[-131072, -131072, -131072, -131072], exactDotSums(a1, b1, true)])).toBe('inexact');
  });

  it('the dot module runs where relaxed SIMD is supported; relaxedDot is none elsewhere', () => {
    if (relaxedSimdSupported()) {
      expect(() => new WebAssembly.Module(RELAXED_DOT_MODULE)).not.toThrow();
      expect(['unsigned', 'signed', 'inexact']).toContain(relaxedDot());
    } else {
      expect(() => new WebAssembly.Module(RELAXED_DOT_MODULE)).toThrow(/relaxed/);
      expect(relaxedDot()).toBe('none');
    }
  });
});
