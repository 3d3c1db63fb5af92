import { describe, expect, it } from 'vitest';
import { AUTO_PREFERS_RELAXED, RELAXED_PROBE, chooseBuild, relaxedSimdSupported } from './loader';

describe('loader: relaxed SIMD', () => {
  it('relaxed where preferred and supported, else simd, else nosimd', () => {
    expect(chooseBuild('relaxed', true, true)).toBe('relaxed');
    expect(chooseBuild('relaxed', true, false)).toBe('simd');
    expect(chooseBuild('relaxed', false, false)).toBe('nosimd');
    // `auto` stays on SIMD128 (measured faster on x86-64 V8; see AUTO_PREFERS_RELAXED).
    expect(AUTO_PREFERS_RELAXED).toBe(false);
    expect(chooseBuild('auto', true, true)).toBe('simd');
    expect(chooseBuild('auto', true, false)).toBe('simd');
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
});
