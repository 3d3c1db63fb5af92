// Vite + Vitest configuration for the Zeropoint page.
//
// The repo root is the Vite root (index.html lives there); page sources are under www/src/,
// the wasm-bindgen output under www/pkg/{simd,nosimd}/ (built by scripts/build-wasm.sh),
// and `vite build` writes dist/.
import { defineConfig, type Plugin } from 'vitest/config';

/**
 * The page promises that nothing leaves the browser. In the production build that promise is
 * enforced by a Content-Security-Policy: only the page's own origin (plus blob:/data: for the
 * download link and images). The dev server is left without it because Vite injects inline styles.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data: blob:",
  "style-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

function contentSecurityPolicy(): Plugin {
  return {
    name: 'zeropoint-csp',
    apply: 'build',
    transformIndexHtml: () => [
      {
        tag: 'meta',
        attrs: { 'http-equiv': 'Content-Security-Policy', content: CONTENT_SECURITY_POLICY },
        injectTo: 'head-prepend',
      },
    ],
  };
}

export default defineConfig({
  root: '.',
  publicDir: 'www/public',
  plugins: [contentSecurityPolicy()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Keep models as real files (never base64 inlined), whatever their size.
    assetsInlineLimit: (filePath: string) => (filePath.endsWith('.tflite') ? false : undefined),
  },
  // The worker loads one of two wasm builds with dynamic import(): that needs ES module workers.
  worker: { format: 'es' },
  server: { host: '127.0.0.1', port: 8787, strictPort: true },
  preview: { host: '127.0.0.1', port: 8787, strictPort: true },
  test: {
    include: ['www/src/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
  },
});
