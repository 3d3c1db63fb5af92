/**
 * Loads the Zeropoint wasm engine: the relaxed-SIMD build where the browser implements relaxed
 * SIMD, else the SIMD128 build where it implements SIMD128, else the scalar build. All three are
 * imported with dynamic `import()` so that Vite emits them, and each wasm-bindgen glue module
 * fetches its own `zeropoint_bg.wasm` (a hashed asset in dist/). The three give the same bits
 * (the relaxed build uses `i32x4.relaxed_dot_i8x16_i7x16_add` only with operands for which every
 * engine's result is the exact one).
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
 * Whether `auto` picks the relaxed build where it is supported. Off: on x86-64 V8 (Node 20,
 * Chromium) the relaxed dot product lowers to three SSE instructions and, with the sign split that
 * keeps it exact, the relaxed build ran the int8 MobileNetV2 golden ~20% slower than the SIMD128
 * build; engines with a native int8 dot (arm64 `sdot`) should gain. `?engine=relaxed` forces it.
 */
export const AUTO_PREFERS_RELAXED = false;

/**
 * Which build to load, given the preference and what the browser supports: `relaxed` takes the
 * relaxed build where supported; `auto` the SIMD128 build (the relaxed one when
 * `AUTO_PREFERS_RELAXED`); each falls back to simd, then nosimd.
 */
export function chooseBuild(
  prefer: EnginePreference,
  supported: boolean,
  relaxedSupported = false,
): 'relaxed' | 'simd' | 'nosimd' {
  if (prefer === 'nosimd' || !supported) return 'nosimd';
  const wantsRelaxed = prefer === 'relaxed' || (prefer === 'auto' && AUTO_PREFERS_RELAXED);
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
  const build = chooseBuild(prefer, supported, supported && relaxedSimdSupported());
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
  return { api, info: { version: api.version(), simd: api.simdEnabled(), build, simdSupported: supported }, module: compiled };
}
