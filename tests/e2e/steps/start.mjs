// `npm start` twice (scripts/start.sh, its own process group, stopped once it serves): the first
// brings the builds up to date, the second, with nothing changed, must serve within 10 s and say
// that it rebuilt nothing (the three wasm variants and dist/ "up to date"). Runs last: the first
// start may rebuild dist/, which the other cases' server reads.
import { spawn } from 'node:child_process';
import { freePort } from '../../../scripts/lib/vite-preview.mjs';
import { ROOT, assert, check, log, onCleanup, withTimeout } from '../lib/harness.mjs';

/** A second start with nothing changed must serve within this (issue 21). */
const SECOND_START_MS = 10_000;

/** Starts scripts/start.sh on a free port; resolves when it answers: its output and the time taken. */
async function startOnce(timeoutMs) {
  const port = await freePort();
  const started = Date.now();
  const child = spawn('bash', ['scripts/start.sh'], { cwd: ROOT, env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (d) => (output += String(d)));
  child.stderr.on('data', (d) => (output += String(d)));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    try {
      process.kill(-child.pid, 'SIGTERM'); // the group this case started (bash, npx, vite)
    } catch {
      child.kill('SIGTERM');
    }
    await withTimeout(exited, 5_000, 'stopping npm start').catch(() => undefined);
  };
  onCleanup(stop);
  try {
    await withTimeout(
      (async () => {
        for (;;) {
          if (child.exitCode !== null) throw new Error(`scripts/start.sh exited (${String(child.exitCode)}): ${output.slice(-800)}`);
          const ok = await fetch(`http://127.0.0.1:${String(port)}/`).then((r) => r.ok, () => false);
          if (ok) return;
          await new Promise((r) => setTimeout(r, 100));
        }
      })(),
      timeoutMs,
      'npm start',
    );
    const html = await (await fetch(`http://127.0.0.1:${String(port)}/`)).text();
    return { ms: Date.now() - started, output, html };
  } finally {
    await stop();
  }
}

async function startTime() {
  await check(`a second npm start with nothing changed serves within ${String(SECOND_START_MS / 1000)} s and rebuilds nothing`, async () => {
    const first = await startOnce(240_000);
    log(`#   first start: ${String(first.ms)} ms`);
    const second = await startOnce(60_000);
    log(`#   second start: ${String(second.ms)} ms`);
    for (const variant of ['simd', 'relaxed', 'nosimd']) {
      assert(second.output.includes(`up to date www/pkg/${variant}`), `the second start built www/pkg/${variant} again:\n${second.output.slice(-600)}`);
    }
    assert(second.output.includes('up to date dist/'), `the second start ran vite build again:\n${second.output.slice(-600)}`);
    assert(!second.output.includes('npm ci'), 'the second start ran npm ci');
    assert(second.html.includes('Zeropoint'), 'the served page is not Zeropoint');
    assert(second.ms <= SECOND_START_MS, `the second start took ${String(second.ms)} ms`);
  });
}

export const cases = [{ name: 'start-time', needs: [], run: startTime }];
