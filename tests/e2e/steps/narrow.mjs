// Issue 21 item 6: every tab at a 400×800 viewport (a context of its own) on the example model,
// calibrated, quantized and compared: no sideways page scroll, Ranges labels ≥ 10 px, the
// requantization table whole in its box with its shift column on screen, the
// Compare per-layer table, the calibration statistics and the Model tab's inputs / outputs and
// tensor tables read as cards (a row a card, each value after its column's name) that need no
// sideways scrolling, no cell wrapped a letter per line. A screenshot of each tab (target/e2e/).
// Case narrow-resize: the same flow at 1280 px, then the window narrowed to 400 px: every graph
// keeps operator boxes in view (the heat map its worst op) and the panels above hold too; the
// per-layer table is a table at 1280 px and cards at 400 px.
import { STEP_TIMEOUT_MS, assert, check, onCleanup } from '../lib/harness.mjs';
import { dropFile, fillRandom, graphOpsInView, isLocal, quantizeOnPage, screenshot, showTab, testId, text, waitForCalibration, waitForModel, waitForPanel, watch, wrapsAtSpaces } from '../lib/page.mjs';

const VIEWPORT = { width: 400, height: 800 };
const WIDE = { width: 1280, height: 800 };
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
  // Nor is a control cut off by its card (a card may scroll, but its fields must fit).
  const cut = await page.evaluate(() =>
    [...document.querySelectorAll('.card select, .card input, .card button')]
      .filter((el) => el.getClientRects().length > 0 && !el.closest('.table-scroll, .tabs'))
      .filter((el) => {
        const card = el.closest('.card');
        const cs = getComputedStyle(card);
        return el.getBoundingClientRect().right > card.getBoundingClientRect().right - Number.parseFloat(cs.borderRightWidth) + 1;
      })
      .slice(0, 4)
      .map((el) => `${el.tagName.toLowerCase()}[${el.dataset.testid ?? ''}]`),
  );
  assert(cut.length === 0, `${tab}: controls past their card's edge: ${cut.join(', ')}`);
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
    await readsAsCards(page, 'stats-table');
    await screenshot(page, '50-narrow-calibrate', { target: true });
    const conv = mainGraph.operators.find((o) => o.op === 'CONV_2D');
    await showTab(page, 'ranges');
    await page.waitForFunction(() => document.querySelector('[data-testid="ranges"]')?.getAttribute('data-state') === 'ready', null, { timeout: STEP_TIMEOUT_MS });
    await page.locator(testId('ranges-tensor')).selectOption(String(conv.outputs[0]));
    await page.locator(testId('ranges-op')).selectOption(String(conv.index));
    await page.waitForSelector(testId('requant-table'), { timeout: STEP_TIMEOUT_MS });
    await noSideScroll(page, 'ranges');
    await rangesLegible(page);
    await shiftColumnReachable(page, 'ranges');
    await screenshot(page, '51-narrow-ranges', { target: true });
    // A percentile range clips: the clipped shares are labelled too, inside the box.
    await page.locator(testId('ranges-method')).selectOption('percentile');
    await page.locator(testId('ranges-percentile')).fill('99');
    await page.locator(testId('ranges-percentile')).dispatchEvent('change');
    await page.waitForFunction(() => document.querySelector('[data-testid="ranges-summary"]')?.textContent?.includes('percentile:99 ') && document.querySelector('[data-testid="ranges"]')?.getAttribute('data-state') === 'ready', null, { timeout: STEP_TIMEOUT_MS });
    assert((await page.locator('[data-testid="ranges-plot"] .clip-label').count()) > 0, 'percentile 99 clips nothing on the plot');
    await rangesLegible(page);
    await page.locator(testId('ranges-plot')).scrollIntoViewIfNeeded();
    await screenshot(page, '51b-narrow-ranges-percentile', { target: true });
    await page.locator(testId('ranges-method')).selectOption('minmax');
    await page.waitForFunction(() => document.querySelector('[data-testid="ranges-summary"]')?.textContent?.includes('minmax') && document.querySelector('[data-testid="ranges"]')?.getAttribute('data-state') === 'ready', null, { timeout: STEP_TIMEOUT_MS });
  });

  await check('400 px: Quantize and Compare after a quantization: no sideways scroll, the per-layer table as cards', async () => {
    await showTab(page, 'quantize');
    await page.locator(testId('quant-mode')).selectOption('int8');
    await quantizeOnPage(page);
    await noSideScroll(page, 'quantize (done)');
    await wrapsAtSpaces(page, 'quant-cli');
    await screenshot(page, '52-narrow-quantize', { target: true });
    await compareFirstSample(page);
    await noSideScroll(page, 'compare (done)');
    await worstOpInView(page, 'at first');
    await screenshot(page, '53-narrow-compare', { target: true });
    await readsAsCards(page, 'compare-table');
  });

  await check('400 px: the Model tab on the quantized model: the requantization shift column reachable, I/O and tensor tables as cards, no sideways scroll', async () => {
    await showTab(page, 'model');
    await page.locator(testId('show-quantized')).click({ timeout: STEP_TIMEOUT_MS });
    await page.waitForFunction(() => document.querySelector('[data-testid="show-quantized"]')?.getAttribute('aria-pressed') === 'true', null, { timeout: STEP_TIMEOUT_MS });
    // The quantized model's first CONV_2D (its op indices differ from the float model's).
    // Typing selects the first match (Enter would go on to the next).
    await page.locator(testId('graph-search')).fill('CONV_2D');
    const title = await text(page, 'details-title');
    assert(title.startsWith('CONV_2D #'), `searching CONV_2D selected "${title}" (${await text(page, 'graph-search-status')})`);
    await page.waitForSelector(testId('requant-table'), { timeout: STEP_TIMEOUT_MS });
    await noSideScroll(page, 'model');
    await readsAsCards(page, 'tensor-table');
    await readsAsCards(page, 'io-table', 8);
    await screenshot(page, '54-narrow-model', { target: true });
    await shiftColumnReachable(page, 'model details');
    assert(record.pageErrors.length === 0 && record.consoleErrors.length === 0, `errors: ${[...record.pageErrors, ...record.consoleErrors].join('; ')}`);
  });
}

