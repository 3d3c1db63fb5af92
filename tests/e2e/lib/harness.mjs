// The e2e runner's bookkeeping: paths and timeouts, one line per check ("ok   [case] name" or
// "FAIL [case] name: why"), the case filter (--only / ZP_E2E_ONLY), cleanup of what was started
// (browser, servers, contexts) and the closing line "N passed, M failed" that scripts/test.sh reads.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const ARTIFACTS = join(ROOT, 'artifacts', 'e2e');
/** Screenshots of the model view and the Ranges view are kept here too (build artifacts). */
export const TARGET_SHOTS = join(ROOT, 'target', 'e2e');
/** The whole run is abandoned (and fails) after this long, whatever is hanging. */
export const OVERALL_TIMEOUT_MS = 480_000;
/** Waiting for one thing on the page. */
export const STEP_TIMEOUT_MS = 20_000;

const results = [];
/** Run at the end, last registered first (contexts before the browser before the server). */
const cleanups = [];
let finished = false;
/** The case whose checks are running: named in every line. */
let currentCase = '';

export function log(line) {
  process.stdout.write(`${line}\n`);
}

function label(name) {
  return currentCase ? `[${currentCase}] ${name}` : name;
}

export async function check(name, fn) {
  const started = Date.now();
  const title = label(name);
  try {
    await fn();
    results.push({ name: title, ok: true });
    log(`ok   ${title} (${String(Date.now() - started)} ms)`);
  } catch (error) {
    results.push({ name: title, ok: false });
    const message = error instanceof Error ? error.message.split('\n').slice(0, 6).join('\n     ') : String(error);
    log(`FAIL ${title}: ${message}`);
  }
}

export function assert(condition, message) {
  if (!condition) throw new Error(message);
}

export function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: timed out after ${String(ms)} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Registers `fn` to run when the run ends (however it ends); the last registered runs first. */
export function onCleanup(fn) {
  cleanups.push(fn);
}

async function cleanup() {
  while (cleanups.length > 0) {
    const fn = cleanups.pop();
    try {
      await fn();
    } catch (error) {
      log(`warning: cleanup: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** Records a failure that is not a check (setup, timeout, signal), named after its case. */
export function fail(name, error) {
  const title = label(name);
  const message = error === undefined ? '' : `: ${error instanceof Error ? error.message : String(error)}`;
  results.push({ name: title, ok: false });
  log(`FAIL ${title}${message}`);
}

/** Stops everything, names the failures again, prints "N passed, M failed" and exits. */
export async function finish(extraFailure) {
  if (finished) return;
  finished = true;
  if (extraFailure) fail(extraFailure);
  await cleanup();
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  if (failed > 0) log(`failed:\n${results.filter((r) => !r.ok).map((r) => `  ${r.name}`).join('\n')}`);
  log(`${String(passed)} passed, ${String(failed)} failed`);
  process.exit(failed > 0 || passed === 0 ? 1 : 0);
}

/**
 * The filter from `--only NAME[,NAME…]` (or `--only=…`) or the environment variable ZP_E2E_ONLY;
 * `undefined` runs every case. `--list` prints the case names instead of running them.
 */
export function parseArgs(argv, env) {
  let only = env.ZP_E2E_ONLY || undefined;
  let list = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--only') {
      only = argv[++i];
      if (!only) throw new Error('--only needs a case name (see --list)');
    } else if (arg.startsWith('--only=')) only = arg.slice('--only='.length);
    else if (arg === '--list') list = true;
    else throw new Error(`unknown argument ${arg} (usage: node tests/e2e/run.mjs [--only NAME[,NAME…]] [--list])`);
  }
  return { only, list };
}

/**
 * The cases to run, in their order: those the filter names (a name, or else every case whose
 * name contains it; several separated by commas), plus the cases they need (their `needs`, run
 * first because they leave the page in the state the case starts from). Throws when a part of
 * the filter matches no case, so a typo never passes with 0 checks.
 */
export function selectCases(cases, only) {
  if (only === undefined) return { run: cases, needed: new Set() };
  const byName = new Map(cases.map((c) => [c.name, c]));
  const chosen = new Set();
  for (const part of only.split(',').map((p) => p.trim()).filter((p) => p.length > 0)) {
    const exact = byName.get(part);
    const matches = exact ? [exact] : cases.filter((c) => c.name.includes(part));
    if (matches.length === 0) throw new Error(`--only "${part}" matches no case; the cases are: ${cases.map((c) => c.name).join(', ')}`);
    for (const c of matches) chosen.add(c.name);
  }
  if (chosen.size === 0) throw new Error(`--only "${only}" names no case`);
  const needed = new Set();
  const want = (name, by) => {
    const c = byName.get(name);
    if (!c) throw new Error(`case ${by} needs "${name}", which does not exist`);
    for (const dep of c.needs ?? []) {
      if (!chosen.has(dep) && !needed.has(dep)) needed.add(dep);
      want(dep, name);
    }
  };
  for (const name of chosen) want(name, name);
  return { run: cases.filter((c) => chosen.has(c.name) || needed.has(c.name)), needed };
}

/** Runs each case's checks; a case that throws outside a check fails as "[case] setup: …". */
export async function runCases(cases, ctx) {
  for (const c of cases) {
    currentCase = c.name;
    try {
      await c.run(ctx);
    } catch (error) {
      fail('setup', error);
    }
  }
  currentCase = '';
}

/** Fails the run after OVERALL_TIMEOUT_MS or on SIGINT/SIGTERM, naming the case that was running. */
export function installWatchdog() {
  const watchdog = setTimeout(() => {
    void finish(`whole run: timed out after ${String(OVERALL_TIMEOUT_MS)} ms`);
  }, OVERALL_TIMEOUT_MS);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => void finish(`interrupted by ${signal}`));
  }
  return () => clearTimeout(watchdog);
}
