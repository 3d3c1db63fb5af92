// Outputs read by kind on the Compare tab (issue 21 item 2), in a browser context of its own:
//  - a hand-landmark-like model (tests/e2e/models/hand_like.tflite, from tests/tools/make_ui_models.py:
//    two [1,63] FULLY_CONNECTED regressions, two [1,1] LOGISTIC scores) reads as landmarks (21
//    points of x, y, z) and values: no "class" wording, the max / mean |float − quantized| and the
//    point error equal what `zeropoint run` gives on the same sample for the float and the page's
//    quantized file, and the point overlay draws every point of both models; a [1,16]
//    FULLY_CONNECTED regression (tests/realworld/sparse_fc) reads as 8 points of 2;
//  - overriding its kind changes the comparison shown (values table, class agreement) and the choice
//    stays while the model stays loaded (a second run keeps it);
//  - a spatial output (tests/golden/fuse_residual_block: [1,8,8,4]) is read as a mask: float,
//    quantized and |diff| images of one channel, the channel's error equal to the CLI's numbers;
//    another channel redraws them; a classifier (mobilenet_block) still gets top-1 / top-5;
//  - the views at 1280 and 400 px wide (screenshots), with no sideways scrolling at 400 px.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { npyBytes, npyRows } from '../lib/data.mjs';
import { GOLDEN, cli, loadNodeEngine } from '../lib/expected.mjs';
import { ARTIFACTS, ROOT, STEP_TIMEOUT_MS, assert, check, onCleanup } from '../lib/harness.mjs';
import { calibrateRandom, downloadOf, dropFile, isLocal, quantizeOnPage, showTab, testId, text, waitForModel, waitForPanel, watch } from '../lib/page.mjs';

const VIEWPORT = { width: 1280, height: 900 };
const HAND = join(ROOT, 'tests/e2e/models/hand_like.tflite');
const REGRESSION = join(ROOT, 'tests/realworld/sparse_fc/model.tflite');
const SPATIAL = join(ROOT, 'tests/golden/fuse_residual_block/model_float.tflite');
const DETECTOR = join(ROOT, 'tests/realworld/ssd_detector');

/** This file's own browser context and page (made once), and a scratch directory. */
export function env(ctx) {
  ctx.kindsEnv ??= (async () => {
    const { browser, base, foreignRequests } = ctx;
    const work = mkdtempSync(join(tmpdir(), 'zeropoint-e2e-kinds-'));
    const context = await browser.newContext({ acceptDownloads: true, viewport: VIEWPORT });
    context.on('request', (request) => {
      if (!isLocal(request.url())) foreignRequests.push(request.url());
    });
    const page = await context.newPage();
    const record = watch(page);
    onCleanup(async () => {
      await context.close();
      rmSync(work, { recursive: true, force: true });
    });
    await page.goto(base, { timeout: STEP_TIMEOUT_MS });
    await waitForModel(page, 'example.tflite');
    return { page, record, work, api: await loadNodeEngine() };
  })();
  return ctx.kindsEnv;
}

/** A float32 sample of the model's (one) input: a fixed pseudo-random sequence in [-1, 1). */
export function sampleFor(api, modelPath, work) {
  const summary = api.inspectModel(new Uint8Array(readFileSync(modelPath)));
  const sg = summary.subgraphs[0];
  const input = sg.tensors.find((t) => t.index === sg.inputs[0]);
  const n = input.shape.reduce((a, b) => a * b, 1);
  let s = 12345;
  const data = new Float32Array(n).map(() => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return (s >>> 8) / 2 ** 23 - 1;
  });
  const path = join(work, `${basename(modelPath)}.sample.npy`);
  writeFileSync(path, npyBytes([1, ...input.shape], data));
  return path;
}

/**
 * Loads `modelPath`, calibrates on random data, quantizes (int8, float I/O), runs `sample` through
 * both on the Compare tab; returns the output rows `zeropoint run` gives for the float model and
 * for the page's quantized file on the same sample.
 */
