// The Calibrate tab on the example model: seeded random samples give the engine's ranges and its
// statistics JSON, the method changes without a new run, a long run cancels, and bad .npy files
// and images are named in readable errors.
import { readFileSync } from 'node:fs';
import { npyBytes, pngBytes } from '../lib/data.mjs';
import { nodeCalibration } from '../lib/expected.mjs';
import { STEP_TIMEOUT_MS, assert, check, withTimeout } from '../lib/harness.mjs';
import { fillRandom, screenshot, testId, text, waitForCalibration } from '../lib/page.mjs';

/** The calibration the calibrate and ranges cases check against the engine in Node. */
export const random16 = { count: 16, lo: 0, hi: 1, seed: 42 };

async function calibrate({ api, page, example }) {
  await check('calibrating with 16 seeded random samples shows progress 16/16 and the engine\'s ranges', async () => {
    await fillRandom(page, random16);
    await page.locator(testId('calibrate-method')).selectOption('minmax');
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'done');
    const status = await text(page, 'calibrate-status');
    assert(status.includes('16 / 16 samples'), `status does not say 16 / 16: ${status}`);
    assert(/samples\/s/.test(status), `status lacks the rate: ${status}`);
    const [value, max] = await page.locator(testId('calibrate-progress')).evaluate((el) => [el.value, el.max]);
    assert(value === max && max > 0, `progress bar at ${String(value)} of ${String(max)}`);
    const want = nodeCalibration(api, example, random16, 'minmax');
    const rows = await page.locator(`${testId('stats-table')} tbody tr`).count();
    assert(rows === want.tensors.length && rows > 0, `stats table has ${String(rows)} rows, the engine records ${String(want.tensors.length)} tensors`);
    const table = await text(page, 'stats-table');
    for (const t of want.tensors) assert(table.includes(t.name), `stats table lacks tensor ${t.name}`);
    const summaryLine = await text(page, 'calibration-summary');
    assert(summaryLine.includes('16 samples') && summaryLine.includes('minmax'), `result header: ${summaryLine}`);
    await screenshot(page, '07-calibrated');
  });

  await check('the stats JSON download equals the engine\'s statistics in Node', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: STEP_TIMEOUT_MS }),
      page.locator(testId('stats-download')).click({ timeout: STEP_TIMEOUT_MS }),
    ]);
    assert(download.suggestedFilename() === 'dropped.calibration.json', `file name ${download.suggestedFilename()}`);
    const json = JSON.parse(readFileSync(await withTimeout(download.path(), STEP_TIMEOUT_MS, 'download'), 'utf8'));
    const want = nodeCalibration(api, example, random16, 'minmax');
    assert(json.samples === 16 && json.method === 'minmax' && json.model === 'dropped.tflite' && json.tfCaches === 'golden', `header: ${JSON.stringify({ ...json, tensors: undefined })}`);
    assert(json.tensors.length === want.tensors.length, `${String(json.tensors.length)} tensors, want ${String(want.tensors.length)}`);
    json.tensors.forEach((t, i) => {
      const w = want.tensors[i];
      for (const key of ['index', 'name', 'min', 'max', 'chosen_min', 'chosen_max']) {
        assert(t[key] === w[key], `tensor ${String(i)} ${key}: page ${String(t[key])}, Node ${String(w[key])}`);
      }
      assert(JSON.stringify(t.histogram.counts) === JSON.stringify(w.histogram.counts), `tensor ${String(i)} histogram differs`);
    });
  });

  await check('changing the method recomputes the chosen ranges without a new run', async () => {
    try {
      await percentileRanges();
    } finally {
      // Back to min/max even when a check above failed: the Ranges cases after this one read
      // the min/max ranges, and a method left at percentile failed them too.
      await page.locator(testId('calibrate-method')).selectOption('minmax');
      await page.waitForFunction(() => document.querySelector('[data-testid="calibration-summary"]')?.textContent?.includes('minmax'), null, { timeout: STEP_TIMEOUT_MS });
    }
  });

  async function percentileRanges() {
    await page.locator(testId('calibrate-method')).selectOption('percentile');
    await page.locator(testId('calibrate-percentile')).fill('99');
    await page.locator(testId('calibrate-percentile')).dispatchEvent('change');
    await page.waitForFunction(() => document.querySelector('[data-testid="calibration-summary"]')?.textContent?.includes('percentile:99 '), null, { timeout: STEP_TIMEOUT_MS });
    const want = nodeCalibration(api, example, random16, 'percentile:99');
    assert(want.tensors.some((t) => t.chosen_max !== t.max), 'percentile:99 clipped nothing in Node');
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: STEP_TIMEOUT_MS }),
      page.locator(testId('stats-download')).click({ timeout: STEP_TIMEOUT_MS }),
    ]);
    const json = JSON.parse(readFileSync(await withTimeout(download.path(), STEP_TIMEOUT_MS, 'download'), 'utf8'));
    assert(json.method === 'percentile:99', `method in JSON: ${json.method}`);
    json.tensors.forEach((t, i) => {
      const w = want.tensors[i];
      assert(t.chosen_min === w.chosen_min && t.chosen_max === w.chosen_max, `tensor ${String(i)} chosen range: page [${String(t.chosen_min)}, ${String(t.chosen_max)}], Node [${String(w.chosen_min)}, ${String(w.chosen_max)}]`);
    });
    assert((await page.locator(`${testId('stats-table')} .clipped`).count()) > 0, 'no clipped range is highlighted');
  }
}

