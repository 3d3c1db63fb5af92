/**
 * The Ranges tab: for one calibrated float tensor, how its recorded values become int8 (or
 * int16): the histogram of calibration values with the observed min/max, the range the method
 * chose, the range widened to include 0, the nudged (represented) range, the quantization grid
 * with the zero point, the clipped share, and the formula with this tensor's numbers. Below, the
 * requantization multiplier of a CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED op.
 *
 * Every number comes from the engine (worker → wasm → crate/src/quant/params.rs and
 * fixedpoint.rs), so the page and the quantizer cannot disagree; this module only draws. The view
 * follows the page store's `model` and `calibration`. A calibration by signature (a model with
 * several) lists the tensors of every signature's subgraph, grouped by signature; the graph's
 * links select in the chosen signature's group, the multiplier section is subgraph 0's.
 * `data-state` on the root: empty (no calibration), loading, ready, error.
 */
import type { CalibrationMethod, CalibrationStats, TensorStats } from '../calibration/types';
import type { ModelSummary, MultiplierSteps, QuantSteps } from '../engine/types';
import { formatInt } from '../format';
import { quantScales, requantOperands, requantOps } from '../model/ops';
import type { PageStore } from '../page-state';
import { dequantize, domainOf, formatShare, gridLevels, gridStride, linear, massOutside, rebin } from '../ranges/geometry';
import type { Mass } from '../ranges/geometry';
import { besideMark, placeLabel, plotLayout, textWidth } from '../ranges/layout';
import type { PlotLayout } from '../ranges/layout';
import { num, stepLines } from '../ranges/steps';
import { latest } from '../store';
import { multiplierBlock } from './details';
import { h, s } from './dom';

export interface RangesDeps {
  quantParams: (min: number, max: number, dtype: 'int8' | 'int16') => Promise<QuantSteps>;
  requant: (inputScale: number, weightScales: number[], outputScale: number) => Promise<MultiplierSteps[]>;
  weightScales: (bytes: Uint8Array, tensor: number, axis: number) => Promise<number[]>;
  /** Changes the calibration method (the Calibrate tab recomputes and publishes the statistics). */
  setMethod: (method: CalibrationMethod) => void;
  currentMethod: () => CalibrationMethod;
  showCalibrate: () => void;
}

interface RangesModel {
  name: string;
  bytes: Uint8Array;
  summary: ModelSummary;
}

/** What the plot shows: kept so that a change of the box's width can draw it again. */
interface Drawn {
  t: TensorStats;
  steps: QuantSteps;
  mass: Mass;
}

export class RangesView {
  private model: RangesModel | undefined;
  private stats: CalibrationStats | undefined;
  /** The statistics listed: one group per signature of a calibration by signature, else one. */
  private groups: { key: string | undefined; stats: CalibrationStats }[] = [];
  /** The group of the tensor shown. */
  private group = 0;
  private method = '';
  private tensorIndex: number | undefined;
  private readonly renders = latest();
  private readonly opRenders = latest();
  private readonly tensorSelect = h('select', { 'data-testid': 'ranges-tensor', 'aria-label': 'Tensor' });
  private readonly methodSelect = h(
    'select',
    { 'data-testid': 'ranges-method', 'aria-label': 'Range method' },
    h('option', { value: 'minmax' }, 'min/max (as TF)'),
    h('option', { value: 'percentile' }, 'percentile'),
    h('option', { value: 'mse' }, 'MSE-optimal'),
    h('option', { value: 'moving-average' }, 'moving-average min/max'),
  );
  private readonly percentile = h('input', { type: 'number', value: '99.99', step: 'any', min: '50', max: '100', 'data-testid': 'ranges-percentile', 'aria-label': 'Percentile' });
  private readonly percentileLabel = h('label', { class: 'field' }, h('span', {}, 'P'), this.percentile);
  private readonly dtypeSelect = h(
    'select',
    { 'data-testid': 'ranges-dtype', 'aria-label': 'Quantized type' },
    h('option', { value: 'int8' }, 'int8 (asymmetric)'),
    h('option', { value: 'int16' }, 'int16 (symmetric, 16x8)'),
  );
  private readonly plot = h('div', { class: 'ranges-plot', 'data-testid': 'ranges-plot' });
  private readonly summaryLine = h('p', { class: 'ranges-summary', 'data-testid': 'ranges-summary' });
  private readonly stepsList = h('ol', { class: 'ranges-steps', 'data-testid': 'ranges-steps' });
  private readonly opSelect = h('select', { 'data-testid': 'ranges-op', 'aria-label': 'Operator' });
  private readonly opBox = h('div', { class: 'ranges-op', 'data-testid': 'ranges-op-result' });
  private readonly body: HTMLElement;
  private readonly empty: HTMLElement;
  private drawn: Drawn | undefined;
  /** The layout the plot was last drawn with (a narrow box redraws on every width change). */
  private drawnLayout: PlotLayout | undefined;

