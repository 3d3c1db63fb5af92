// A model with several signatures on the page: tests/realworld/signatures (encode / decode / score,
// one subgraph each, made by tests/tools/realworld/signatures.py). The summary offers a signature
// picker (default `decode`, the signature of subgraph 0); choosing `encode` makes the Model tab
// show its subgraph and Compare run it on both models: one output, named by the signature
// (`code`), whose float-vs-dynamic-range difference is what the engine in Node gives for that
// signature on the CLI's dynamic-range model, and whose float values (in Node) are LiteRT's within
// FLOAT_REL (see the TANH note below).
//
// Case 'signatures-calibrate': the same model calibrated by signature on the page (one .npy per
// input of each signature, in the pickers the Calibrate tab lists per signature) and quantized to
// int8: the downloaded model and statistics equal `zeropoint quantize / calibrate
// --signature-data` on the same files byte for byte; the Ranges view lists every signature's
// tensors; and each signature, chosen in the Compare tab's picker, runs on its calibration sample
// 0 with the float outputs LiteRT gave for it (the golden's sig_KEY_out_NAME.npy).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { npyBytes, npyRows } from '../lib/data.mjs';
import { cli } from '../lib/expected.mjs';
import { ARTIFACTS, ROOT, STEP_TIMEOUT_MS, assert, check } from '../lib/harness.mjs';
import { downloadOf, dropFile, quantizeOnPage, screenshot, showTab, testId, text, waitForModel, waitForPanel } from '../lib/page.mjs';

const DIR = join(ROOT, 'tests/realworld/signatures');

/** Output 0 of signature `key` of `bytes` on `input`, with the engine in Node. */
function nodeRun(api, bytes, key, input) {
  const runner = new api.Runner(bytes, 'fast', undefined, undefined, key);
  try {
    runner.setInput(0, Float32Array.from(input));
    runner.invoke();
    return Array.from(runner.outputFloat(0));
  } finally {
    runner.free();
  }
}

