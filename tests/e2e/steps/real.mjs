// Real tools' files (tests/real/, from tests/tools/make_real_models.py) in the page, one page load
// in a context of its own (issue 21, "What it must show"):
//  - MediaPipe's face_landmark (468 points, [1,1,1,1404]) quantized on the page (int8, random
//    calibration) and compared on a sample: the output reads as 468 landmarks of 3, the overlay
//    draws every point of both models (screenshot); at 400 px the per-layer table reads as cards;
//    the times shown (point 8) are medians in the unit their size needs, as measured (also on
//    face_detection_short_range);
//  - MediaPipe's face_detection_short_range quantized with random calibration: its SQNR verdict is
//    a failing one (poor or ruined, shown as an alert; screenshot) — the CLI gives 13–16 dB on
//    random uniform data (face_landmark's random calibration stays above 20 dB);
//  - MediaPipe's face_detection_full_range_sparse (388 operators, DENSIFY) at first open: ≥ 300
//    operators as read by the engine, its sparse float16 weights (DENSIFY, DEQUANTIZE) folded into
//    their consumers, labels ≥ 10 px on screen (screenshot), and at 400 px wide no
//    sideways scrolling, its inputs / outputs and tensor tables as cards (screenshot);
//  - face_landmark's quantize result (113 float16 weights behind DEQUANTIZE) at 1280×800: the
//    folded-DEQUANTIZE warning one closed line, the page short, the download in view; its compare
//    and quantize views at 400 px wide without sideways scrolling (screenshots);
//  - AI Edge Quantizer's output of face_detection_full_range_sparse, whose metadata_buffer lists
//    buffers 579 and 580 of 193 (case real-aeq): it loads with a readable warning, runs
//    (calibration), and the page's rewritten download keeps the entry, the model and its outputs;
//  - MediaPipe's hand_recrop (case real-stale-choices): dynamic-range mode, then int8 again:
//    the file names, the shown settings and the I/O types read back from each file agree;
//  - error words (case real-errors): face_landmark cut in half says it is truncated with both
//    sizes; a PNG image, named .png or renamed .tflite, says so once; the loaded model stays.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { npyRows, pngBytes } from '../lib/data.mjs';
import { cli } from '../lib/expected.mjs';
import { ROOT, STEP_TIMEOUT_MS, assert, check } from '../lib/harness.mjs';
import { calibrateRandom, downloadOf, dropFile, graphOpsInView, quantizeOnPage, screenshot, showTab, testId, text, waitForModel, wrapsAtSpaces } from '../lib/page.mjs';
import { env as kindsEnv, noSidewaysScroll, quantizeAndCompare, sampleFor } from './kinds.mjs';
import { readsAsCards, shiftColumnReachable } from './narrow.mjs';
import { numbersRead } from './newuser.mjs';

const REAL = join(ROOT, 'tests/real');
const LANDMARK = join(REAL, 'face_landmark.tflite');
const BIG = join(REAL, 'face_detection_full_range_sparse.tflite');
const DETECTOR = join(REAL, 'face_detection_short_range.tflite');
const AEQ = join(REAL, 'face_detection_full_range_sparse.aeq_dynamic_wi8.tflite');
const RECROP = join(REAL, 'hand_recrop.tflite');
/** What the AEQ file carries (tests/real/manifest.json): metadata_buffer [579, 580], 193 buffers. */
const AEQ_METADATA_WARNING = 'metadata_buffer lists buffers 579, 580 but the model has 193 buffers';

