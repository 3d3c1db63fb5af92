// Issue 21 item 5: a 350-operator fp16 model (made in tests/e2e/lib/bigmodel.mjs, 50 of its ops
// constant-weight DEQUANTIZE) in a 1280×800 context of its own: the graph folds those into their
// consumers, opens with labels ≥ 10 px on screen, is one Tab stop with arrow keys inside (the
// focused box stays in view), and its search box selects and pans to an op named in the file.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bigFp16Model } from '../lib/bigmodel.mjs';
import { ROOT, STEP_TIMEOUT_MS, assert, check, onCleanup } from '../lib/harness.mjs';
import { dropFile, fillRandom, isLocal, quantizeOnPage, screenshot, showTab, testId, text, waitForCalibration, waitForModel, waitForPanel, watch } from '../lib/page.mjs';

const VIEWPORT = { width: 1280, height: 800 };

/** Where a drawn element is relative to the graph's SVG, and its label's size on screen. */
async function boxInView(page, selector) {
  return page.evaluate((sel) => {
    const svg = document.querySelector('[data-testid="graph-svg"]');
    const el = document.querySelector(sel);
    if (!svg || !el) return { found: false };
    const s = svg.getBoundingClientRect();
    const r = el.getBoundingClientRect();
    return { found: true, inside: r.left >= s.left && r.right <= s.right && r.top >= s.top && r.bottom <= s.bottom, node: el.getAttribute('data-node') };
  }, selector);
}