async function signatures({ api, page, example }) {
  await check('A model with three signatures: the picker lists them (decode first chosen); encode runs on Compare with its own output name and the engine\'s numbers for that signature', async () => {
    const work = join(ARTIFACTS, 'signatures');
    mkdirSync(work, { recursive: true });
    const model = join(DIR, 'model.tflite');
    const input = join(DIR, 'sig_encode_in_features.npy');
    const bytes = new Uint8Array(readFileSync(model));
    cli(['quantize', model, '--mode', 'dynamic', '--io', 'float', '-o', join(work, 'dynamic.tflite')]);
    const quant = new Uint8Array(readFileSync(join(work, 'dynamic.tflite')));
    const x = npyRows(input)[0];
    const wantFloat = nodeRun(api, bytes, 'encode', x);
    const litert = npyRows(join(DIR, 'sig_encode_out_code.npy'))[0];
    // Within FLOAT_REL of LiteRT, not bit for bit: in wasm, f32::tanh is Rust's own libm port, not
    // glibc's tanhf that LiteRT (and our native build) call, and differs by 1 ulp on some inputs
    // (10 of these 48; `decode`, without TANH, is bit-exact in wasm too).
    const rel = Math.max(...wantFloat.map((v, i) => Math.abs(v - litert[i]) / Math.max(Math.abs(litert[i]), 1e-30)));
    assert(wantFloat.length === 48 && rel <= 1e-5, `the engine in Node is ${String(rel)} (relative) from LiteRT's encode output`);
    const wantQuant = nodeRun(api, quant, 'encode', x);
    const wantMax = Math.max(...wantFloat.map((v, i) => Math.abs(v - wantQuant[i])));

    await dropFile(page, 'signatures.tflite', bytes);
    await waitForModel(page, 'signatures.tflite');
    await showTab(page, 'model');
    const picker = page.locator(testId('signature-picker'));
    const keys = await picker.locator('option').evaluateAll((os) => os.map((o) => o.value));
    assert(JSON.stringify(keys) === '["decode","encode","score"]', `picker offers ${JSON.stringify(keys)}`);
    assert((await picker.inputValue()) === 'decode', `first choice ${await picker.inputValue()}, want decode (subgraph 0)`);
    await picker.selectOption('encode');
    assert((await page.locator(testId('signature-picker')).inputValue()) === 'encode', 'the choice did not stay');
    assert((await text(page, 'signature-table')).includes('encode ✓'), 'the table does not mark encode');
    await screenshot(page, '12-signatures');

    await showTab(page, 'quantize');
    await page.locator(testId('quant-mode')).selectOption('dynamic');
    await quantizeOnPage(page);
    await showTab(page, 'compare');
    await page.locator(testId('compare-sample-npy')).check({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('compare-npy')).setInputFiles(input);
    await page.locator(testId('compare-index')).fill('0');
    await page.locator(testId('compare-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForPanel(page, 'compare', ['done', 'error']);
    assert((await page.locator(testId('compare')).getAttribute('data-state')) === 'done', `compare failed: ${await text(page, 'error-banner')}`);
    const blocks = page.locator(testId('compare-output'));
    assert((await blocks.count()) === 1, `${String(await blocks.count())} outputs, encode has 1`);
    const head = (await blocks.first().locator('h5 code').textContent()) ?? '';
    assert(head === 'code', `output named '${head}', the signature names it 'code'`);
    const max = Number(await blocks.first().locator(testId('compare-diff')).getAttribute('data-max'));
    assert(max === wantMax, `largest |float − quantized| ${String(max)} on the page, ${String(wantMax)} in Node`);

    // Back to a plain model for the cases after this one.
    await showTab(page, 'quantize');
    await page.locator(testId('quant-mode')).selectOption('int8');
    await dropFile(page, 'dropped.tflite', example);
    await waitForModel(page, 'dropped.tflite');
    assert((await page.locator(testId('signature-picker')).count()) === 0, 'a picker for a model with one signature');
    await showTab(page, 'model');
  });
}

/** The signatures of tests/realworld/signatures with their inputs and outputs (signature order). */
const SIGNATURES = [
  { key: 'decode', inputs: ['code'], outputs: ['reconstruction'] },
  { key: 'encode', inputs: ['features'], outputs: ['code'] },
  { key: 'score', inputs: ['candidate', 'query'], outputs: ['query_code', 'similarity'] },
];

/** Operators of each signature's subgraph. */
const OPS = { decode: 1, encode: 2, score: 6 };

async function signaturesCalibrate({ page, example }) {
  const work = join(ARTIFACTS, 'signatures');
  mkdirSync(work, { recursive: true });
  const model = join(DIR, 'model.tflite');
  // Each input's samples: the golden's input (sample 0, whose LiteRT outputs the golden has)
  // followed by its 8 calibration samples, with a samples axis.
  const file = (key, name) => {
    const path = join(work, `sig_${key}_${name}.npy`);
    const first = npyRows(join(DIR, `sig_${key}_in_${name}.npy`));
    const rest = npyRows(join(DIR, `sig_${key}_calib_${name}.npy`));
    const shape = /'shape': \(([^)]*)\)/.exec(readFileSync(join(DIR, `sig_${key}_in_${name}.npy`)).subarray(10, 138).toString('latin1'))?.[1].split(',').map((d) => d.trim()).filter((d) => d !== '').map(Number) ?? [];
    writeFileSync(path, npyBytes([1 + rest.length, ...shape], Float32Array.from([...first.flat(), ...rest.flat()])));
    return path;
  };
  const data = SIGNATURES.flatMap(({ key, inputs }) => inputs.flatMap((name) => ['--signature-data', `${key}=${file(key, name)}`]));

  await check('Calibrate tab on a model with three signatures: one group of .npy pickers per signature (its inputs, named by the signature), calibrated each on its own samples', async () => {
    await dropFile(page, 'signatures.tflite', new Uint8Array(readFileSync(model)));
    await waitForModel(page, 'signatures.tflite');
    await showTab(page, 'calibrate');
    assert(await page.locator(testId('calibrate-signatures')).isVisible(), 'no note on calibrating by signature');
    assert(await page.locator(testId('source-images')).isDisabled(), 'images offered for several signatures');
    await page.locator(testId('source-npy')).check({ timeout: STEP_TIMEOUT_MS });
    const groups = page.locator(testId('npy-signature'));
    const keys = await groups.evaluateAll((gs) => gs.map((g) => g.getAttribute('data-signature')));
    assert(JSON.stringify(keys) === '["decode","encode","score"]', `signature groups ${JSON.stringify(keys)}`);
    for (const { key, inputs, outputs } of SIGNATURES) {
      const group = page.locator(`${testId('npy-signature')}[data-signature="${key}"]`);
      const legend = (await group.locator('legend').textContent()) ?? '';
      assert(legend.includes(key) && outputs.every((o) => legend.includes(o)), `legend of ${key}: ${legend}`);
      // The pickers follow the subgraph's input order, each named by the signature.
      const names = await group.locator('label.npy-row > code').allTextContents();
      assert(JSON.stringify([...names].sort()) === JSON.stringify(inputs), `${key} lists inputs ${JSON.stringify(names)}`);
      for (const [k, name] of names.entries()) await page.locator(testId(`npy-input-${key}-${String(k)}`)).setInputFiles(file(key, name));
    }
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForPanel(page, 'calibration', ['done', 'error']);
    assert((await page.locator(testId('calibration')).getAttribute('data-state')) === 'done', `calibration failed: ${await text(page, 'error-banner')}`);
    const sections = await page.locator(testId('signature-stats')).evaluateAll((ss) => ss.map((x) => x.getAttribute('data-signature')));
    assert(JSON.stringify(sections) === '["decode","encode","score"]', `result tables for ${JSON.stringify(sections)}`);
    await screenshot(page, '12-signatures-calibrated');
  });

  await check('Ranges view: the tensors of every signature, grouped by signature', async () => {
    await showTab(page, 'ranges');
    const groups = await page.locator(`${testId('ranges-tensor')} optgroup`).evaluateAll((gs) => gs.map((g) => [g.label, g.children.length]));
    assert(JSON.stringify(groups.map(([l]) => l)) === '["signature decode","signature encode","signature score"]', `groups ${JSON.stringify(groups)}`);
    assert(groups.every(([, n]) => n > 0), `an empty group: ${JSON.stringify(groups)}`);
    // A tensor of `score` shows its own numbers.
    const option = page.locator(`${testId('ranges-tensor')} optgroup[label="signature score"] option`).first();
    await page.locator(testId('ranges-tensor')).selectOption((await option.getAttribute('value')) ?? '');
    await page.waitForFunction(() => document.querySelector('[data-testid="ranges"]')?.getAttribute('data-state') === 'ready', undefined, { timeout: STEP_TIMEOUT_MS });
    const steps = await text(page, 'ranges-steps');
    assert(steps.includes('The 9 calibration samples'), `score has 9 samples: ${steps.slice(0, 200)}`);
  });

  await check('Quantize int8: the downloaded model and statistics equal zeropoint quantize / calibrate --signature-data on the same files, byte for byte', async () => {
    const cliModel = join(work, 'by_signature_int8.tflite');
    const cliStats = join(work, 'by_signature.stats.json');
    cli(['quantize', model, '--mode', 'int8', '--io', 'float', ...data, '-o', cliModel]);
    cli(['calibrate', model, ...data, '-o', cliStats]);
    await showTab(page, 'quantize');
    await page.locator(testId('quant-mode')).selectOption('int8');
    await page.locator(testId('quant-io')).selectOption('float');
    await quantizeOnPage(page);
    const info = await text(page, 'quant-calibration');
    assert(info.includes('3 signatures'), `calibration line: ${info}`);
    const got = await downloadOf(page, 'quant-download-model');
    const want = readFileSync(cliModel);
    assert(Buffer.compare(got.bytes, want) === 0, `the page's model (${String(got.bytes.length)} bytes) differs from the CLI's (${String(want.length)} bytes)`);
    const stats = await downloadOf(page, 'quant-download-stats');
    assert(Buffer.compare(stats.bytes, readFileSync(cliStats)) === 0, 'the statistics differ from zeropoint calibrate --signature-data');
  });

  await check('Compare tab: each signature chosen in its picker runs calibration sample 0 with LiteRT\'s float outputs for it', async () => {
    await showTab(page, 'compare');
    const picker = page.locator(testId('compare-signature-picker'));
    const labels = await picker.locator('option').allTextContents();
    assert(labels.includes('score (candidate, query \u2192 query_code, similarity)'), `picker options ${JSON.stringify(labels)}`);
    await page.locator(testId('compare-sample-calibration')).check({ timeout: STEP_TIMEOUT_MS });
    for (const { key, outputs } of SIGNATURES) {
      await picker.selectOption(key);
      await page.locator(testId('compare-index')).fill('0');
      await page.locator(testId('compare-start')).click({ timeout: STEP_TIMEOUT_MS });
      await waitForPanel(page, 'compare', ['done', 'error']);
      assert((await page.locator(testId('compare')).getAttribute('data-state')) === 'done', `${key}: compare failed: ${await text(page, 'error-banner')}`);
      const blocks = page.locator(testId('compare-output'));
      const names = await blocks.locator('h5 code').allTextContents();
      assert(JSON.stringify(names) === JSON.stringify(outputs), `${key}: outputs ${JSON.stringify(names)}`);
      for (const [k, name] of outputs.entries()) {
        // The block carries the float output's first values exactly (data-float).
        const got = JSON.parse((await blocks.nth(k).getAttribute('data-float')) ?? '[]');
        // The golden holds the one sample (no samples axis).
        const litert = npyRows(join(DIR, `sig_${key}_out_${name}.npy`)).flat();
        assert(got.length === Math.min(litert.length, got.length) && got.length > 0, `${key}/${name}: ${String(got.length)} values on the page, LiteRT has ${String(litert.length)}`);
        // FLOAT_REL of LiteRT (wasm's tanh differs by an ulp: see the first case).
        got.forEach((v, i) => {
          const want = litert[i];
          assert(Math.abs(v - want) <= 1e-5 * Math.max(Math.abs(want), 1e-30), `${key}/${name}[${String(i)}]: page ${String(v)}, LiteRT ${String(want)}`);
        });
      }
      // The per-layer graph is the signature's subgraph (`zeropoint inspect`: 1, 2 and 6 operators).
      const ops = await page.locator(testId('compare-graph-op')).count();
      assert(ops === OPS[key], `${key}: the per-layer graph has ${String(ops)} operators, its subgraph ${String(OPS[key])}`);
    }
    await screenshot(page, '12-signatures-compare');
  });

  await check('At 400 px the signature groups, their result tables and the Compare picker need no sideways scroll; the pickers are reached with Tab', async () => {
    const before = page.viewportSize();
    await page.setViewportSize({ width: 400, height: 800 });
    try {
      for (const tab of ['calibrate', 'ranges', 'compare']) {
        await showTab(page, tab);
        const width = await page.evaluate(() => document.scrollingElement?.scrollWidth ?? 0);
        assert(width <= 401, `${tab}: the page is ${String(width)} px wide at 400 px`);
      }
      await screenshot(page, '12-signatures-narrow');
      // Keyboard: Tab from the sample radio's row back lands on the picker (a native select).
      await page.locator(testId('compare-signature-picker')).focus();
      await page.keyboard.press('Tab');
      await page.keyboard.press('Shift+Tab');
      assert(await page.evaluate(() => document.activeElement?.getAttribute('data-testid') === 'compare-signature-picker'), 'the Compare picker is not in the Tab order');
    } finally {
      if (before) await page.setViewportSize(before);
    }
  });

  await check('A model with one signature afterwards: no picker in Compare, no signature groups in Calibrate', async () => {
    await dropFile(page, 'dropped.tflite', example);
    await waitForModel(page, 'dropped.tflite');
    assert(!(await page.locator(testId('compare-signature-picker')).isVisible()), 'a signature picker in Compare for a model with one signature');
    await showTab(page, 'calibrate');
    assert((await page.locator(testId('npy-signature')).count()) === 0 && !(await page.locator(testId('calibrate-signatures')).isVisible()), 'signature groups in Calibrate for a model with one signature');
    assert(!(await page.locator(testId('source-images')).isDisabled()), 'images refused for a model with one signature');
    await showTab(page, 'model');
  });
}

export const cases = [
  { name: 'signatures', needs: ['load'], run: signatures },
  { name: 'signatures-calibrate', needs: ['load'], run: signaturesCalibrate },
];