/** Compare on the first calibration sample (the Compare tab shown). */
async function compareFirstSample(page) {
  await showTab(page, 'compare');
  await page.locator(testId('compare-sample-calibration')).check({ timeout: STEP_TIMEOUT_MS });
  await page.locator(testId('compare-index')).fill('0');
  await page.locator(testId('compare-start')).click({ timeout: STEP_TIMEOUT_MS });
  await waitForPanel(page, 'compare', ['done', 'error']);
  assert((await page.locator(testId('compare')).getAttribute('data-state')) === 'done', `compare failed: ${await text(page, 'error-banner')}`);
}

/**
 * The heat map's worst op (lowest SQNR) has its whole box inside the graph's viewport. The graph
 * refits on a resize a frame or more after it (ResizeObserver; longer on a loaded machine): polled
 * for up to 5 s, as `graphOpsInView` does.
 */
async function worstOpInView(page, when) {
  const look = () => page.evaluate(() => {
    const svg = document.querySelector('[data-testid="compare-graph-svg"]');
    const painted = [...document.querySelectorAll('[data-testid="compare-graph-op"][data-heat]')];
    const box = painted.reduce((w, g) => (w === undefined || Number(g.getAttribute('data-heat')) < Number(w.getAttribute('data-heat')) ? g : w), undefined);
    if (!svg || !box) return { painted: painted.length };
    const s = svg.getBoundingClientRect();
    const r = box.getBoundingClientRect();
    return { painted: painted.length, op: box.getAttribute('data-op'), inside: r.left >= s.left && r.right <= s.right && r.top >= s.top && r.bottom <= s.bottom };
  });
  let worst = await look();
  for (let i = 0; i < 50 && !(worst.painted > 3 && worst.inside); i++) {
    await page.waitForTimeout(100);
    worst = await look();
  }
  assert(worst.painted > 3 && worst.inside, `the worst op of the heat map is not in view ${when} (after 5 s): ${JSON.stringify(worst)}`);
}

