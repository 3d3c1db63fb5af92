// Serving a built page for the browser runners (tests/e2e/run.mjs, scripts/bench.mjs): a free
// port on 127.0.0.1 and `vite preview` on it, in its own process group so the caller can stop
// everything it started.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

/**
 * Starts `vite preview` from `root` (with `config`, if given) and waits until it answers.
 * `onSpawn(child)` receives the process at once, so the caller's cleanup can stop it even if
 * the start times out. Resolves to the base URL.
 */
export async function startVitePreview({ root, config, timeoutMs, onSpawn }) {
  const port = await freePort();
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const args = [vite, 'preview', ...(config ? ['--config', config] : []), '--host', '127.0.0.1', '--port', String(port), '--strictPort'];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  onSpawn(child);
  let output = '';
  child.stdout.on('data', (d) => (output += String(d)));
  child.stderr.on('data', (d) => (output += String(d)));
  const base = `http://127.0.0.1:${String(port)}/`;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`vite preview exited (${String(child.exitCode)}):\n${output}`);
    try {
      const response = await fetch(base, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return base;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`vite preview did not answer on ${base} within ${String(timeoutMs)} ms:\n${output}`);
}
