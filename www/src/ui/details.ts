/**
 * The side panel of the Model tab: details of the selected operator or tensor. Quantized tensors
 * show their parameters (per-channel scales as a bar chart); CONV_2D / DEPTHWISE_CONV_2D /
 * FULLY_CONNECTED ops of a quantized model show their requantization multipliers
 * `M = S_x · S_w / S_y → M0 · 2^−n`, computed by the engine (LiteRT's QuantizeMultiplier).
 */
import { BarController, BarElement, CategoryScale, Chart, LinearScale, Tooltip } from 'chart.js';
import type { MultiplierSteps, SubgraphSummary, TensorSummary } from '../engine/types';
import { formatBytes, formatDtype, formatFloat, formatInt, formatQuant, formatShape } from '../format';
import { constantDequantize } from '../graph/fold';
import { ellipsize } from '../graph/layout';
import { inputRole, multiplierText, opSupport, quantScales, requantOperands } from '../model/ops';
import type { PageStore } from '../page-state';
import { latest } from '../store';
import { tensorKind, tensorRole } from '../view-model';
import { h, type Child } from './dom';
import type { Selection } from './graph';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

export interface DetailsDeps {
  requant: (inputScale: number, weightScales: number[], outputScale: number) => Promise<MultiplierSteps[]>;
  /** Whether the Ranges view has calibration statistics for this tensor. */
  hasStats: (tensor: number) => boolean;
  openRanges: (tensor: number) => void;
  /** Shows the op's requantization (from the calibrated ranges) in the Ranges tab. */
  openRangesOp: (op: number) => void;
}

/** Storage range of a quantized dtype, for the represented real range. */
export function storageRange(dtype: string): [number, number] | undefined {
  switch (dtype) {
    case 'INT4':
      return [-8, 7];
    case 'INT8':
      return [-128, 127];
    case 'UINT8':
      return [0, 255];
    case 'INT16':
      return [-32768, 32767];
    default:
      return undefined;
  }
}

/** Channels shown in the multiplier table before "…". */
const MULTIPLIER_ROWS = 12;

export class DetailsPanel {
  readonly element = h('aside', { class: 'details card', 'data-testid': 'details', 'aria-live': 'polite' });
  private subgraph: SubgraphSummary | undefined;
  private chart: Chart | undefined;
  /** Replies for what is shown now; showing something else makes them stale. */
  private readonly requests = latest();

  /**
   * Links in the panel set the store's `selection`; a new calibration re-shows the selection (the
   * panel offers "show its range" only for calibrated tensors).
   */
  constructor(
    private readonly store: PageStore,
    private readonly deps: DetailsDeps,
  ) {
    this.clear();
    store.subscribe('calibration', () => {
      this.show(store.get().selection);
    });
  }

  setSubgraph(subgraph: SubgraphSummary | undefined): void {
    this.subgraph = subgraph;
    this.clear();
  }

  clear(): void {
    this.reset();
    this.element.dataset['kind'] = 'none';
    this.element.append(h('h3', {}, 'Details'), h('p', { class: 'muted' }, 'Click an operator or an edge in the graph, or a row of the tensor table.'));
  }

  show(selection: Selection): void {
    if (!selection || !this.subgraph) {
      this.clear();
      return;
    }
    if (selection.kind === 'op') this.showOp(this.subgraph, selection.index);
    else this.showTensor(this.subgraph, selection.index);
  }

  private reset(): void {
    this.requests.cancel();
    this.chart?.destroy();
    this.chart = undefined;
    this.element.replaceChildren();
  }

  private tensor(index: number): TensorSummary | undefined {
    const sg = this.subgraph;
    if (!sg) return undefined;
    const t = sg.tensors[index];
    return t?.index === index ? t : sg.tensors.find((x) => x.index === index);
  }

  private tensorLink(index: number): Child {
    if (index < 0) return h('span', { class: 'muted' }, 'omitted');
    const t = this.tensor(index);
    const name = t?.name ?? '';
    const link = h('button', { type: 'button', class: 'link', 'data-tensor': index, title: name }, `#${String(index)} ${ellipsize(name, 64)}`);
    link.addEventListener('click', () => {
      this.store.set({ selection: { kind: 'tensor', index } });
    });
    return link;
  }