/** Some operator box of graph `prefix` is seen at the current size (lib/page.mjs `graphOpsInView`). */
async function graphSeen(page, prefix, when) {
  const found = await graphOpsInView(page, prefix);
  assert(found.seen > 0, `${when}: no operator box of ${prefix} is in view (after 5 s): ${JSON.stringify(found)}`);
}

/**
 * The page used at 1280 px, then the window narrowed to 400 px (issue 21: the quantize graph slid
 * out of view). The graphs are first seen at 400 px and the window widened again while the
 * Quantize tab is hidden, and the model is loaded again: the sequence in which full e2e runs left
 * the quantize graph with no box in view.
 */
async function narrowedWindow(ctx) {
  const { browser, base, foreignRequests, example } = ctx;
  const context = await browser.newContext({ viewport: WIDE });
  context.on('request', (request) => {
    if (!isLocal(request.url())) foreignRequests.push(request.url());
  });
  onCleanup(() => context.close());
  const page = await context.newPage();
  const record = watch(page);
  await page.goto(base, { timeout: STEP_TIMEOUT_MS });
  await waitForModel(page, 'example.tflite');

  await check('1280 → 400 px: the model and quantize graphs keep boxes in view, also one panned by hand far right; so do they after 400 → 1280 while hidden and the model loaded again', async () => {
    for (const [tab, prefix] of [['model', 'graph'], ['quantize', 'quant-graph']]) {
      await showTab(page, tab);
      await graphSeen(page, prefix, `${tab} at 1280 px`);
      await page.setViewportSize(VIEWPORT);
      await graphSeen(page, prefix, `${tab} narrowed to 400 px`);
      await showTab(page, 'calibrate');
      await page.setViewportSize(WIDE);
    }
    // Panned by the user far to the right at 1280 px: narrowed, the middle column would be past
    // the right edge; an op is panned into view instead.
    await showTab(page, 'model');
    const svg = await page.locator(testId('graph-svg')).boundingBox();
    assert(svg && svg.width > 600, `the model graph is ${JSON.stringify(svg)} at 1280 px`);
    const y = svg.y + svg.height / 2;
    await page.mouse.move(svg.x + 40, y);
    await page.mouse.down();
    await page.mouse.move(svg.x + 240, y, { steps: 4 });
    await page.mouse.move(svg.x + svg.width / 2 + 40, y, { steps: 4 });
    await page.mouse.up();
    await page.setViewportSize(VIEWPORT);
    await graphSeen(page, 'graph', 'model graph panned right at 1280 px, narrowed to 400 px');
    await page.setViewportSize(WIDE);
    await dropFile(page, 'example-again.tflite', example);
    await waitForModel(page, 'example-again.tflite');
    for (const [tab, prefix] of [['model', 'graph'], ['quantize', 'quant-graph']]) {
      await showTab(page, tab);
      await graphSeen(page, prefix, `${tab} of the model loaded again, at 1280 px`);
    }
  });

  await check('1280 → 400 px after calibrating, quantizing and comparing at 1280 px: every graph keeps boxes in view (the heat map its worst op), Ranges legible, per-layer, I/O and tensor tables a table at 1280 px and cards at 400 px, no sideways scroll', async () => {
    await showTab(page, 'model');
    await readsAsTable(page, 'io-table');
    await readsAsTable(page, 'tensor-table');
    await showTab(page, 'calibrate');
    await fillRandom(page, { count: 4, lo: 0, hi: 1, seed: 7 });
    await page.locator(testId('calibrate-start')).click({ timeout: STEP_TIMEOUT_MS });
    await waitForCalibration(page, 'done');
    await readsAsTable(page, 'stats-table');
    await showTab(page, 'ranges');
    await page.waitForFunction(() => document.querySelector('[data-testid="ranges"]')?.getAttribute('data-state') === 'ready', null, { timeout: STEP_TIMEOUT_MS });
    await rangesLegible(page, 'wide');
    await quantizeOnPage(page);
    await graphSeen(page, 'quant-graph', 'quantize at 1280 px');
    await compareFirstSample(page);
    await worstOpInView(page, 'at 1280 px');
    await readsAsTable(page, 'compare-table');
    // Narrowed on the Compare tab; the other tabs are shown after the resize.
    await page.setViewportSize(VIEWPORT);
    await noSideScroll(page, 'compare (narrowed)');
    await worstOpInView(page, 'after narrowing to 400 px');
    await graphSeen(page, 'compare-graph', 'compare narrowed to 400 px');
    await readsAsCards(page, 'compare-table');
    await screenshot(page, '55-narrowed-compare', { target: true });
    await showTab(page, 'quantize');
    await noSideScroll(page, 'quantize (narrowed)');
    await graphSeen(page, 'quant-graph', 'quantize shown after narrowing to 400 px');
    await page.locator(testId('quant-graph-svg')).scrollIntoViewIfNeeded();
    await screenshot(page, '56-narrowed-quantize', { target: true });
    await showTab(page, 'model');
    await noSideScroll(page, 'model (narrowed)');
    await graphSeen(page, 'graph', 'model shown after narrowing to 400 px');
    await readsAsCards(page, 'tensor-table');
    await readsAsCards(page, 'io-table', 8);
    await page.locator(testId('tensor-table')).scrollIntoViewIfNeeded();
    await screenshot(page, '58-narrowed-model-tensors', { target: true });
    await showTab(page, 'ranges');
    await noSideScroll(page, 'ranges (narrowed)');
    await rangesLegible(page);
    await screenshot(page, '57-narrowed-ranges', { target: true });
    assert(record.pageErrors.length === 0 && record.consoleErrors.length === 0, `errors: ${[...record.pageErrors, ...record.consoleErrors].join('; ')}`);
  });
}

