// The Compare tab's arithmetic control on the bundled example: the quantized model (calibrated
// and quantized on the page) runs with LiteRT's reference arithmetic, then with XNNPACK's; each
// time the output values and the per-layer SQNR the page shows equal what `zeropoint run` /
// `zeropoint compare --arithmetic <same>` give on the page's own downloaded model and the same
// input (the CLI is checked against LiteRT elsewhere: this checks the page's wiring). Switching
// marks the results stale and runs again. A model the XNNPACK arithmetic refuses
// (tests/e2e/models/xnnpack_refused.tflite) gives a readable message; the model and the earlier
// results stay. Screenshots at desktop width and at 400 px.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { npyBytes, npyRows, pseudoRandomBytes } from '../lib/data.mjs';
import { cli } from '../lib/expected.mjs';
import { ROOT, STEP_TIMEOUT_MS, assert, check, onCleanup } from '../lib/harness.mjs';
import { calibrateRandom, downloadOf, dropFile, quantizeOnPage, screenshot, showTab, testId, text, waitForModel, waitForPanel, watch } from '../lib/page.mjs';

const ARITHMETICS = ['reference', 'xnnpack'];
const REFUSED = join(ROOT, 'tests/e2e/models/xnnpack_refused.tflite');
/** As compare.mjs: the same f64 SQNR over the same values, up to the float reference's last bits. */
const SQNR_DB_TOL = 1e-6;

/** Clicks an arithmetic radio inside the page and reports, in the same task, what the panel shows at once. */
async function choose(page, arithmetic) {
  return page.evaluate((a) => {
    const radio = document.querySelector(`[data-testid="compare-arithmetic-${a}"]`);
    if (!(radio instanceof HTMLInputElement)) throw new Error(`no ${a} radio`);
    radio.click();
    const stale = document.querySelector('[data-testid="compare-stale"]');
    return { stale: stale instanceof HTMLElement && !stale.hidden, note: stale?.textContent ?? '', state: document.querySelector('[data-testid="compare"]')?.getAttribute('data-state') };
  }, arithmetic);
}

/** Waits until the Compare panel shows finished results of `arithmetic` (or an error). */
async function waitForResults(page, arithmetic) {
  await page.waitForFunction(
    (a) => {
      const state = document.querySelector('[data-testid="compare"]')?.getAttribute('data-state');
      if (state === 'error') return true;
      return state === 'done' && document.querySelector('[data-testid="compare-results"] [data-testid="compare-arithmetic-used"]')?.getAttribute('data-arithmetic') === a;
    },
    arithmetic,
    { timeout: 60_000 },
  );
  assert((await page.locator(testId('compare')).getAttribute('data-state')) === 'done', `compare failed: ${await text(page, 'error-banner')}`);
}

/** What the results show: the arithmetic named, output 0's quantized values, SQNR by tensor name, the stale mark. */
async function shown(page) {
  return page.evaluate(() => {
    const results = document.querySelector('[data-testid="compare-results"]');
    const block = results?.querySelector('[data-testid="compare-output"]');
    const sqnr = {};
    for (const tr of results?.querySelectorAll('[data-testid="compare-table"] tbody tr') ?? []) {
      const name = tr.querySelector('code.name')?.textContent ?? '';
      sqnr[name] = Number(tr.querySelector('[data-testid="compare-sqnr"]')?.getAttribute('data-value'));
    }
    const stale = document.querySelector('[data-testid="compare-stale"]');
    return {
      arithmetic: results?.querySelector('[data-testid="compare-arithmetic-used"]')?.getAttribute('data-arithmetic'),
      usedText: results?.querySelector('[data-testid="compare-arithmetic-used"]')?.textContent ?? '',
      latencyArithmetic: results?.querySelector('[data-testid="compare-latency"]')?.getAttribute('data-arithmetic'),
      latencyText: results?.querySelector('[data-testid="compare-latency"]')?.textContent ?? '',
      quant: JSON.parse(block?.getAttribute('data-quant') ?? '[]'),
      sqnr,
      stale: stale instanceof HTMLElement && !stale.hidden,
      staleAttr: results?.getAttribute('data-stale') ?? null,
      hidden: results instanceof HTMLElement ? results.hidden : true,
    };
  });
}

/** The CLI's per-layer SQNR (a `compare --json` file), by tensor name (`null` is +∞). */
function cliSqnr(path) {
  return Object.fromEntries(JSON.parse(readFileSync(path, 'utf8')).map((r) => [r.name, r.sqnr_db === null ? Infinity : r.sqnr_db]));
}