  private opLink(index: number): Child {
    const op = this.subgraph?.operators[index];
    const link = h('button', { type: 'button', class: 'link', 'data-op': index }, `${op?.op ?? '?'} #${String(index)}`);
    link.addEventListener('click', () => {
      this.store.set({ selection: { kind: 'op', index } });
    });
    return link;
  }

  private showOp(sg: SubgraphSummary, index: number): void {
    this.reset();
    const op = sg.operators[index];
    if (!op) {
      this.clear();
      return;
    }
    this.element.dataset['kind'] = 'op';
    // Constant-weight DEQUANTIZE ops have no box in the graph: said here, on their consumers.
    const folded = [...constantDequantize(sg).values()];
    const foldedNote = (t: number): HTMLElement | null => {
      const f = folded.find((d) => d.to === t);
      if (!f) return null;
      const from = this.tensor(f.from);
      const dtype = formatDtype(from?.dtype ?? '?');
      return h(
        'div',
        { class: 'small folded-dq', 'data-testid': 'details-folded' },
        h('span', { class: 'badge' }, 'folded'),
        ...(f.densify === undefined
          ? [` dequantized from the ${dtype} constant `, this.tensorLink(f.from), ' by ', this.opLink(f.op), ' (not drawn as a box)']
          : [` densified from the sparse ${dtype} constant `, this.tensorLink(f.from), ' by ', this.opLink(f.densify), ', dequantized by ', this.opLink(f.op), ' (neither drawn as a box)']),
      );
    };
    const row = (role: string, t: number): HTMLElement => {
      const tensor = this.tensor(t);
      return h(
        'li',
        {},
        h('span', { class: 'role' }, role),
        ' ',
        this.tensorLink(t),
        tensor ? h('div', { class: 'muted small' }, `${formatShape(tensor.shape, tensor.shape_signature)} ${formatDtype(tensor.dtype)} · ${tensorKind(tensor)} · ${formatQuant(tensor.quantization)}`) : null,
        foldedNote(t),
      );
    };
    const self = folded.find((d) => d.op === index || d.densify === index);
    const requant = h('div', { class: 'requant', 'data-testid': 'op-requant' });
    this.element.append(
      h('h3', { 'data-testid': 'details-title' }, `${op.custom_code ?? op.op} #${String(index)}`),
      h('p', { class: 'muted' }, `operator ${String(index + 1)} of ${String(sg.operators.length)} in execution order · version ${String(op.version)}`),
      h('p', { class: 'muted small', 'data-testid': 'op-support' }, opSupport(op.op)),
      self ? h('p', { class: 'small', 'data-testid': 'details-folded-into' }, `Weights ${op.op}: folded in the graph into `, ...self.consumers.map((c) => this.opLink(c))) : '',
      h('h4', {}, 'Inputs'),
      h('ul', { class: 'io-list', 'data-testid': 'details-inputs' }, op.inputs.map((t, k) => row(inputRole(op.op, k), t))),
      h('h4', {}, 'Outputs'),
      h('ul', { class: 'io-list', 'data-testid': 'details-outputs' }, op.outputs.map((t, k) => row(op.outputs.length > 1 ? `output ${String(k)}` : 'output', t))),
      requant,
    );
    this.fillRequant(sg, index, requant);
  }

  private fillRequant(sg: SubgraphSummary, index: number, root: HTMLElement): void {
    const operands = requantOperands(sg, index);
    if (!operands) {
      root.remove();
      return;
    }
    const sx = quantScales(operands.input)?.[0];
    const sw = quantScales(operands.weights);
    const sy = quantScales(operands.output)?.[0];
    root.append(h('h4', {}, 'Requantization'));
    if (sx === undefined || sw === undefined || sy === undefined) {
      root.append(
        h('p', { class: 'muted' }, 'This op is float. After quantization its int32 accumulator is rescaled by M = S_x · S_w / S_y per output channel; the Ranges tab shows M for a calibrated float model.'),
      );
      if (this.deps.hasStats(operands.input.index) && this.deps.hasStats(operands.output.index)) {
        const button = h('button', { type: 'button', class: 'primary', 'data-testid': 'details-open-requant' }, 'Show M from the calibrated ranges →');
        button.addEventListener('click', () => {
          this.deps.openRangesOp(index);
        });
        root.append(button);
      }
      return;
    }
    const isCurrent = this.requests.current();
    root.append(h('p', { class: 'muted' }, 'computing…'));
    this.deps.requant(sx, sw, sy).then(
      (steps) => {
        if (!isCurrent()) return;
        root.replaceChildren(h('h4', {}, 'Requantization'), multiplierBlock(sx, sw, sy, steps));
      },
      (error: unknown) => {
        if (!isCurrent()) return;
        root.replaceChildren(h('p', { class: 'error-text' }, `Could not compute the multipliers: ${error instanceof Error ? error.message : String(error)}`));
      },
    );
  }