/**
 * The Ranges plot reads at this width: laid out as `layout` ('stacked' in a narrow box, 'wide' on
 * a desktop), text labels none under 10 px on screen, and (issue 21 item 6) the plot's box does
 * not scroll sideways, the plot and every label lie inside the box, no two labels overlap. Fails
 * with the old 660 px plot scrolling in its box at 400 px.
 */
export async function rangesLegible(page, layout = 'stacked') {
  // The plot is drawn again for its box's width after a resize or when its tab is shown.
  await page
    .waitForFunction((l) => document.querySelector('[data-testid="ranges-plot"] svg')?.getAttribute('data-layout') === l, layout, { timeout: 5000 })
    .catch(() => {});
  const r = await page.evaluate(() => {
    const box = document.querySelector('[data-testid="ranges-plot"]');
    const svg = box?.querySelector('svg');
    if (!box || !svg) return { found: false };
    const b = box.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')].filter((t) => t.getBoundingClientRect().width > 0);
    const rects = texts.map((t) => ({ text: t.textContent ?? '', r: t.getBoundingClientRect(), px: Number.parseFloat(getComputedStyle(t).fontSize) * (t.getScreenCTM()?.a ?? 0) }));
    const outside = rects.filter(({ r }) => r.left < b.left - 1 || r.right > b.right + 1).map(({ text, r }) => `"${text}" ${String(Math.round(r.left))}–${String(Math.round(r.right))}`);
    const overlaps = [];
    rects.forEach((a, i) =>
      rects.slice(i + 1).forEach((c) => {
        const w = Math.min(a.r.right, c.r.right) - Math.max(a.r.left, c.r.left);
        const h = Math.min(a.r.bottom, c.r.bottom) - Math.max(a.r.top, c.r.top);
        if (w > 1 && h > 2) overlaps.push(`"${a.text}" / "${c.text}"`);
      }),
    );
    const s = svg.getBoundingClientRect();
    return {
      found: true,
      layout: svg.getAttribute('data-layout'),
      sideways: box.scrollWidth - box.clientWidth,
      svgPast: s.right > b.right + 1 || s.left < b.left - 1,
      labels: rects.map(({ text, px }) => ({ text, px })),
      outside: outside.slice(0, 4),
      overlaps: overlaps.slice(0, 4),
      box: `${String(Math.round(b.left))}–${String(Math.round(b.right))}`,
    };
  });
  assert(r.found, 'no Ranges plot');
  assert(r.layout === layout, `the Ranges plot is laid out '${String(r.layout)}', not '${layout}'`);
  assert(r.labels.length > 0, 'the Ranges plot has no text labels');
  const small = r.labels.filter((l) => l.px < 10);
  assert(small.length === 0, `Ranges labels under 10 px on screen: ${small.slice(0, 4).map((l) => `"${l.text}" ${l.px.toFixed(1)} px`).join(', ')}`);
  assert(r.sideways <= 1 && !r.svgPast, `the Ranges plot scrolls ${String(r.sideways)} px sideways in its box${r.svgPast ? ' (the plot is wider than its box)' : ''}`);
  assert(r.outside.length === 0, `Ranges labels past the plot's box (${r.box}): ${r.outside.join(', ')}`);
  assert(r.overlaps.length === 0, `Ranges labels overlap: ${r.overlaps.join(', ')}`);
}

