// What must hold whatever happens: no console error and no blocked request on the quantize page,
// the page works offline after the first visit and from a plain static host, a panic in the
// engine restarts the worker and keeps the model and statistics, and no request left 127.0.0.1.
import { join } from 'node:path';
import { ROOT, STEP_TIMEOUT_MS, assert, check } from '../lib/harness.mjs';
import { downloadOf, dropFile, fillRandom, quantizeOnPage, screenshot, showTab, testId, text, waitForCalibration, waitForModel, waitForSimdEngine } from '../lib/page.mjs';
import { staticServer } from '../lib/servers.mjs';
import { quantEnv } from './quantize.mjs';

async function quantizePageErrors(ctx) {
  const { record, blocked } = await quantEnv(ctx);
  await check('no console errors on the quantize page; nothing left 127.0.0.1 (all such requests are blocked)', async () => {
    const errors = [...record.consoleErrors, ...record.pageErrors];
    assert(errors.length === 0, errors.join(' | '));
    assert(blocked.length === 0, `blocked: ${blocked.join(' | ')}`);
  });
}

async function offline(ctx) {
  const { context, page } = await quantEnv(ctx);
  await check('offline: after the first visit the page, its engine and the quantizer work with no network', async () => {
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null, null, { timeout: STEP_TIMEOUT_MS });
    await context.setOffline(true);
    try {
      await page.reload({ timeout: STEP_TIMEOUT_MS });
      await waitForModel(page, 'example.tflite');
      await waitForSimdEngine(page);
      await fillRandom(page, { count: 4, lo: 0, hi: 1, seed: 5 });
      await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
      await waitForCalibration(page, 'done');
      await quantizeOnPage(page);
      await screenshot(page, '25-offline');
    } finally {
      await context.setOffline(false);
    }
  });
}

async function staticHost(ctx) {
  const { context } = await quantEnv(ctx);
  await check('the build works from a plain static file server (no Vite)', async () => {
    const server = await staticServer(join(ROOT, 'dist'));
    const other = await context.newPage();
    try {
      await other.goto(`http://127.0.0.1:${String(server.address().port)}/`, { timeout: STEP_TIMEOUT_MS });
      await waitForModel(other, 'example.tflite');
      await waitForSimdEngine(other);
    } finally {
      await other.close();
      server.close();
    }
  });
}

async function panic(ctx) {
  const { page, floatBytes, calibPath, want } = await quantEnv(ctx);
  await check('a panic in the engine restarts the worker, says what failed, keeps the model and statistics', async () => {
    await dropFile(page, 'mobilenet_block.tflite', floatBytes);
    await waitForModel(page, 'mobilenet_block.tflite');
    await showTab(page, 'calibrate');
    await page.locator(testId('source-npy')).check({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('npy-input-0')).setInputFiles(calibPath);
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'done');
    const before = await page.evaluate(() => window.zeropoint?.workerRestarts);
    const message = await page.evaluate(() => window.zeropoint?.panicWorker('e2e'));
    assert(message.includes('the engine panicked: debugPanic (test hook): e2e'), `rejected with: ${message}`);
    await page.waitForFunction(() => !document.querySelector('[data-testid="notice-banner"]')?.hidden, null, { timeout: STEP_TIMEOUT_MS });
    const notice = await text(page, 'notice-banner');
    assert(notice.includes('debugPanic (test hook): e2e') && /restarted/.test(notice), `notice: ${notice}`);
    assert((await page.evaluate(() => window.zeropoint?.workerRestarts)) === before + 1, 'the worker was not restarted');
    assert((await text(page, 'model-name')) === 'mobilenet_block.tflite', 'the model is gone');
    await screenshot(page, '26-panic-restarted');
    // The restarted worker gets the model and the statistics again with the next request.
    await quantizeOnPage(page);
    const model = await downloadOf(page, 'quant-download-model');
    assert(Buffer.compare(model.bytes, want.model) === 0, 'after the restart the model differs from the CLI\'s');
  });
}

async function network({ foreignRequests }) {
  await check('no request left 127.0.0.1', async () => {
    assert(foreignRequests.length === 0, foreignRequests.join(' | '));
  });
}

export const cases = [
  { name: 'quantize-page-errors', needs: ['quantize'], run: quantizePageErrors },
  { name: 'offline', needs: ['quantize'], run: offline },
  { name: 'static-host', needs: [], run: staticHost },
  { name: 'panic', needs: ['quantize'], run: panic },
  { name: 'network', needs: [], run: network },
];
