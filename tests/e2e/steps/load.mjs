// The main page: the example model is summarised and drawn, a picked or dropped model is shown,
// broken files give the engine's error while the loaded model stays, the download is the rewrite.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pseudoRandomBytes, shapeText } from '../lib/data.mjs';
import { CLI, INT8_MODEL, engineError } from '../lib/expected.mjs';
import { STEP_TIMEOUT_MS, assert, check, withTimeout } from '../lib/harness.mjs';
import { dropFile, screenshot, testId, text, waitForModel, waitForSimdEngine, waitForState } from '../lib/page.mjs';

async function load({ api, page, base, example, expected, mainGraph, inputTensor }) {
  const rewritten = api.rewriteModel(example, false);
  const truncated = example.slice(0, Math.floor(example.length / 2));
  const noise = pseudoRandomBytes(4096, 7);

  await check('page loads and summarises example.tflite', async () => {
    await page.goto(base, { timeout: STEP_TIMEOUT_MS });
    await waitForModel(page, 'example.tflite');
    const ops = await text(page, 'op-counts');
    for (const { op } of expected.operator_counts) assert(ops.includes(op), `op counts table lacks ${op}: ${ops}`);
    assert(ops.includes('CONV_2D'), 'op counts table lacks CONV_2D');
    const io = await text(page, 'io-table');
    assert(io.includes(inputTensor.name), `inputs table lacks input tensor ${inputTensor.name}`);
    assert(io.includes(shapeText(inputTensor)), `inputs table lacks input shape ${shapeText(inputTensor)}: ${io}`);
    assert(io.includes('float32'), 'inputs table lacks dtype float32');
    await screenshot(page, '01-example');
  });

  await check('engine badge says SIMD and the engine version', async () => {
    const badge = page.locator(testId('engine-badge'));
    await page.waitForFunction(() => document.querySelector('[data-testid="engine-badge"]')?.getAttribute('data-engine') !== 'loading', null, { timeout: STEP_TIMEOUT_MS });
    const label = (await badge.textContent()) ?? '';
    const { build, dot } = await waitForSimdEngine(page);
    // `auto` takes the relaxed build exactly where the browser's int8 dot product is exact with
    // full-range bytes (the loader's probe; on x86-64 with AVX-VNNI, Chromium reads them unsigned).
    assert(build === 'simd' || (build === 'relaxed' && (dot === 'unsigned' || dot === 'signed')), `badge build ${String(build)}, dot ${String(dot)}: ${label}`);
    assert(build === 'relaxed' ? label.includes('relaxed SIMD') : !label.includes('relaxed'), `badge label ${label} for build ${String(build)}`);
    assert(/\bSIMD\b/.test(label) && !label.includes('no SIMD'), `badge does not say SIMD: ${label}`);
    assert(label.includes(api.version()), `badge lacks version ${api.version()}: ${label}`);
  });

  await check('tensor table lists the tensors of subgraph 0', async () => {
    const rows = await page.locator(`${testId('tensor-table')} tbody tr`).count();
    const want = Math.min(500, mainGraph.tensors.length);
    assert(rows === want, `tensor table has ${String(rows)} rows, expected ${String(want)}`);
  });

  await check('the graph shows one box per operator, the inputs and outputs, and shape/dtype edge labels', async () => {
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="graph-op"]').length === n, mainGraph.operators.length, { timeout: STEP_TIMEOUT_MS });
    const boxes = await page.locator(testId('graph-op')).count();
    assert(boxes === mainGraph.operators.length, `graph has ${String(boxes)} op boxes, the model ${String(mainGraph.operators.length)} operators`);
    const labels = await page.locator(`${testId('graph-op')} .graph-node-label`).allTextContents();
    assert(JSON.stringify(labels) === JSON.stringify(mainGraph.operators.map((o) => o.op)), `op boxes ${labels.join(',')}`);
    assert((await page.locator(testId('graph-input')).count()) === mainGraph.inputs.length, 'input nodes');
    assert((await page.locator(testId('graph-output')).count()) === mainGraph.outputs.length, 'output nodes');
    const edgeText = (await page.locator(`${testId('graph')} .graph-edge-label`).allTextContents()).join(' | ');
    assert(edgeText.includes(`${shapeText(inputTensor)} float32`), `edge labels lack the input's shape and dtype: ${edgeText}`);
    // Zoom and pan change the view transform.
    const scaleOf = () => page.locator(`${testId('graph')} .graph-viewport`).evaluate((g) => Number(/scale\(([\d.]+)\)/.exec(g.getAttribute('transform') ?? '')?.[1] ?? NaN));
    const before = await scaleOf();
    await page.locator(testId('graph-zoom-in')).click();
    const after = await scaleOf();
    assert(after > before, `zoom in: scale ${String(before)} → ${String(after)}`);
    const box = await page.locator(testId('graph-svg')).boundingBox();
    const translateOf = () => page.locator(`${testId('graph')} .graph-viewport`).evaluate((g) => g.getAttribute('transform') ?? '');
    const t0 = await translateOf();
    await page.mouse.move(box.x + 20, box.y + 20);
    await page.mouse.down();
    await page.mouse.move(box.x + 80, box.y + 60, { steps: 4 });
    await page.mouse.up();
    assert((await translateOf()) !== t0, 'dragging did not pan');
    await page.locator(testId('graph-fit')).click();
  });

  await check('clicking an op box shows the op in the side panel; clicking a tensor row shows the tensor', async () => {
    const conv = mainGraph.operators.find((o) => o.op === 'CONV_2D');
    assert(conv, 'example has no CONV_2D');
    await page.locator(`${testId('graph-op')}[data-op="${String(conv.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    await page.waitForFunction((t) => document.querySelector('[data-testid="details-title"]')?.textContent === t, `CONV_2D #${String(conv.index)}`, { timeout: STEP_TIMEOUT_MS });
    const inputs = await text(page, 'details-inputs');
    const weights = mainGraph.tensors.find((t) => t.index === conv.inputs[1]);
    assert(inputs.includes('weights') && inputs.includes(weights.name), `inputs list lacks the weights ${weights.name}: ${inputs}`);
    // What runs and how the quantizer treats it: the op table's sentence, as `zeropoint inspect` says it.
    const support = (await text(page, 'op-support')).trim();
    const examplePath = fileURLToPath(new URL('../../../www/assets/example.tflite', import.meta.url));
    const line = execFileSync(CLI, ['inspect', examplePath], { encoding: 'utf8' }).split('\n').find((l) => l.includes('× CONV_2D '));
    assert(support.startsWith('Runs float, int8') && line?.trimEnd().endsWith(support), `details panel says "${support}", zeropoint inspect "${line}"`);
    assert(await page.locator(`${testId('graph-op')}[data-op="${String(conv.index)}"].selected`).isVisible(), 'the op box is not highlighted');
    await screenshot(page, '12-graph-op', { target: true });
    await page.locator(`${testId('tensor-table')} tbody tr[data-tensor="${String(inputTensor.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    await page.waitForFunction((t) => document.querySelector('[data-testid="details-title"]')?.textContent === t, `Tensor #${String(inputTensor.index)}`, { timeout: STEP_TIMEOUT_MS });
    const quant = await text(page, 'details-quant');
    assert(quant.includes('float32'), `a float tensor's quantization: ${quant}`);
  });

  await check('an int8 model shows scale/zero point, per-channel scales as a chart, and the multipliers M0/shift', async () => {
    const bytes = new Uint8Array(readFileSync(INT8_MODEL));
    const want = api.inspectModel(bytes).subgraphs[0];
    await page.locator(testId('file-input')).setInputFiles({ name: 'model_int8.tflite', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
    await waitForModel(page, 'model_int8.tflite');
    assert((await page.locator(testId('graph-op')).count()) === want.operators.length, 'op boxes of the int8 model');
    const tableText = await text(page, 'tensor-table');
    assert(/per-channel ×\d+/.test(tableText), 'tensor table lacks "per-channel ×N"');
    const conv = want.operators.find((o) => o.op === 'CONV_2D');
    const byIndex = (i) => want.tensors.find((t) => t.index === i);
    const [x, w, y] = [byIndex(conv.inputs[0]), byIndex(conv.inputs[1]), byIndex(conv.outputs[0])];
    await page.locator(`${testId('graph-op')}[data-op="${String(conv.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    const panel = testId('op-requant');
    await page.locator(`${panel} ${testId('requant-table')}`).waitFor({ timeout: STEP_TIMEOUT_MS });
    const m0 = await page.locator(`${panel} ${testId('requant-m0')}`).allTextContents();
    const shifts = await page.locator(`${panel} ${testId('requant-shift')}`).allTextContents();
    const expected = api.requantMultipliers(x.quantization.scale[0], Float32Array.from(w.quantization.scale), y.quantization.scale[0]);
    assert(m0.length === Math.min(12, expected.length) && m0.length > 0, `${String(m0.length)} multiplier rows`);
    m0.forEach((v, c) => {
      assert(Number(v) === expected[c].m0, `channel ${String(c)}: M0 ${v}, engine ${String(expected[c].m0)}`);
      assert(Number(shifts[c].replace('\u2212', '-')) === expected[c].shift, `channel ${String(c)}: shift ${shifts[c]}, engine ${String(expected[c].shift)}`);
      // Independent check: M0 · 2^(shift − 31) is S_x · S_w / S_y to within the Q31 rounding.
      const m = (x.quantization.scale[0] * w.quantization.scale[c]) / y.quantization.scale[0];
      assert(Math.abs(expected[c].m0 * 2 ** (expected[c].shift - 31) - m) <= m * 2 ** -30, `channel ${String(c)}: M0/shift do not give M`);
    });
    assert(((await page.locator(`${panel} ${testId('requant-formula')}`).textContent()) ?? '').includes('M = S_x · S_w / S_y'), 'formula missing');
    // The weights: per-channel scales as a bar chart.
    await page.locator(`${testId('details-inputs')} button[data-tensor="${String(w.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('details-scale-chart')).waitFor({ timeout: STEP_TIMEOUT_MS });
    const head = await text(page, 'details-quant');
    assert(head.includes(`per-channel ×${String(w.quantization.scale.length)}`), `weights details: ${head}`);
    await screenshot(page, '13-int8-weights', { target: true });
    // A per-tensor activation: scale and zero point as stored.
    await page.locator(`${testId('tensor-table')} tbody tr[data-tensor="${String(x.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('details-scale')).waitFor({ timeout: STEP_TIMEOUT_MS });
    const scale = Number(await page.locator(testId('details-scale')).getAttribute('data-value'));
    const zp = Number(await page.locator(testId('details-zero-point')).getAttribute('data-value'));
    assert(scale === x.quantization.scale[0] && zp === x.quantization.zero_point[0], `input scale ${String(scale)} zp ${String(zp)}`);
  });

  await check('choosing a valid .tflite with the file input shows it', async () => {
    await page.locator(testId('file-input')).setInputFiles({
      name: 'picked.tflite',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from(rewritten),
    });
    await waitForModel(page, 'picked.tflite');
    const stats = await text(page, 'model-stats');
    assert(stats.includes(rewritten.length.toLocaleString('en-US')) || rewritten.length < 1024, `size not shown: ${stats}`);
    await screenshot(page, '02-file-input');
  });

  await check('dropping a truncated file shows the engine error and keeps the model', async () => {
    const message = engineError(api, truncated);
    await dropFile(page, 'truncated.tflite', truncated);
    await waitForState(page, 'error');
    const banner = page.locator(testId('error-banner'));
    assert(await banner.isVisible(), 'error banner is not visible');
    const shown = (await banner.textContent()) ?? '';
    assert(shown.includes('truncated.tflite'), `banner lacks the file name: ${shown}`);
    assert(shown.includes(message), `banner lacks the engine message "${message}": ${shown}`);
    assert((await text(page, 'model-name')) === 'picked.tflite', 'the previous model is no longer shown');
    assert((await page.locator(testId('graph-op')).count()) === mainGraph.operators.length, 'the previous model\'s graph is gone');
    assert(await page.locator(testId('summary')).isVisible(), 'summary hidden after the error');
    await screenshot(page, '03-error-truncated');
  });

  await check('dropping random bytes shows an error', async () => {
    const message = engineError(api, noise);
    await dropFile(page, 'noise.tflite', noise);
    await page.waitForFunction(
      () => document.querySelector('[data-testid="error-banner"]')?.textContent?.includes('noise.tflite'),
      null,
      { timeout: STEP_TIMEOUT_MS },
    );
    await waitForState(page, 'error');
    const shown = await text(page, 'error-banner');
    assert(shown.includes(message), `banner lacks the engine message "${message}": ${shown}`);
  });

  await check('a valid drop after errors works and clears the error', async () => {
    await dropFile(page, 'dropped.tflite', example);
    await waitForModel(page, 'dropped.tflite');
    assert(!(await page.locator(testId('error-banner')).isVisible()), 'error banner still visible');
  });

  await check('download button produces the rewritten model', async () => {
    const downloadEvent = page.waitForEvent('download', { timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('download-button')).click({ timeout: STEP_TIMEOUT_MS });
    const download = await downloadEvent;
    assert(download.suggestedFilename() === 'dropped.rewritten.tflite', `file name ${download.suggestedFilename()}`);
    const path = await withTimeout(download.path(), STEP_TIMEOUT_MS, 'download');
    const bytes = new Uint8Array(readFileSync(path));
    assert(bytes.length > 0, 'downloaded no bytes');
    assert(Buffer.from(bytes.slice(4, 8)).toString('latin1') === 'TFL3', 'download lacks the TFL3 identifier');
    assert(Buffer.compare(Buffer.from(bytes), Buffer.from(rewritten)) === 0, 'download differs from rewriteModel() in Node');
    await page.waitForFunction(() => /\d/.test(document.querySelector('[data-testid="download-info"]')?.textContent ?? ''), null, { timeout: STEP_TIMEOUT_MS });
    const info = await text(page, 'download-info');
    const size = bytes.length < 1024 ? `${String(bytes.length)} B` : `${bytes.length.toLocaleString('en-US')} bytes`;
    assert(info.includes(size), `download info lacks the size ${size}: ${info}`);
    await screenshot(page, '04-download');
  });
}

export const cases = [{ name: 'load', needs: [], run: load }];