/**
 * No header or cell of table `id` is squeezed into a column of letters: a cell whose text wraps
 * keeps at least 8 characters a line (lines counted from its own line boxes).
 */
async function notSqueezed(page, id, minCells = 21) {
  const squeezed = await page.evaluate((tableId) =>
    [...document.querySelectorAll(`[data-testid="${tableId}"] th, [data-testid="${tableId}"] td`)]
      .map((c) => {
        const range = document.createRange();
        range.selectNodeContents(c);
        // Line boxes: rect tops more than 4 px apart (a tag's border box and its text share a line).
        const tops = [...range.getClientRects()].filter((r) => r.width > 0).map((r) => r.top).sort((a, b) => a - b);
        const lines = tops.filter((t, i) => i === 0 || t - tops[i - 1] > 4).length;
        return { text: (c.textContent ?? '').trim(), lines };
      })
      .filter((c) => c.lines > 1 && c.text.length / c.lines < 8),
  id);
  const cells = await page.locator(`${testId(id)} td`).count();
  assert(cells >= minCells, `${id} has ${String(cells)} cells`);
  assert(squeezed.length === 0, `${id}: cells squeezed: ${squeezed.slice(0, 4).map((c) => `"${c.text.slice(0, 24)}" on ${String(c.lines)} lines`).join(', ')}`);
}

/**
 * Table `id` reads at 400 px without sideways scrolling (issue 21 item 6): each row is a card,
 * nothing of it past the right edge of the table's box nor of the viewport, the box not
 * scrollable sideways, every non-empty cell but the tensor's name headed by its column's name
 * (the cell's ::before), and no cell squeezed a letter a line. Fails with the old layout (the
 * columns kept whole, the table scrolling in its box).
 */
