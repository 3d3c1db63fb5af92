// Issue 21 item 6: every tab at a 400×800 viewport (a context of its own) on the example model,
// calibrated, quantized and compared: no sideways page scroll, Ranges labels ≥ 10 px, the
// requantization table's shift column reachable (the table may scroll inside its own box), the
// Compare per-layer table not wrapped a letter per line. A screenshot of each tab (target/e2e/).
import { STEP_TIMEOUT_MS, assert, check, onCleanup } from '../lib/harness.mjs';
import { fillRandom, isLocal, quantizeOnPage, screenshot, showTab, testId, text, waitForCalibration, waitForModel, waitForPanel, watch } from '../lib/page.mjs';

const VIEWPORT = { width: 400, height: 800 };
const TABS = ['model', 'calibrate', 'ranges', 'quantize', 'compare'];

/** Sideways overflow of the page, and the elements sticking out past its right edge. */
async function overflow(page) {
  return page.evaluate((vw) => {
    const scrollWidth = document.scrollingElement.scrollWidth;
    const culprits = [...document.querySelectorAll('body *')]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.right > vw + 1 && !el.closest('[hidden]');
      })
      // Only the outermost ones (their children stick out with them).
      .filter((el, _, all) => !all.some((o) => o !== el && o.contains(el)))
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}${el.dataset.testid ? `[${el.dataset.testid}]` : el.className ? `.${String(el.className).split(' ')[0]}` : ''} right=${Math.round(el.getBoundingClientRect().right)}`);
    return { scrollWidth, culprits };
  }, VIEWPORT.width);
}

async function noSideScroll(page, tab) {
  const o = await overflow(page);
  assert(o.scrollWidth <= VIEWPORT.width + 1, `${tab}: the page is ${String(o.scrollWidth)} px wide (${o.culprits.join(', ')})`);
}

async function narrow(ctx) {
  const { browser, base, foreignRequests, mainGraph } = ctx;
  const context = await browser.newContext({ viewport: VIEWPORT });
  context.on('request', (request) => {
    if (!isLocal(request.url())) foreignRequests.push(request.url());
  });
  onCleanup(() => context.close());
  const page = await context.newPage();
  const record = watch(page);
  await page.goto(base, { timeout: STEP_TIMEOUT_MS });
  await waitForModel(page, 'example.tflite');

  await check('400 px: every tab before calibration, no sideways scroll', async () => {
    for (const tab of TABS) {
      await showTab(page, tab);
      await noSideScroll(page, tab);
    }
  });

  await check('400 px: Ranges after a calibration: no sideways scroll, axis labels ≥ 10 px, the requantization shift column reachable', async () => {
    await fillRandom(page, { count: 4, lo: 0, hi: 1, seed: 7 });
    await page.locator(testId('calibrate-method')).selectOption('minmax');
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'done');
    await noSideScroll(page, 'calibrate (done)');
    await screenshot(page, '50-narrow-calibrate', { target: true });
    const conv = mainGraph.operators.find((o) => o.op === 'CONV_2D');
    await showTab(page, 'ranges');
    await page.waitForFunction(() => document.querySelector('[data-testid="ranges"]')?.getAttribute('data-state') === 'ready', null, { timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('ranges-tensor')).selectOption(String(conv.outputs[0]));
    await page.locator(testId('ranges-op')).selectOption(String(conv.index));
    await page.waitForSelector(testId('requant-table'), { timeout: STEP_TIMEOUT_MS });
    await noSideScroll(page, 'ranges');
    const labels = await page.evaluate(() =>
      [...document.querySelectorAll('[data-testid="ranges"] svg text')]
        .filter((t) => t.getBoundingClientRect().width > 0)
        .map((t) => ({ text: t.textContent, px: Number.parseFloat(getComputedStyle(t).fontSize) * (t.getScreenCTM()?.a ?? 0) })),
    );
    assert(labels.length > 0, 'the Ranges plot has no text labels');
    const small = labels.filter((l) => l.px < 10);
    assert(small.length === 0, `Ranges labels under 10 px on screen: ${small.slice(0, 4).map((l) => `"${l.text}" ${l.px.toFixed(1)} px`).join(', ')}`);
    await shiftColumnReachable(page, 'ranges');
    await screenshot(page, '51-narrow-ranges', { target: true });
  });

  await check('400 px: Quantize and Compare after a quantization: no sideways scroll, per-layer table words whole', async () => {
    await showTab(page, 'quantize');
    await page.locator(testId('quant-mode')).selectOption('int8');
    await quantizeOnPage(page);
    await noSideScroll(page, 'quantize (done)');
    await screenshot(page, '52-narrow-quantize', { target: true });
    await showTab(page, 'compare');
    await page.locator(testId('compare-sample-calibration')).check({ timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('compare-index')).fill('0');
    await page.locator(testId('compare-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForPanel(page, 'compare', ['done', 'error']);
    assert((await page.locator(testId('compare')).getAttribute('data-state')) === 'done', `compare failed: ${await text(page, 'error-banner')}`);
    await noSideScroll(page, 'compare (done)');
    // No header or cell of the per-layer table is a column of single letters: each is at most
    // two lines of its own font size tall... or wider than its longest word needs.
    const squeezed = await page.evaluate(() =>
      [...document.querySelectorAll('[data-testid="compare-table"] th, [data-testid="compare-table"] td')]
        .map((c) => {
          const lineHeight = Number.parseFloat(getComputedStyle(c).fontSize) * 1.6;
          return { text: (c.textContent ?? '').trim(), lines: c.getBoundingClientRect().height / lineHeight };
        })
        .filter((c) => c.text.length > 3 && c.lines > 3),
    );
    assert(squeezed.length === 0, `per-layer table cells wrapped into many lines: ${squeezed.slice(0, 4).map((c) => `"${c.text.slice(0, 20)}" ${c.lines.toFixed(1)} lines`).join(', ')}`);
    await screenshot(page, '53-narrow-compare', { target: true });
  });

  await check('400 px: the Model tab on the quantized model: the requantization shift column reachable, no sideways scroll', async () => {
    await showTab(page, 'model');
    const conv = mainGraph.operators.find((o) => o.op === 'CONV_2D');
    await page.locator(`${testId('graph-op')}[data-op="${String(conv.index)}"]`).first().click({ timeout: STEP_TIMEOUT_MS });
    await noSideScroll(page, 'model');
    await screenshot(page, '54-narrow-model', { target: true });
    const hasTable = (await page.locator(testId('requant-table')).count()) > 0;
    if (hasTable) await shiftColumnReachable(page, 'model details');
    assert(record.pageErrors.length === 0 && record.consoleErrors.length === 0, `errors: ${[...record.pageErrors, ...record.consoleErrors].join('; ')}`);
  });
}

/** The shift column of the requantization table is on screen, or its box scrolls to it. */
async function shiftColumnReachable(page, where) {
  const r = await page.evaluate((vw) => {
    const table = document.querySelector('[data-testid="requant-table"]');
    const th = [...(table?.querySelectorAll('th') ?? [])].find((h) => h.textContent === 'shift');
    if (!table || !th) return { found: false };
    const box = table.parentElement;
    const scrolls = box !== null && getComputedStyle(box).overflowX !== 'visible' && box.getBoundingClientRect().right <= vw + 1;
    box?.scrollTo({ left: box.scrollWidth });
    const right = th.getBoundingClientRect().right;
    return { found: true, right, scrolls };
  }, VIEWPORT.width);
  assert(r.found, `${where}: no requantization table with a shift column`);
  assert(r.right <= VIEWPORT.width + 1, `${where}: the shift column ends at ${String(Math.round(r.right))} px${r.scrolls ? ' even scrolled' : ', its box does not scroll'}`);
}

export const cases = [{ name: 'narrow', needs: [], run: narrow }];
