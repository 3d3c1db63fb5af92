/**
 * Loads the Zeropoint wasm engine: the SIMD128 build where the browser supports it, else the
 * scalar build. Both are imported with dynamic `import()` so that Vite emits both, and each
 * wasm-bindgen glue module fetches its own `zeropoint_bg.wasm` (a hashed asset in dist/).
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

export function simdSupported(): boolean {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

/** Which build to load, given the preference and what the browser supports. */
export function chooseBuild(prefer: EnginePreference, supported: boolean): 'simd' | 'nosimd' {
  if (prefer === 'nosimd' || !supported) return 'nosimd';
  return 'simd';
}

export interface LoadedEngine {
  api: EngineModule;
  info: EngineInfo;
}

export async function loadEngine(prefer: EnginePreference = 'auto'): Promise<LoadedEngine> {
  const supported = simdSupported();
  const build = chooseBuild(prefer, supported);
  const api: EngineModule =
    build === 'simd'
      ? await import('../../pkg/simd/zeropoint.js')
      : await import('../../pkg/nosimd/zeropoint.js');
  await api.default();
  api.start(); // panic hook: a Rust panic logs its message before the trap
  return { api, info: { version: api.version(), simd: api.simdEnabled(), build, simdSupported: supported } };
}
