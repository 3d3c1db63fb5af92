/**
 * The Compare tab: one sample (from the calibration set, a `.npy`, or an image) through the float
 * and the quantized model; their outputs compared by kind (class scores, boxes, landmarks, masks,
 * embeddings, values: ui/compare-outputs.ts; the kind guessed, changeable per output and kept
 * while the float model stays loaded), the latency of each (`invoke()` timed in the worker), and the
 * SQNR of every layer, painted on the float model's graph as a heat map and listed worst first
 * (`zeropoint compare`'s numbers). The panel follows the page store's `model`, `quantized` and
 * `calibration` (whose samples it can take). `data-state` on the root: empty, idle, running,
 * done, error.
 *
 * For a model that keeps state between calls (resource variables: a streaming model), the panel
 * also offers to run the samples in order with the state carried: each run is the next frame of
 * both models (runners the worker keeps), the sample number moves on by one, and "Reset state"
 * starts the stream again from sample 0 with a fresh state — as `zeropoint run` goes through
 * the samples of a file.
 *
 * The quantized model runs (and is timed) with the arithmetic the page store's `arithmetic`
 * holds (ui/arithmetic.ts: LiteRT's reference kernels or its default XNNPACK path, as `zeropoint
 * run / compare --arithmetic`); the results say which. Choosing the other one runs the sample
 * again (in a stream: marks the results stale and starts both models again from frame 1); until
 * new results arrive, or when the run fails (an operator the XNNPACK arithmetic refuses), the
 * results shown stay, marked stale.
 */
import type { CalibrationSource } from '../calibration/types';
import { ARITHMETIC_TAG, failureMessage, ranWith, staleNote, type Arithmetic } from '../compare/arithmetic';
import { isImageFile } from '../calibration/preprocess';
import { inferKind } from '../compare/kinds';
import { HIGH_DB, LOW_DB, formatDb, median, speedRatio, sqnrByOp, sqnrColor, worstFirst } from '../compare/outputs';
import { layersFromComparison, sqnrVerdict } from '../compare/verdict';
import type { RunOutput, RunResult, SampleSpec, StreamResult, StreamStart } from '../engine/protocol';
import type { ModelSummary, TensorComparison } from '../engine/types';
import { formatFloat, formatMs } from '../format';
import type { PageStore } from '../page-state';
import { latest } from '../store';
import { SHOWN_ELEMENTS, outputBlock, type OutputView } from './compare-outputs';
import { arithmeticControl } from './arithmetic';
import { signatureControl } from './signature-picker';
import { runSubgraph } from '../model/signatures';
import { h, table, type Child } from './dom';
import { GraphView } from './graph';
import { verdictBox } from './warnings';

export interface CompareModel {
  name: string;
  bytes: Uint8Array;
  summary: ModelSummary;
  /** For the quantized model: the kind of data its ranges came from (`random`, …), if known. */
  calibration?: string | undefined;
  /** For the float model: whether it keeps state between calls (resource variables). */
  stateful?: boolean | undefined;
}

export interface CompareDeps {
  /** Runs a model `runs` times, with `arithmetic` (the reference kernels' when absent). */
  run: (bytes: Uint8Array, sample: SampleSpec, runs: number, arithmetic?: Arithmetic) => Promise<RunResult>;
  /** The next frame of the stream of `key` (`float` / `quant`): see the protocol's `stream`. */
  stream: (key: string, bytes: Uint8Array, sample: SampleSpec, start: StreamStart, arithmetic?: Arithmetic) => Promise<StreamResult>;
  /** Every tensor of both models, the quantized one run with `arithmetic`. */
  compare: (float: Uint8Array, quant: Uint8Array, sample: SampleSpec, arithmetic: Arithmetic) => Promise<TensorComparison[]>;
  showError: (message: string) => void;
  hideError: () => void;
  showQuantize: () => void;
}

type PanelState = 'empty' | 'idle' | 'running' | 'done' | 'error';
type SampleKind = 'calibration' | 'npy' | 'image';