  constructor(
    private readonly root: HTMLElement,
    private readonly store: PageStore,
    private readonly deps: RangesDeps,
  ) {
    const goCalibrate = h('button', { type: 'button', class: 'primary' }, 'Go to Calibrate');
    goCalibrate.addEventListener('click', () => {
      deps.showCalibrate();
    });
    this.empty = h('div', { class: 'ranges-empty', 'data-testid': 'ranges-empty' }, h('p', {}, 'Calibrate the model first: the ranges come from the values each tensor takes on the calibration data.'), goCalibrate);
    this.body = h(
      'div',
      {},
      h(
        'div',
        { class: 'fields' },
        h('label', { class: 'field' }, h('span', {}, 'Tensor'), this.tensorSelect),
        h('label', { class: 'field' }, h('span', {}, 'Range method'), this.methodSelect),
        this.percentileLabel,
        h('label', { class: 'field' }, h('span', {}, 'Type'), this.dtypeSelect),
      ),
      this.summaryLine,
      this.plot,
      h(
        'p',
        { class: 'muted legend' },
        h('span', { class: 'swatch swatch-hist' }),
        ' calibration values (bar height ∝ √count) ',
        h('span', { class: 'swatch swatch-clip' }),
        ' clipped (outside the represented range) ',
        h('span', { class: 'swatch swatch-zero' }),
        ' 0.0 = zero point',
      ),
      h('h4', {}, 'From range to scale and zero point'),
      this.stepsList,
      h('h4', {}, 'Requantization of an operator'),
      h('p', { class: 'muted' }, 'An int8 CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED sums products of int8 values into int32, then rescales by M = S_x · S_w / S_y into the output’s scale. LiteRT stores M as an integer M0 and a shift.'),
      h('div', { class: 'fields' }, h('label', { class: 'field' }, h('span', {}, 'Operator'), this.opSelect)),
      this.opBox,
    );
    root.replaceChildren(h('h3', {}, 'Ranges and zero points'), this.empty, this.body);
    this.tensorSelect.addEventListener('change', () => {
      const [group, index] = parseTensorValue(this.tensorSelect.value);
      this.group = group;
      this.tensorIndex = index;
      this.render();
    });
    this.dtypeSelect.addEventListener('change', () => {
      this.render();
      this.renderOp();
    });
    const methodChanged = (): void => {
      this.percentileLabel.hidden = this.methodSelect.value !== 'percentile';
      const choice = this.methodChoice();
      if (choice) deps.setMethod(choice);
    };
    this.methodSelect.addEventListener('change', methodChanged);
    this.percentile.addEventListener('change', methodChanged);
    this.opSelect.addEventListener('change', () => {
      this.renderOp();
    });
    this.setState('empty');
    // The plot is laid out for its box's width: drawn again when the box changes width (window
    // resized, phone turned, the tab shown after a draw while hidden).
    new ResizeObserver(() => {
      this.redrawPlot();
    }).observe(this.plot);
    store.subscribe('model', (model) => {
      if (model) this.setModel(model);
    });
    store.subscribe('calibration', (calibration) => {
      this.groups = calibration?.signatures?.map(({ key, stats }) => ({ key, stats })) ?? (calibration ? [{ key: undefined, stats: calibration.stats }] : []);
      this.setStats(calibration?.stats, calibration?.method ?? '');
    });
  }

  /** The group of the chosen signature (the graph's subgraph), or of subgraph 0. */
  private groupOf(subgraph: 'chosen' | 'first'): number {
    if (this.groups.length < 2) return 0;
    const summary = this.model?.summary;
    const key = subgraph === 'chosen' ? this.store.get().signature : summary?.signatures.find((x) => x.subgraph === 0)?.key;
    return Math.max(0, this.groups.findIndex((g) => g.key === key));
  }

