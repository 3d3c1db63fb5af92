// The quantize flow on a golden float model, in its own browser context where every request that
// would leave 127.0.0.1 is aborted: the CLI makes the expected files, the page calibrates with the
// same .npy and quantizes, and its downloads equal the CLI's byte for byte; ops kept float or made
// int16 give the CLI's --float-ops / --int16-ops files; keyboard and tablet width.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { npyBytes } from '../lib/data.mjs';
import { GOLDEN, cli } from '../lib/expected.mjs';
import { STEP_TIMEOUT_MS, assert, check, onCleanup } from '../lib/harness.mjs';
import { docsShot, downloadOf, dropFile, isLocal, quantizeOnPage, screenshot, showTab, testId, text, waitForCalibration, waitForModel, waitForPanel, watch } from '../lib/page.mjs';

/**
 * The browser context of the quantize, compare, offline and panic cases (made once, on first
 * use): its page and what it blocked, the golden files, and `want`: the CLI's files, filled in by
 * the quantize case's first check.
 */
export function quantEnv(ctx) {
  ctx.quantEnv ??= makeQuantEnv(ctx);
  return ctx.quantEnv;
}

async function makeQuantEnv({ api, browser, foreignRequests }) {
  const work = mkdtempSync(join(tmpdir(), 'zeropoint-e2e-quant-'));
  const floatPath = join(GOLDEN, 'model_float.tflite');
  const calibPath = join(GOLDEN, 'calib.npy');
  const floatBytes = new Uint8Array(readFileSync(floatPath));
  const floatGraph = api.inspectModel(floatBytes).subgraphs[0];
  const blocked = [];
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 800 } });
  context.on('request', (request) => {
    if (!isLocal(request.url())) foreignRequests.push(request.url());
  });
  await context.route(
    (url) => !isLocal(url.href),
    (route) => {
      blocked.push(route.request().url());
      return route.abort();
    },
  );
  const page = await context.newPage();
  const record = watch(page);
  // The CLI on the same files: the expected values.
  const want = {};
  const keepOp = floatGraph.operators.find((o) => o.op === 'DEPTHWISE_CONV_2D');
  const int16Op = floatGraph.operators.find((o) => o.op === 'CONV_2D' && !floatGraph.outputs.includes(o.outputs[0]));
  onCleanup(async () => {
    await context.close();
    rmSync(work, { recursive: true, force: true });
  });
  return { work, floatPath, calibPath, floatBytes, floatGraph, blocked, context, page, record, want, keepOp, int16Op };
}

