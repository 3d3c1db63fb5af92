/**
 * Loads the Zeropoint wasm engine: the relaxed-SIMD build where the browser implements relaxed
 * SIMD with an exact full-range int8 dot product (`relaxedDot`), else the SIMD128 build where it
 * implements SIMD128, else the scalar build. All three are
 * imported with dynamic `import()` so that Vite emits them, and each wasm-bindgen glue module
 * fetches its own `zeropoint_bg.wasm` (a hashed asset in dist/). The three give the same bits
 * (the relaxed build uses `i32x4.relaxed_dot_i8x16_i7x16_add` with full-range operands only where
 * its own probe found the engine exact with them, and with 7-bit operands elsewhere).
 */
import type * as ZeropointWasm from '../../pkg/simd/zeropoint.js';
import type { EngineInfo, EnginePreference } from './protocol';

/** The engine's JS API (identical for both builds). */
export type EngineModule = typeof ZeropointWasm;

/**
 * wasm-feature-detect's SIMD probe: `(func (result v128) i32.const 0 i8x16.splat i8x16.popcnt)`.
 * `WebAssembly.validate` accepts it only if the engine implements fixed-width SIMD.
 */
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253,
  98, 11,
]);

/**
 * The relaxed-SIMD probe: `(func (result v128) i32.const 1 i8x16.splat i32.const 2 i8x16.splat
 * i32.const 3 i8x16.splat i32x4.relaxed_dot_i8x16_i7x16_add_s)`, the one relaxed instruction the
 * relaxed build uses (opcode 0xfd 0x113).
 */
export const RELAXED_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 19, 1, 17, 0, 65, 1, 253, 15, 65, 2,
  253, 15, 65, 3, 253, 15, 253, 147, 2, 11,
]);

function validates(probe: BufferSource): boolean {
  try {
    return WebAssembly.validate(probe);
  } catch {
    return false;
  }
}

export function simdSupported(): boolean {
  return validates(SIMD_PROBE);
}

export function relaxedSimdSupported(): boolean {
  return validates(RELAXED_PROBE);
}

/**
 * A module that runs the relaxed dot product on memory: `f()` stores
 * `i32x4.relaxed_dot_i8x16_i7x16_add_s(m[0..16], m[16..32], m[48..64])` at `m[32..48]`
 * (exports memory `m`, function `f`).
 */
export const RELAXED_DOT_MODULE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 5, 3, 1, 0, 1, 7, 9, 2, 1, 109, 2, 0, 1, 102,
  0, 0, 10, 31, 1, 29, 0, 65, 32, 65, 0, 253, 0, 4, 0, 65, 16, 253, 0, 4, 0, 65, 48, 253, 0, 4, 0, 253, 147,
  2, 253, 11, 4, 0, 11,
]);

/** The probe's operands, the engine's (`crate/kernels/src/simd128/dot_scheme.rs`). */
export const PROBE_A = [
  new Array<number>(16).fill(-128),
  [127, -128, -1, 5, 64, -64, 3, -7, 100, -100, 0, 1, -2, 2, -127, 127],
];
export const PROBE_B = [
  new Array<number>(16).fill(255),
  [255, 128, 127, 0, 200, 1, 129, 254, 77, 180, 9, 255, 130, 131, 66, 255],
];

/** How an engine's relaxed dot product reads its second operand, when its sums are exact. */
export type RelaxedDot = 'unsigned' | 'signed' | 'inexact' | 'none';

/** The exact sums of `a · b` per group of four, `b` read unsigned or signed. */
export function exactDotSums(a: readonly number[], b: readonly number[], unsigned: boolean): number[] {
  return [0, 1, 2, 3].map((i) => {
    let sum = 0;
    for (let j = 4 * i; j < 4 * i + 4; j++) sum += (a[j] ?? 0) * (unsigned ? (b[j] ?? 0) : ((b[j] ?? 0) << 24) >> 24);
    return sum;
  });
}

/** Which exact behaviour the probe's results show (`inexact` for neither). */
export function classifyDot(results: readonly (readonly number[])[]): RelaxedDot {
  const same = (unsigned: boolean) =>
    PROBE_A.every((a, t) => {
      const want = exactDotSums(a, PROBE_B[t] ?? [], unsigned);
      return want.every((v, i) => results[t]?.[i] === v);
    });
  if (same(true)) return 'unsigned';
  if (same(false)) return 'signed';
  return 'inexact';
}

/**
 * Runs the relaxed dot product on the probe's operands, once and again after 2000 calls (so an
 * engine whose optimizing compiler disagrees with its baseline one shows it), and classifies the
 * results as the engine's relaxed build does (`dot_scheme.rs`). `unsigned` (x86-64 AVX-VNNI) and
 * `signed` (arm64 `sdot`) let the relaxed build's convolutions take one dot product per 16
 * products, twice the int8 throughput of the SIMD128 build's int16 pairs; `inexact` (x86-64
 * without VNNI saturates pairs at int16) leaves them the split form, which measured slower than
 * SIMD128 there; `none`: no relaxed SIMD.
 */