export async function quantizeAndCompare(page, work, modelPath, name, sample) {
  await dropFile(page, name, readFileSync(modelPath));
  await waitForModel(page, name);
  await calibrateRandom(page, { count: 8, lo: -1, hi: 1, seed: 7 });
  await showTab(page, 'quantize');
  await page.locator(testId('quant-mode')).selectOption('int8');
  await page.locator(testId('quant-io')).selectOption('float');
  await quantizeOnPage(page);
  const model = await downloadOf(page, 'quant-download-model');
  const quantPath = join(work, `${name}.quant.tflite`);
  writeFileSync(quantPath, model.bytes);
  cli(['run', modelPath, '--input', sample, '--out-dir', join(work, `${name}.float`)]);
  cli(['run', quantPath, '--input', sample, '--out-dir', join(work, `${name}.quant`)]);
  await runCompare(page, sample);
  const out = (which, k) => npyRows(join(work, `${name}.${which}`, `output_${String(k)}.npy`))[0];
  return { float: out('float', 0), quant: out('quant', 0), output: out };
}

async function runCompare(page, sample) {
  await showTab(page, 'compare');
  await page.locator(testId('compare-sample-npy')).check({ timeout: STEP_TIMEOUT_MS });
  await page.locator(testId('compare-npy')).setInputFiles(sample);
  await page.locator(testId('compare-index')).fill('0');
  await page.locator(testId('compare-start')).click({ timeout: STEP_TIMEOUT_MS });
  await waitForPanel(page, 'compare', ['done', 'error']);
  assert((await page.locator(testId('compare')).getAttribute('data-state')) === 'done', `compare failed: ${await text(page, 'error-banner')}`);
}

/** Max and mean |a − b| in f64, element by element. */
function absErrors(a, b) {
  let max = 0;
  let sum = 0;
  a.forEach((v, i) => {
    const d = Math.abs(v - b[i]);
    max = Math.max(max, d);
    sum += d;
  });
  return { max, mean: sum / a.length };
}

function near(got, want, what) {
  assert(Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want)), `${what}: page ${String(got)}, from the CLI's outputs ${String(want)}`);
}

/** The block's words, without the kind select's option labels. */
async function blockWords(block) {
  return block.evaluate((el) => {
    const copy = el.cloneNode(true);
    for (const s of copy.querySelectorAll('select')) s.remove();
    return copy.textContent ?? '';
  });
}

/** A screenshot of one output's block (artifacts/e2e/<name>.png). */
async function shot(block, name) {
  await block.screenshot({ path: join(ARTIFACTS, `${name}.png`), timeout: STEP_TIMEOUT_MS });
}

export async function noSidewaysScroll(page) {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert(width <= 400, `the page is ${String(width)} px wide at a 400 px viewport`);
}

/** The point distances of two flat vectors of `stride` values per point, (x, y) first. */
function distances(f, q, stride) {
  return Array.from({ length: f.length / stride }, (_, i) => Math.hypot(f[stride * i] - q[stride * i], f[stride * i + 1] - q[stride * i + 1]));
}

/** The block's landmark figures equal the ones made here from the CLI's outputs. */
async function checkLandmarks(block, f, q, stride) {
  const diff = block.locator(testId('compare-diff'));
  const e = absErrors(f, q);
  assert(e.max > 0, 'the quantized output equals the float one: nothing to compare');
  near(Number(await diff.getAttribute('data-max')), e.max, 'max |float − quantized|');
  near(Number(await diff.getAttribute('data-mean')), e.mean, 'mean |float − quantized|');
  assert((await block.locator(testId('compare-output-sqnr')).count()) === 1, 'no SQNR on the output');
  const points = f.length / stride;
  const lm = block.locator(testId('compare-kind-landmarks'));
  assert(
    (await lm.getAttribute('data-stride')) === String(stride) && (await lm.getAttribute('data-points')) === String(points),
    `points ${String(await lm.getAttribute('data-points'))} of ${String(await lm.getAttribute('data-stride'))}, expected ${String(points)} of ${String(stride)}`,
  );
  const dist = distances(f, q, stride);
  near(Number(await lm.getAttribute('data-max-distance')), Math.max(...dist), 'max point distance');
  near(Number(await lm.getAttribute('data-mean-distance')), dist.reduce((a, b) => a + b, 0) / points, 'mean point distance');
  const overlay = lm.locator(testId('compare-point-overlay'));
  const drawn = [await overlay.locator('circle.float').count(), await overlay.locator('circle.quant').count()];
  assert(drawn[0] === points && drawn[1] === points, `the overlay draws ${JSON.stringify(drawn)} points, not ${String(points)} + ${String(points)}`);
}