  /** A tensor's option value: its index, `group:index` when the list has several groups. */
  private tensorValue(group: number, index: number): string {
    return this.groups.length > 1 ? `${String(group)}:${String(index)}` : String(index);
  }

  /** The statistics of the tensor shown. */
  private shownStats(): CalibrationStats | undefined {
    return this.groups[this.group]?.stats;
  }

  /** A new model: nothing is calibrated yet. */
  private setModel(model: RangesModel): void {
    this.model = model;
    this.stats = undefined;
    this.groups = [];
    this.group = 0;
    this.tensorIndex = undefined;
    const main = model.summary.subgraphs[0];
    const ops = main ? requantOps(main) : [];
    this.opSelect.replaceChildren(...ops.map((op) => h('option', { value: op.index }, `${op.op} #${String(op.index)}`)));
    this.setState('empty');
    this.renderOp();
  }

  /** Statistics from the Calibrate tab (after a run or a method change). */
  private setStats(stats: CalibrationStats | undefined, method: string): void {
    this.stats = stats;
    this.method = method;
    if (!stats || stats.tensors.length === 0) {
      this.setState('empty');
      this.renderOp();
      return;
    }
    const current = this.deps.currentMethod();
    this.methodSelect.value = current.kind;
    if (current.kind === 'percentile') this.percentile.value = String(current.percentile);
    this.percentileLabel.hidden = current.kind !== 'percentile';
    const options = (g: number, list: CalibrationStats): HTMLOptionElement[] => list.tensors.map((t) => h('option', { value: this.tensorValue(g, t.index) }, `#${String(t.index)} ${t.name}`));
    this.tensorSelect.replaceChildren(
      ...(this.groups.length > 1
        ? this.groups.map((g, k) => h('optgroup', { label: `signature ${g.key ?? ''}` }, ...options(k, g.stats)))
        : options(0, stats)),
    );
    if (this.group >= this.groups.length) this.group = this.groupOf('chosen');
    const shown = this.shownStats() ?? stats;
    if (this.tensorIndex === undefined || !shown.tensors.some((t) => t.index === this.tensorIndex)) {
      this.group = this.groupOf('chosen');
      this.tensorIndex = defaultTensor(this.shownStats() ?? stats);
    }
    this.tensorSelect.value = this.tensorValue(this.group, this.tensorIndex ?? 0);
    this.render();
    this.renderOp();
  }

  /** Whether there are statistics for this tensor (the Model tab offers a link then). */
  hasTensor(index: number): boolean {
    return this.stats?.tensors.some((t) => t.index === index) ?? false;
  }

  selectTensor(index: number): void {
    if (!this.hasTensor(index)) return;
    this.group = this.groupOf('chosen');
    this.tensorIndex = index;
    this.tensorSelect.value = this.tensorValue(this.group, index);
    this.render();
  }

  /** Selects the op in the multiplier section, if it has one. */
  selectOp(index: number): void {
    if ([...this.opSelect.options].some((o) => o.value === String(index))) {
      this.opSelect.value = String(index);
      this.renderOp();
    }
  }

  /** Scrolls the requantization section into view. */
  revealOp(): void {
    this.opBox.scrollIntoView({ block: 'center' });
  }

  private methodChoice(): CalibrationMethod | undefined {
    switch (this.methodSelect.value) {
      case 'percentile': {
        const p = Number(this.percentile.value);
        return Number.isFinite(p) ? { kind: 'percentile', percentile: p } : undefined;
      }
      case 'mse':
        return { kind: 'mse' };
      case 'moving-average':
        return { kind: 'moving-average' };
      default:
        return { kind: 'minmax' };
    }
  }

  private dtype(): 'int8' | 'int16' {
    return this.dtypeSelect.value === 'int16' ? 'int16' : 'int8';
  }

  private setState(state: 'empty' | 'loading' | 'ready' | 'error'): void {
    this.root.dataset['state'] = state;
    this.empty.hidden = state !== 'empty';
    this.body.hidden = state === 'empty';
  }