async function quantize(ctx) {
  const { api, base } = ctx;
  const { page, work, floatPath, calibPath, floatBytes, want, keepOp, int16Op } = await quantEnv(ctx);
  await check('quantize: the CLI quantizes the golden model (the expected files)', async () => {
    assert(keepOp, 'the golden model has no DEPTHWISE_CONV_2D');
    const out = (name) => join(work, name);
    cli(['calibrate', floatPath, '--data', calibPath, '-o', out('cli.stats.json')]);
    cli(['quantize', floatPath, '--data', calibPath, '--mode', 'int8', '--io', 'int8', '-o', out('cli.tflite'), '--report', out('cli.report.json')]);
    cli(['quantize', floatPath, '--stats', out('cli.stats.json'), '--mode', 'int8', '--io', 'int8', '-o', out('cli-stats.tflite')]);
    cli(['quantize', floatPath, '--data', calibPath, '--mode', 'int8', '--io', 'int8', '--float-ops', String(keepOp.index), '-o', out('cli-float.tflite')]);
    want.stats = readFileSync(out('cli.stats.json'));
    want.model = readFileSync(out('cli.tflite'));
    want.reportText = readFileSync(out('cli.report.json'));
    want.report = JSON.parse(want.reportText.toString('utf8'));
    want.floatOp = readFileSync(out('cli-float.tflite'));
    assert(int16Op, 'the golden model has no inner CONV_2D');
    cli(['quantize', floatPath, '--data', calibPath, '--mode', 'int8', '--io', 'int8', '--int16-ops', String(int16Op.index), '-o', out('cli-int16.tflite')]);
    want.int16Op = readFileSync(out('cli-int16.tflite'));
    assert(Buffer.compare(want.model, readFileSync(out('cli-stats.tflite'))) === 0, 'the CLI gives different models from --data and from its own --stats');
  });

  await check('quantize: drop the golden float model and calibrate with its .npy samples', async () => {
    await page.goto(base, { timeout: STEP_TIMEOUT_MS });
    await waitForModel(page, 'example.tflite');
    await dropFile(page, 'mobilenet_block.tflite', floatBytes);
    await waitForModel(page, 'mobilenet_block.tflite');
    await showTab(page, 'calibrate');
    await page.locator(testId('source-npy')).check({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('npy-input-0')).setInputFiles(calibPath);
    await page.locator(testId('calibrate-method')).selectOption('minmax');
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'done');
    assert((await text(page, 'calibration-summary')).includes('32 samples'), `summary: ${await text(page, 'calibration-summary')}`);
    await screenshot(page, '20-golden-calibrated');
    await docsShot(page, 'calibrate', 'tabs');
  });

  await check('quantize: int8 on the page; the shown scale and zero point of a named tensor equal the CLI report', async () => {
    await showTab(page, 'quantize');
    await page.locator(testId('quant-mode')).selectOption('int8');
    await page.locator(testId('quant-io')).selectOption('int8');
    await page.locator(testId('quant-weights')).selectOption('per-channel');
    assert((await page.locator(testId('quant-calibration')).getAttribute('data-calibrated')) === 'true', 'the Quantize tab does not see the calibration');
    await quantizeOnPage(page);
    const size = page.locator(testId('quant-size'));
    assert(Number(await size.getAttribute('data-quantized')) === want.model.length, `shown size ${String(await size.getAttribute('data-quantized'))}, the CLI wrote ${String(want.model.length)} bytes`);
    assert(Number(await size.getAttribute('data-original')) === floatBytes.length, 'original size');
    const command = await text(page, 'quant-cli');
    assert(command.includes('zeropoint quantize mobilenet_block.tflite --stats mobilenet_block.stats.json --mode int8 --io int8'), `CLI line: ${command}`);
    await screenshot(page, '21-quantized');
    // A named activation tensor and a per-channel weight tensor, as the CLI's report has them.
    const act = want.report.tensors.find((t) => t.role === 'activation' && t.source === 'calibrated' && t.dtype === 'INT8');
    const weight = want.report.tensors.find((t) => t.role === 'weight' && t.scales.length > 1);
    assert(act && weight, 'the CLI report lacks a calibrated activation or a per-channel weight');
    await page.locator(testId('quant-show-model')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForModel(page, 'mobilenet_block_int8.tflite');
    assert(await page.evaluate(() => document.body.dataset.shown === 'quantized'), 'the Model tab does not show the quantized model');
    await page.locator(`${testId('tensor-table')} tbody tr[data-tensor="${String(act.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    await page.waitForFunction((t) => document.querySelector('[data-testid="details-title"]')?.textContent === t, `Tensor #${String(act.index)}`, { timeout: STEP_TIMEOUT_MS });
    assert((await page.locator('[data-testid="details"] code.name').textContent()) === act.name, `tensor #${String(act.index)} is not '${act.name}'`);
    const scale = Number(await page.locator(testId('details-scale')).getAttribute('data-value'));
    const zp = Number(await page.locator(testId('details-zero-point')).getAttribute('data-value'));
    assert(Math.fround(scale) === Math.fround(act.scales[0]), `'${act.name}': page scale ${String(scale)}, CLI report ${String(act.scales[0])}`);
    assert(zp === act.zero_points[0], `'${act.name}': page zero point ${String(zp)}, CLI report ${String(act.zero_points[0])}`);
    await page.locator(`${testId('tensor-table')} tbody tr[data-tensor="${String(weight.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('details-scale-chart')).waitFor({ timeout: STEP_TIMEOUT_MS });
    const head = await text(page, 'details-quant');
    assert(head.includes(`per-channel \u00d7${String(weight.scales.length)}`), `weights of '${weight.name}': ${head}`);
    await screenshot(page, '22-quantized-model-view');
    await docsShot(page, 'model-quantized', 'tabs');
  });

  await check('quantize: the downloaded .tflite, report and statistics equal the CLI\'s files byte for byte', async () => {
    await showTab(page, 'quantize');
    const model = await downloadOf(page, 'quant-download-model');
    assert(model.name === 'mobilenet_block_int8.tflite', `file name ${model.name}`);
    const summary = api.inspectModel(new Uint8Array(model.bytes));
    assert(summary.subgraphs[0].tensors.some((t) => t.dtype === 'INT8'), 'the downloaded model has no int8 tensor');
    assert(Buffer.compare(model.bytes, want.model) === 0, `the page's model (${String(model.bytes.length)} bytes) differs from zeropoint quantize's (${String(want.model.length)} bytes)`);
    const report = await downloadOf(page, 'quant-download-report');
    assert(report.name === 'mobilenet_block_int8.report.json', `file name ${report.name}`);
    assert(Buffer.compare(report.bytes, want.reportText) === 0, 'the report differs from zeropoint quantize --report');
    // The report's errors (first calibration samples), summed up on the page from the same numbers.
    const ops = want.report.op_errors ?? [];
    assert(want.report.error_samples === 16 && ops.length > 0, `CLI report errors: ${String(want.report.error_samples)} samples, ${String(ops.length)} ops`);
    const worst = ops.reduce((w, o) => ((o.sqnr_db ?? Infinity) < (w.sqnr_db ?? Infinity) ? o : w));
    const shown = await text(page, 'quant-errors');
    assert(shown.includes(`worst operator output ${worst.sqnr_db.toFixed(1)} dB (${worst.op} #${String(worst.index)})`), `page: ${shown}`);
    const stats = await downloadOf(page, 'quant-download-stats');
    assert(stats.name === 'mobilenet_block.stats.json', `file name ${stats.name}`);
    assert(Buffer.compare(stats.bytes, want.stats) === 0, 'the statistics differ from zeropoint calibrate -o');
  });
}

async function quantizeOps(ctx) {
  const { api } = ctx;
  const { page, floatGraph, want, keepOp, int16Op } = await quantEnv(ctx);
  await check('quantize: one op kept float (clicked in the graph) stays float, and the file equals the CLI\'s --float-ops', async () => {
    await showTab(page, 'quantize');
    await page.locator(`${testId('quant-graph-op')}[data-op="${String(keepOp.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    await page.locator(`${testId('quant-float-op')}[data-op="${String(keepOp.index)}"]`).waitFor({ timeout: STEP_TIMEOUT_MS });
    assert(await page.locator(`${testId('quant-graph-op')}[data-op="${String(keepOp.index)}"].keep-float`).isVisible(), 'the op box is not marked');
    await quantizeOnPage(page);
    const warnings = await text(page, 'quant-warnings');
    assert(warnings.includes(`operator ${String(keepOp.index)}`), `warnings: ${warnings}`);
    await screenshot(page, '24-keep-float');
    await docsShot(page, 'quantize', 'quant-graph');
    const model = await downloadOf(page, 'quant-download-model');
    const out = api.inspectModel(new Uint8Array(model.bytes)).subgraphs[0];
    const name = floatGraph.tensors.find((t) => t.index === keepOp.outputs[0]).name;
    const t = out.tensors.find((x) => x.name === name);
    assert(t && t.dtype === 'FLOAT32', `'${name}' is ${String(t?.dtype)} in the result`);
    assert(Buffer.compare(model.bytes, want.floatOp) === 0, 'the model differs from zeropoint quantize --float-ops');
    // The list undoes: removing the op quantizes it again.
    await page.locator(`${testId('quant-float-remove')}[data-op="${String(keepOp.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    assert((await page.locator(testId('quant-float-op')).count()) === 0, 'the op is still listed');
    assert((await page.locator(`${testId('quant-graph-op')}.keep-float`).count()) === 0, 'an op box is still marked');
  });

  await check('quantize: one op made int16 (clicked in the graph) has int16 activations, and the file equals the CLI\'s --int16-ops', async () => {
    await showTab(page, 'quantize');
    await page.locator(testId('quant-click')).selectOption('int16');
    const box = `${testId('quant-graph-op')}[data-op="${String(int16Op.index)}"]`;
    await page.locator(box).click({ timeout: STEP_TIMEOUT_MS });
    await page.locator(`${testId('quant-int16-op')}[data-op="${String(int16Op.index)}"]`).waitFor({ timeout: STEP_TIMEOUT_MS });
    assert(await page.locator(`${box}.keep-int16`).isVisible(), 'the op box is not marked int16');
    await quantizeOnPage(page);
    await screenshot(page, '25-int16-op');
    const model = await downloadOf(page, 'quant-download-model');
    const out = api.inspectModel(new Uint8Array(model.bytes)).subgraphs[0];
    const name = floatGraph.tensors.find((t) => t.index === int16Op.outputs[0]).name;
    const t = out.tensors.find((x) => x.name === name);
    assert(t && t.dtype === 'INT16', `'${name}' is ${String(t?.dtype)} in the result`);
    assert(out.tensors.some((x) => x.dtype === 'INT8'), 'no int8 tensor left');
    assert(Buffer.compare(model.bytes, want.int16Op) === 0, 'the model differs from zeropoint quantize --int16-ops');
    assert((await text(page, 'quant-cli')).includes(`--int16-ops ${String(int16Op.index)}`), 'the CLI line lacks --int16-ops');
    await page.locator(`${testId('quant-int16-remove')}[data-op="${String(int16Op.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    assert((await page.locator(testId('quant-int16-op')).count()) === 0, 'the op is still listed');
    assert((await page.locator(`${testId('quant-graph-op')}.keep-int16`).count()) === 0, 'an op box is still marked');
    await page.locator(testId('quant-click')).selectOption('float');
  });

  await check('quantize and compare are keyboard reachable and fit a tablet width (768 px)', async () => {
    await showTab(page, 'quantize');
    // Keyboard: focus an op box, Enter keeps it float, Enter again quantizes it again.
    const box = page.locator(`${testId('quant-graph-op')}[data-op="${String(keepOp.index)}"]`);
    await box.focus();
    await page.keyboard.press('Enter');
    await page.locator(`${testId('quant-float-op')}[data-op="${String(keepOp.index)}"]`).waitFor({ timeout: STEP_TIMEOUT_MS });
    await box.focus();
    await page.keyboard.press('Enter');
    assert((await page.locator(testId('quant-float-op')).count()) === 0, 'Enter did not toggle the op back');
    for (const id of ['quant-mode', 'quant-io', 'quant-weights', 'quant-start', 'quant-download-model']) {
      assert(await page.locator(testId(id)).evaluate((el) => el.tabIndex >= 0 && !el.disabled), `${id} is not keyboard reachable`);
    }
    await page.setViewportSize({ width: 768, height: 1024 });
    try {
      for (const tab of ['quantize', 'compare']) {
        await showTab(page, tab);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert(overflow <= 0, `the ${tab} tab is ${String(overflow)} px wider than a 768 px window`);
        await screenshot(page, `27-tablet-${tab}`);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
}

/** Candidate models `--auto` scores in the e2e run (the CLI's default is 400): enough to exercise every step. */
const AUTO_BUDGET = 12;

async function quantizeBeyond(ctx) {
  const { page, work, floatPath, calibPath, want } = await quantEnv(ctx);
  const out = (name) => join(work, name);
  await check('quantize --auto: the page\'s file and report equal `zeropoint quantize --auto --data` on the same .npy', async () => {
    cli(['quantize', floatPath, '--data', calibPath, '--mode', 'int8', '--io', 'int8', '--auto', '--auto-budget', String(AUTO_BUDGET), '-o', out('cli-auto.tflite'), '--report', out('cli-auto.report.json')]);
    const cliModel = readFileSync(out('cli-auto.tflite'));
    const cliReport = readFileSync(out('cli-auto.report.json'));
    await showTab(page, 'quantize');
    await page.locator(testId('quant-auto')).check({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('quant-budget')).fill(String(AUTO_BUDGET));
    await quantizeOnPage(page);
    const box = page.locator(testId('quant-auto-report'));
    await box.waitFor({ timeout: STEP_TIMEOUT_MS });
    const sqnr = Number(await box.getAttribute('data-sqnr'));
    const tf = Number(await box.getAttribute('data-tf-sqnr'));
    assert(Number.isFinite(sqnr) && Number.isFinite(tf) && sqnr >= tf, `--auto ${String(sqnr)} dB against TF-compatible ${String(tf)} dB`);
    assert((await text(page, 'quant-cli')).includes(`--data SAMPLES.npy --auto --auto-budget ${String(AUTO_BUDGET)}`), `CLI line: ${await text(page, 'quant-cli')}`);
    await screenshot(page, '26-auto');
    const model = await downloadOf(page, 'quant-download-model');
    assert(Buffer.compare(model.bytes, cliModel) === 0, `the page's --auto model (${String(model.bytes.length)} bytes) differs from the CLI's (${String(cliModel.length)} bytes)`);
    const report = await downloadOf(page, 'quant-download-report');
    assert(Buffer.compare(report.bytes, cliReport) === 0, 'the page\'s --auto report differs from zeropoint quantize --auto --report');
    await page.locator(testId('quant-auto')).uncheck({ timeout: STEP_TIMEOUT_MS });
  });

  await check('quantize --auto with a time limit already reached: the report says so and the TF-compatible model is written, as `--auto-time-limit 0`', async () => {
    cli(['quantize', floatPath, '--data', calibPath, '--mode', 'int8', '--io', 'int8', '--auto', '--auto-time-limit', '0', '-o', out('cli-limit.tflite'), '--report', out('cli-limit.report.json')]);
    await showTab(page, 'quantize');
    await page.locator(testId('quant-auto')).check({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('quant-budget')).fill('400');
    await page.locator(testId('quant-time-limit')).fill('0');
    await quantizeOnPage(page);
    const box = page.locator(testId('quant-auto-report'));
    await box.waitFor({ timeout: STEP_TIMEOUT_MS });
    assert((await box.getAttribute('data-fell-back')) === 'true', 'a search stopped at once wrote something else than the TF-compatible model');
    assert((await box.textContent())?.includes('the time limit stopped the search'), `report: ${String(await box.textContent())}`);
    assert((await text(page, 'quant-cli')).includes('--auto --auto-time-limit 0 --mode'), `CLI line: ${await text(page, 'quant-cli')}`);
    const model = await downloadOf(page, 'quant-download-model');
    assert(Buffer.compare(model.bytes, want.model) === 0, 'the model differs from plain int8 (TF-compatible)');
    assert(Buffer.compare(model.bytes, readFileSync(out('cli-limit.tflite'))) === 0, 'the model differs from zeropoint quantize --auto --auto-time-limit 0');
    const report = await downloadOf(page, 'quant-download-report');
    assert(Buffer.compare(report.bytes, readFileSync(out('cli-limit.report.json'))) === 0, 'the report differs from zeropoint quantize --auto --auto-time-limit 0 --report');
    await page.locator(testId('quant-time-limit')).fill('');
    await page.locator(testId('quant-auto')).uncheck({ timeout: STEP_TIMEOUT_MS });
  });

  await check('quantize --auto with an accuracy target: the labels .npy read in the page, file and report equal `--target-accuracy-drop --labels`; a target without labels and a float labels file are refused readably', async () => {
    // One class per calibration sample (32), of the model's 6; a drop of 0 points.
    const samples = 32;
    const labelsPath = out('labels.npy');
    writeFileSync(labelsPath, npyBytes([samples], BigInt64Array.from({ length: samples }, (_, k) => BigInt((k * 5) % 6)), '<i8'));
    cli(['quantize', floatPath, '--data', calibPath, '--mode', 'int8', '--io', 'int8', '--auto', '--auto-budget', String(AUTO_BUDGET), '--target-accuracy-drop', '0', '--labels', labelsPath, '-o', out('cli-accuracy.tflite'), '--report', out('cli-accuracy.report.json')]);
    await showTab(page, 'quantize');
    await page.locator(testId('quant-auto')).check({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('quant-budget')).fill(String(AUTO_BUDGET));
    await page.locator(testId('quant-target-accuracy')).fill('0');
    await page.locator(testId('quant-start')).click({ timeout: STEP_TIMEOUT_MS });
    await page.waitForFunction(() => document.querySelector('[data-testid="error-banner"]')?.textContent?.includes('pick its labels'), undefined, { timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('quant-labels')).setInputFiles({ name: 'float.npy', mimeType: 'application/octet-stream', buffer: npyBytes([samples], new Float32Array(samples)) });
    await page.waitForFunction(() => document.querySelector('[data-testid="error-banner"]')?.textContent?.includes('float.npy: labels are <f4: an integer type'), undefined, { timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('quant-labels')).setInputFiles({ name: 'labels.npy', mimeType: 'application/octet-stream', buffer: readFileSync(labelsPath) });
    await page.waitForFunction(() => document.querySelector('[data-testid="quant-labels-status"]')?.textContent?.includes('32 labels, classes 0–5'), undefined, { timeout: STEP_TIMEOUT_MS });
    await quantizeOnPage(page);
    const box = page.locator(testId('quant-auto-report'));
    await box.waitFor({ timeout: STEP_TIMEOUT_MS });
    const accuracy = Number(await box.getAttribute('data-accuracy'));
    assert(accuracy >= 0 && accuracy <= 1, `accuracy ${String(accuracy)}`);
    assert((await box.textContent())?.includes('Top-1 accuracy (output 0)'), `report: ${String(await box.textContent())}`);
    assert((await text(page, 'quant-cli')).includes('--auto --target-accuracy-drop 0 --labels labels.npy --auto-budget'), `CLI line: ${await text(page, 'quant-cli')}`);
    const model = await downloadOf(page, 'quant-download-model');
    assert(Buffer.compare(model.bytes, readFileSync(out('cli-accuracy.tflite'))) === 0, 'the page\'s model differs from zeropoint quantize --target-accuracy-drop 0 --labels');
    const report = await downloadOf(page, 'quant-download-report');
    assert(Buffer.compare(report.bytes, readFileSync(out('cli-accuracy.report.json'))) === 0, 'the page\'s report differs from zeropoint quantize --target-accuracy-drop 0 --labels --report');
    await page.locator(testId('quant-target-accuracy')).fill('');
    await page.locator(testId('quant-auto')).uncheck({ timeout: STEP_TIMEOUT_MS });
  });

  await check('fix the worst layers: ranked on the graph, a step accepted gives the CLI\'s --int16-ops file, undone gives plain int8 again', async () => {
    await showTab(page, 'quantize');
    await page.locator(testId('quant-rank')).click({ timeout: STEP_TIMEOUT_MS });
    const rows = page.locator(testId('quant-ranked'));
    await rows.first().waitFor({ timeout: STEP_TIMEOUT_MS });
    const ranked = await rows.evaluateAll((trs) => trs.map((tr) => ({ op: Number(tr.dataset.op), fix: tr.dataset.fix, sqnr: Number(tr.dataset.sqnr) })));
    assert(ranked.length >= 2, `${String(ranked.length)} operators ranked`);
    assert(ranked.every((r, k) => k === 0 || ranked[k - 1].sqnr >= r.sqnr), `not best first: ${JSON.stringify(ranked)}`);
    const painted = await page.locator(`${testId('quant-graph-op')}[data-heat]`).count();
    assert(painted > 0, 'no operator painted on the graph');
    await screenshot(page, '28-ranking');
    const top = ranked[0];
    await page.locator(testId('quant-fix-next')).click({ timeout: STEP_TIMEOUT_MS });
    await page.locator(`${testId(`quant-${top.fix}-op`)}[data-op="${String(top.op)}"]`).waitFor({ timeout: STEP_TIMEOUT_MS });
    await waitForPanel(page, 'quantize', ['done', 'error']);
    assert((await page.locator(testId('quantize')).getAttribute('data-state')) === 'done', `quantize: ${await text(page, 'error-banner')}`);
    const flag = top.fix === 'int16' ? '--int16-ops' : '--float-ops';
    cli(['quantize', floatPath, '--data', calibPath, '--mode', 'int8', '--io', 'int8', flag, String(top.op), '-o', out('cli-fix.tflite')]);
    const fixed = await downloadOf(page, 'quant-download-model');
    assert(Buffer.compare(fixed.bytes, readFileSync(out('cli-fix.tflite'))) === 0, `the model after step 1 differs from zeropoint quantize ${flag} ${String(top.op)}`);
    await page.locator(testId('quant-fix-undo')).click({ timeout: STEP_TIMEOUT_MS });
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="quant-int16-op"], [data-testid="quant-float-op"]').length === 0, undefined, { timeout: STEP_TIMEOUT_MS });
    await waitForPanel(page, 'quantize', ['done', 'error']);
    const undone = await downloadOf(page, 'quant-download-model');
    assert(Buffer.compare(undone.bytes, want.model) === 0, 'after undo the model differs from plain int8');
  });

  await check('quantize --auto can be stopped: the engine restarts, nothing is lost, the next quantization equals the CLI\'s', async () => {
    await showTab(page, 'quantize');
    await page.locator(testId('quant-auto')).check({ timeout: STEP_TIMEOUT_MS });
    // A long search: every budget, and a target no model reaches (mixed precision tries every prefix).
    await page.locator(testId('quant-budget')).fill('100000');
    await page.locator(testId('quant-target')).fill('300');
    await page.locator(testId('quant-start')).click({ timeout: STEP_TIMEOUT_MS });
    // Stopped while it searches (after the calibration again, whose progress shows first).
    await page.waitForFunction(() => document.querySelector('[data-testid="quant-status"]')?.textContent?.includes('scoring candidate models'), undefined, { timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('quant-stop')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForPanel(page, 'quantize', ['idle', 'error']);
    assert((await page.locator(testId('quantize')).getAttribute('data-state')) === 'idle', `after Stop: ${await text(page, 'quant-status')} / ${await text(page, 'error-banner')}`);
    assert((await text(page, 'quant-status')).includes('Stopped'), `status: ${await text(page, 'quant-status')}`);
    assert(!(await page.locator(testId('quant-stop')).isVisible()), 'the Stop button still shows');
    await page.locator(testId('quant-auto')).uncheck({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('quant-target')).fill('');
    await quantizeOnPage(page);
    const again = await downloadOf(page, 'quant-download-model');
    assert(Buffer.compare(again.bytes, want.model) === 0, 'after Stop the next model differs from plain int8');
  });
}

export const cases = [
  { name: 'quantize', needs: [], run: quantize },
  { name: 'quantize-ops', needs: ['quantize'], run: quantizeOps },
  { name: 'quantize-beyond', needs: ['quantize'], run: quantizeBeyond },
];