  private showTensor(sg: SubgraphSummary, index: number): void {
    this.reset();
    const t = this.tensor(index);
    if (!t) {
      this.clear();
      return;
    }
    this.element.dataset['kind'] = 'tensor';
    const producers = sg.operators.filter((op) => op.outputs.includes(index)).map((op) => this.opLink(op.index));
    const consumers = sg.operators.filter((op) => op.inputs.includes(index)).map((op) => this.opLink(op.index));
    const role = tensorRole(sg, index);
    const props: [string, Child | Child[]][] = [
      ['shape', formatShape(t.shape, t.shape_signature)],
      ['dtype', formatDtype(t.dtype)],
      ['kind', `${tensorKind(t)}${role ? ` · graph ${role}` : ''}`],
      ['data', t.data_bytes > 0 ? formatBytes(t.data_bytes) : '—'],
      ['made by', producers.length > 0 ? producers : '—'],
      ['read by', consumers.length > 0 ? withCommas(consumers) : '—'],
    ];
    this.element.append(
      h('h3', { 'data-testid': 'details-title' }, `Tensor #${String(index)}`),
      h('p', {}, h('code', { class: 'name' }, t.name)),
      h('dl', { class: 'props' }, props.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v)))),
    );
    const quant = this.quantBlock(t);
    if (quant) this.element.append(quant);
    if (this.deps.hasStats(index)) {
      const button = h('button', { type: 'button', class: 'primary', 'data-testid': 'details-open-ranges' }, 'Show its range and zero point →');
      button.addEventListener('click', () => {
        this.deps.openRanges(index);
      });
      this.element.append(button);
    }
  }

  private quantBlock(t: TensorSummary): HTMLElement | null {
    const q = t.quantization;
    const scales = q?.scale ?? [];
    if (!q || scales.length === 0) {
      if (q && q.min.length > 0) return h('p', { 'data-testid': 'details-quant' }, `Recorded range: ${formatQuant(q)}`);
      return t.dtype === 'FLOAT32' ? h('p', { class: 'muted', 'data-testid': 'details-quant' }, 'Not quantized (float32).') : null;
    }
    const zps = q.zero_point;
    if (scales.length === 1) {
      const scale = scales[0] ?? 0;
      const zp = zps[0] ?? 0;
      const range = storageRange(t.dtype);
      return h(
        'div',
        { class: 'quant', 'data-testid': 'details-quant' },
        h('h4', {}, 'Quantization (per tensor)'),
        h(
          'dl',
          { class: 'props' },
          h('div', {}, h('dt', {}, 'scale'), h('dd', { 'data-testid': 'details-scale', 'data-value': scale }, formatFloat(scale))),
          h('div', {}, h('dt', {}, 'zero point'), h('dd', { 'data-testid': 'details-zero-point', 'data-value': zp }, formatInt(zp))),
          range
            ? h(
                'div',
                {},
                h('dt', {}, 'represents'),
                h('dd', {}, `[${formatFloat(scale * (range[0] - zp))}, ${formatFloat(scale * (range[1] - zp))}] in steps of ${formatFloat(scale)}; 0.0 is q = ${formatInt(zp)}`),
              )
            : null,
        ),
        h('p', { class: 'muted small' }, 'real = scale · (q − zero point)'),
      );
    }
    let lo = Infinity;
    let hi = -Infinity;
    for (const s of scales) {
      lo = Math.min(lo, s);
      hi = Math.max(hi, s);
    }
    const canvas = h('canvas', { 'data-testid': 'details-scale-chart', 'aria-label': 'Per-channel scales' });
    const block = h(
      'div',
      { class: 'quant', 'data-testid': 'details-quant' },
      h('h4', {}, `Quantization: per-channel \u00d7${String(scales.length)} (axis ${String(q.quantized_dimension)})`),
      h('p', {}, `scales ${formatFloat(lo)} … ${formatFloat(hi)}, zero point${new Set(zps).size === 1 ? ` ${formatInt(zps[0] ?? 0)}` : 's vary'}`),
      h('div', { class: 'chart-box' }, canvas),
      h(
        'p',
        { class: 'muted small' },
        t.dtype === 'INT8'
          ? 'One scale per output channel: max|w[c]| / 127 (symmetric weights, zero point 0).'
          : t.dtype === 'INT4'
            ? 'One scale per output channel: max|w[c]| / 7 (symmetric 4-bit weights, two to a byte, zero point 0).'
            : 'One scale per output channel: S_x · S_w[c] (the bias is added to the int32 accumulator).',
      ),
    );
    this.chart = new Chart(canvas, {
      type: 'bar',
      data: {
        labels: scales.map((_, i) => String(i)),
        datasets: [{ label: 'scale', data: scales, backgroundColor: '#2563eb', borderWidth: 0, barPercentage: 1, categoryPercentage: 0.9 }],
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        responsive: true,
        plugins: { legend: { display: false }, tooltip: { callbacks: { title: (items) => `channel ${items[0]?.label ?? ''}` } } },
        scales: {
          x: { title: { display: true, text: 'channel' }, ticks: { maxTicksLimit: 12 } },
          y: { title: { display: true, text: 'scale' }, beginAtZero: true, ticks: { callback: (v) => formatFloat(Number(v)) } },
        },
      },
    });
    return block;
  }
}