  private render(): void {
    const t = this.shownStats()?.tensors.find((x) => x.index === this.tensorIndex);
    if (!t) return;
    const dtype = this.dtype();
    this.setState('loading');
    this.renders.run(
      this.deps.quantParams(t.chosen_min, t.chosen_max, dtype),
      (steps) => {
        this.draw(t, steps);
        this.setState('ready');
      },
      (error: unknown) => {
        this.drawn = undefined;
        this.plot.replaceChildren();
        this.stepsList.replaceChildren();
        this.summaryLine.textContent = `Cannot quantize this range: ${error instanceof Error ? error.message : String(error)}`;
        this.setState('error');
      },
    );
  }

  private draw(t: TensorStats, steps: QuantSteps): void {
    const samples = this.shownStats()?.samples ?? 0;
    // A value saturates when it lies more than half a step beyond the grid's ends (closer ones
    // round to the end level like any other value).
    const half = steps.scale / 2;
    const mass = massOutside(t.histogram, steps.nudged_min - half, steps.nudged_max + half, t.min, t.max);
    const clipped = mass.below + mass.above;
    const value = (testId: string, x: number, text: string): HTMLElement => h('strong', { 'data-testid': testId, 'data-value': x }, text);
    this.summaryLine.replaceChildren(
      h('code', {}, t.name),
      ` · ${samples.toLocaleString('en-US')} samples · ${this.method} · observed `,
      h('span', { 'data-testid': 'ranges-observed', 'data-min': t.min, 'data-max': t.max }, `[${num(t.min)}, ${num(t.max)}]`),
      ' · chosen ',
      h('span', { 'data-testid': 'ranges-chosen', 'data-min': t.chosen_min, 'data-max': t.chosen_max }, `[${num(t.chosen_min)}, ${num(t.chosen_max)}]`),
      ` → ${steps.dtype}: scale `,
      value('ranges-scale', steps.scale, num(steps.scale, 9)),
      ', zero point ',
      value('ranges-zero-point', steps.zero_point, formatInt(steps.zero_point)),
      ' · clipped ',
      h('span', { 'data-testid': 'ranges-clipped', 'data-value': mass.total > 0 ? clipped / mass.total : 0 }, formatShare(clipped, mass.total)),
    );
    this.stepsList.replaceChildren(
      h('li', { 'data-testid': 'ranges-step-observed' }, h('strong', {}, 'Observed and chosen. '), `The ${samples.toLocaleString('en-US')} calibration samples gave min ${num(t.min)} and max ${num(t.max)}; ${this.method} chose [${num(t.chosen_min)}, ${num(t.chosen_max)}].`),
      ...stepLines(steps).map((line) => h('li', { 'data-testid': `ranges-step-${line.id}` }, h('strong', {}, `${line.title}. `), line.text)),
      h(
        'li',
        { 'data-testid': 'ranges-step-clipped' },
        h('strong', {}, 'Clipped. '),
        `${formatShare(mass.below, mass.total)} of the calibration values lie more than half a step below ${num(steps.nudged_min)} and ${formatShare(mass.above, mass.total)} more than half a step above ${num(steps.nudged_max)}: they saturate to the end levels instead of rounding to their nearest one.`,
      ),
    );
    this.drawn = { t, steps, mass };
    this.drawnLayout = undefined;
    this.redrawPlot();
  }

  /** Draws the plot for its box's width, unless it is drawn already with the same layout. */
  private redrawPlot(): void {
    if (!this.drawn) return;
    const width = this.plot.clientWidth;
    // Hidden (width 0): keep what is drawn; the observer calls again once the box has a width.
    if (width === 0 && this.drawnLayout) return;
    const layout = plotLayout(width);
    const old = this.drawnLayout;
    if (old?.stacked === layout.stacked && old.width === layout.width) return;
    this.drawnLayout = layout;
    const { t, steps, mass } = this.drawn;
    this.plot.replaceChildren(plotSvg(t, steps, mass, layout));
  }

