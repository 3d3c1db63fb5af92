// Broken input on the main page: every file of the malformed-model corpus shows the CLI's message
// for it (the loaded model stays), and the Limits panel refuses what the CLI's limits refuse.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS, cliError, malformedCorpus, withoutPath } from '../lib/expected.mjs';
import { ARTIFACTS, ROOT, STEP_TIMEOUT_MS, assert, check } from '../lib/harness.mjs';
import { dropFile, screenshot, testId, text, waitForModel } from '../lib/page.mjs';

async function malformed({ page, mainGraph }) {
  // --- malformed files: the CLI's message for each, on the page; the loaded model stays ---
  const corpus = malformedCorpus();
  for (const stage of ['read', 'prepare']) {
    const entries = corpus.filter((e) => e.stage === stage);
    await check(`${String(entries.length)} malformed files (${stage} stage) each show the CLI's message, naming the file; the loaded model stays`, async () => {
      assert(entries.length >= (stage === 'read' ? 20 : 4), `only ${String(entries.length)} ${stage}-stage files in the corpus`);
      for (const entry of entries) {
        const bytes = readFileSync(join(CORPUS, entry.file));
        const message = withoutPath(entry.cli_error, entry.cli_path);
        await dropFile(page, entry.file, bytes);
        await page.waitForFunction(
          (n) => document.body.dataset.state === 'error' && document.querySelector('[data-testid="error-banner"]')?.textContent?.includes(n),
          entry.file,
          { timeout: STEP_TIMEOUT_MS },
        );
        const shown = await text(page, 'error-banner');
        assert(shown.includes(message), `${entry.file}: banner lacks the CLI's message "${message}": ${shown}`);
        if (stage === 'prepare') {
          assert(shown.includes(`${entry.file}: this model cannot run: ${message}`), `${entry.file}: not said at load time: ${shown}`);
          // The graph of a model that reads is shown for inspection.
          assert((await text(page, 'model-name')) === entry.file, `${entry.file}: not shown for inspection`);
          assert((await page.locator(testId('show-inspected')).textContent())?.includes(entry.file), 'the model switch lacks it');
        } else {
          const banner = (await page.locator(`${testId('error-banner')} .banner-text`).textContent()) ?? '';
          assert(banner.startsWith(`Could not load ${entry.file}: `), `${entry.file}: ${banner}`);
        }
      }
      await screenshot(page, `07-malformed-${stage}`);
      // Nothing the user loaded is lost: the last good model is one click away and is the one
      // the other tabs use (the calibration below runs on it).
      if (stage === 'prepare') await page.locator(testId('show-float')).click({ timeout: STEP_TIMEOUT_MS });
      await page.waitForFunction(() => document.querySelector('[data-testid="model-name"]')?.textContent === 'dropped.tflite', null, { timeout: STEP_TIMEOUT_MS });
      assert((await page.locator(testId('graph-op')).count()) === mainGraph.operators.length, 'the loaded model\'s graph is gone');
    });
  }
}

async function unrunnable({ page, example }) {
  // --- a model with operators we have no kernel for: every one is marked on its graph at load ---
  await check('A model with a custom operator no runtime implements (ZpTestCustom): each operator the CLI names is marked on the graph, with a one-line count; the loaded model stays', async () => {
    const file = join(ROOT, 'tests/realworld/custom_op/model.tflite');
    const message = cliError(['run', file, '--input', join(CORPUS, 'unused.npy'), '--out-dir', join(ARTIFACTS, 'unused')]);
    // "operator 1 (ZpTestCustom): unsupported …": the operators the CLI names.
    const named = [...message.matchAll(/operator (\d+) \(([^)]+)\)/g)].map((m) => ({ index: m[1], name: m[2] }));
    assert(named.length === 1, `the CLI names ${String(named.length)} operators: ${message}`);
    await dropFile(page, 'custom_op.tflite', readFileSync(file));
    await page.waitForFunction(() => document.querySelector('[data-testid="error-banner"]')?.textContent?.includes('custom_op.tflite'), null, { timeout: STEP_TIMEOUT_MS });
    const marked = await page.locator(`${testId('graph-op')}.cannot-run`).evaluateAll((gs) => gs.map((g) => g.getAttribute('data-op')));
    assert(
      JSON.stringify(marked.sort()) === JSON.stringify(named.map((n) => n.index).sort()),
      `marked ops ${JSON.stringify(marked)}, the CLI names ${JSON.stringify(named)}`,
    );
    const note = await text(page, 'graph-cannot-run');
    assert(note === '1 operator cannot run (marked on the graph): ZpTestCustom', `graph note: ${note}`);
    await screenshot(page, '07-cannot-run-marked');
    await page.locator(testId('show-float')).click({ timeout: STEP_TIMEOUT_MS });
    await page.waitForFunction(() => document.querySelector('[data-testid="model-name"]')?.textContent === 'dropped.tflite', null, { timeout: STEP_TIMEOUT_MS });
    assert((await page.locator(`${testId('graph-op')}.cannot-run`).count()) === 0, 'marks left on the runnable model');
    assert(await page.locator(testId('graph-cannot-run')).isHidden(), 'the note stays on the runnable model');
  });
  await check('A Keras LSTM text classifier (WHILE over cond/body subgraphs) loads with the engine prepared (state ready, nothing marked): the graph shows subgraph 0, each subgraph listed', async () => {
    const file = join(ROOT, 'tests/realworld/lstm_classifier/model.tflite');
    await dropFile(page, 'lstm_classifier.tflite', readFileSync(file));
    await waitForModel(page, 'lstm_classifier.tflite');
    // Subgraph 0 as exported: LESS, ADD, SELECT, GATHER, RESHAPE, WHILE, STRIDED_SLICE, FULLY_CONNECTED, SOFTMAX.
    const ops = await page.locator(testId('graph-op')).count();
    assert(ops === 9, `graph shows ${String(ops)} operators, subgraph 0 has 9`);
    assert((await page.locator(`${testId('graph-op')}.cannot-run`).count()) === 0, 'an operator is marked as unable to run');
    assert(await page.locator(testId('graph-cannot-run')).isHidden(), 'the cannot-run note is shown');
    for (const k of [0, 1, 2]) {
      assert((await page.locator(testId(`subgraph-${String(k)}`)).count()) === 1, `subgraph ${String(k)} not listed`);
    }
    await screenshot(page, '07-while-model');
    // Back to the model the later cases expect.
    await dropFile(page, 'dropped.tflite', example);
    await waitForModel(page, 'dropped.tflite');
  });
}