async function landmarks(ctx) {
  const { page, work, api } = await env(ctx);
  await check('kinds: a hand-landmark-like model: its [1,63] regressions read as 21 points of (x, y, z), its [1,1] scores as values; no class wording; abs errors and point distances equal the CLI\'s outputs\'; both point sets drawn', async () => {
    const want = await quantizeAndCompare(page, work, HAND, 'hand_like.tflite', sampleFor(api, HAND, work));
    const blocks = page.locator(testId('compare-output'));
    const n = await blocks.count();
    assert(n === 4, `${String(n)} output blocks, the model has 4 outputs`);
    let landmarkBlocks = 0;
    for (let k = 0; k < n; k++) {
      const block = blocks.nth(k);
      const words = await blockWords(block);
      assert(!/class/i.test(words), `class wording on output ${String(k)}: ${words}`);
      assert((await block.locator(testId('compare-topk-float')).count()) === 0, `top-k lists on output ${String(k)}`);
      const f = want.output('float', k);
      const kind = await block.getAttribute('data-kind');
      if (f.length === 63) {
        assert(kind === 'landmarks', `output ${String(k)} [1,63] read as ${String(kind)}`);
        await checkLandmarks(block, f, want.output('quant', k), 3);
        landmarkBlocks++;
      } else {
        assert(kind === 'values', `output ${String(k)} [1,1] read as ${String(kind)}`);
      }
    }
    assert(landmarkBlocks === 2, `${String(landmarkBlocks)} landmark outputs, the model has 2`);
    const first = page.locator(`${testId('compare-output')}[data-kind="landmarks"]`).first();
    await first.scrollIntoViewIfNeeded();
    await shot(first, '40-kinds-landmarks');
  });

  await check('kinds: a [1,16] FULLY_CONNECTED regression (sparse_fc) reads as 8 points of 2 with the CLI\'s errors', async () => {
    const want = await quantizeAndCompare(page, work, REGRESSION, 'sparse_fc.tflite', sampleFor(api, REGRESSION, work));
    const block = page.locator(testId('compare-output')).first();
    assert((await block.getAttribute('data-kind')) === 'landmarks', `read as ${String(await block.getAttribute('data-kind'))}`);
    assert(!/class/i.test(await blockWords(block)), 'class wording on a regression output');
    await checkLandmarks(block, want.float, want.quant, 2);
  });

  await check('kinds: overriding the kind changes the comparison (values table, class agreement) and the choice survives a second run', async () => {
    const block = () => page.locator(testId('compare-output')).first();
    await block().locator(testId('compare-kind-select')).selectOption('values');
    assert((await block().getAttribute('data-kind')) === 'values', 'the override to values did not apply');
    assert((await block().locator(`${testId('compare-values')} tbody tr`).count()) === 8, 'no values table after the override');
    assert((await block().locator(testId('compare-point-overlay')).count()) === 0, 'the overlay stayed');
    assert((await text(page, 'compare-kind-reason')).startsWith('your choice'), 'the reason does not say it is the user\'s choice');
    await shot(block(), '46-kinds-values');
    await block().locator(testId('compare-kind-select')).selectOption('classes');
    assert((await block().locator(testId('compare-top1')).count()) === 1 && (await block().locator(`${testId('compare-topk-float')} li`).count()) === 5, 'no class agreement after the override');
    await block().locator(testId('compare-kind-select')).selectOption('embedding');
    const cos = Number(await block().locator(testId('compare-kind-embedding')).getAttribute('data-cosine'));
    assert(cos > -1 && cos <= 1, `cosine ${String(cos)}`);
    await shot(block(), '47-kinds-embedding');
    await page.locator(testId('compare-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForPanel(page, 'compare', ['done', 'error']);
    assert((await block().getAttribute('data-kind')) === 'embedding', `after a second run the kind is ${String(await block().getAttribute('data-kind'))}`);
    // A model loaded again starts from the guess (the choice lasts while the model stays loaded).
    await dropFile(page, 'sparse_fc-again.tflite', readFileSync(REGRESSION));
    await waitForModel(page, 'sparse_fc-again.tflite');
    await calibrateRandom(page, { count: 8, lo: -1, hi: 1, seed: 7 });
    await quantizeOnPage(page);
    await runCompare(page, sampleFor(api, REGRESSION, work));
    assert((await block().getAttribute('data-kind')) === 'landmarks' && (await text(page, 'compare-kind-reason')).startsWith('guessed'), `a reloaded model kept the choice: ${String(await block().getAttribute('data-kind'))}`);
    // Choosing the guessed kind again is "guessed", not a choice.
    await block().locator(testId('compare-kind-select')).selectOption('values');
    await block().locator(testId('compare-kind-select')).selectOption('landmarks');
    assert((await block().getAttribute('data-kind')) === 'landmarks' && (await text(page, 'compare-kind-reason')).startsWith('guessed'), 'back to the guess');
  });
}

async function mask(ctx) {
  const { page, work, api } = await env(ctx);
  await check('kinds: a [1,8,8,4] spatial output reads as a mask: float / quantized / |diff| images of one channel, its error equal to the CLI\'s numbers; another channel redraws', async () => {
    const sample = sampleFor(api, SPATIAL, work);
    const want = await quantizeAndCompare(page, work, SPATIAL, 'residual.tflite', sample);
    const block = page.locator(testId('compare-output')).first();
    assert((await block.getAttribute('data-kind')) === 'mask', `read as ${String(await block.getAttribute('data-kind'))}`);
    for (const id of ['compare-mask-float', 'compare-mask-quant', 'compare-mask-diff']) {
      const c = block.locator(testId(id));
      assert((await c.getAttribute('width')) === '8' && (await c.getAttribute('height')) === '8' && (await c.isVisible()), `${id} is not an 8×8 image on the page`);
    }
    const channelErrors = (c) => absErrors(want.float.filter((_, i) => i % 4 === c), want.quant.filter((_, i) => i % 4 === c));
    const m = block.locator(testId('compare-kind-mask'));
    for (const c of [0, 2]) {
      if (c !== 0) await block.locator(testId('compare-mask-channel')).selectOption(String(c));
      const e = channelErrors(c);
      assert((await m.getAttribute('data-channel')) === String(c), `channel ${String(await m.getAttribute('data-channel'))}`);
      near(Number(await m.getAttribute('data-max')), e.max, `channel ${String(c)} max |err|`);
      near(Number(await m.getAttribute('data-mean')), e.mean, `channel ${String(c)} mean |err|`);
    }
    // The float image's pixels: grey levels of channel 2 scaled over both models' range.
    const grey = await block.locator(testId('compare-mask-float')).evaluate((c) => Array.from(c.getContext('2d').getImageData(0, 0, 8, 8).data.filter((_, i) => i % 4 === 0)));
    const f2 = want.float.filter((_, i) => i % 4 === 2);
    const both = [...f2, ...want.quant.filter((_, i) => i % 4 === 2)];
    const [lo, hi] = [Math.min(...both), Math.max(...both)];
    const expected = f2.map((v) => Math.round((255 * (v - lo)) / (hi - lo)));
    assert(grey.every((g, i) => Math.abs(g - expected[i]) <= 1), `float image ${JSON.stringify(grey.slice(0, 8))}, expected ${JSON.stringify(expected.slice(0, 8))}`);
    await block.scrollIntoViewIfNeeded();
    await shot(block, '41-kinds-mask');
    await page.setViewportSize({ width: 400, height: 800 });
    await noSidewaysScroll(page);
    await block.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, '42-kinds-mask-400.png'), timeout: STEP_TIMEOUT_MS });
    await page.setViewportSize(VIEWPORT);
  });

  await check('kinds: a SOFTMAX classifier (mobilenet_block) still reads as class scores with top-1 / top-5 agreement', async () => {
    const floatPath = join(GOLDEN, 'model_float.tflite');
    await quantizeAndCompare(page, work, floatPath, 'mobilenet_block.tflite', sampleFor(api, floatPath, work));
    const block = page.locator(testId('compare-output')).first();
    assert((await block.getAttribute('data-kind')) === 'classes', `read as ${String(await block.getAttribute('data-kind'))}`);
    const top1 = await text(page, 'compare-top1');
    assert(/^Top-1 (agrees|differs)/.test(top1) && /Top-5: \d of 5 classes in common/.test(top1), `class agreement: ${top1}`);
    await block.scrollIntoViewIfNeeded();
    await shot(block, '43-kinds-classes');
  });
}

