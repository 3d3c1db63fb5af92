// The Compare tab on the golden model and its quantized version: one calibration sample through
// both gives the CLI's per-layer SQNR, the top-k, the latency and a heat map on the graph.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { npyBytes } from '../lib/data.mjs';
import { cli } from '../lib/expected.mjs';
import { STEP_TIMEOUT_MS, assert, check } from '../lib/harness.mjs';
import { docsShot, screenshot, showTab, testId, text, waitForPanel } from '../lib/page.mjs';
import { quantEnv } from './quantize.mjs';

async function compare(ctx) {
  const { page, work, floatPath, calibPath, floatGraph } = await quantEnv(ctx);
  await check('compare: a calibration sample through both models gives the CLI\'s per-layer SQNR, top-k, latency and a heat map', async () => {
    const sampleNpy = join(work, 'sample0.npy');
    const n = 48 * 48 * 3;
    const all = readFileSync(calibPath);
    const headerLen = all.readUInt16LE(8);
    const first = new Float32Array(all.buffer.slice(all.byteOffset + 10 + headerLen, all.byteOffset + 10 + headerLen + n * 4));
    writeFileSync(sampleNpy, npyBytes([1, 1, 48, 48, 3], first));
    cli(['compare', floatPath, join(work, 'cli.tflite'), '--input', sampleNpy, '--json', join(work, 'compare.json')]);
    const rows = JSON.parse(readFileSync(join(work, 'compare.json'), 'utf8'));
    await showTab(page, 'compare');
    await page.locator(testId('compare-sample-calibration')).check({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('compare-index')).fill('0');
    await page.locator(testId('compare-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForPanel(page, 'compare', ['done', 'error']);
    assert((await page.locator(testId('compare')).getAttribute('data-state')) === 'done', `compare failed: ${await text(page, 'error-banner')}`);
    const shown = await page.locator(`${testId('compare-table')} tbody tr`).count();
    assert(shown === rows.length && shown > 5, `the page lists ${String(shown)} tensors, zeropoint compare ${String(rows.length)}`);
    const pageSqnr = await page.locator(testId('compare-sqnr')).evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-value'))));
    const pageNames = await page.locator(`${testId('compare-table')} tbody tr code.name`).allTextContents();
    // SQNR = 10·log10(Σf²/Σ(f−q̂)²) in f64 over the same values: equal up to the last bits of
    // the float reference (wasm's libm `exp` in SOFTMAX may differ from glibc's by an ulp).
    const SQNR_DB_TOL = 1e-6;
    for (const r of rows) {
      const i = pageNames.indexOf(r.name);
      assert(i >= 0, `the page lacks '${r.name}'`);
      const cliDb = r.sqnr_db === null ? Infinity : r.sqnr_db;
      assert(cliDb === pageSqnr[i] || Math.abs(cliDb - pageSqnr[i]) <= SQNR_DB_TOL, `'${r.name}': page ${String(pageSqnr[i])} dB, CLI ${String(cliDb)} dB`);
    }
    for (let i = 1; i < pageSqnr.length; i++) assert(pageSqnr[i - 1] <= pageSqnr[i], 'the table is not worst first');
    const painted = await page.locator(`${testId('compare-graph-op')}[data-heat]`).count();
    const outputsCompared = floatGraph.operators.filter((o) => rows.some((r) => r.float_tensor === o.outputs[0])).length;
    assert(painted === outputsCompared && painted > 0, `${String(painted)} ops painted, ${String(outputsCompared)} have a compared output`);
    assert((await page.locator(`${testId('compare-topk-float')} li`).count()) === 5, 'float top-5');
    assert((await page.locator(`${testId('compare-topk-quant')} li`).count()) === 5, 'quantized top-5');
    const latency = page.locator(testId('compare-latency'));
    const [fMs, qMs] = [Number(await latency.getAttribute('data-float-ms')), Number(await latency.getAttribute('data-quant-ms'))];
    assert(fMs > 0 && qMs > 0, `latency float ${String(fMs)} ms, quantized ${String(qMs)} ms`);
    await screenshot(page, '23-compare');
    await docsShot(page, 'compare', 'compare-latency');
  });
}

export const cases = [{ name: 'compare', needs: ['quantize'], run: compare }];