  private renderOp(): void {
    const isLatest = this.opRenders.next();
    const model = this.model;
    const main = model?.summary.subgraphs[0];
    const index = Number(this.opSelect.value);
    if (!model || !main || this.opSelect.options.length === 0) {
      this.opBox.replaceChildren(h('p', { class: 'muted' }, 'This model has no CONV_2D, DEPTHWISE_CONV_2D or FULLY_CONNECTED op.'));
      return;
    }
    const operands = requantOperands(main, index);
    if (!operands) return;
    const fail = (error: unknown): void => {
      if (isLatest()) this.opBox.replaceChildren(h('p', { class: 'error-text' }, error instanceof Error ? error.message : String(error)));
    };
    const sx0 = quantScales(operands.input)?.[0];
    const sw0 = quantScales(operands.weights);
    const sy0 = quantScales(operands.output)?.[0];
    if (sx0 !== undefined && sw0 !== undefined && sy0 !== undefined) {
      this.opBox.replaceChildren(h('p', { class: 'muted' }, 'computing…'));
      this.deps.requant(sx0, sw0, sy0).then((m) => {
        if (isLatest()) this.opBox.replaceChildren(h('p', { class: 'muted' }, 'Scales as stored in this quantized model.'), multiplierBlock(sx0, sw0, sy0, m));
      }, fail);
      return;
    }
    // The operators listed are subgraph 0's.
    const stats = this.groups[this.groupOf('first')]?.stats;
    const xs = stats?.tensors.find((t) => t.index === operands.input.index);
    const ys = stats?.tensors.find((t) => t.index === operands.output.index);
    if (!xs || !ys) {
      this.opBox.replaceChildren(h('p', { class: 'muted' }, 'Calibrate first: S_x and S_y come from the calibrated ranges of the op’s input and output.'));
      return;
    }
    if (this.dtype() !== 'int8') {
      this.opBox.replaceChildren(h('p', { class: 'muted' }, 'Shown for int8 activations (choose Type int8).'));
      return;
    }
    this.opBox.replaceChildren(h('p', { class: 'muted' }, 'computing…'));
    void (async () => {
      try {
        const [px, py, sw] = await Promise.all([
          this.deps.quantParams(xs.chosen_min, xs.chosen_max, 'int8'),
          this.deps.quantParams(ys.chosen_min, ys.chosen_max, 'int8'),
          this.deps.weightScales(model.bytes, operands.weights.index, operands.axis),
        ]);
        const m = await this.deps.requant(px.scale, sw, py.scale);
        if (!isLatest()) return;
        this.opBox.replaceChildren(
          h('p', { class: 'muted' }, `S_x, S_y: the int8 scales of input #${String(operands.input.index)} and output #${String(operands.output.index)} from their calibrated ranges (${this.method}); S_w: max|w[c]| / 127 per output channel of the float weights #${String(operands.weights.index)}.`),
          multiplierBlock(px.scale, sw, py.scale, m),
        );
      } catch (error) {
        fail(error);
      }
    })();
  }
}

/** `[group, index]` of a tensor option's value (`index`, or `group:index`). */
function parseTensorValue(value: string): [number, number] {
  const [a, b] = value.split(':').map(Number);
  return b === undefined ? [0, a ?? 0] : [a ?? 0, b];
}

/** The tensor shown first: the first one that is computed (not a graph input), else the first. */
function defaultTensor(stats: CalibrationStats): number | undefined {
  return (stats.tensors[1] ?? stats.tensors[0])?.index;
}

