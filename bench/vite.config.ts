// Vite configuration of the benchmark page (`npm run bench`, scripts/bench.mjs); separate from the
// app's vite.config.ts so that neither build changes the other.
//
// Root is bench/; the page imports Zeropoint's wasm-bindgen output from www/pkg/{simd,nosimd}/
// (scripts/build-wasm.sh) and the two anchors from node_modules. Their wasm runtimes are copied
// next to the page at build time (never fetched from a CDN): LiteRT.js to litert/, tfjs-tflite to
// tflite/. The build goes to target/bench/dist/ (git-ignored).
import { cpSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..');
const OUT_DIR = join(ROOT, 'target', 'bench', 'dist');

/** Runtime files the anchors load at run time, by output sub-directory. */
const RUNTIME_FILES: Record<string, string> = {
  litert: join(ROOT, 'node_modules', '@litertjs', 'core', 'wasm'),
  tflite: join(ROOT, 'node_modules', '@tensorflow', 'tfjs-tflite', 'wasm'),
};

function copyRuntimes(): Plugin {
  return {
    name: 'zeropoint-bench-copy-runtimes',
    apply: 'build',
    closeBundle() {
      for (const [sub, from] of Object.entries(RUNTIME_FILES)) {
        for (const file of readdirSync(from)) {
          cpSync(join(from, file), join(OUT_DIR, sub, file));
        }
      }
    },
  };
}

export default defineConfig({
  root: HERE,
  base: './',
  publicDir: false,
  plugins: [copyRuntimes()],
  // The split-calibration row starts the page's calibration helper workers, which load the wasm
  // build with dynamic import(): that needs ES module workers.
  worker: { format: 'es' },
  resolve: {
    // tfjs-tflite's "module" entry (dist/index.js) imports a file its package does not ship
    // (dist/tflite_web_api_client.js); its flat ES bundle has everything.
    alias: {
      '@tensorflow/tfjs-tflite': join(ROOT, 'node_modules', '@tensorflow', 'tfjs-tflite', 'dist', 'tf-tflite.fesm.js'),
    },
  },
  build: {
    outDir: OUT_DIR,
    emptyOutDir: true,
    target: 'es2022',
    // Large dependency chunks (tfjs-tflite's client is ~1.2 MB) are expected here.
    chunkSizeWarningLimit: 4096,
    rolldownOptions: {
      // tfjs-tflite's Closure bundle uses a direct eval in code this page never reaches.
      onLog(level, log, handler) {
        if (log.code !== 'EVAL') handler(level, log);
      },
    },
  },
  server: { host: '127.0.0.1', fs: { allow: [ROOT] } },
  preview: { host: '127.0.0.1' },
});