/** Values of each output kept in data attributes of its block, for checks against the CLI. */
const CHECKED_ELEMENTS = 1024;

function radio(value: SampleKind, label: string, checked: boolean): [HTMLLabelElement, HTMLInputElement] {
  const input = h('input', { type: 'radio', name: 'compare-sample', value, 'data-testid': `compare-sample-${value}`, checked });
  return [h('label', { class: 'check' }, input, ` ${label}`), input];
}

export class ComparePanel {
  private float: CompareModel | undefined;
  private quant: CompareModel | undefined;
  private readonly comparisons = latest();
  /** Whether the user chose the sample kind (else the calibration set is chosen when it exists). */
  private picked = false;
  private readonly title = h('h3', {}, 'Compare');
  private readonly intro = h('p', { class: 'muted', 'data-testid': 'compare-intro' });
  private readonly radios: Record<SampleKind, HTMLInputElement>;
  private readonly index = h('input', { type: 'number', min: '0', step: '1', value: '0', 'data-testid': 'compare-index', 'aria-label': 'Sample index' });
  private readonly calibrationInfo = h('span', { class: 'muted', 'data-testid': 'compare-calibration-info' });
  private readonly npy = h('input', { type: 'file', accept: '.npy', 'data-testid': 'compare-npy' });
  private readonly image = h('input', { type: 'file', accept: 'image/*', 'data-testid': 'compare-image' });
  private readonly imageMin = h('input', { type: 'number', step: 'any', value: '0', 'data-testid': 'compare-image-min' });
  private readonly imageMax = h('input', { type: 'number', step: 'any', value: '1', 'data-testid': 'compare-image-max' });
  private readonly indexLabel = h('label', { class: 'field' }, h('span', {}, 'sample #'), this.index);
  private readonly npyLabel = h('label', { class: 'field' }, h('span', {}, '.npy (first axis = samples)'), this.npy);
  private readonly imageLabels = h(
    'span',
    { class: 'fields' },
    h('label', { class: 'field' }, h('span', {}, 'image (resized to the input)'), this.image),
    h('label', { class: 'field' }, h('span', {}, 'pixel 0 →'), this.imageMin),
    h('label', { class: 'field' }, h('span', {}, 'pixel 255 →'), this.imageMax),
  );
  private readonly runs = h('input', { type: 'number', min: '1', max: '100', step: '1', value: '5', 'data-testid': 'compare-runs' });
  private readonly start = h('button', { type: 'button', class: 'primary', 'data-testid': 'compare-start' }, 'Run both');
  private readonly status = h('span', { class: 'calibrate-status', 'data-testid': 'compare-status', 'aria-live': 'polite' });
  private readonly streamBox = h('input', { type: 'checkbox', 'data-testid': 'compare-stream' });
  private readonly resetState = h('button', { type: 'button', 'data-testid': 'compare-reset-state' }, 'Reset state');
  private readonly frameInfo = h('span', { class: 'muted', 'data-testid': 'compare-frame', 'aria-live': 'polite' });
  private readonly streamRow = h(
    'div',
    { class: 'fields', 'data-testid': 'compare-stream-row', hidden: true },
    h('label', { class: 'check' }, this.streamBox, ' run the samples in order, state carried (this model keeps state between calls)'),
    this.resetState,
    this.frameInfo,
  );
  /** The user's choices per output (kind, values per point, …), kept while the float model stays loaded. */
  private views = new Map<number, OutputView>();
  /** How the next stream frame starts (a new model or the first frame: `load`). */
  private streamStart: StreamStart = 'load';
  private readonly results = h('div', { class: 'compare-results', 'data-testid': 'compare-results', hidden: true });
  /** The arithmetic of the quantized model's results shown (`undefined`: none shown). */
  private shownArithmetic: Arithmetic | undefined;
  private readonly staleBox = h('p', { class: 'stale-note', 'data-testid': 'compare-stale', 'aria-live': 'polite', hidden: true });
  private readonly graph: GraphView;
  private readonly controls: HTMLElement;

