// The Ranges view after a calibration: reached from the Model tab, its scale and zero point equal
// a float32 re-derivation from the calibrated range, the engine in Node and the CLI, for every
// range method and for int16.
import { checkRanges, cliCalibration, expectedInt8, nodeCalibration } from '../lib/expected.mjs';
import { STEP_TIMEOUT_MS, assert, check } from '../lib/harness.mjs';
import { rangesNumbers, screenshot, showTab, testId, text } from '../lib/page.mjs';
import { random16 } from './calibrate.mjs';

async function ranges({ api, page, example, exampleFile, mainGraph, inputTensor }) {
  await check('after calibration the Model tab links a tensor and a CONV_2D to the Ranges view', async () => {
    const conv = mainGraph.operators.find((o) => o.op === 'CONV_2D');
    await showTab(page, 'model');
    await page.locator(`${testId('graph-op')}[data-op="${String(conv.index)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('details-open-requant')).click({ timeout: STEP_TIMEOUT_MS });
    await page.waitForFunction(() => document.body.dataset.tab === 'ranges', null, { timeout: STEP_TIMEOUT_MS });
    assert((await page.locator(testId('ranges-op')).inputValue()) === String(conv.index), 'the Ranges view does not show the clicked op');
    await showTab(page, 'model');
    const tensor = conv.outputs[0];
    await page.locator(`${testId('tensor-table')} tbody tr[data-tensor="${String(tensor)}"]`).click({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('details-open-ranges')).click({ timeout: STEP_TIMEOUT_MS });
    await page.waitForFunction(() => document.body.dataset.tab === 'ranges', null, { timeout: STEP_TIMEOUT_MS });
    assert((await page.locator(testId('ranges-tensor')).inputValue()) === String(tensor), 'the Ranges view does not show the clicked tensor');
  });

  await check('the Ranges view shows the scale and zero point of the calibrated range, with 0.0 exact', async () => {
    await showTab(page, 'ranges');
    await page.waitForFunction(() => document.querySelector('[data-testid="ranges"]')?.getAttribute('data-state') === 'ready', null, { timeout: STEP_TIMEOUT_MS });
    const want = nodeCalibration(api, example, random16, 'minmax');
    // The output of the first CONV_2D (a ReLU6: observed min 0).
    const conv = mainGraph.operators.find((o) => o.op === 'CONV_2D');
    await page.locator(testId('ranges-tensor')).selectOption(String(conv.outputs[0]));
    await page.waitForFunction((i) => document.querySelector('[data-testid="ranges"]')?.getAttribute('data-state') === 'ready' && document.querySelector('[data-testid="ranges-chosen"]') && Number(document.querySelector('[data-testid="ranges-tensor"]')?.value) === i, conv.outputs[0], { timeout: STEP_TIMEOUT_MS });
    const shown = await rangesNumbers(page);
    checkRanges(api, shown, want);
    // The CLI on the same samples: its range (JSON numbers are float32, shortest form) gives the
    // same scale and zero point by the float32 re-derivation.
    const cli = cliCalibration(api, exampleFile, inputTensor, random16, 'minmax');
    const fromCli = cli.tensors.find((t) => t.index === shown.tensor);
    assert(fromCli, `zeropoint calibrate has no tensor ${String(shown.tensor)}`);
    const [cliMin, cliMax] = [Math.fround(fromCli.chosen_min), Math.fround(fromCli.chosen_max)];
    assert(cliMin === shown.chosenMin && cliMax === shown.chosenMax, `zeropoint calibrate chose [${String(cliMin)}, ${String(cliMax)}], the page [${String(shown.chosenMin)}, ${String(shown.chosenMax)}]`);
    const cliParams = expectedInt8(cliMin, cliMax);
    assert(cliParams.scale === shown.scale && cliParams.zeroPoint === shown.zeroPoint, `from the CLI's range: scale ${String(cliParams.scale)} zp ${String(cliParams.zeroPoint)}`);
    assert(shown.summary.includes('minmax'), `summary: ${shown.summary}`);
    assert(shown.bars > 0 && shown.gridTicks > 2 && shown.zeroMarker, `plot: ${String(shown.bars)} bars, ${String(shown.gridTicks)} grid ticks`);
    assert(shown.stride >= 2 && Number.isInteger(Math.log2(shown.stride)), `grid stride ${String(shown.stride)} is not a power of two ≥ 2`);
    assert(shown.clipped === 0, `min/max clips ${String(shown.clipped)}`);
    const steps = await text(page, 'ranges-steps');
    for (const part of ['Include 0', 'Scale', 'Zero point', 'Represented', '0.0 is exact']) assert(steps.includes(part), `steps lack "${part}"`);
    // The requantization of the first CONV_2D from the calibrated ranges and the float weights.
    await page.locator(testId('ranges-op')).selectOption(String(conv.index));
    await page.locator(`${testId('ranges-op-result')} ${testId('requant-table')}`).waitFor({ timeout: STEP_TIMEOUT_MS });
    const sx = api.quantParams(want.tensors.find((t) => t.index === conv.inputs[0]).chosen_min, want.tensors.find((t) => t.index === conv.inputs[0]).chosen_max, 'int8').scale;
    const sy = api.quantParams(want.tensors.find((t) => t.index === conv.outputs[0]).chosen_min, want.tensors.find((t) => t.index === conv.outputs[0]).chosen_max, 'int8').scale;
    const sw = api.weightScales(example, conv.inputs[1], 0);
    const multipliers = api.requantMultipliers(sx, sw, sy);
    const m0 = await page.locator(`${testId('ranges-op-result')} ${testId('requant-m0')}`).allTextContents();
    assert(m0.length > 0 && m0.every((v, c) => Number(v) === multipliers[c].m0), `M0 ${m0.join(',')}, engine ${multipliers.map((m) => m.m0).join(',')}`);
    await screenshot(page, '14-ranges-minmax', { target: true });
  });

  await check('switching the method in the Ranges view updates the picture (percentile clips, MSE too)', async () => {
    await page.locator(testId('ranges-method')).selectOption('percentile');
    await page.locator(testId('ranges-percentile')).fill('99');
    await page.locator(testId('ranges-percentile')).dispatchEvent('change');
    await page.waitForFunction(() => document.querySelector('[data-testid="ranges-summary"]')?.textContent?.includes('percentile:99 ') && document.querySelector('[data-testid="ranges"]')?.getAttribute('data-state') === 'ready', null, { timeout: STEP_TIMEOUT_MS });
    let shown = await rangesNumbers(page);
    checkRanges(api, shown, nodeCalibration(api, example, random16, 'percentile:99'));
    assert(shown.chosenMax < shown.observedMax, `percentile:99 did not clip the max of tensor ${String(shown.tensor)}`);
    assert(shown.clipped > 0, 'no clipped share shown');
    assert((await page.locator(testId('calibrate-method')).inputValue()) === 'percentile', 'the Calibrate tab did not follow the method');
    await screenshot(page, '15-ranges-percentile', { target: true });
    await page.locator(testId('ranges-method')).selectOption('mse');
    await page.waitForFunction(() => document.querySelector('[data-testid="ranges-summary"]')?.textContent?.includes('mse') && document.querySelector('[data-testid="ranges"]')?.getAttribute('data-state') === 'ready', null, { timeout: STEP_TIMEOUT_MS });
    shown = await rangesNumbers(page);
    checkRanges(api, shown, nodeCalibration(api, example, random16, 'mse'));
    await page.locator(testId('ranges-method')).selectOption('minmax');
    await page.waitForFunction(() => document.querySelector('[data-testid="ranges-summary"]')?.textContent?.includes('minmax'), null, { timeout: STEP_TIMEOUT_MS });
    // int16 (16x8): symmetric, zero point 0, scale = max(|min|, |max|) / 32767 in float32.
    await page.locator(testId('ranges-dtype')).selectOption('int16');
    await page.waitForFunction(() => document.querySelector('[data-testid="ranges-summary"]')?.textContent?.includes('int16') && document.querySelector('[data-testid="ranges"]')?.getAttribute('data-state') === 'ready', null, { timeout: STEP_TIMEOUT_MS });
    shown = await rangesNumbers(page);
    const half = Math.max(Math.abs(Math.min(shown.chosenMin, 0)), Math.abs(Math.max(shown.chosenMax, 0)));
    assert(shown.zeroPoint === 0 && shown.scale === Math.fround(Math.fround(half) / 32767), `int16: scale ${String(shown.scale)} zp ${String(shown.zeroPoint)}`);
    await page.locator(testId('ranges-dtype')).selectOption('int8');
    await page.waitForFunction(() => document.querySelector('[data-testid="ranges-summary"]')?.textContent?.includes('int8') && document.querySelector('[data-testid="ranges"]')?.getAttribute('data-state') === 'ready', null, { timeout: STEP_TIMEOUT_MS });
  });
}

export const cases = [{ name: 'ranges', needs: ['calibrate'], run: ranges }];
