// A model with several signatures on the page: tests/realworld/signatures (encode / decode / score,
// one subgraph each, made by tests/tools/realworld/signatures.py). The summary offers a signature
// picker (default `decode`, the signature of subgraph 0); choosing `encode` makes the Model tab
// show its subgraph and Compare run it on both models: one output, named by the signature
// (`code`), whose float-vs-dynamic-range difference is what the engine in Node gives for that
// signature on the CLI's dynamic-range model, and whose float values (in Node) are LiteRT's within
// FLOAT_REL (see the TANH note below).
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { npyRows } from '../lib/data.mjs';
import { cli } from '../lib/expected.mjs';
import { ARTIFACTS, ROOT, STEP_TIMEOUT_MS, assert, check } from '../lib/harness.mjs';
import { dropFile, quantizeOnPage, screenshot, showTab, testId, text, waitForModel, waitForPanel } from '../lib/page.mjs';

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

export const cases = [{ name: 'signatures', needs: ['load'], run: signatures }];