  constructor(
    private readonly root: HTMLElement,
    private readonly store: PageStore,
    private readonly deps: CompareDeps,
  ) {
    const [calLabel, calRadio] = radio('calibration', 'calibration sample', true);
    const [npyLabel, npyRadio] = radio('npy', '.npy file', false);
    const [imageLabel, imageRadio] = radio('image', 'image', false);
    this.radios = { calibration: calRadio, npy: npyRadio, image: imageRadio };
    this.graph = new GraphView({
      testIdPrefix: 'compare-graph',
      onSelect: (selection) => {
        this.graph.select(selection);
        if (selection?.kind === 'op') this.highlightOp(selection.index);
      },
    });
    this.graph.element.classList.add('graph-compact');
    this.start.addEventListener('click', () => {
      this.run();
    });
    this.streamBox.addEventListener('change', () => {
      this.sync();
    });
    this.resetState.addEventListener('click', () => {
      if (this.streamStart !== 'load') this.streamStart = 'reset';
      this.index.value = '0';
      this.frameInfo.textContent = 'state reset: the next run is frame 1, from sample 0';
    });
    this.controls = h(
      'div',
      {},
      signatureControl(store, 'compare-signature-picker', 'run, stream and compare this signature (its inputs and outputs)'),
      h('div', { class: 'fields', role: 'radiogroup', 'aria-label': 'Sample' }, h('strong', {}, 'Sample:'), calLabel, npyLabel, imageLabel),
      h(
        'div',
        { class: 'fields' },
        this.indexLabel,
        this.calibrationInfo,
        this.npyLabel,
        this.imageLabels,
      ),
      this.streamRow,
      arithmeticControl(store),
      h('div', { class: 'fields' }, h('label', { class: 'field' }, h('span', {}, 'timed runs'), this.runs), this.start, this.status),
    );
    for (const r of Object.values(this.radios)) {
      r.addEventListener('change', () => {
        this.picked = true;
        this.sync();
      });
    }
    root.replaceChildren(this.title, this.intro, this.controls, this.staleBox, this.results);
    this.sync();
    store.subscribe('model', (model) => {
      if (model) this.setFloat(model);
    });
    store.subscribe('quantized', (model) => {
      this.setQuantized(model);
    });
    store.subscribe('calibration', () => {
      this.calibrationChanged();
    });
    store.subscribe('arithmetic', () => {
      this.arithmeticChanged();
    });
  }

  /**
   * The user chose the other arithmetic: results of the old one are marked stale; a shown (or
   * running) single run is run again; a stream starts again from frame 1 with both models loaded
   * anew (the float model's state must not run ahead of the quantized model's).
   */
  private arithmeticChanged(): void {
    this.markStale();
    if (!this.float || !this.quant) return;
    if (this.streamBox.checked) {
      if (this.streamStart !== 'load') {
        this.streamStart = 'load';
        this.index.value = '0';
        this.frameInfo.textContent = 'arithmetic changed: the next run is frame 1 of both models, from sample 0';
      }
      return;
    }
    const state = this.root.dataset['state'];
    if (state === 'running' || (this.shownArithmetic !== undefined && !this.results.hidden)) this.run();
  }

  /** Shows or hides the stale mark of the results (their arithmetic is not the one chosen). */
  private markStale(): void {
    const note = staleNote(this.results.hidden ? undefined : this.shownArithmetic, this.store.get().arithmetic);
    this.staleBox.hidden = note === undefined;
    this.staleBox.textContent = note ?? '';
    this.results.classList.toggle('stale', note !== undefined);
    if (note === undefined) delete this.results.dataset['stale'];
    else this.results.dataset['stale'] = 'true';
  }

  /** The float model changed: the quantized one is gone. */
  private setFloat(model: CompareModel): void {
    this.float = model;
    this.views = new Map();
    this.setQuantized(undefined);
  }