/** At 400 px wide: no sideways scrolling, `also` checked, then a screenshot; the shared size again after. */
async function at400(page, shot, also = async () => {}) {
  await page.setViewportSize({ width: 400, height: 800 });
  await page.waitForTimeout(100);
  await noSidewaysScroll(page);
  await also();
  await screenshot(page, shot);
  await page.setViewportSize({ width: 1280, height: 900 });
}

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
    await at400(page, '64-real-face-landmark-compare-400px', async () => {
      await readsAsCards(page, 'compare-table');
    });
  });

  await check('real: numbers on face_landmark (issue 21 point 8): medians of 5 runs shown in the unit their size needs, as measured, no zero time, the ratio the medians\'', async () => {
    await numbersRead(page, 5);
  });

  await check('real: face_landmark\'s 113 folded DEQUANTIZE are one closed warning; at 1280×800 the page is short and the download in view; 400 px fits', async () => {
    // Quantized again at 1280×800 (the same calibration), as a user sees the result arrive.
    await page.setViewportSize({ width: 1280, height: 800 });
    await quantizeOnPage(page);
    const folded = page.locator(`${testId('quant-warnings')} details.warning-long`).filter({ hasText: '113 DEQUANTIZE of constants folded' });
    assert((await folded.count()) === 1, `the folded-DEQUANTIZE warning is not one expandable line: ${await text(page, 'quant-warnings')}`);
    assert(!(await folded.evaluate((d) => d.open)), 'it is open');
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    assert(height <= 3 * 800, `the page is ${String(height)} px tall`);
    const dl = await page.locator(testId('quant-download-model')).boundingBox();
    assert(dl && dl.y >= 0 && dl.y + dl.height <= 800, `the download button is at y=${String(dl?.y)} (viewport 800)`);
    // The command line wraps between its words (it broke "face_landmark_int8_floatio.tflit" / "e").
    await wrapsAtSpaces(page, 'quant-cli');
    await screenshot(page, '65-real-warnings-folded');
    // The window narrowed from 1280 to 400 px: the quantize graph is fitted again for 400 px. It
    // slid out of view in full runs before (issue 21): the view was shifted from a width measured
    // before the model was loaded (kinds-narrow left the quantize tab at 400 px).
    await at400(page, '66-real-quantize-400px', async () => {
      const found = await graphOpsInView(page, 'quant-graph');
      assert(found.seen > 0, `no operator box of the quantize graph is in view at 400 px (after 5 s): ${JSON.stringify(found)}`);
    });
  });

  await check('real: face_landmark\'s int8 model in the Model tab at 400 px: a CONV_2D\'s and a DEPTHWISE_CONV_2D\'s requantization tables whole, no sideways scroll', async () => {
    await page.setViewportSize({ width: 400, height: 800 });
    await showTab(page, 'model');
    await page.locator(testId('show-quantized')).click({ timeout: STEP_TIMEOUT_MS });
    await page.waitForFunction(() => document.querySelector('[data-testid="show-quantized"]')?.getAttribute('aria-pressed') === 'true', null, { timeout: STEP_TIMEOUT_MS });
    for (const op of ['DEPTHWISE_CONV_2D', 'CONV_2D']) {
      await page.locator(testId('graph-search')).fill(op);
      const title = await text(page, 'details-title');
      assert(title.startsWith(`${op} #`), `searching ${op} selected "${title}"`);
      await page.waitForSelector(testId('requant-table'), { timeout: STEP_TIMEOUT_MS });
      await shiftColumnReachable(page, `face_landmark int8 ${title}`);
      await noSidewaysScroll(page);
    }
    await page.locator(testId('requant-table')).scrollIntoViewIfNeeded();
    await screenshot(page, '66b-real-model-int8-requant-400px');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  await check('real: random calibration on face_detection_short_range gets a failing SQNR verdict, shown as an alert', async () => {
    await quantizeAndCompare(page, work, DETECTOR, 'face_detection_short_range.tflite', sampleFor(api, DETECTOR, work));
    const verdict = page.locator(testId('compare-verdict'));
    const level = await verdict.getAttribute('data-level', { timeout: STEP_TIMEOUT_MS });
    assert(level === 'poor' || level === 'ruined', `verdict level ${String(level)}: ${await verdict.textContent()}`);
    assert((await verdict.getAttribute('role')) === 'alert', 'the failing verdict is not an alert');
    await numbersRead(page, 5);
    await screenshot(page, '61-real-failing-sqnr');
    // At 400 px the alert is whole: inside the viewport's width, its words not cut.
    await at400(page, '61b-real-failing-sqnr-400px', async () => {
      const box = await verdict.boundingBox();
      assert(box && box.x >= 0 && box.x + box.width <= 400, `the verdict is at ${JSON.stringify(box)} at 400 px`);
      assert(await verdict.evaluate((el) => el.scrollWidth <= el.clientWidth + 1), 'the verdict\'s words overflow its box at 400 px');
    });
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
    // Its weights are sparse float16: DENSIFY of a constant, then DEQUANTIZE. Both are folded
    // into the op reading them (46 DENSIFY and 46 DEQUANTIZE were drawn before).
    const sg = api.inspectModel(new Uint8Array(bytes)).subgraphs[0];
    const constant = new Set(sg.tensors.filter((t) => t.is_constant).map((t) => t.index));
    const densify = sg.operators.filter((o) => o.op === 'DENSIFY' && constant.has(o.inputs[0]));
    const dense = new Set(densify.map((o) => o.outputs[0]));
    const weights = sg.operators.filter((o) => o.op === 'DEQUANTIZE' && (constant.has(o.inputs[0]) || dense.has(o.inputs[0])));
    assert(densify.length > 0, 'the model has no DENSIFY of a constant');
    const drawn = await page.evaluate(() => [...document.querySelectorAll('[data-testid="graph-op"]')].map((g) => g.querySelector('text.graph-node-label')?.textContent));
    // The Model tab's line (the Quantize and Compare graphs have one each).
    const info = (await page.locator(testId('graph-info')).allTextContents()).find((t) => t.startsWith(`${String(ops)} operators`)) ?? '';
    assert(drawn.length === ops - densify.length - weights.length && !drawn.includes('DENSIFY') && !drawn.includes('DEQUANTIZE'), `${String(drawn.length)} boxes for ${String(ops)} ops, ${String(densify.length)} weight DENSIFY, ${String(weights.length)} weight DEQUANTIZE; ${String(drawn.filter((d) => d === 'DENSIFY' || d === 'DEQUANTIZE').length)} of them drawn`);
    assert(info.includes(`${String(weights.length)} weight DEQUANTIZE, ${String(densify.length)} of them after a DENSIFY, folded`), `info line: ${info}`);
    // The details of an op reading such weights name both folded ops.
    const d = densify[0];
    const dq = weights.find((o) => o.inputs[0] === d.outputs[0]);
    const consumer = sg.operators.find((o) => o.inputs.includes(dq.outputs[0]));
    await page.locator(`${testId('graph-op')}[data-op="${String(consumer.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    const notes = await page.locator(testId('details-folded')).allTextContents();
    const from = sg.tensors.find((t) => t.index === d.inputs[0]).name;
    assert(notes.some((n) => n.includes(`densified from the sparse float16 constant #${String(d.inputs[0])} ${from} by DENSIFY #${String(d.index)}, dequantized by DEQUANTIZE #${String(dq.index)}`)), `details of ${consumer.op} #${String(consumer.index)}: ${notes.join(' | ')}`);
    await screenshot(page, '62-real-big-graph-first-open');
    await page.setViewportSize({ width: 400, height: 800 });
    await page.waitForTimeout(100);
    await noSidewaysScroll(page);
    await readsAsCards(page, 'io-table', 12);
    await readsAsCards(page, 'tensor-table');
    await screenshot(page, '63-real-big-graph-400px');
    await page.setViewportSize({ width: 1280, height: 900 }); // the shared context's size again
  });
}

/** Issue 21 point 1 on AEQ's own output: loads with a readable warning, runs, rewrites losslessly. */
async function aeqOutput(ctx) {
  const { page, work, api } = await kindsEnv(ctx);
  await check('real-aeq: AEQ\'s file with metadata_buffer past the buffers loads with a readable warning, runs, and rewrites losslessly', async () => {
    const bytes = readFileSync(AEQ);
    await dropFile(page, 'aeq_dynamic.tflite', bytes);
    await waitForModel(page, 'aeq_dynamic.tflite');
    // The Model tab (a case run before may have left another one shown: kinds-narrow, Compare).
    await showTab(page, 'model');
    assert(!(await page.locator(testId('error-banner')).isVisible()), `an error is shown: ${await text(page, 'error-banner')}`);
    const warnings = page.locator(testId('model-warnings'));
    assert(await warnings.isVisible(), 'no warnings section');
    const words = await text(page, 'model-warnings');
    assert(words.includes(AEQ_METADATA_WARNING) && words.includes('ignored, as LiteRT does'), `warnings: ${words}`);
    await warnings.scrollIntoViewIfNeeded();
    await screenshot(page, '67-real-aeq-warning');
    await at400(page, '67b-real-aeq-warning-400px', async () => {
      const box = await warnings.boundingBox();
      assert(box && box.x >= 0 && box.x + box.width <= 400, `the warnings are at ${JSON.stringify(box)} at 400 px`);
      assert(await warnings.evaluate((el) => el.scrollWidth <= el.clientWidth + 1), 'the warning\'s words overflow its card at 400 px');
    });
    // It runs: random calibration runs the float model on the page.
    await calibrateRandom(page, { count: 2, lo: -1, hi: 1, seed: 4 });
    // The page's rewritten download: same warning (the entry kept), same model, same outputs.
    await showTab(page, 'model');
    const rewritten = await downloadOf(page, 'download-button');
    const path = join(work, 'aeq.rewritten.tflite');
    writeFileSync(path, rewritten.bytes);
    const [before, after] = [bytes, rewritten.bytes].map((b) => api.inspectModel(new Uint8Array(b)));
    assert(after.warnings.some((w) => w.includes(AEQ_METADATA_WARNING)), `the rewrite lost the entry: ${JSON.stringify(after.warnings)}`);
    const shape = (m) => JSON.stringify(m.subgraphs.map((sg) => [sg.inputs, sg.outputs, sg.operators.map((o) => o.op), sg.tensors.map((t) => [t.name, t.dtype, t.shape])]));
    assert(shape(before) === shape(after), 'the rewrite changed the graph');
    const sample = sampleFor(api, AEQ, work);
    cli(['run', AEQ, '--input', sample, '--out-dir', join(work, 'aeq.orig')]);
    cli(['run', path, '--input', sample, '--out-dir', join(work, 'aeq.rw')]);
    for (let k = 0; k < before.subgraphs[0].outputs.length; k++) {
      const [a, b] = ['orig', 'rw'].map((d) => npyRows(join(work, `aeq.${d}`, `output_${String(k)}.npy`))[0]);
      assert(a.length > 0 && a.length === b.length && a.every((v, i) => Object.is(v, b[i])), `output ${String(k)} differs after the rewrite`);
    }
  });
}

/** Issue 21 point 7 on a real file: the I/O comes back after dynamic mode; name, settings and file agree. */
async function staleChoices(ctx) {
  const { page, api } = await kindsEnv(ctx);
  const ioOfFile = (bytes) => {
    const sg = api.inspectModel(new Uint8Array(bytes)).subgraphs[0];
    return [...new Set([...sg.inputs, ...sg.outputs].map((i) => sg.tensors.find((t) => t.index === i).dtype.toLowerCase()))].join('/');
  };
  await check('real-stale-choices: hand_recrop int8 → dynamic → int8: names, shown settings and the files\' I/O agree', async () => {
    await dropFile(page, 'hand_recrop.tflite', readFileSync(RECROP));
    await waitForModel(page, 'hand_recrop.tflite');
    await calibrateRandom(page, { count: 2, lo: -1, hi: 1, seed: 6 });
    await showTab(page, 'quantize');
    await page.locator(testId('quant-mode')).selectOption('int8');
    await page.locator(testId('quant-io')).selectOption('int8');
    await page.locator(testId('quant-mode')).selectOption('dynamic');
    assert((await page.locator(testId('quant-io')).inputValue()) === 'float', 'dynamic mode does not show float I/O');
    await quantizeOnPage(page);
    let file = await downloadOf(page, 'quant-download-model');
    assert(file.name === 'hand_recrop_dynamic.tflite' && ioOfFile(file.bytes) === 'float32', `dynamic: ${file.name}, I/O ${ioOfFile(file.bytes)}`);
    await page.locator(testId('quant-mode')).selectOption('int8');
    assert((await page.locator(testId('quant-io')).inputValue()) === 'int8', 'back in int8 the I/O stayed float');
    assert(await page.locator(testId('quant-stale')).isVisible(), 'the dynamic result does not say the settings changed');
    await quantizeOnPage(page);
    file = await downloadOf(page, 'quant-download-model');
    const made = page.locator(testId('quant-made-with'));
    assert(file.name === 'hand_recrop_int8.tflite' && ioOfFile(file.bytes) === 'int8', `int8: ${file.name}, I/O ${ioOfFile(file.bytes)}`);
    assert((await made.getAttribute('data-mode')) === 'int8' && (await made.getAttribute('data-file-io')) === 'int8', `shown: ${String(await made.textContent())}`);
    const errors = await text(page, 'quant-errors');
    assert(/ on the first (?:calibration sample|\d+ calibration samples):/.test(errors) && !errors.includes('first 1 '), `the report's errors read: ${errors}`);
    await screenshot(page, '68-real-stale-choices');
    await at400(page, '68b-real-stale-choices-400px');
  });
}

/** Issue 21 point 9 on a real file and a real image: the error says what the file is. */
async function errorWords(ctx) {
  const { page } = await kindsEnv(ctx);
  const refused = async (name, bytes) => {
    const before = await text(page, 'model-name');
    await dropFile(page, name, bytes);
    await page.waitForFunction((n) => document.querySelector('[data-testid="error-banner"]')?.textContent?.includes(n), name, { timeout: STEP_TIMEOUT_MS });
    assert((await text(page, 'model-name')) === before, `${name}: the loaded model ${before} is gone`);
    return text(page, 'error-banner');
  };
  await check('real-errors: half of face_landmark says "truncated" with both sizes; a PNG says it is a PNG image, once', async () => {
    const whole = readFileSync(LANDMARK);
    const half = whole.subarray(0, Math.floor(whole.length / 2));
    const words = await refused('face_landmark_half.tflite', half);
    assert(new RegExp(`the file is truncated(?: or corrupt)?: ${String(half.length)} bytes, the model needs at least \\d+`).test(words) && !words.includes('out of bounds'), `truncated: ${words}`);
    const png = pngBytes(4, 4, (x, y) => [x * 60, y * 60, 200]);
    for (const name of ['photo.png', 'photo.tflite']) {
      const said = await refused(name, png);
      const times = said.split('not a TFLite model').length - 1;
      assert(said.includes('this is a PNG image, not a TFLite model') && times === 1 && !said.includes('is it a .tflite'), `${name}: ${said}`);
    }
    await screenshot(page, '69-real-error-png');
    await at400(page, '69b-real-error-png-400px', async () => {
      const box = await page.locator(testId('error-banner')).boundingBox();
      assert(box && box.x >= 0 && box.x + box.width <= 400, `the error banner is at ${JSON.stringify(box)} at 400 px`);
    });
  });
}

export const cases = [
  { name: 'real-models', needs: [], run: realModels },
  { name: 'real-aeq', needs: [], run: aeqOutput },
  { name: 'real-stale-choices', needs: [], run: staleChoices },
  { name: 'real-errors', needs: [], run: errorWords },
];