/** IoU of two [ymin, xmin, ymax, xmax] boxes (0 when the union is empty). */
function cornerIou(a, b) {
  const area = (r) => Math.max(0, r[2] - r[0]) * Math.max(0, r[3] - r[1]);
  const inter = Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0])) * Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
  const union = area(a) + area(b) - inter;
  return union > 0 ? inter / union : 0;
}

async function boxes(ctx) {
  const { page, work } = await env(ctx);
  await check('kinds: an SSD with TFLite_Detection_PostProcess: its boxes read as [ymin, xmin, ymax, xmax] with the mean IoU of the CLI\'s boxes, classes / scores / count as values', async () => {
    const want = await quantizeAndCompare(page, work, join(DETECTOR, 'model.tflite'), 'ssd.tflite', join(DETECTOR, 'input_0.npy'));
    const kinds = await page.locator(testId('compare-output')).evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')));
    assert(JSON.stringify(kinds) === JSON.stringify(['boxes', 'values', 'values', 'values']), `kinds ${JSON.stringify(kinds)}`);
    const block = page.locator(testId('compare-output')).first();
    const b = block.locator(testId('compare-kind-boxes'));
    assert((await b.getAttribute('data-format')) === 'corners', `format ${String(await b.getAttribute('data-format'))}`);
    // Slot by slot; slots all zeros in both models (unused) left out.
    const rows = Array.from({ length: want.float.length / 4 }, (_, r) => [want.float.slice(4 * r, 4 * r + 4), want.quant.slice(4 * r, 4 * r + 4)]);
    const used = rows.filter(([f, q]) => f.some((v) => v !== 0) || q.some((v) => v !== 0));
    const ious = used.map(([f, q]) => cornerIou(f, q));
    const real = want.output('float', 3)[0];
    assert(real >= 1 && used.length >= 1, `the float model finds ${String(real)} boxes on the sample: nothing to compare`);
    assert(Number(await b.getAttribute('data-boxes')) === used.length, `${String(await b.getAttribute('data-boxes'))} boxes compared, the CLI's outputs have ${String(used.length)} used slots`);
    assert(Number(await b.getAttribute('data-empty')) === rows.length - used.length, `${String(await b.getAttribute('data-empty'))} empty slots`);
    near(Number(await b.getAttribute('data-mean-iou')), ious.reduce((x, y) => x + y, 0) / ious.length, 'mean IoU');
    near(Number(await b.getAttribute('data-min-iou')), Math.min(...ious), 'lowest IoU');
    const drawn = await b.locator(`${testId('compare-box-overlay')} rect.float-box`).count();
    assert(drawn === used.length, `${String(drawn)} float boxes drawn, ${String(used.length)} compared`);
    await shot(block, '45-kinds-boxes');
    // Read as centre-size instead: the numbers follow the choice.
    await block.locator(testId('compare-box-format')).selectOption('center');
    const c = page.locator(testId('compare-output')).first().locator(testId('compare-kind-boxes'));
    assert((await c.getAttribute('data-format')) === 'center', 'the box format did not change');
  });
}