  /** A quantized model to compare (or none). */
  private setQuantized(model: CompareModel | undefined): void {
    this.comparisons.cancel();
    this.quant = model;
    this.streamStart = 'load';
    this.frameInfo.textContent = '';
    this.results.hidden = true;
    this.results.replaceChildren();
    this.shownArithmetic = undefined;
    this.markStale();
    this.status.textContent = '';
    this.sync();
  }

  /** The calibration finished or was cleared: the sample choice follows. */
  private calibrationChanged(): void {
    this.sync();
  }

  shown(): void {
    this.graph.refit();
  }

  private setState(state: PanelState): void {
    this.root.dataset['state'] = state;
    this.start.disabled = state === 'running' || state === 'empty';
  }

  private kind(): SampleKind {
    return (Object.keys(this.radios) as SampleKind[]).find((k) => this.radios[k].checked) ?? 'calibration';
  }

  /** The source of the last finished calibration and its sample count. */
  private calibrationSource(): { source: CalibrationSource; samples: number } | undefined {
    const calibration = this.store.get().calibration;
    return calibration ? { source: calibration.source, samples: calibration.stats.samples } : undefined;
  }

  private sync(): void {
    const cal = this.calibrationSource();
    this.calibrationInfo.textContent = cal ? `of ${cal.samples.toLocaleString('en-US')} (0 to ${String(cal.samples - 1)})` : 'no calibration run yet';
    this.radios.calibration.disabled = !cal;
    if (!cal && this.radios.calibration.checked) this.radios.npy.checked = true;
    if (cal && !this.picked) this.radios.calibration.checked = true;
    const kind = this.kind();
    this.indexLabel.hidden = kind === 'image';
    this.calibrationInfo.hidden = kind !== 'calibration';
    this.npyLabel.hidden = kind !== 'npy';
    this.imageLabels.hidden = kind !== 'image';
    if (!this.float || !this.quant) {
      this.title.textContent = 'Compare';
      const go = h('button', { type: 'button', 'data-testid': 'compare-go-quantize' }, 'Quantize →');
      go.addEventListener('click', () => {
        this.deps.showQuantize();
      });
      this.intro.replaceChildren('Quantize the model first; then run a sample through both. ', go);
      this.controls.hidden = true;
      this.setState('empty');
      return;
    }
    this.title.textContent = `Compare ${this.float.name} with ${this.quant.name}`;
    const stateful = this.float.stateful === true;
    this.streamRow.hidden = !stateful;
    if (!stateful) this.streamBox.checked = false;
    this.resetState.disabled = !this.streamBox.checked;
    this.runs.disabled = this.streamBox.checked;
    this.intro.textContent = 'One sample through both models: outputs side by side, latency, and the SQNR of every layer (10·log₁₀ Σf² / Σ(f − q̂)², q̂ the quantized tensor dequantized), as zeropoint compare computes it.';
    this.controls.hidden = false;
    if (this.root.dataset['state'] === 'empty') this.setState('idle');
  }

  private sample(): SampleSpec {
    const kind = this.kind();
    const index = Number(this.index.value);
    if (kind !== 'image' && (!Number.isInteger(index) || index < 0)) throw new Error('the sample number must be a whole number ≥ 0');
    if (kind === 'calibration') {
      const cal = this.calibrationSource();
      if (!cal) throw new Error('no calibration run yet: choose a .npy or an image');
      return { source: cal.source, index };
    }
    if (kind === 'npy') {
      const file = this.npy.files?.[0];
      if (!file) throw new Error('choose a .npy file (first axis = samples)');
      return { source: { kind: 'npy', files: [file] }, index };
    }
    const file = this.image.files?.[0];
    if (!file) throw new Error('choose an image');
    if (!isImageFile(file.name, file.type)) throw new Error(`${file.name} is not a PNG/JPEG/WebP/GIF/BMP image`);
    const min = Number(this.imageMin.value);
    const max = Number(this.imageMax.value);
    return { source: { kind: 'images', files: [file], normalization: { kind: 'range', min, max } }, index: 0 };
  }

