// A streaming model on the Compare tab: tests/realworld/variables (a running total kept in a
// resource variable) and its dynamic-range quantization; the samples of its input_0.npy run in
// order with the state carried, frame by frame, and "Reset state" starts again. Every number the
// page shows equals what `zeropoint run` gives on the same file (one stream through all samples).
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { npyRows } from '../lib/data.mjs';
import { cli } from '../lib/expected.mjs';
import { ARTIFACTS, ROOT, STEP_TIMEOUT_MS, assert, check } from '../lib/harness.mjs';
import { dropFile, quantizeOnPage, screenshot, showTab, testId, text, waitForModel, waitForPanel } from '../lib/page.mjs';

const DIR = join(ROOT, 'tests/realworld/variables');

/** Runs "Run both" once (the next frame) and returns the frame number and the values shown. */
async function nextFrame(page) {
  await page.locator(testId('compare-start')).click({ timeout: STEP_TIMEOUT_MS });
  await waitForPanel(page, 'compare', ['done', 'error']);
  assert((await page.locator(testId('compare')).getAttribute('data-state')) === 'done', `the frame failed: ${await text(page, 'error-banner')}`);
  const block = page.locator(testId('compare-stream-output')).first();
  return {
    frame: Number(await page.locator(testId('compare-frame')).getAttribute('data-frame')),
    float: JSON.parse((await block.getAttribute('data-float')) ?? '[]'),
    quant: JSON.parse((await block.getAttribute('data-quant')) ?? '[]'),
    next: Number(await page.locator(testId('compare-index')).inputValue()),
  };
}

function same(a, b) {
  return a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
}

async function stream({ page, example }) {
  await check('A streaming model (resource variables) on Compare: samples in order with the state carried give, frame by frame, what zeropoint run gives on the same file (the running total grows); Reset state starts again from frame 1', async () => {
    const work = join(ARTIFACTS, 'stream');
    mkdirSync(work, { recursive: true });
    const model = join(DIR, 'model.tflite');
    const input = join(DIR, 'input_0.npy');
    // The CLI: one stream through every sample (state carried), float and dynamic-range.
    cli(['run', model, '--input', input, '--out-dir', join(work, 'float')]);
    cli(['quantize', model, '--mode', 'dynamic', '--io', 'float', '-o', join(work, 'dynamic.tflite')]);
    cli(['run', join(work, 'dynamic.tflite'), '--input', input, '--out-dir', join(work, 'dynamic')]);
    const wantFloat = npyRows(join(work, 'float', 'output_0.npy'));
    const wantQuant = npyRows(join(work, 'dynamic', 'output_0.npy'));
    assert(wantFloat.length === 10 && !same(wantFloat[2], wantFloat[0]), 'the CLI\'s running total does not change over frames');

    await dropFile(page, 'variables.tflite', readFileSync(model));
    await waitForModel(page, 'variables.tflite');
    await showTab(page, 'quantize');
    await page.locator(testId('quant-mode')).selectOption('dynamic');
    await quantizeOnPage(page);
    await showTab(page, 'compare');
    assert(await page.locator(testId('compare-stream-row')).isVisible(), 'no stream controls for a stateful model');
    await page.locator(testId('compare-sample-npy')).check({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('compare-npy')).setInputFiles(input);
    await page.locator(testId('compare-index')).fill('0');
    await page.locator(testId('compare-stream')).check({ timeout: STEP_TIMEOUT_MS });
    for (let f = 0; f < 3; f++) {
      const got = await nextFrame(page);
      assert(got.frame === f + 1, `frame ${String(got.frame)}, expected ${String(f + 1)}`);
      assert(got.next === f + 1, `the sample number did not move on: ${String(got.next)}`);
      assert(same(got.float, wantFloat[f]), `frame ${String(f + 1)} float: page ${JSON.stringify(got.float)}, CLI ${JSON.stringify(wantFloat[f])}`);
      assert(same(got.quant, wantQuant[f]), `frame ${String(f + 1)} quantized: page ${JSON.stringify(got.quant)}, CLI ${JSON.stringify(wantQuant[f])}`);
    }
    await screenshot(page, '11-stream-frame-3');
    await page.locator(testId('compare-reset-state')).click({ timeout: STEP_TIMEOUT_MS });
    const again = await nextFrame(page);
    assert(again.frame === 1, `after the reset: frame ${String(again.frame)}`);
    assert(same(again.float, wantFloat[0]) && same(again.quant, wantQuant[0]), `after the reset: ${JSON.stringify(again.float)}, frame 1 was ${JSON.stringify(wantFloat[0])}`);
    // A model without state offers no stream controls.
    await dropFile(page, 'dropped.tflite', example);
    await waitForModel(page, 'dropped.tflite');
    await quantizeOnPage(page);
    await showTab(page, 'compare');
    assert(await page.locator(testId('compare-stream-row')).isHidden(), 'stream controls for a model without state');
    await showTab(page, 'quantize');
    await page.locator(testId('quant-mode')).selectOption('int8');
    await showTab(page, 'model');
  });
}

export const cases = [{ name: 'stream', needs: ['load'], run: stream }];