export function relaxedDot(): RelaxedDot {
  if (!relaxedSimdSupported()) return 'none';
  try {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(RELAXED_DOT_MODULE));
    const memory = instance.exports['m'] as WebAssembly.Memory;
    const f = instance.exports['f'] as () => void;
    const run = (t: number): number[] => {
      new Int8Array(memory.buffer, 0, 16).set(PROBE_A[t] ?? []);
      new Uint8Array(memory.buffer, 16, 16).set(PROBE_B[t] ?? []);
      new Int32Array(memory.buffer, 48, 4).fill(0);
      f();
      return Array.from(new Int32Array(memory.buffer, 32, 4));
    };
    const first = classifyDot([run(0), run(1)]);
    for (let i = 0; i < 2000; i++) run(i % 2);
    const later = classifyDot([run(0), run(1)]);
    return first === later ? first : 'inexact';
  } catch {
    return 'none';
  }
}

/**
 * Which build to load, given the preference and what the browser supports: `relaxed` takes the
 * relaxed build where supported; `auto` takes it where the engine's relaxed dot product is exact
 * with full-range operands (`relaxedDot` is `unsigned` or `signed`), else the SIMD128 build;
 * each falls back to simd, then nosimd.
 */
export function chooseBuild(
  prefer: EnginePreference,
  supported: boolean,
  relaxedSupported = false,
  dot: RelaxedDot = 'none',
): 'relaxed' | 'simd' | 'nosimd' {
  if (prefer === 'nosimd' || !supported) return 'nosimd';
  const fullDot = dot === 'unsigned' || dot === 'signed';
  const wantsRelaxed = prefer === 'relaxed' || (prefer === 'auto' && fullDot);
  if (wantsRelaxed && relaxedSupported) return 'relaxed';
  return 'simd';
}

export interface LoadedEngine {
  api: EngineModule;
  info: EngineInfo;
  /**
   * The compiled module, when it could be compiled here (not in Node's tests, where `fetch` has
   * no `file:` URLs): the calibration's helper workers are sent it, so that they instantiate it
   * without compiling the wasm again and share the code V8 optimizes (a `WebAssembly.Module`
   * posted to a worker shares its compiled code).
   */
  module: WebAssembly.Module | undefined;
}

/** Each build's wasm file (static URLs, so that Vite emits them as assets). */
function wasmUrl(build: 'relaxed' | 'simd' | 'nosimd'): URL {
  switch (build) {
    case 'relaxed':
      return new URL('../../pkg/relaxed/zeropoint_bg.wasm', import.meta.url);
    case 'simd':
      return new URL('../../pkg/simd/zeropoint_bg.wasm', import.meta.url);
    case 'nosimd':
      return new URL('../../pkg/nosimd/zeropoint_bg.wasm', import.meta.url);
  }
}

/** `build`'s wasm compiled from its URL, or `undefined` where that cannot be done here. */
async function compileBuild(build: 'relaxed' | 'simd' | 'nosimd'): Promise<WebAssembly.Module | undefined> {
  try {
    const response = await fetch(wasmUrl(build));
    if (!response.ok) return undefined;
    return await WebAssembly.compileStreaming(response);
  } catch {
    return undefined;
  }
}

/**
 * Loads the engine: `prefer` picks the build (see `chooseBuild`); `module`, when given, is that
 * build already compiled (a helper worker is sent the engine worker's), and is instantiated as is.
 */
export async function loadEngine(prefer: EnginePreference = 'auto', module?: WebAssembly.Module): Promise<LoadedEngine> {
  const supported = simdSupported();
  const relaxed = supported && relaxedSimdSupported();
  const build = chooseBuild(prefer, supported, relaxed, relaxed && prefer === 'auto' ? relaxedDot() : 'none');
  const api: EngineModule =
    build === 'relaxed'
      ? await import('../../pkg/relaxed/zeropoint.js')
      : build === 'simd'
        ? await import('../../pkg/simd/zeropoint.js')
        : await import('../../pkg/nosimd/zeropoint.js');
  const compiled = module ?? (await compileBuild(build));
  if (compiled) await api.default({ module_or_path: compiled });
  else await api.default();
  api.start(); // panic hook: a Rust panic logs its message before the trap
  return { api, info: {
      version: api.version(),
      simd: api.simdEnabled(),
      build,
      simdSupported: supported,
      dotScheme: api.relaxedDotScheme(),
    }, module: compiled };
}
