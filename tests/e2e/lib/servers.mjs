// What the runner starts and must stop: `vite preview` serving dist/, Debian's Chromium through
// playwright-core, and a plain static file server. Each registers its own cleanup.
import { existsSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { startVitePreview } from '../../../scripts/lib/vite-preview.mjs';
import { ROOT, log, onCleanup, withTimeout } from './harness.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** The whole run is abandoned (and fails) after this long, whatever is hanging. */
const SERVER_START_TIMEOUT_MS = 30_000;

/** `vite preview` of dist/ on a free 127.0.0.1 port (its whole process group stopped at the end); resolves to the base URL. */
export async function startServer() {
  return startVitePreview({
    root: ROOT,
    timeoutMs: SERVER_START_TIMEOUT_MS,
    onSpawn: (child) => {
      onCleanup(async () => {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((r) => child.once('exit', r));
          try {
            process.kill(-child.pid, 'SIGTERM'); // the whole process group (detached)
          } catch {
            child.kill('SIGTERM');
          }
          await withTimeout(exited, 5_000, 'stopping vite preview').catch(() => {
            try {
              process.kill(-child.pid, 'SIGKILL');
            } catch {
              child.kill('SIGKILL');
            }
          });
        }
      });
    },
  });
}

/** Chromium (CHROMIUM_PATH overrides /usr/bin/chromium), closed (or killed) at the end. */
export async function launchBrowser() {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 30_000 });
  onCleanup(async () => {
    await withTimeout(browser.close(), 10_000, 'closing the browser').catch((error) => {
      log(`warning: ${error.message}`);
      browser.process?.()?.kill('SIGKILL');
    });
  });
  return browser;
}

/** A minimal static file server for dist/ (no Vite): what any plain host would do. */
export function staticServer(dir) {
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json' };
  const server = createHttpServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = resolve(dir, `.${path.endsWith('/') ? `${path}index.html` : path}`);
    if (!file.startsWith(resolve(dir)) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    const ext = file.slice(file.lastIndexOf('.'));
    res.writeHead(200, { 'content-type': types[ext] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}