  private run(): void {
    const float = this.float;
    const quant = this.quant;
    if (!float || !quant) return;
    if (this.streamBox.checked && float.stateful === true) {
      this.runFrame(float, quant);
      return;
    }
    let sample: SampleSpec;
    const runs = Number(this.runs.value);
    try {
      sample = this.sample();
      if (!Number.isInteger(runs) || runs < 1 || runs > 100) throw new Error('timed runs must be a whole number from 1 to 100');
    } catch (error) {
      this.deps.showError(`Compare: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    this.deps.hideError();
    const isLatest = this.comparisons.next();
    const arithmetic = this.store.get().arithmetic;
    this.setState('running');
    this.status.textContent = 'running the float model…';
    const work = async (): Promise<[RunResult, RunResult, TensorComparison[]]> => {
      const f = await this.deps.run(float.bytes, sample, runs);
      if (isLatest()) this.status.textContent = 'running the quantized model…';
      const q = await this.deps.run(quant.bytes, sample, runs, arithmetic);
      if (isLatest()) this.status.textContent = 'comparing every tensor…';
      const rows = await this.deps.compare(float.bytes, quant.bytes, sample, arithmetic);
      return [f, q, rows];
    };
    work().then(
      ([f, q, rows]) => {
        if (!isLatest()) return;
        this.setState('done');
        this.status.textContent = `Sample ${sample.source.kind === 'images' ? (sample.source.files[0]?.name ?? '') : `#${String(sample.index)}`}: done.`;
        this.render(float, f, q, rows, arithmetic);
      },
      (error: unknown) => {
        if (!isLatest()) return;
        this.setState('error');
        this.status.textContent = 'comparison failed';
        this.markStale();
        this.deps.showError(failureMessage(arithmetic, error instanceof Error ? error.message : String(error)));
      },
    );
  }

  /** The next frame of both models, state carried; the sample number then moves on by one. */
  private runFrame(float: CompareModel, quant: CompareModel): void {
    let sample: SampleSpec;
    try {
      sample = this.sample();
    } catch (error) {
      this.deps.showError(`Compare: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    this.deps.hideError();
    const isLatest = this.comparisons.next();
    const start = this.streamStart;
    const arithmetic = this.store.get().arithmetic;
    this.setState('running');
    this.status.textContent = 'running the next frame of both models…';
    const work = async (): Promise<[StreamResult, StreamResult]> => {
      const f = await this.deps.stream('float', float.bytes, sample, start);
      const q = await this.deps.stream('quant', quant.bytes, sample, start, arithmetic);
      return [f, q];
    };
    work().then(
      ([f, q]) => {
        if (!isLatest()) return;
        this.streamStart = 'continue';
        this.setState('done');
        const which = sample.source.kind === 'images' ? (sample.source.files[0]?.name ?? '') : `#${String(sample.index)}`;
        this.status.textContent = `Frame ${String(f.frame)} (sample ${which}): done.`;
        this.frameInfo.textContent = `${String(f.frame)} frame(s) since the state was fresh`;
        this.frameInfo.dataset['frame'] = String(f.frame);
        if (sample.source.kind !== 'images') this.index.value = String(sample.index + 1);
        const outputs = f.outputs.map((fo, k) => {
          const qo = q.outputs[k];
          return this.outputBlock(fo, qo, k, [], (block) => {
            // The values shown, exactly (for checks against `zeropoint run` on the same samples).
            block.dataset['testid'] = 'compare-stream-output';
            block.dataset['float'] = JSON.stringify(Array.from(fo.values.slice(0, SHOWN_ELEMENTS)));
            block.dataset['quant'] = JSON.stringify(Array.from(qo?.values.slice(0, SHOWN_ELEMENTS) ?? []));
          });
        });
        this.results.replaceChildren(this.arithmeticUsed(arithmetic), h('h4', {}, `Outputs of frame ${String(f.frame)} (state carried)`), ...outputs);
        this.results.hidden = false;
        this.shownArithmetic = arithmetic;
        this.markStale();
      },
      (error: unknown) => {
        if (!isLatest()) return;
        this.streamStart = 'load';
        this.setState('error');
        this.status.textContent = 'the frame failed';
        this.markStale();
        this.deps.showError(failureMessage(arithmetic, error instanceof Error ? error.message : String(error)));
      },
    );
  }

  /** The line next to results saying which arithmetic the quantized model ran with. */
  private arithmeticUsed(arithmetic: Arithmetic): HTMLElement {
    return h('p', { class: 'arithmetic-used', 'data-testid': 'compare-arithmetic-used', 'data-arithmetic': arithmetic }, ranWith(arithmetic));
  }

  private render(float: CompareModel, f: RunResult, q: RunResult, rows: TensorComparison[], arithmetic: Arithmetic): void {
    const fMed = median(f.timesMs);
    const qMed = median(q.timesMs);
    const ratio = speedRatio(f.timesMs, q.timesMs);
    const batches = (r: RunResult): string => (r.batch > 1 ? `${String(r.batch)} calls` : 'one call');
    const latency = h(
      'p',
      { class: 'latency', 'data-testid': 'compare-latency', 'data-float-ms': fMed, 'data-quant-ms': qMed, 'data-runs': f.timesMs.length, 'data-arithmetic': arithmetic },
      h('strong', {}, 'Latency '),
      `(median of ${String(f.timesMs.length)} timed runs of invoke() in the worker; a run is ${batches(f)} / ${batches(q)}): float ${formatMs(fMed)} · quantized (${ARITHMETIC_TAG[arithmetic]}) ${formatMs(qMed)}`,
      ratio === undefined ? '' : ` · quantized ${ratio}`,
      h('span', { class: 'muted' }, ` · first call ${formatMs(f.firstMs)} / ${formatMs(q.firstMs)}`),
    );
    const outputs = f.outputs.map((fo, k) => {
      const qo = q.outputs[k];
      return this.outputBlock(fo, qo, k, rows, (block) => {
        // The values of both models (up to CHECKED_ELEMENTS), exactly, for checks against the CLI.
        block.dataset['float'] = JSON.stringify(Array.from(fo.values.slice(0, CHECKED_ELEMENTS)));
        block.dataset['quant'] = JSON.stringify(Array.from(qo?.values.slice(0, CHECKED_ELEMENTS) ?? []));
      });
    });
    // The chosen signature's subgraph (subgraph 0 without one).
    const sg = runSubgraph(float.summary, this.store.get().signature).subgraph;
    const verdict = sg ? sqnrVerdict(layersFromComparison(rows, sg.operators, sg.outputs), this.quant?.calibration === 'random') : undefined;
    const byOp = sg ? sqnrByOp(sg.operators, rows) : new Map<number, TensorComparison>();
    if (sg) this.graph.show(sg);
    this.graph.paintOps(
      new Map(
        [...byOp].map(([op, r]) => [
          op,
          { fill: sqnrColor(r.sqnr_db), title: `${r.name}: SQNR ${formatDb(r.sqnr_db)}, max |err| ${formatFloat(r.max_abs_error)}`, value: String(r.sqnr_db) },
        ]),
      ),
    );
    // The heat map opens on its worst op (the lowest SQNR), wherever it is in a big graph.
    const worstOp = [...byOp].reduce<[number, TensorComparison] | undefined>((w, e) => (w === undefined || e[1].sqnr_db < w[1].sqnr_db ? e : w), undefined);
    if (worstOp) this.graph.revealOp(worstOp[0]);
    const producer = new Map<number, number>();
    for (const op of sg?.operators ?? []) for (const t of op.outputs) producer.set(t, op.index);
    const ordered = worstFirst(rows);
    const tableRows: Child[][] = ordered.map((r) => {
      const op = producer.get(r.float_tensor);
      const swatch = h('span', { class: 'swatch' });
      swatch.style.setProperty('background', sqnrColor(r.sqnr_db));
      return [
        h('span', { 'data-testid': 'compare-sqnr', 'data-value': String(r.sqnr_db) }, swatch, ' ', formatDb(r.sqnr_db)),
        h('code', { class: 'name', title: r.name }, r.name),
        op === undefined ? 'input' : `${sg?.operators[op]?.op ?? '?'} #${String(op)}`,
        r.dtype.toLowerCase(),
        formatFloat(r.max_abs_error),
        r.max_abs_error_lsb === undefined ? '—' : r.max_abs_error_lsb.toFixed(2),
      ];
    });
    const legend = h(
      'p',
      { class: 'muted legend' },
      'Heat: ',
      h('span', { class: 'heat-scale' }),
      ` red ≤ ${String(LOW_DB)} dB … green ≥ ${String(HIGH_DB)} dB (the SQNR of each op's output). Click an op to find its row.`,
    );
    this.results.replaceChildren(
      ...(verdict ? [verdictBox(verdict, 'compare-verdict')] : []),
      this.arithmeticUsed(arithmetic),
      latency,
      h('h4', {}, 'Outputs'),
      ...outputs,
      h('h4', {}, 'Per layer'),
      legend,
      this.graph.element,
      h(
        'div',
        { class: 'table-scroll' },
        table('compare-table', ['SQNR', 'tensor', 'made by', 'dtype', 'max |err|', 'LSB'], tableRows, [0, 4, 5], (i) => ({
          'data-tensor': ordered[i]?.float_tensor,
          'data-op': producer.get(ordered[i]?.float_tensor ?? -1),
        })),
      ),
    );
    this.results.hidden = false;
    this.shownArithmetic = arithmetic;
    this.markStale();
    requestAnimationFrame(() => {
      this.graph.refit();
    });
  }

  /**
   * Output k's block, read by its kind (the user's choice, else the guess from the float graph);
   * a changed choice is kept in `views` and redraws the block in place, focus kept on the control.
   */
  private outputBlock(fo: RunOutput, qo: RunOutput | undefined, k: number, rows: readonly TensorComparison[] = [], decorate?: (block: HTMLElement) => void): HTMLElement {
    const run = this.float ? runSubgraph(this.float.summary, this.store.get().signature) : undefined;
    const sg = run?.subgraph;
    const tensor = run?.outputs[k];
    const producer = tensor === undefined ? undefined : sg?.operators.find((op) => op.outputs.includes(tensor))?.op;
    const guess = inferKind({ shape: fo.shape, producer, name: fo.name, values: fo.values });
    const sqnr = rows.find((r) => r.float_tensor === tensor);
    const draw = (): HTMLElement => {
      const block = outputBlock({
        index: k,
        float: fo,
        quant: qo,
        guess,
        postProcess: producer === 'TFLite_Detection_PostProcess',
        sqnr,
        view: this.views.get(k) ?? {},
        onChange: (view) => {
          this.views.set(k, view);
          const focused = block.contains(document.activeElement) ? document.activeElement?.getAttribute('data-testid') : null;
          const next = draw();
          block.replaceWith(next);
          if (focused) next.querySelector<HTMLElement>(`[data-testid="${focused}"]`)?.focus();
        },
      });
      decorate?.(block);
      return block;
    };
    return draw();
  }

  private highlightOp(op: number): void {
    for (const tr of this.results.querySelectorAll('tr.selected')) tr.classList.remove('selected');
    const row = this.results.querySelector<HTMLElement>(`[data-testid="compare-table"] tr[data-op="${String(op)}"]`);
    row?.classList.add('selected');
    row?.scrollIntoView({ block: 'nearest' });
  }
}