async function narrow(ctx) {
  const { page, work, api } = await env(ctx);
  await check('kinds: the landmark view at 400 px wide: no sideways scrolling, the overlay inside the viewport', async () => {
    const sample = sampleFor(api, HAND, work);
    await dropFile(page, 'hand_like-400.tflite', readFileSync(HAND));
    await waitForModel(page, 'hand_like-400.tflite');
    await calibrateRandom(page, { count: 8, lo: -1, hi: 1, seed: 7 });
    await quantizeOnPage(page);
    await page.setViewportSize({ width: 400, height: 800 });
    await runCompare(page, sample);
    await noSidewaysScroll(page);
    const overlay = page.locator(testId('compare-point-overlay')).first();
    assert((await overlay.locator('circle.float').count()) === 21, 'the overlay does not show the 21 hand points');
    await overlay.scrollIntoViewIfNeeded();
    const box = await overlay.boundingBox();
    assert(box && box.x >= 0 && box.x + box.width <= 400, `the overlay spans ${JSON.stringify(box)}`);
    await page.screenshot({ path: join(ARTIFACTS, '44-kinds-landmarks-400.png'), timeout: STEP_TIMEOUT_MS });
    await page.setViewportSize(VIEWPORT);
  });
}

export const cases = [
  { name: 'kinds-landmarks', needs: [], run: landmarks },
  { name: 'kinds-mask', needs: [], run: mask },
  { name: 'kinds-boxes', needs: [], run: boxes },
  { name: 'kinds-narrow', needs: [], run: narrow },
];