function assertSameSqnr(page, want, what) {
  const names = Object.keys(want);
  assert(names.length > 5 && Object.keys(page).length === names.length, `${what}: the page lists ${String(Object.keys(page).length)} tensors, zeropoint compare ${String(names.length)}`);
  for (const name of names) {
    const p = page[name];
    assert(p !== undefined, `${what}: the page lacks '${name}'`);
    assert(p === want[name] || Math.abs(p - want[name]) <= SQNR_DB_TOL, `${what}: '${name}' page ${String(p)} dB, CLI ${String(want[name])} dB`);
  }
}

const same = (a, b) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

async function arithmetic({ context, base, exampleFile }) {
  const work = mkdtempSync(join(tmpdir(), 'zeropoint-e2e-arith-'));
  const page = await context.newPage();
  const record = watch(page);
  onCleanup(async () => {
    await page.close();
    rmSync(work, { recursive: true, force: true });
  });

  await check('arithmetic: on the bundled example, Compare with each arithmetic shows the outputs and per-layer SQNR zeropoint run / compare --arithmetic give on the page\'s own quantized model', async () => {
    await page.goto(base, { timeout: STEP_TIMEOUT_MS });
    await waitForModel(page, 'example.tflite');
    await calibrateRandom(page, { count: 8, lo: 0, hi: 1, seed: 20 });
    await showTab(page, 'quantize');
    await page.locator(testId('quant-mode')).selectOption('int8');
    await page.locator(testId('quant-io')).selectOption('float');
    await quantizeOnPage(page);
    const model = await downloadOf(page, 'quant-download-model');
    const quantPath = join(work, 'example_int8.tflite');
    writeFileSync(quantPath, model.bytes);
    // One input sample in [0, 1], as a .npy the page and the CLI both read.
    const n = 32 * 32 * 3;
    const x = Float32Array.from(pseudoRandomBytes(n, 2020), (b) => b / 255);
    const inputPath = join(work, 'x.npy');
    writeFileSync(inputPath, npyBytes([1, 1, 32, 32, 3], x));
    const want = {};
    for (const a of ARITHMETICS) {
      cli(['run', quantPath, '--input', inputPath, '--out-dir', join(work, a), '--arithmetic', a]);
      cli(['compare', exampleFile, quantPath, '--input', inputPath, '--json', join(work, `${a}.json`), '--arithmetic', a]);
      want[a] = { output: npyRows(join(work, a, 'output_0.npy'))[0], sqnr: cliSqnr(join(work, `${a}.json`)) };
    }
    // The two arithmetics differ on this model and input (else this case could not tell them apart).
    const differ = Object.keys(want.reference.sqnr).filter((k) => want.reference.sqnr[k] !== want.xnnpack.sqnr[k]);
    assert(differ.length > 0, 'zeropoint compare gives the same SQNR with both arithmetics');

    await showTab(page, 'compare');
    assert(await page.locator(testId('compare-arithmetic-reference')).isChecked(), 'the reference arithmetic is not the default');
    const why = await text(page, 'compare-arithmetic-why');
    assert(why.includes('f32 with one rounding') && why.includes('fixed point with two roundings'), `the explanation: ${why}`);
    assert(await page.locator(testId('compare-arithmetic-coverage')).isHidden(), 'the XNNPACK coverage note shows with the reference chosen');
    await page.locator(testId('compare-sample-npy')).check({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('compare-npy')).setInputFiles(inputPath);
    await page.locator(testId('compare-index')).fill('0');
    await page.locator(testId('compare-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForResults(page, 'reference');
    const ref = await shown(page);
    assert(ref.usedText.includes('Same bits as LiteRT reference kernels (BUILTIN_REF)') && ref.latencyArithmetic === 'reference' && ref.latencyText.includes('quantized (reference arithmetic)'), `shown: ${ref.usedText} / ${ref.latencyText}`);
    assert(!ref.stale && ref.staleAttr === null, 'fresh results are marked stale');
    assert(same(ref.quant, want.reference.output), `reference: page ${JSON.stringify(ref.quant)}, zeropoint run ${JSON.stringify(want.reference.output)}`);
    assertSameSqnr(ref.sqnr, want.reference.sqnr, 'reference');

    // Switching marks the results stale at once and runs the sample again.
    const at = await choose(page, 'xnnpack');
    assert(at.stale && at.note.startsWith('Stale: these results are from the reference kernels'), `after the switch: ${JSON.stringify(at)}`);
    assert(await page.locator(testId('compare-arithmetic-coverage')).isVisible(), 'with XNNPACK chosen, what it does not cover is not said');
    await waitForResults(page, 'xnnpack');
    const xnn = await shown(page);
    assert(xnn.usedText.includes('Same bits as LiteRT’s default CPU path (XNNPACK)') && xnn.latencyArithmetic === 'xnnpack' && xnn.latencyText.includes('quantized (XNNPACK arithmetic)'), `shown: ${xnn.usedText} / ${xnn.latencyText}`);
    assert(!xnn.stale && xnn.staleAttr === null, 'the new results are still marked stale');
    assert(same(xnn.quant, want.xnnpack.output), `xnnpack: page ${JSON.stringify(xnn.quant)}, zeropoint run --arithmetic xnnpack ${JSON.stringify(want.xnnpack.output)}`);
    assertSameSqnr(xnn.sqnr, want.xnnpack.sqnr, 'xnnpack');
    const pageDiffer = Object.keys(ref.sqnr).filter((k) => ref.sqnr[k] !== xnn.sqnr[k]);
    assert(same(pageDiffer.sort(), [...differ].sort()), `layers that differ: page ${JSON.stringify(pageDiffer)}, CLI ${JSON.stringify(differ)}`);
    await screenshot(page, '30-arithmetic-xnnpack');

    // 400 px: the control wraps inside the panel.
    await page.setViewportSize({ width: 400, height: 900 });
    try {
      await page.locator(testId('compare-arithmetic')).scrollIntoViewIfNeeded({ timeout: STEP_TIMEOUT_MS });
      const over = await page.locator(testId('compare-arithmetic')).evaluate((el) => el.scrollWidth - el.clientWidth);
      assert(over <= 0, `the arithmetic control is ${String(over)} px wider than its box at 400 px`);
      await screenshot(page, '31-arithmetic-400px');
    } finally {
      await page.setViewportSize({ width: 1200, height: 900 });
    }
    assert(record.pageErrors.length === 0, `page errors: ${record.pageErrors.join('; ')}`);
  });

  await check('arithmetic: a model the XNNPACK arithmetic refuses gives a readable message; the model and the reference results stay (marked stale); the choice is kept across models', async () => {
    await dropFile(page, 'xnnpack_refused.tflite', readFileSync(REFUSED));
    await waitForModel(page, 'xnnpack_refused.tflite');
    await calibrateRandom(page, { count: 8, lo: 0, hi: 1, seed: 21 });
    await quantizeOnPage(page);
    await showTab(page, 'compare');
    assert(await page.locator(testId('compare-arithmetic-xnnpack')).isChecked(), 'the XNNPACK choice was not kept for the next model');
    await choose(page, 'reference');
    await page.locator(testId('compare-sample-calibration')).check({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('compare-index')).fill('0');
    await page.locator(testId('compare-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForResults(page, 'reference');
    await choose(page, 'xnnpack');
    await waitForPanel(page, 'compare', ['error']);
    const banner = await text(page, 'error-banner');
    assert(banner.includes('the XNNPACK arithmetic cannot run this quantized model') && banner.includes('CONV_2D') && banner.includes('XNNPACK takes'), `banner: ${banner}`);
    assert(banner.includes('Same bits as LiteRT reference kernels (BUILTIN_REF)'), `the banner does not name the way out: ${banner}`);
    const kept = await shown(page);
    assert(!kept.hidden && kept.arithmetic === 'reference' && kept.stale && kept.staleAttr === 'true', `the reference results are not kept, marked stale: ${JSON.stringify({ ...kept, sqnr: undefined })}`);
    assert((await text(page, 'model-name')) === 'xnnpack_refused.tflite', 'the model was lost');
    await screenshot(page, '32-arithmetic-refused');
    await choose(page, 'reference');
    await waitForResults(page, 'reference');
    const back = await shown(page);
    assert(!back.stale && back.arithmetic === 'reference', 'back on the reference arithmetic, the results are still stale');
    assert(record.pageErrors.length === 0, `page errors: ${record.pageErrors.join('; ')}`);
  });
}

export const cases = [{ name: 'arithmetic', needs: [], run: arithmetic }];
