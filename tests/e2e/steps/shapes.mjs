// Dynamic input dims on the page: a Keras export with a dynamic batch shows a dims field per
// dynamic dim; batch 2 calibrates at [2, …] with the engine's numbers, and the model is kept.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeCalibration } from '../lib/expected.mjs';
import { ROOT, STEP_TIMEOUT_MS, assert, check, withTimeout } from '../lib/harness.mjs';
import { dropFile, fillRandom, screenshot, showTab, testId, waitForCalibration, waitForModel } from '../lib/page.mjs';

const random4 = { count: 4, lo: -1, hi: 1, seed: 9 };

async function dynamicShapes({ api, page, example }) {
  await check('a dynamic-batch model offers its batch dim (1); batch 2 calibrates at [2, …] with the engine\'s statistics in Node', async () => {
    const bytes = new Uint8Array(readFileSync(join(ROOT, 'tests/realworld/dynamic_batch/model.tflite')));
    await dropFile(page, 'dynamic_batch.tflite', bytes);
    await waitForModel(page, 'dynamic_batch.tflite');
    await showTab(page, 'model');
    const dims = page.locator(testId('input-dim'));
    assert((await dims.count()) === 1, `${String(await dims.count())} dims fields, want 1 (the batch)`);
    assert((await dims.first().inputValue()) === '1' && (await dims.first().getAttribute('data-axis')) === '0', 'the batch field does not start at 1 on axis 0');
    await dims.first().fill('2');
    await dims.first().dispatchEvent('change');
    await screenshot(page, '09-dynamic-batch-2');

    await fillRandom(page, random4);
    await page.locator(testId('calibrate-method')).selectOption('minmax');
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'done');
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: STEP_TIMEOUT_MS }),
      page.locator(testId('stats-download')).click({ timeout: STEP_TIMEOUT_MS }),
    ]);
    const json = JSON.parse(readFileSync(await withTimeout(download.path(), STEP_TIMEOUT_MS, 'download'), 'utf8'));
    const atTwo = nodeCalibration(api, bytes, random4, 'minmax', { shapes: [], batch: 2 });
    const atOne = nodeCalibration(api, bytes, random4, 'minmax');
    assert(json.tensors.length === atTwo.tensors.length, `${String(json.tensors.length)} tensors, want ${String(atTwo.tensors.length)}`);
    json.tensors.forEach((t, i) => {
      const w = atTwo.tensors[i];
      assert(t.name === w.name && t.min === w.min && t.max === w.max, `tensor ${String(i)} '${t.name}': page [${String(t.min)}, ${String(t.max)}], Node at batch 2 [${String(w.min)}, ${String(w.max)}]`);
    });
    // Batch 2 draws twice the values per sample: its ranges are not batch 1's.
    assert(atTwo.tensors.some((t, i) => t.min !== atOne.tensors[i].min || t.max !== atOne.tensors[i].max), 'batch 2 gave batch 1\'s ranges: the dims were not applied');
  });
  // The other cases use the example model: load it again.
  await dropFile(page, 'dropped.tflite', example);
  await waitForModel(page, 'dropped.tflite');
}

export const cases = [{ name: 'shapes', needs: ['load'], run: dynamicShapes }];