async function bigGraph(ctx) {
  const { browser, base, foreignRequests, api } = ctx;
  const context = await browser.newContext({ viewport: VIEWPORT });
  context.on('request', (request) => {
    if (!isLocal(request.url())) foreignRequests.push(request.url());
  });
  onCleanup(() => context.close());
  const page = await context.newPage();
  const record = watch(page);
  await page.goto(base, { timeout: STEP_TIMEOUT_MS });
  await waitForModel(page, 'example.tflite');
  const model = bigFp16Model(50);
  // The counts come from the engine's own reading of the file, not from the generator alone.
  const sg = api.inspectModel(model.bytes).subgraphs[0];
  const weightDq = sg.operators.filter((o) => o.op === 'DEQUANTIZE' && sg.tensors[o.inputs[0]]?.is_constant).length;
  assert(sg.operators.length === model.ops && sg.operators.length >= 300 && weightDq === model.dequantize, `the engine reads ${String(sg.operators.length)} ops, ${String(weightDq)} weight DEQUANTIZE`);

  await check('big graph: 350 ops, the 50 weight DEQUANTIZE folded into their consumers (no box, noted on the consumer)', async () => {
    await dropFile(page, 'big_fp16.tflite', model.bytes);
    await waitForModel(page, 'big_fp16.tflite');
    await showTab(page, 'model');
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="graph-op"]').length === n, model.ops - model.dequantize, { timeout: STEP_TIMEOUT_MS });
    const boxes = await page.locator(testId('graph-op')).count();
    const dqBoxes = await page.locator(`${testId('graph-op')}:has(text.graph-node-label:text-is("DEQUANTIZE"))`).count();
    const foldedInto = await page.locator(`${testId('graph-op')}[data-folded]`).count();
    assert(boxes === sg.operators.length - weightDq, `${String(boxes)} op boxes for ${String(sg.operators.length)} ops with ${String(weightDq)} weight DEQUANTIZE`);
    assert(dqBoxes === 0 && foldedInto === weightDq, `${String(dqBoxes)} DEQUANTIZE boxes left, ${String(foldedInto)} boxes carry a folded one`);
    const info = await text(page, 'graph-info');
    assert(info.includes(`${String(model.ops)} operators`) && info.includes(`${String(model.dequantize)} weight DEQUANTIZE folded`), `info line: ${info}`);
  });

  await check('big graph: opens at a legible zoom (op labels ≥ 10 px on screen, boxes in view at the top)', async () => {
    await page.waitForTimeout(100); // the first view is set on the next animation frame
    const legible = await page.evaluate(() => {
      const svg = document.querySelector('[data-testid="graph-svg"]');
      const s = svg.getBoundingClientRect();
      const labels = [...document.querySelectorAll('[data-testid="graph-op"] text.graph-node-label')];
      const visible = labels.filter((t) => {
        const r = t.getBoundingClientRect();
        return r.top >= s.top && r.bottom <= s.bottom && r.left >= s.left && r.right <= s.right;
      });
      const first = visible[0];
      const px = first ? Number.parseFloat(getComputedStyle(first).fontSize) * first.getScreenCTM().a : 0;
      return { visible: visible.length, px, glyphHeight: first ? first.getBoundingClientRect().height : 0 };
    });
    assert(legible.visible >= 5, `${String(legible.visible)} op labels inside the graph's viewport at first open`);
    assert(legible.px >= 10 && legible.glyphHeight >= 10, `labels are ${legible.px.toFixed(1)} px (box ${legible.glyphHeight.toFixed(1)} px) on screen`);
    await screenshot(page, '40-big-graph-first-open', { target: true });
  });

  await check('big graph: one Tab stop; arrows move the focus along the edges and keep it in view; Enter opens the details', async () => {
    await page.locator(testId('graph-search')).focus();
    await page.keyboard.press('Tab');
    const entered = await page.evaluate(() => {
      const a = document.activeElement;
      return { inGraph: a?.closest('[data-testid="graph-svg"]') !== null && a?.classList.contains('graph-node'), what: `${String(a?.tagName)} ${String(a?.getAttribute('data-testid'))} ${String(a?.getAttribute('class'))}` };
    });
    assert(entered.inGraph, `Tab from the search box went to ${entered.what}, not into the graph`);
    const stops = await page.locator('[data-testid="graph-svg"] [tabindex="0"]').count();
    assert(stops === 1, `${String(stops)} Tab stops inside the graph`);
    await page.keyboard.press('Tab');
    const left = await page.evaluate(() => document.activeElement?.closest('[data-testid="graph-svg"]') === null);
    assert(left, 'one more Tab did not leave the graph');
    await page.keyboard.press('Shift+Tab');
    const seen = [];
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press('ArrowDown');
      const at = await boxInView(page, ':focus');
      assert(at.found && at.node !== null, `ArrowDown ${String(i + 1)}: nothing focused in the graph`);
      assert(at.inside, `ArrowDown ${String(i + 1)}: the focused box ${String(at.node)} is outside the graph's viewport`);
      seen.push(at.node);
    }
    assert(new Set(seen).size === seen.length, `arrows revisited a box: ${seen.join(' ')}`);
    // 80 steps down from the input follow edges deep into the graph (past block 8 of 50).
    const deepest = Math.max(...seen.map((id) => Number(/^op:(\d+)$/.exec(id)?.[1] ?? -1)));
    assert(deepest >= 60, `80 ArrowDown reached op ${String(deepest)} only`);
    await page.keyboard.press('ArrowUp');
    const up = await boxInView(page, ':focus');
    assert(up.inside && up.node !== seen[seen.length - 1], `ArrowUp: ${JSON.stringify(up)}`);
    await page.keyboard.press('Enter');
    const op = Number(/^op:(\d+)$/.exec(up.node)?.[1]);
    const title = await text(page, 'details-title');
    assert(title === `${sg.operators[op].op} #${String(op)}`, `Enter on ${String(up.node)} opened "${title}"`);
    await screenshot(page, '41-big-graph-keyboard', { target: true });
  });

  await check('big graph: search by tensor name and by #index selects the op and pans it into view; folded weights in its details', async () => {
    const gate = sg.operators.find((o) => sg.tensors[o.outputs[0]]?.name === 'block_47/gate');
    assert(gate, 'no op writes block_47/gate');
    await page.locator(testId('graph-search')).fill('block_47/gate');
    await page.locator(testId('graph-search')).press('Enter');
    await page.waitForFunction((t) => document.querySelector('[data-testid="details-title"]')?.textContent === t, `${gate.op} #${String(gate.index)}`, { timeout: STEP_TIMEOUT_MS });
    const at = await boxInView(page, `[data-testid="graph-op"][data-op="${String(gate.index)}"]`);
    assert(at.inside, `the found op ${String(gate.index)} is not in the viewport`);
    assert(await page.locator(`[data-testid="graph-op"][data-op="${String(gate.index)}"].selected`).count() === 1, 'the found op is not selected');
    // An ADD reading a folded weight DEQUANTIZE: the DEQUANTIZE is a line in its details.
    const add = sg.operators.find((o) => o.op === 'ADD' && o.index > 250 && o.inputs.some((t) => sg.operators.some((d) => d.op === 'DEQUANTIZE' && d.outputs[0] === t)));
    const dq = sg.operators.find((d) => d.op === 'DEQUANTIZE' && add.inputs.includes(d.outputs[0]));
    await page.locator(testId('graph-search')).fill(`#${String(add.index)}`);
    await page.locator(testId('graph-search')).press('Enter');
    await page.waitForFunction((t) => document.querySelector('[data-testid="details-title"]')?.textContent === t, `ADD #${String(add.index)}`, { timeout: STEP_TIMEOUT_MS });
    assert((await boxInView(page, `[data-testid="graph-op"][data-op="${String(add.index)}"]`)).inside, `ADD #${String(add.index)} is not in the viewport`);
    const folded = await text(page, 'details-folded');
    const weights = sg.tensors[dq.inputs[0]].name;
    assert(folded.includes(`DEQUANTIZE #${String(dq.index)}`) && folded.includes(weights), `the details do not name DEQUANTIZE #${String(dq.index)} and ${weights}: ${folded}`);
    const status = await text(page, 'graph-search-status');
    assert(status === '1 of 1', `search status "${status}"`);
    await page.locator(testId('graph-search')).fill('no such tensor');
    await page.locator(testId('graph-search')).press('Enter');
    assert((await text(page, 'graph-search-status')) === 'no match', 'no "no match" for a name not in the file');
    await screenshot(page, '42-big-graph-search', { target: true });
  });

  await check('big graph: after quantizing it, the Compare heat map opens on its worst op (its box in view)', async () => {
    await fillRandom(page, { count: 4, lo: -1, hi: 1, seed: 5 });
    await page.locator(testId('calibrate-method')).selectOption('minmax');
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'done');
    await showTab(page, 'quantize');
    await page.locator(testId('quant-mode')).selectOption('int8');
    await quantizeOnPage(page);
    await showTab(page, 'compare');
    await page.locator(testId('compare-sample-calibration')).check({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('compare-index')).fill('0');
    await page.locator(testId('compare-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForPanel(page, 'compare', ['done', 'error']);
    assert((await page.locator(testId('compare')).getAttribute('data-state')) === 'done', `compare failed: ${await text(page, 'error-banner')}`);
    await page.waitForTimeout(100);
    const worst = await page.evaluate(() => {
      const svg = document.querySelector('[data-testid="compare-graph-svg"]');
      const painted = [...document.querySelectorAll('[data-testid="compare-graph-op"][data-heat]')];
      const box = painted.reduce((w, g) => (w === undefined || Number(g.getAttribute('data-heat')) < Number(w.getAttribute('data-heat')) ? g : w), undefined);
      if (!svg || !box) return { painted: painted.length };
      const s = svg.getBoundingClientRect();
      const r = box.getBoundingClientRect();
      const top = document.querySelector('[data-testid="compare-graph-op"]');
      return { painted: painted.length, op: Number(box.getAttribute('data-op')), heat: box.getAttribute('data-heat'), inside: r.left >= s.left && r.right <= s.right && r.top >= s.top && r.bottom <= s.bottom, firstInside: top ? top.getBoundingClientRect().bottom > s.top && top.getBoundingClientRect().top < s.bottom : false };
    });
    assert(worst.painted > 100, `${String(worst.painted)} ops painted`);
    // The worst op is one of the deep block's (bias −100: its RELU is 0 and its gate ~1e-44 in
    // float), far down: the view panned there (the top of the graph is out of view).
    const deepOps = sg.operators.filter((o) => sg.tensors[o.outputs[0]]?.name.startsWith(`block_${String(model.deep)}/`)).map((o) => o.index);
    assert(deepOps.includes(worst.op), `the worst op is ${String(worst.op)} (${String(worst.heat)} dB), not one of block ${String(model.deep)}'s (${deepOps.join(', ')})`);
    assert(worst.inside && !worst.firstInside, `the worst op is not in view at first: ${JSON.stringify(worst)}`);
    await page.locator(testId('compare-graph')).scrollIntoViewIfNeeded();
    await screenshot(page, '44-big-graph-compare-worst', { target: true });
  });

  await check('big graph: the fp16 MobileNetV2 golden (written by TF\'s converter) shows one box per op that is not a weight DEQUANTIZE', async () => {
    const bytes = readFileSync(join(ROOT, 'tests/golden/mobilenet_v2/model_fp16.tflite'));
    const mn = api.inspectModel(bytes).subgraphs[0];
    const constant = new Set(mn.tensors.filter((t) => t.is_constant).map((t) => t.index));
    const weightDqs = mn.operators.filter((o) => o.op === 'DEQUANTIZE' && constant.has(o.inputs[0])).length;
    assert(weightDqs >= 50, `the golden has ${String(weightDqs)} weight DEQUANTIZE`);
    await dropFile(page, 'model_fp16.tflite', bytes);
    await waitForModel(page, 'model_fp16.tflite');
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="graph-op"]').length === n, mn.operators.length - weightDqs, { timeout: STEP_TIMEOUT_MS });
    const dqBoxes = await page.locator(`${testId('graph-op')}:has(text.graph-node-label:text-is("DEQUANTIZE"))`).count();
    assert(dqBoxes === 0, `${String(dqBoxes)} DEQUANTIZE boxes drawn`);
    await page.waitForTimeout(100);
    await screenshot(page, '43-mobilenet-v2-fp16-graph', { target: true });
    assert(record.pageErrors.length === 0 && record.consoleErrors.length === 0, `errors: ${[...record.pageErrors, ...record.consoleErrors].join('; ')}`);
  });
}

export const cases = [{ name: 'big-graph', needs: [], run: bigGraph }];
