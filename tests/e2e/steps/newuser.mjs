// What a new user meets after a first quantization (issue 21, items 3, 4, 7 and 8), in a browser
// context of its own at 1280×800: a quantization ruined by random calibration data is flagged
// with the layers the CLI names on the same file; hundreds of warnings fold into kinds and the
// downloads stay in view; the I/O type comes back after dynamic-range mode, and the download's
// name and the shown settings match the file; times read in µs/ms from batched runs, and a
// random range float32 cannot hold gives a readable error with nothing lost.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { npyBytes } from '../lib/data.mjs';
import { CLI, GOLDEN, cli } from '../lib/expected.mjs';
import { ROOT, STEP_TIMEOUT_MS, TARGET_SHOTS, assert, check, onCleanup } from '../lib/harness.mjs';
import { calibrateRandom, downloadOf, dropFile, isLocal, quantizeOnPage, screenshot, showTab, testId, text, waitForModel, waitForPanel, watch } from '../lib/page.mjs';

const VIEWPORT = { width: 1280, height: 800 };
const MOBILENET_V2_FP16 = join(ROOT, 'tests/golden/mobilenet_v2/model_fp16.tflite');

/** This file's own browser context and page (made once), and a scratch directory. */
function env(ctx) {
  ctx.newUserEnv ??= (async () => {
    const { browser, base, foreignRequests } = ctx;
    const work = mkdtempSync(join(tmpdir(), 'zeropoint-e2e-newuser-'));
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
    return { page, record, work };
  })();
  return ctx.newUserEnv;
}

async function loadModel(page, name, bytes) {
  await dropFile(page, name, bytes);
  await waitForModel(page, name);
}

async function setMode(page, mode, io) {
  await showTab(page, 'quantize');
  await page.locator(testId('quant-mode')).selectOption(mode);
  if (io !== undefined) await page.locator(testId('quant-io')).selectOption(io);
}