async function limits({ page, example, exampleFile, inputTensor }) {
  // --- limits: a tiny tensor limit names the tensor, as the CLI does; then restored ---
  await check('Limits: a tiny tensor limit refuses the example naming its input, with the CLI\'s message; a model over the size limit is refused before reading; restore', async () => {
    const panel = page.locator(testId('limits'));
    await panel.locator('summary').click({ timeout: STEP_TIMEOUT_MS });
    const tensorField = page.locator(testId('limit-tensor-mb'));
    assert((await tensorField.inputValue()) === '2048', `default tensor limit shown: ${await tensorField.inputValue()}`);
    await tensorField.fill('0.001');
    await tensorField.dispatchEvent('change');
    const stored = await page.evaluate(() => localStorage.getItem('zeropoint.limits') ?? '');
    assert(JSON.parse(stored).maxTensorMb === 0.001, `not persisted: ${stored}`);
    const want = withoutPath(
      cliError(['--max-tensor-mb', '0.001', 'run', exampleFile, '--input', join(CORPUS, 'unused.npy'), '--out-dir', join(ARTIFACTS, 'unused')]),
      exampleFile,
    );
    assert(want.includes(`'${inputTensor.name}'`), `the CLI's message does not name the input: ${want}`);
    await dropFile(page, 'tiny-limit.tflite', example);
    await page.waitForFunction(() => document.querySelector('[data-testid="error-banner"]')?.textContent?.includes('tiny-limit.tflite'), null, { timeout: STEP_TIMEOUT_MS });
    let shown = await text(page, 'error-banner');
    assert(shown.includes(`tiny-limit.tflite: this model cannot run: ${want}`), `banner lacks the CLI's message "${want}": ${shown}`);
    await screenshot(page, '08-limit-tensor');
    // The model-size limit, checked before the file is read.
    const modelField = page.locator(testId('limit-model-mb'));
    await modelField.fill('0.01');
    await modelField.dispatchEvent('change');
    const sizeWant = cliError(['--max-model-mb', '0.01', 'inspect', exampleFile]).replace(/^error: /, '').replace(exampleFile, 'big.tflite');
    await dropFile(page, 'big.tflite', example);
    await page.waitForFunction(() => document.querySelector('[data-testid="error-banner"]')?.textContent?.includes('big.tflite'), null, { timeout: STEP_TIMEOUT_MS });
    shown = await text(page, 'error-banner');
    assert(shown.includes(sizeWant), `banner lacks the CLI's message "${sizeWant}": ${shown}`);
    // An unusable value is named and not applied.
    await tensorField.fill('-1');
    await tensorField.dispatchEvent('change');
    assert((await text(page, 'limits-error')).includes('largest tensor'), 'no message for a negative limit');
    // Restore: the defaults are back and the example loads again.
    await page.locator(testId('limits-reset')).click({ timeout: STEP_TIMEOUT_MS });
    assert((await tensorField.inputValue()) === '2048' && (await modelField.inputValue()) === '2048', 'defaults not restored');
    await dropFile(page, 'dropped.tflite', example);
    await waitForModel(page, 'dropped.tflite');
    await panel.locator('summary').click({ timeout: STEP_TIMEOUT_MS });
  });
}

export const cases = [
  { name: 'malformed', needs: ['load'], run: malformed },
  { name: 'unrunnable', needs: ['load'], run: unrunnable },
  { name: 'limits', needs: ['load'], run: limits },
];