function plotSvg(t: TensorStats, steps: QuantSteps, mass: Mass, L: PlotLayout): SVGSVGElement {
  const hist = t.histogram;
  const { width: W, left: LEFT, right: RIGHT, histTop: HIST_TOP, histBottom: HIST_BOTTOM, gridY: GRID_Y, stacked, fontSize: fs } = L;
  const [d0, d1] = domainOf([hist.lo, hist.hi, t.min, t.max, t.chosen_min, t.chosen_max, steps.nudged_min, steps.nudged_max, 0]);
  const x = linear(d0, d1, LEFT, RIGHT);
  const svg = s('svg', {
    viewBox: `0 0 ${String(W)} ${String(L.height)}`,
    class: stacked ? 'ranges-svg stacked' : 'ranges-svg',
    role: 'img',
    'aria-label': `Histogram and quantization grid of ${t.name}`,
    'data-layout': stacked ? 'stacked' : 'wide',
  });
  // Text kept inside the canvas (stacked: the box's own edges).
  const [edgeLo, edgeHi] = [4, W - 4];

  // Clipped regions (outside the represented range), shaded over the histogram.
  const clipLeft = x(steps.nudged_min);
  const clipRight = x(steps.nudged_max);
  svg.append(
    s('rect', { x: LEFT, y: HIST_TOP, width: Math.max(0, clipLeft - LEFT), height: HIST_BOTTOM - HIST_TOP, class: 'clip-shade', 'data-testid': 'ranges-clip-low' }),
    s('rect', { x: clipRight, y: HIST_TOP, width: Math.max(0, RIGHT - clipRight), height: HIST_BOTTOM - HIST_TOP, class: 'clip-shade', 'data-testid': 'ranges-clip-high' }),
  );
  if (mass.below > 0) svg.append(s('text', { x: LEFT + 4, y: HIST_TOP + 12, class: 'clip-label' }, `clipped ${formatShare(mass.below, mass.total)}`));
  if (mass.above > 0) svg.append(s('text', { x: RIGHT - 4, y: HIST_TOP + 12, class: 'clip-label', 'text-anchor': 'end' }, `clipped ${formatShare(mass.above, mass.total)}`));

  // Histogram, thinned to about one bar per 2 px, heights ∝ √count (ReLU spikes stay readable).
  const bars = rebin(hist, Math.floor((x(hist.hi) - x(hist.lo)) / 2) || 1);
  const peak = Math.sqrt(Math.max(1, ...bars.counts));
  const histGroup = s('g', { class: 'hist', 'data-testid': 'ranges-hist' });
  bars.counts.forEach((c, i) => {
    if (c <= 0) return;
    const a = x(bars.lo + i * bars.width);
    const b = x(bars.lo + (i + 1) * bars.width);
    const height = ((HIST_BOTTOM - HIST_TOP - 16) * Math.sqrt(c)) / peak;
    histGroup.append(s('rect', { x: a, y: HIST_BOTTOM - height, width: Math.max(0.8, b - a), height }));
  });
  svg.append(histGroup, s('line', { x1: LEFT, x2: RIGHT, y1: HIST_BOTTOM, y2: HIST_BOTTOM, class: 'axis' }));

  // Observed min / max (stacked: each on a line of its own, so close ones never collide).
  for (const [v, label, id, y] of [
    [t.min, 'min', 'ranges-marker-min', L.markerLabelY[0]],
    [t.max, 'max', 'ranges-marker-max', L.markerLabelY[1]],
  ] as const) {
    const text = `${label} ${num(v, 4)}`;
    const at = stacked ? placeLabel(x(v), text, fs, edgeLo, edgeHi) : { x: x(v), anchor: 'middle' };
    svg.append(
      s('line', { x1: x(v), x2: x(v), y1: HIST_TOP - 6, y2: HIST_BOTTOM, class: 'marker-observed', 'data-testid': id }),
      s('text', { x: at.x, y, 'text-anchor': at.anchor, class: 'marker-label' }, text),
    );
  }

  // Quantization grid: every stride-th level counted from the zero point.
  const levels = steps.qmax - steps.storage_min + 1;
  const stride = gridStride(levels, clipRight - clipLeft);
  const grid = s('g', { class: 'grid', 'data-testid': 'ranges-grid', 'data-stride': stride });
  for (const q of gridLevels(steps.storage_min, steps.qmax, steps.zero_point, stride)) {
    const gx = x(dequantize(q, steps.scale, steps.zero_point));
    grid.append(s('line', { x1: gx, x2: gx, y1: GRID_Y - 7, y2: GRID_Y + 7, class: q === steps.zero_point ? 'grid-zero' : 'grid-level' }));
  }
  const gridTitle = stride > 1 ? `grid (every ${String(stride)})` : 'grid (every level)';
  svg.append(
    s('text', { x: stacked ? edgeLo : 8, y: L.gridTitleY, class: 'row-label' }, stacked ? `quantization ${gridTitle}` : gridTitle),
    s('line', { x1: clipLeft, x2: clipRight, y1: GRID_Y, y2: GRID_Y, class: 'grid-base' }),
    grid,
    ...gridEndLabels(steps, clipLeft, clipRight, L),
  );

  // 0.0 and the zero point.
  const zx = x(0);
  const zeroText = `0.0 = q ${formatInt(steps.zero_point)} (zero point)`;
  const zeroAt: { x: number; anchor: string } = stacked
    ? besideMark(zx, zeroText, fs, edgeLo, edgeHi)
    : zx < (LEFT + RIGHT) / 2
      ? { x: zx + 5, anchor: 'start' }
      : { x: zx - 5, anchor: 'end' };
  svg.append(
    s('line', { x1: zx, x2: zx, y1: HIST_TOP - 6, y2: GRID_Y + 9, class: 'zero-line', 'data-testid': 'ranges-zero-marker' }),
    s('text', { x: zeroAt.x, y: GRID_Y - 12, 'text-anchor': zeroAt.anchor, class: 'zero-label' }, zeroText),
  );

  // Range rows: observed, chosen, widened, represented (stacked: name and range on a line above).
  const row = (y: number, lo: number, hi: number, label: string, cls: string, testId: string): void => {
    const range = `[${num(lo, 4)}, ${num(hi, 4)}]`;
    svg.append(
      stacked
        ? s('text', { x: edgeLo, y: y - 9, class: 'row-label' }, `${label} `, s('tspan', { class: 'row-value' }, range))
        : s('text', { x: 8, y: y + 4, class: 'row-label' }, label),
      s('line', { x1: x(lo), x2: x(hi), y1: y, y2: y, class: `range-row ${cls}`, 'data-testid': testId, 'data-min': lo, 'data-max': hi }),
      s('line', { x1: x(lo), x2: x(lo), y1: y - 5, y2: y + 5, class: `range-row ${cls}` }),
      s('line', { x1: x(hi), x2: x(hi), y1: y - 5, y2: y + 5, class: `range-row ${cls}` }),
    );
    if (!stacked) svg.append(s('text', { x: x(hi) + 6, y: y + 4, class: 'row-value' }, range));
  };
  row(L.rowsY[0], t.min, t.max, 'observed', 'row-observed', 'ranges-row-observed');
  row(L.rowsY[1], t.chosen_min, t.chosen_max, 'chosen', 'row-chosen', 'ranges-row-chosen');
  row(L.rowsY[2], steps.rmin, steps.rmax, 'with 0', 'row-widened', 'ranges-row-widened');
  row(L.rowsY[3], steps.nudged_min, steps.nudged_max, 'represented', 'row-nudged', 'ranges-row-nudged');
  return svg;
}

