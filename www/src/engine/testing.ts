/**
 * For the vitest suites only (Node): the SIMD128 wasm package as the page's worker loads it,
 * instantiated synchronously from `www/pkg/simd`. Never imported by the page.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { EngineModule } from './loader';

const PKG_JS = 'www/pkg/simd/zeropoint.js';
const PKG_WASM = 'www/pkg/simd/zeropoint_bg.wasm';

/** The engine module, initialised; a clear error when the package has not been built. */
export async function loadTestEngine(): Promise<EngineModule> {
  for (const file of [PKG_JS, PKG_WASM]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: build the wasm package with \`bash scripts/build-wasm.sh\``);
  }
  const api: EngineModule = await import('../../pkg/simd/zeropoint.js');
  api.initSync({ module: readFileSync(PKG_WASM) });
  return api;
}