async function calibrateErrors({ page, inputTensor }) {
  await check('a long run can be cancelled, the page stays responsive and usable', async () => {
    await fillRandom(page, { count: 1_000_000, lo: -1, hi: 1, seed: 3 });
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'running');
    await page.waitForFunction(() => /^[1-9][\d,]* \/ 1,000,000 samples/.test(document.querySelector('[data-testid="calibrate-status"]')?.textContent ?? ''), null, { timeout: STEP_TIMEOUT_MS });
    // The UI thread answers while the worker calibrates: a frame comes within a few hundred ms.
    const frameMs = await page.evaluate(() => {
      const t0 = performance.now();
      return new Promise((r) => requestAnimationFrame(() => r(performance.now() - t0)));
    });
    assert(frameMs < 500, `a frame took ${String(frameMs)} ms during calibration`);
    const status = await text(page, 'calibrate-status');
    assert(/left/.test(status), `running status lacks the time left: ${status}`);
    await screenshot(page, '08-running');
    await page.locator(testId('calibrate-cancel')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'cancelled');
    const after = await text(page, 'calibrate-status');
    assert(/^Cancelled after [\d,]+ samples/.test(after), `status after cancel: ${after}`);
    assert(!(await page.locator(testId('error-banner')).isVisible()), 'error banner after cancel');
    assert(!(await page.locator(testId('calibrate-start')).isDisabled()), 'Start stays disabled after cancel');
    await screenshot(page, '09-cancelled');
    await fillRandom(page, { count: 8, lo: 0, hi: 1, seed: 1 });
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'done');
    assert((await text(page, 'calibrate-status')).includes('8 / 8 samples'), 'a run after cancel did not finish');
  });

  await check('TF\'s CPU caches: not three sizes is a readable error that keeps the result; other sizes calibrate and are named', async () => {
    const caches = page.locator(testId('calibrate-tf-caches'));
    try {
      await caches.fill('48,2048');
      await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
      await waitForCalibration(page, 'error');
      const banner = await text(page, 'error-banner');
      assert(banner.includes("TF's CPU caches: '48,2048' is not three cache sizes in KiB"), `banner: ${banner}`);
      assert(await page.locator(testId('stats-table')).isVisible(), 'the previous calibration result is hidden after the error');
      await caches.fill('32,1024,327680');
      await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
      await waitForCalibration(page, 'done');
      const summaryLine = await text(page, 'calibration-summary');
      assert(summaryLine.includes('8 samples') && summaryLine.includes('TF caches 32,1024,327680 KiB'), `result header: ${summaryLine}`);
    } finally {
      await caches.fill('golden');
    }
  });

  await check('a .npy of the wrong shape gives a readable error and keeps the model', async () => {
    await page.locator(testId('source-npy')).check({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('npy-input-0')).setInputFiles({ name: 'gray.npy', mimeType: 'application/octet-stream', buffer: npyBytes([4, 32, 32, 1], new Float32Array(4 * 32 * 32)) });
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'error');
    const banner = await text(page, 'error-banner');
    for (const part of ['gray.npy', 'does not fit input', inputTensor.name, 'expected (N, 1, 32, 32, 3)', 'got (4, 32, 32, 1)']) {
      assert(banner.includes(part), `banner lacks "${part}": ${banner}`);
    }
    assert((await text(page, 'model-name')) === 'dropped.tflite', 'the model is no longer shown');
    assert(await page.evaluate(() => document.body.dataset.state === 'ready'), 'page state is not ready');
    assert((await page.locator(testId('npy-input-0')).evaluate((el) => el.files?.[0]?.name)) === 'gray.npy', 'the chosen file was dropped');
    assert(await page.locator(testId('stats-table')).isVisible(), 'the previous calibration result is hidden after the error');
    await screenshot(page, '10-npy-error');
  });

  await check('a .npy with a NaN names the sample and input; a good .npy calibrates', async () => {
    const n = 6;
    const size = 32 * 32 * 3;
    const data = new Float32Array(n * size).map((_, i) => (i % 97) / 97);
    data[2 * size + 5] = NaN;
    await page.locator(testId('npy-input-0')).setInputFiles({ name: 'nan.npy', mimeType: 'application/octet-stream', buffer: npyBytes([n, 1, 32, 32, 3], data) });
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await page.waitForFunction(() => document.querySelector('[data-testid="error-banner"]')?.textContent?.includes('NaN'), null, { timeout: STEP_TIMEOUT_MS });
    const banner = await text(page, 'error-banner');
    assert(/sample 2\b/.test(banner) && banner.includes(inputTensor.name), `banner does not name sample 2 and the input: ${banner}`);
    data[2 * size + 5] = 0.5;
    await page.locator(testId('npy-input-0')).setInputFiles({ name: 'good.npy', mimeType: 'application/octet-stream', buffer: npyBytes([n, 32, 32, 3], data) });
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'done');
    assert((await text(page, 'calibration-summary')).includes(`${String(n)} samples`), 'npy run did not record 6 samples');
    assert(!(await page.locator(testId('error-banner')).isVisible()), 'error banner still visible after a good run');
  });

  await check('images (picked, then dropped) are resized and calibrate; a broken image is named', async () => {
    await page.locator(testId('source-images')).check({ timeout: STEP_TIMEOUT_MS });
    const images = [0, 1, 2].map((k) => ({
      name: `img${String(k)}.png`,
      mimeType: 'image/png',
      buffer: pngBytes(40 + k * 10, 30, (x, y) => [(x * 5 + k * 40) & 255, (y * 7) & 255, 128]),
    }));
    await page.locator(testId('image-input')).setInputFiles(images);
    assert((await text(page, 'image-count')).startsWith('3 images'), `image count: ${await text(page, 'image-count')}`);
    assert((await text(page, 'image-layout')).includes('32×32'), `layout: ${await text(page, 'image-layout')}`);
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'done');
    assert((await text(page, 'calibration-summary')).includes('3 samples'), 'image run did not record 3 samples');
    await screenshot(page, '11-images');
    // A drop onto the image area feeds calibration, not the model loader.
    await page.evaluate(
      ({ good }) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([Uint8Array.from(atob(good), (c) => c.charCodeAt(0))], 'ok.png', { type: 'image/png' }));
        transfer.items.add(new File([new Uint8Array([1, 2, 3, 4])], 'broken.png', { type: 'image/png' }));
        transfer.items.add(new File(['notes'], 'notes.txt', { type: 'text/plain' }));
        const zone = document.querySelector('[data-testid="image-drop"]');
        for (const type of ['dragenter', 'dragover', 'drop']) {
          zone.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: transfer }));
        }
      },
      { good: images[0].buffer.toString('base64') },
    );
    await page.waitForFunction(() => document.querySelector('[data-testid="image-count"]')?.textContent?.startsWith('2 images'), null, { timeout: STEP_TIMEOUT_MS });
    assert((await text(page, 'image-count')).includes('1 other file skipped'), `image count: ${await text(page, 'image-count')}`);
    assert((await text(page, 'model-name')) === 'dropped.tflite', 'dropping images replaced the model');
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'error');
    const banner = await text(page, 'error-banner');
    assert(banner.includes('broken.png') && banner.includes('could not be decoded'), `banner: ${banner}`);
    await page.locator(testId('source-random')).check();
  });
}

export const cases = [
  { name: 'calibrate', needs: ['load'], run: calibrate },
  { name: 'calibrate-errors', needs: ['load'], run: calibrateErrors },
];