/**
 * The q labels at both ends of the grid. Desktop: centred under each end. Stacked: kept inside
 * the box, and one label "q lo … hi" when the two would collide (a represented range much
 * narrower than the data's).
 */
function gridEndLabels(steps: QuantSteps, clipLeft: number, clipRight: number, L: PlotLayout): SVGTextElement[] {
  const lo = `q ${formatInt(steps.storage_min)}`;
  const hi = `q ${formatInt(steps.qmax)}`;
  const y = L.gridLabelY;
  if (!L.stacked) {
    return [
      s('text', { x: clipLeft, y, 'text-anchor': 'middle', class: 'grid-label' }, lo),
      s('text', { x: clipRight, y, 'text-anchor': 'middle', class: 'grid-label' }, hi),
    ];
  }
  const [edgeLo, edgeHi] = [4, L.width - 4];
  const a = placeLabel(clipLeft, lo, L.fontSize, edgeLo, edgeHi);
  const b = placeLabel(clipRight, hi, L.fontSize, edgeLo, edgeHi);
  const extent = (p: { x: number; anchor: string }, text: string): [number, number] => {
    const w = textWidth(text, L.fontSize);
    return p.anchor === 'start' ? [p.x, p.x + w] : p.anchor === 'end' ? [p.x - w, p.x] : [p.x - w / 2, p.x + w / 2];
  };
  if (extent(a, lo)[1] + 8 <= extent(b, hi)[0]) {
    return [s('text', { x: a.x, y, 'text-anchor': a.anchor, class: 'grid-label' }, lo), s('text', { x: b.x, y, 'text-anchor': b.anchor, class: 'grid-label' }, hi)];
  }
  const both = `q ${formatInt(steps.storage_min)} … ${formatInt(steps.qmax)}`;
  const at = placeLabel((clipLeft + clipRight) / 2, both, L.fontSize, edgeLo, edgeHi);
  return [s('text', { x: at.x, y, 'text-anchor': at.anchor, class: 'grid-label' }, both)];
}