/** The verdict lines `zeropoint compare` prints (before its table). */
function cliVerdict(stdout) {
  const lines = stdout.split('\n');
  const level = lines.find((l) => l.startsWith('QUANTIZATION RUINED')) ? 'ruined' : lines.find((l) => l.startsWith('POOR QUANTIZATION')) ? 'poor' : 'ok';
  const worstOutput = /\(([^()]+)\)(?:, below|: at least)/.exec(lines[0] ?? '')?.[1];
  const firstBelow = /^SQNR first falls below 20 dB at (.+) \(/.exec(lines.find((l) => l.startsWith('SQNR first falls')) ?? '')?.[1];
  const worst = (lines.find((l) => l.startsWith('worst layers: ')) ?? '')
    .slice('worst layers: '.length)
    .split(', ')
    .filter((s) => s.length > 0)
    .map((s) => s.replace(/ (identical|-?[\d.]+ dB)$/, ''));
  return { level, worstOutput, firstBelow, worst };
}

async function verdict(ctx) {
  const { page, work } = await env(ctx);
  const floatPath = join(GOLDEN, 'model_float.tflite');
  await check('verdict: random calibration in [0, 0.01] then a real sample: "ruined", the CLI\'s layers, random data blamed', async () => {
    await loadModel(page, 'mobilenet_block.tflite', readFileSync(floatPath));
    await calibrateRandom(page, { count: 8, lo: 0, hi: 0.01, seed: 3 });
    await setMode(page, 'int8', 'int8');
    await quantizeOnPage(page);
    // The verdict on the report's errors (measured on the calibration samples) agrees with the
    // report the page lets one download: its level from the worst output operator's SQNR.
    const report = JSON.parse((await downloadOf(page, 'quant-download-report')).bytes.toString('utf8'));
    const outName = report.tensors.find((t) => t.role === 'output')?.name;
    const outDb = Math.min(...report.op_errors.filter((o) => o.output === outName).map((o) => o.sqnr_db ?? Infinity));
    const want = outDb < 10 ? 'ruined' : outDb < 20 ? 'poor' : 'ok';
    const qv = page.locator(testId('quant-verdict'));
    assert((await qv.getAttribute('data-level')) === want, `quantize verdict ${String(await qv.getAttribute('data-level'))}, the report's output SQNR ${String(outDb)} dB is ${want}`);
    const model = await downloadOf(page, 'quant-download-model');
    const quantPath = join(work, model.name);
    writeFileSync(quantPath, model.bytes);
    // One real sample (the golden's first calibration sample) through both, on the page and in the CLI.
    const all = readFileSync(join(GOLDEN, 'calib.npy'));
    const headerLen = all.readUInt16LE(8);
    const n = 48 * 48 * 3;
    const first = new Float32Array(all.buffer.slice(all.byteOffset + 10 + headerLen, all.byteOffset + 10 + headerLen + n * 4));
    const samplePath = join(work, 'real0.npy');
    writeFileSync(samplePath, npyBytes([1, 1, 48, 48, 3], first));
    const cliSays = cliVerdict(cli(['compare', floatPath, quantPath, '--input', samplePath, '--top', '0']));
    assert(cliSays.level === 'ruined', `the CLI says ${cliSays.level}: the case no longer ruins the model`);
    await showTab(page, 'compare');
    await page.locator(testId('compare-sample-npy')).check({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('compare-npy')).setInputFiles(samplePath);
    await page.locator(testId('compare-index')).fill('0');
    await page.locator(testId('compare-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForPanel(page, 'compare', ['done', 'error']);
    assert((await page.locator(testId('compare')).getAttribute('data-state')) === 'done', `compare failed: ${await text(page, 'error-banner')}`);
    const v = page.locator(testId('compare-verdict'));
    const shown = {
      level: await v.getAttribute('data-level'),
      worstOutput: await v.getAttribute('data-worst-output'),
      firstBelow: await v.getAttribute('data-first-below'),
      worst: (await v.getAttribute('data-worst'))?.split('|'),
    };
    assert(JSON.stringify(shown) === JSON.stringify(cliSays), `page ${JSON.stringify(shown)}, zeropoint compare ${JSON.stringify(cliSays)}`);
    const words = await text(page, 'compare-verdict');
    assert(words.includes('Quantization ruined') && words.includes('calibrate with real samples'), `verdict: ${words}`);
    assert((await v.getAttribute('data-random')) === 'true', 'random calibration is not blamed');
    assert(await v.isVisible(), 'the verdict is not shown');
    await v.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(TARGET_SHOTS, 'verdict-ruined.png'), timeout: STEP_TIMEOUT_MS });
    await screenshot(page, '40-verdict-ruined');
  });

  await check('verdict: zeropoint quantize --report prints the same verdict from its report (worst output, dB)', async () => {
    const out = join(work, 'cli-q.tflite');
    const reportPath = join(work, 'cli-q.report.json');
    const run = spawnSync(CLI, ['quantize', floatPath, '--data', join(GOLDEN, 'calib.npy'), '-o', out, '--report', reportPath], { encoding: 'utf8', timeout: 120_000 });
    assert(run.status === 0, `zeropoint quantize: ${run.stderr}`);
    const report = JSON.parse(readFileSync(reportPath, 'utf8'));
    const outName = report.tensors.find((t) => t.role === 'output')?.name;
    const worst = report.op_errors.filter((o) => o.output === outName).reduce((w, o) => ((o.sqnr_db ?? Infinity) < (w.sqnr_db ?? Infinity) ? o : w));
    const db = worst.sqnr_db === undefined ? 'identical' : `${worst.sqnr_db.toFixed(1)} dB`;
    const level = (worst.sqnr_db ?? Infinity) < 10 ? 'QUANTIZATION RUINED' : (worst.sqnr_db ?? Infinity) < 20 ? 'POOR QUANTIZATION' : 'worst output SQNR';
    const line = run.stderr.split('\n').find((l) => l.startsWith(level));
    assert(line?.includes(`${db} (${worst.op} #${String(worst.index)})`), `stderr lacks "${level} … ${db} (${worst.op} #${String(worst.index)})": ${run.stderr}`);
  });

  await check('numbers: latency in µs/ms from batched runs, no "0.00 ms", no ratio from zeros, no "0.0 s"', async () => {
    await numbersRead(page, 5);
  });

  await check('numbers: a random range float32 cannot hold (hi = 1e40), lo ≥ hi, ±3e38: a readable error, nothing lost', async () => {
    await showTab(page, 'calibrate');
    const rows = await page.locator(`${testId('stats-table')} tbody tr`).count();
    for (const [lo, hi, want] of [
      ['0', '1e40', 'random range hi = 1e+40 is beyond float32'],
      ['1', '1', 'random range needs lo < hi'],
      ['-3e38', '3e38', 'wider than float32'],
    ]) {
      await page.locator(testId('random-lo')).fill(lo);
      await page.locator(testId('random-hi')).fill(hi);
      await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
      await page.waitForFunction((w) => document.querySelector('[data-testid="error-banner"]')?.textContent?.includes(w), want, { timeout: STEP_TIMEOUT_MS });
      assert((await page.locator(testId('calibration')).getAttribute('data-state')) === 'done', `[${lo}, ${hi}]: the last calibration is gone`);
      assert((await page.locator(`${testId('stats-table')} tbody tr`).count()) === rows, `[${lo}, ${hi}]: the statistics table changed`);
      assert((await text(page, 'model-name')) === 'mobilenet_block.tflite', `[${lo}, ${hi}]: the model is gone`);
    }
    await page.locator(testId('random-lo')).fill('0');
    await page.locator(testId('random-hi')).fill('1');
  });
}

/** A duration of zero ("0 ms", "0.0 s", "0 µs"), not one that merely ends in 0 ("58.0 ms"). */
const ZERO_TIME = /(?<![\d.,])0(?:\.0+)? (?:s|ms|µs)\b/;

/**
 * "23.4 ms", "420 µs", "1,234 ms" after `label` (and the arithmetic a quantized time is tagged
 * with, "quantized (reference arithmetic) 19.6 ms") in `words` → [value, unit, decimals].
 */
function shownTime(words, label) {
  const m = new RegExp(`${label}(?: \\([a-zA-Z]+ arithmetic\\))? ([\\d,]+(?:\\.(\\d+))?) (µs|ms)`).exec(words);
  assert(m, `no ${label} time in: ${words}`);
  return [Number(m[1].replaceAll(',', '')), m[3], m[2]?.length ?? 0];
}

/**
 * Issue 21 point 8 on the Compare result shown (also on real models, steps/real.mjs): the latency
 * is a median of `runs` timed runs (at least 3); each median reads in µs below 1 ms and in ms
 * above, and equals the measured one (data-float-ms / data-quant-ms) to its shown digits; no time
 * is a zero; the speed ratio is the medians' (direction included) or says the runs overlap; the
 * calibration and quantize statuses show no zero duration. Returns the latency words and medians.
 */
export async function numbersRead(page, runs) {
  const latency = page.locator(testId('compare-latency'));
  const words = (await latency.textContent()) ?? '';
  const attr = async (name) => Number(await latency.getAttribute(name));
  const [fMs, qMs, n] = [await attr('data-float-ms'), await attr('data-quant-ms'), await attr('data-runs')];
  assert(n === runs && n >= 3 && words.includes(`median of ${String(n)} timed runs`), `latency (${String(n)} runs): ${words}`);
  assert(fMs > 0 && qMs > 0, `float ${String(fMs)} ms, quantized ${String(qMs)} ms: a time of 0`);
  for (const [label, ms] of [['float', fMs], ['quantized', qMs]]) {
    const [value, unit, decimals] = shownTime(words, label);
    assert(unit === (ms < 1 ? 'µs' : 'ms'), `${label} ${String(ms)} ms shown in ${unit}: ${words}`);
    const exact = unit === 'µs' ? ms * 1000 : ms;
    assert(Math.abs(value - exact) <= 0.5 * 10 ** -decimals + 1e-9, `${label} shows ${String(value)} ${unit} for ${String(ms)} ms`);
  }
  assert(!ZERO_TIME.test(words) && !/×0\.00|×NaN|×Infinity/.test(words), `latency: ${words}`);
  const ratio = /×(\d+\.\d\d) (faster|slower)/.exec(words);
  assert(ratio || words.includes('quantized as fast'), `no speed ratio: ${words}`);
  if (ratio) {
    const want = Math.max(fMs, qMs) / Math.min(fMs, qMs);
    assert(Math.abs(Number(ratio[1]) - want) <= 0.005 + 1e-9 && ratio[2] === (fMs >= qMs ? 'faster' : 'slower'), `ratio ${ratio[0]} for float ${String(fMs)} / quantized ${String(qMs)} ms`);
  }
  for (const id of ['calibrate-status', 'quant-status']) {
    const status = await text(page, id);
    assert(!ZERO_TIME.test(status), `${id}: ${status}`);
  }
  return { words, fMs, qMs };
}

async function warnings(ctx) {
  const { api } = ctx;
  const { page } = await env(ctx);
  const inView = async () => {
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    assert(height <= 3 * VIEWPORT.height, `the page is ${String(height)} px tall`);
    const dl = await page.locator(testId('quant-download-model')).boundingBox();
    assert(dl && dl.y >= 0 && dl.y + dl.height <= VIEWPORT.height, `the download button is at y=${String(dl?.y)} (viewport ${String(VIEWPORT.height)})`);
  };
  await check('warnings: an fp16 model\'s 80 folded DEQUANTIZE names are one closed line; the page stays short, downloads in view', async () => {
    await loadModel(page, 'mobilenet_v2_fp16.tflite', readFileSync(MOBILENET_V2_FP16));
    await calibrateRandom(page, { count: 2, lo: -1, hi: 1, seed: 1 });
    await setMode(page, 'int8', 'int8');
    await quantizeOnPage(page);
    const long = page.locator(`${testId('quant-warnings')} details.warning-long`).filter({ hasText: '80 DEQUANTIZE of constants folded' });
    assert((await long.count()) === 1, 'the folded-DEQUANTIZE warning is not one expandable line');
    assert(!(await long.evaluate((d) => d.open)), 'it is open');
    assert(((await long.locator('summary').textContent()) ?? '').length < 100, 'its head is long');
    await inView();
    await page.screenshot({ path: join(TARGET_SHOTS, 'warnings-folded.png'), timeout: STEP_TIMEOUT_MS });
  });

  await check('warnings: 12 CONV_2D kept float are one kind "12 × operator # (CONV_2D) stays float", closed; downloads in view at 1280×800', async () => {
    const bytes = readFileSync(join(ROOT, 'tests/golden/mobilenet_v2/model_float.tflite'));
    const graph = api.inspectModel(new Uint8Array(bytes)).subgraphs[0];
    const convs = graph.operators.filter((o) => o.op === 'CONV_2D').slice(0, 12).map((o) => o.index);
    await loadModel(page, 'mobilenet_v2.tflite', bytes);
    await calibrateRandom(page, { count: 2, lo: -1, hi: 1, seed: 1 });
    await setMode(page, 'int8', 'int8');
    await page.locator(testId('quant-click')).selectOption('float');
    for (const op of convs) {
      await page.locator(`${testId('quant-graph-op')}[data-op="${String(op)}"]`).focus();
      await page.keyboard.press('Enter');
    }
    assert((await page.locator(testId('quant-float-op')).count()) === convs.length, 'not every CONV_2D is listed as kept float');
    await quantizeOnPage(page);
    const list = page.locator(testId('quant-warnings'));
    const count = Number(await list.getAttribute('data-count'));
    const kinds = Number(await list.getAttribute('data-kinds'));
    assert(count >= convs.length && kinds <= count - convs.length + 1, `${String(count)} warnings in ${String(kinds)} kinds`);
    const conv = page.locator(`${testId('quant-warnings-kind')}[data-count="${String(convs.length)}"]`);
    assert((await conv.count()) === 1, `no kind counts the ${String(convs.length)} CONV_2D kept float`);
    assert(((await conv.textContent()) ?? '').includes(`${String(convs.length)} × operator # (CONV_2D) stays float`), `kind: ${String(await conv.textContent())}`);
    assert(!(await conv.locator('details').evaluate((d) => d.open)), 'the group is open');
    await inView();
    await page.screenshot({ path: join(TARGET_SHOTS, 'warnings-grouped.png'), timeout: STEP_TIMEOUT_MS });
    await screenshot(page, '41-warnings-grouped');
    // Opening the group lists each warning, one per operator kept float.
    await conv.locator('summary').first().click();
    const items = await conv.locator('details li').allTextContents();
    assert(items.length === convs.length && convs.every((op) => items.some((t) => t.startsWith(`operator ${String(op)} (CONV_2D) stays float`))), `group: ${items.join(' | ')}`);
    await page.locator(testId('quant-float-clear')).click();
  });
}

async function staleChoices(ctx) {
  const { api } = ctx;
  const { page } = await env(ctx);
  const ioOfFile = (bytes) => {
    const sg = api.inspectModel(new Uint8Array(bytes)).subgraphs[0];
    const dtypes = new Set([...sg.inputs, ...sg.outputs].map((i) => sg.tensors.find((t) => t.index === i).dtype.toLowerCase()));
    return [...dtypes].join('/');
  };
  await check('stale choices: dynamic forces float I/O, int8 brings int8 I/O back; names and shown settings match each file', async () => {
    await loadModel(page, 'mobilenet_block.tflite', readFileSync(join(GOLDEN, 'model_float.tflite')));
    await calibrateRandom(page, { count: 4, lo: -1, hi: 1, seed: 5 });
    await setMode(page, 'int8', 'int8');
    await setMode(page, 'dynamic');
    assert((await page.locator(testId('quant-io')).inputValue()) === 'float', 'dynamic mode does not show float I/O');
    assert((await text(page, 'quant-io-note')).includes('your choice (int8)'), `note: ${await text(page, 'quant-io-note')}`);
    await quantizeOnPage(page);
    let file = await downloadOf(page, 'quant-download-model');
    assert(file.name === 'mobilenet_block_dynamic.tflite', `dynamic file named ${file.name}`);
    assert(ioOfFile(file.bytes) === 'float32', `the dynamic file's I/O is ${ioOfFile(file.bytes)}`);
    await setMode(page, 'int8');
    assert((await page.locator(testId('quant-io')).inputValue()) === 'int8', 'back in int8 the I/O stayed float');
    assert(await page.locator(testId('quant-stale')).isVisible(), 'the dynamic result does not say the settings changed');
    for (const [io, name, fileIo] of [
      ['int8', 'mobilenet_block_int8.tflite', 'int8'],
      ['float', 'mobilenet_block_int8_floatio.tflite', 'float32'],
      ['uint8', 'mobilenet_block_int8_uint8io.tflite', 'uint8'],
    ]) {
      await setMode(page, 'int8', io);
      await quantizeOnPage(page);
      assert(!(await page.locator(testId('quant-stale')).isVisible()), `${io}: a fresh result says it is stale`);
      file = await downloadOf(page, 'quant-download-model');
      const made = page.locator(testId('quant-made-with'));
      assert(file.name === name, `I/O ${io}: file named ${file.name}, want ${name}`);
      assert(ioOfFile(file.bytes) === fileIo, `I/O ${io}: the file's I/O is ${ioOfFile(file.bytes)}`);
      assert((await made.getAttribute('data-file-io')) === fileIo && (await made.getAttribute('data-io')) === io, `I/O ${io}: shown ${String(await made.textContent())}`);
      assert((await text(page, 'quant-cli')).includes(`--io ${io} -o ${name}`), `I/O ${io}: CLI line ${await text(page, 'quant-cli')}`);
    }
    await screenshot(page, '42-stale-choices');
  });
}

export const cases = [
  { name: 'newuser-verdict', needs: [], run: verdict },
  { name: 'newuser-warnings', needs: [], run: warnings },
  { name: 'newuser-stale-choices', needs: [], run: staleChoices },
];
