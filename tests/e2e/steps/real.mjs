// Real tools' files (tests/real/, from tests/tools/make_real_models.py) in the page, one page load
// in a context of its own (issue 21, "What it must show"):
//  - MediaPipe's face_landmark (468 points, [1,1,1,1404]) quantized on the page (int8, random
//    calibration) and compared on a sample: the output reads as 468 landmarks of 3, the overlay
//    draws every point of both models (screenshot);
//  - MediaPipe's face_detection_short_range quantized with random calibration: its SQNR verdict is
//    a failing one (poor or ruined, shown as an alert; screenshot) — the CLI gives 13–16 dB on
//    random uniform data (face_landmark's random calibration stays above 20 dB);
//  - MediaPipe's face_detection_full_range_sparse (388 operators, DENSIFY) at first open: ≥ 300
//    operators as read by the engine, labels ≥ 10 px on screen (screenshot), and at 400 px wide no
//    sideways scrolling (screenshot).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, STEP_TIMEOUT_MS, assert, check } from '../lib/harness.mjs';
import { dropFile, screenshot, showTab, testId, waitForModel } from '../lib/page.mjs';
import { env as kindsEnv, noSidewaysScroll, quantizeAndCompare, sampleFor } from './kinds.mjs';

const REAL = join(ROOT, 'tests/real');
const LANDMARK = join(REAL, 'face_landmark.tflite');
const BIG = join(REAL, 'face_detection_full_range_sparse.tflite');
const DETECTOR = join(REAL, 'face_detection_short_range.tflite');

async function realModels(ctx) {
  const { page, work, api } = await kindsEnv(ctx);

  await check('real: MediaPipe face_landmark quantized on the page reads as 468 landmarks, both models\' points drawn', async () => {
    const sample = sampleFor(api, LANDMARK, work);
    await quantizeAndCompare(page, work, LANDMARK, 'face_landmark.tflite', sample);
    const block = page.locator(`${testId('compare-output')}[data-kind="landmarks"]`).first();
    const lm = block.locator(testId('compare-kind-landmarks'));
    assert((await lm.getAttribute('data-points')) === '468' && (await lm.getAttribute('data-stride')) === '3', `read as ${String(await lm.getAttribute('data-points'))} points of ${String(await lm.getAttribute('data-stride'))}`);
    const overlay = lm.locator(testId('compare-point-overlay'));
    const drawn = [await overlay.locator('circle.float').count(), await overlay.locator('circle.quant').count()];
    assert(drawn[0] === 468 && drawn[1] === 468, `the overlay draws ${JSON.stringify(drawn)} points`);
    await screenshot(page, '60-real-face-landmark-compare');
  });

  await check('real: random calibration on face_detection_short_range gets a failing SQNR verdict, shown as an alert', async () => {
    await quantizeAndCompare(page, work, DETECTOR, 'face_detection_short_range.tflite', sampleFor(api, DETECTOR, work));
    const verdict = page.locator(testId('compare-verdict'));
    const level = await verdict.getAttribute('data-level', { timeout: STEP_TIMEOUT_MS });
    assert(level === 'poor' || level === 'ruined', `verdict level ${String(level)}: ${await verdict.textContent()}`);
    assert((await verdict.getAttribute('role')) === 'alert', 'the failing verdict is not an alert');
    await screenshot(page, '61-real-failing-sqnr');
  });

  await check('real: face_detection_full_range_sparse (≥ 300 ops) opens legible, and fits 400 px', async () => {
    const bytes = readFileSync(BIG);
    const ops = api.inspectModel(new Uint8Array(bytes)).subgraphs[0].operators.length;
    assert(ops >= 300, `the engine reads ${String(ops)} operators`);
    await dropFile(page, 'face_detection_full_range_sparse.tflite', bytes);
    await waitForModel(page, 'face_detection_full_range_sparse.tflite');
    await showTab(page, 'model');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="graph-op"]').length > 0, null, { timeout: STEP_TIMEOUT_MS });
    await page.waitForTimeout(100); // the first view is set on the next animation frame
    const px = await page.evaluate(() => {
      const svg = document.querySelector('[data-testid="graph-svg"]').getBoundingClientRect();
      const label = [...document.querySelectorAll('[data-testid="graph-op"] text.graph-node-label')].find((t) => {
        const r = t.getBoundingClientRect();
        return r.top >= svg.top && r.bottom <= svg.bottom && r.left >= svg.left && r.right <= svg.right;
      });
      return label ? Number.parseFloat(getComputedStyle(label).fontSize) * label.getScreenCTM().a : 0;
    });
    assert(px >= 10, `op labels ${String(px)} px on screen at first open`);
    await screenshot(page, '62-real-big-graph-first-open');
    await page.setViewportSize({ width: 400, height: 800 });
    await page.waitForTimeout(100);
    await noSidewaysScroll(page);
    await screenshot(page, '63-real-big-graph-400px');
    await page.setViewportSize({ width: 1280, height: 900 }); // the shared context's size again
  });
}

export const cases = [{ name: 'real-models', needs: [], run: realModels }];
