// The main page's other builds and failures: the scalar wasm build, no console error on the
// page, and a crashed worker that is restarted.
import { STEP_TIMEOUT_MS, assert, check } from '../lib/harness.mjs';
import { dropFile, screenshot, text, waitForModel, waitForSimdEngine, watch } from '../lib/page.mjs';

/**
 * Opens the page with `?engine=<engine>` beside the main one: the build's badge passes
 * `checkBadge(label)` (after `waitBuild` says it loaded), the summary equals the main page's, and
 * the page logs no error.
 */
async function otherBuild({ context, page, base }, engine, waitBuild, checkBadge, shot) {
  const other = await context.newPage();
  const otherRecord = watch(other);
  try {
    await other.goto(`${base}?engine=${engine}`, { timeout: STEP_TIMEOUT_MS });
    await waitForModel(other, 'example.tflite');
    await waitBuild(other);
    checkBadge(await text(other, 'engine-badge'));
    assert((await text(other, 'op-counts')) === (await text(page, 'op-counts')), 'op counts differ between builds');
    if (shot) await screenshot(other, shot);
    const errors = [...otherRecord.consoleErrors, ...otherRecord.pageErrors];
    assert(errors.length === 0, `errors on the ${engine} page: ${errors.join(' | ')}`);
  } finally {
    await other.close();
  }
}

async function nosimd(ctx) {
  await check('the scalar build loads with ?engine=nosimd and gives the same summary', () =>
    otherBuild(
      ctx,
      'nosimd',
      (other) => other.waitForFunction(() => document.querySelector('[data-testid="engine-badge"]')?.getAttribute('data-engine') === 'nosimd', null, { timeout: STEP_TIMEOUT_MS }),
      (label) => assert(label.includes('no SIMD'), `badge does not say no SIMD: ${label}`),
      '05-nosimd',
    ),
  );
}

async function simd(ctx) {
  await check('the SIMD128 build loads with ?engine=simd (what browsers without an exact full-range relaxed dot get) and gives the same summary', () =>
    otherBuild(
      ctx,
      'simd',
      async (other) => {
        const { build, dot } = await waitForSimdEngine(other);
        assert(build === 'simd' && dot === 'none', `?engine=simd loaded build ${String(build)}, dot ${String(dot)}`);
      },
      (label) => assert(label.includes('SIMD') && !label.includes('relaxed'), `badge: ${label}`),
      undefined,
    ),
  );
}

async function pageErrors({ record }) {
  await check('no console errors or uncaught exceptions', async () => {
    const errors = [...record.consoleErrors, ...record.pageErrors];
    assert(errors.length === 0, errors.join(' | '));
  });
}

async function crash({ base, context, example }) {
  await check('a crashed worker is restarted and the page keeps working', async () => {
    const other = await context.newPage();
    try {
      await other.goto(base, { timeout: STEP_TIMEOUT_MS });
      await waitForModel(other, 'example.tflite');
      await other.evaluate(() => window.zeropoint?.crashWorker());
      await other.waitForFunction(() => !document.querySelector('[data-testid="notice-banner"]')?.hidden, null, { timeout: STEP_TIMEOUT_MS });
      const notice = await text(other, 'notice-banner');
      assert(/restart/i.test(notice), `notice does not mention the restart: ${notice}`);
      assert((await other.evaluate(() => window.zeropoint?.workerRestarts)) === 1, 'restart count is not 1');
      await dropFile(other, 'after-crash.tflite', example);
      await waitForModel(other, 'after-crash.tflite');
      await waitForSimdEngine(other);
      await screenshot(other, '06-restarted');
    } finally {
      await other.close();
    }
  });
}

export const cases = [
  { name: 'nosimd', needs: ['load'], run: nosimd },
  { name: 'simd', needs: ['load'], run: simd },
  { name: 'page-errors', needs: ['load'], run: pageErrors },
  { name: 'crash', needs: [], run: crash },
];