export async function readsAsCards(page, id, minCells = 21) {
  const r = await page.evaluate(
    ({ tableId, vw }) => {
      const table = document.querySelector(`[data-testid="${tableId}"]`);
      if (!table) return { found: false };
      const box = table.closest('.table-scroll, .card') ?? table.parentElement;
      const b = box.getBoundingClientRect();
      const cells = [...table.querySelectorAll('tbody td')].filter((td) => td.getClientRects().length > 0);
      const past = cells
        .filter((td) => {
          const c = td.getBoundingClientRect();
          return c.right > Math.min(b.right, vw) + 1 || c.left < b.left - 1;
        })
        .map((td) => `${td.dataset.label ?? ''} "${(td.textContent ?? '').slice(0, 20)}" right=${String(Math.round(td.getBoundingClientRect().right))}`);
      const unlabelled = cells
        .filter((td) => (td.dataset.label ?? '') !== '' && (td.textContent ?? '').trim() !== '' && !td.querySelector('code.name'))
        .filter((td) => ['none', 'normal', ''].includes(getComputedStyle(td, '::before').content))
        .map((td) => `${td.dataset.label ?? '?'} "${(td.textContent ?? '').slice(0, 20)}"`);
      const head = table.querySelector('thead')?.getBoundingClientRect();
      return {
        found: true,
        cells: cells.length,
        sideways: box.scrollWidth - box.clientWidth,
        past: past.slice(0, 4),
        unlabelled: unlabelled.slice(0, 4),
        display: getComputedStyle(table.querySelector('tbody tr') ?? table).display,
        headHeight: head ? head.height : 0,
      };
    },
    { tableId: id, vw: VIEWPORT.width },
  );
  assert(r.found, `no table ${id}`);
  assert(r.cells >= minCells, `${id} has ${String(r.cells)} cells shown`);
  assert(r.display === 'flex' && r.headHeight <= 1, `${id}: rows are not cards (row display ${r.display}, header ${String(r.headHeight)} px tall)`);
  assert(r.sideways <= 1, `${id}: its box scrolls ${String(r.sideways)} px sideways`);
  assert(r.past.length === 0, `${id}: cells past the edge: ${r.past.join(', ')}`);
  assert(r.unlabelled.length === 0, `${id}: values without their column's name: ${r.unlabelled.join(', ')}`);
  await notSqueezed(page, id, minCells);
  await cardsReadInOrder(page, id);
}

/**
 * What a screen reader reads of card table `id` (Chromium's own accessibility tree, over CDP):
 * a table whose column headers are its columns' names, and whose first rows are rows (inside a
 * row group) of cells in the page's order, each labelled cell read as "label: value" (the card's
 * visible label, then its value), the tensor's name as itself. Fails with the label run into the
 * value ("minmin-1.5") and with the body's row group dropped (rows laid out as cards).
 */