function withCommas(items: Child[]): Child[] {
  return items.flatMap((item, i) => (i === 0 ? [item] : [', ', item]));
}

/** The multiplier of channel 0 written out, and a table of the first channels. */
export function multiplierBlock(sx: number, sw: readonly number[], sy: number, steps: readonly MultiplierSteps[]): HTMLElement {
  const first = steps[0];
  const rows = steps.slice(0, MULTIPLIER_ROWS).map((m, c) =>
    h(
      'tr',
      { 'data-testid': 'requant-row' },
      h('td', { class: 'num' }, String(c)),
      h('td', { class: 'num' }, formatFloat(sw[c] ?? NaN)),
      h('td', { class: 'num', 'data-value': m.multiplier }, m.multiplier.toPrecision(7)),
      h('td', { class: 'num', 'data-testid': 'requant-m0' }, String(m.m0)),
      h('td', { class: 'num', 'data-testid': 'requant-shift' }, formatInt(m.shift)),
    ),
  );
  return h(
    'div',
    {},
    first
      ? h(
          'p',
          { class: 'formula', 'data-testid': 'requant-formula' },
          `M = S_x · S_w / S_y = ${formatFloat(sx)} · ${formatFloat(sw[0] ?? NaN)} / ${formatFloat(sy)} = ${first.multiplier.toPrecision(7)} ≈ ${multiplierText(first.m0, first.shift)}`,
        )
      : null,
    h(
      'p',
      { class: 'muted small' },
      `M0 is a Q31 mantissa in [2^30, 2^31); the int32 accumulator is multiplied by M0 and shifted right by n = 31 − shift (LiteRT's QuantizeMultiplier). ${sw.length > 1 ? `${String(sw.length)} channels` : 'per tensor'}.`,
    ),
    h(
      'div',
      { class: 'table-scroll' },
      h(
        'table',
        { 'data-testid': 'requant-table' },
        h('thead', {}, h('tr', {}, ['ch', 'S_w', 'M', 'M0', 'shift'].map((x) => h('th', { class: 'num' }, x)))),
        h('tbody', {}, rows),
      ),
    ),
    steps.length > MULTIPLIER_ROWS ? h('p', { class: 'muted small' }, `… ${String(steps.length - MULTIPLIER_ROWS)} more channels`) : null,
  );
}
