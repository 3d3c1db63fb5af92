// Zeropoint's wasm build in Node, for the timing scripts (scripts/profile-ops.mjs,
// scripts/compare-speed.mjs): one instance of www/pkg/<variant> (build it first:
// scripts/build-wasm.sh), and seeded inputs set on a `BenchSession` (float inputs as given, int8
// inputs quantized with the tensor's scale and zero point).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The wasm-bindgen glue of `www/pkg/<variant>` under `root`, instantiated synchronously. Each
 * variant's glue is its own ES module with its own memory, so several variants can be loaded side
 * by side (a baseline build `simd-before` next to `simd`).
 */
export async function loadGlue(root, variant) {
  const pkg = join(root, 'www', 'pkg', variant);
  const glue = await import(pathToFileURL(join(pkg, 'zeropoint.js')).href);
  glue.initSync({ module: readFileSync(join(pkg, 'zeropoint_bg.wasm')) });
  return glue;
}

/** Seeded uniform [lo, hi) floats (a small LCG: the values only need to be typical). */
export function randomFloats(n, seed, lo = -1, hi = 1) {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = lo + (s / 2 ** 32) * (hi - lo);
  }
  return out;
}

/**
 * Sets every input of `session` (a `BenchSession`) to seeded floats in [lo, hi): FLOAT32 inputs
 * directly, INT8 inputs quantized with their scale and zero point. Input `i` gets seed `42 + i`, so
 * a float model and its quantization with float inputs see the same values.
 */
export function setSeededInputs(session, lo = -1, hi = 1) {
  session.inputs().forEach((t, i) => {
    const n = t.shape.reduce((a, b) => a * b, 1);
    const x = randomFloats(n, 42 + i, lo, hi);
    if (t.dtype === 'FLOAT32') {
      session.setInputF32(i, x);
    } else if (t.dtype === 'INT8') {
      const q = new Int8Array(n);
      const scale = t.scale ?? 1;
      const zp = Number(t.zeroPoint ?? 0);
      for (let j = 0; j < n; j++) q[j] = Math.max(-128, Math.min(127, Math.round(x[j] / scale) + zp));
      session.setInputBytes(i, new Uint8Array(q.buffer));
    } else {
      throw new Error(`input ${t.name}: type ${t.dtype} not handled by this script`);
    }
  });
}