export async function cardsReadInOrder(page, id, rowsChecked = 4) {
  const want = await page.evaluate(
    ({ tableId, n }) => {
      const table = document.querySelector(`[data-testid="${tableId}"]`);
      const norm = (t) => (t ?? '').replace(/\s+/g, ' ').trim();
      return {
        headers: [...(table?.querySelectorAll('thead th') ?? [])].map((th) => norm(th.textContent)),
        rows: [...(table?.querySelectorAll('tbody tr') ?? [])].slice(0, n).map((tr) =>
          [...tr.querySelectorAll('td')]
            .filter((td) => td.getClientRects().length > 0)
            .map((td) => ({ label: td.querySelector('code.name') ? '' : (td.dataset.label ?? ''), text: norm(td.textContent), named: td.querySelector('[aria-label]') !== null })),
        ),
      };
    },
    { tableId: id, n: rowsChecked },
  );
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
    const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: `[data-testid="${id}"]` });
    const { node } = await cdp.send('DOM.describeNode', { nodeId });
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const byId = new Map(nodes.map((n) => [n.nodeId, n]));
    // The tree's nodes that count (roles, not layout boxes or text runs), children flattened.
    const skip = (n) => n.ignored || ['generic', 'none', 'InlineTextBox', 'StaticText', 'LineBreak'].includes(n.role?.value);
    const kids = (n) => (n.childIds ?? []).map((c) => byId.get(c)).filter(Boolean).flatMap((c) => (skip(c) ? kids(c) : [c]));
    const role = (n) => n.role?.value;
    const name = (n) => String(n.name?.value ?? '').replace(/\s+/g, ' ').trim();
    const table = nodes.find((n) => n.backendDOMNodeId === node.backendNodeId);
    assert(table && role(table) === 'table', `${id}: a screen reader does not get a table (role ${table ? role(table) : 'none'})`);
    const groups = kids(table);
    assert(groups.length === 2 && groups.every((g) => role(g) === 'rowgroup'), `${id}: the table's children read as ${groups.map(role).join(', ')}, not a header and a body row group`);
    const headers = kids(groups[0]).flatMap(kids).filter((c) => role(c) === 'columnheader').map(name);
    assert(JSON.stringify(headers) === JSON.stringify(want.headers), `${id}: column headers read ${JSON.stringify(headers)}, shown ${JSON.stringify(want.headers)}`);
    const rows = kids(groups[1]);
    assert(rows.length >= want.rows.length && rows.every((r) => role(r) === 'row'), `${id}: the body reads as ${String(rows.length)} ${[...new Set(rows.map(role))].join('/')}`);
    want.rows.forEach((cells, r) => {
      const read = kids(rows[r]).filter((c) => role(c) === 'cell').map(name);
      const expected = cells.map((c) => (c.label !== '' && c.text !== '' ? `${c.label}: ${c.text}` : c.text));
      assert(read.length === expected.length, `${id} row ${String(r)}: ${String(read.length)} cells read, ${String(expected.length)} shown`);
      read.forEach((got, i) => {
        const w = expected[i];
        const { label, text, named } = cells[i];
        // Spaces aside (a name and its tag read as two words); a cell holding a named picture (the
        // calibration range bar) reads its label, then the picture's name.
        const same = got.replace(/ /g, '') === w.replace(/ /g, '');
        const picture = named && text === '' && label !== '' && got.startsWith(`${label}: `) && got.length > label.length + 3;
        assert(same || picture, `${id} row ${String(r)} cell ${String(i)}: read "${got}", shown "${w}"`);
      });
    });
  } finally {
    await cdp.detach();
  }
}

/** At desktop width table `id` is a table: its header row shown, one row a line. */
export async function readsAsTable(page, id) {
  const r = await page.evaluate((tableId) => {
    const table = document.querySelector(`[data-testid="${tableId}"]`);
    const th = table?.querySelector('thead th:nth-child(2)');
    const row = table?.querySelector('tbody tr');
    if (!table || !th || !row) return { found: false };
    return { found: true, display: getComputedStyle(table).display, row: getComputedStyle(row).display, head: th.getBoundingClientRect().height };
  }, id);
  assert(r.found, `no table ${id} with rows`);
  assert(r.display === 'table' && r.row === 'table-row' && r.head > 8, `${id} at desktop width: ${JSON.stringify(r)}`);
}

/** The requantization table fits its box at 400 px (no sideways scrolling); its shift column is on screen. */
export async function shiftColumnReachable(page, where) {
  const r = await page.evaluate((vw) => {
    const table = document.querySelector('[data-testid="requant-table"]');
    const th = [...(table?.querySelectorAll('th') ?? [])].find((h) => h.textContent === 'shift');
    if (!table || !th) return { found: false };
    const box = table.parentElement;
    const scrolls = box !== null && getComputedStyle(box).overflowX !== 'visible' && box.getBoundingClientRect().right <= vw + 1;
    const sideways = box ? box.scrollWidth - box.clientWidth : 0;
    box?.scrollTo({ left: box.scrollWidth });
    const right = th.getBoundingClientRect().right;
    return { found: true, right, scrolls, sideways };
  }, VIEWPORT.width);
  assert(r.found, `${where}: no requantization table with a shift column`);
  assert(r.sideways <= 1, `${where}: the requantization table scrolls ${String(r.sideways)} px sideways in its box`);
  assert(r.right <= VIEWPORT.width + 1, `${where}: the shift column ends at ${String(Math.round(r.right))} px${r.scrolls ? ' even scrolled' : ', its box does not scroll'}`);
}

export const cases = [
  { name: 'narrow', needs: [], run: narrow },
  { name: 'narrow-resize', needs: [], run: narrowedWindow },
];
