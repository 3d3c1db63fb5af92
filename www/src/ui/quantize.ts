/**
 * The Quantize tab: the CLI's options (mode, I/O type, per-channel or per-tensor weights, the
 * calibration range method), operators kept float (click them in the graph; the list undoes),
 * then the quantized model with its size against the original, the warnings, and the downloads:
 * the `.tflite`, the JSON report and the calibration statistics it was made from — the same files
 * `zeropoint quantize --stats` writes, whose command line is shown.
 *
 * The model bytes, the statistics and these settings live here on the main thread and travel
 * with every request, so a restarted engine worker loses nothing. The panel follows the page
 * store's `model` and `calibration` and publishes its result as the store's `quantized`.
 * `data-state` on the root: idle, running, done, error.
 */
import { formatDuration, type Progress } from '../calibration/progress';
import type { CalibrationMethod, CalibrationStats } from '../calibration/types';
import type { AutoRequest, QuantizeResult, RankedLayer } from '../engine/protocol';
import type { ModelSummary, QuantizeSettings } from '../engine/types';
import { formatCount } from '../format';
import type { PageStore } from '../page-state';
import {
  MODES,
  cliCommand,
  errorSummary,
  cliStatsFileName,
  describeSettings,
  fileIoType,
  ioChoices,
  isMode,
  needsCalibration,
  quantizedFileName,
  reportFileName,
  settingsFor,
  sizeChange,
  toggleOp,
  type Mode,
} from '../quantize/settings';
import { latest } from '../store';
import { layersFromReport, sqnrVerdict } from '../compare/verdict';
import { append, h } from './dom';
import { BeyondPanel, autoReportBox, type AutoChoice, type BeyondHost } from './beyond';
import { GraphView } from './graph';
import { verdictBox, warningList } from './warnings';
import { saveFile } from './save';

export interface QuantizeModel {
  name: string;
  bytes: Uint8Array;
  summary: ModelSummary;
}

/** A finished quantization, as the page keeps it. */
export interface QuantizedModel extends QuantizeResult {
  name: string;
  settings: QuantizeSettings;
  /** The float model it was made from. */
  source: string;
  /** The kind of data its ranges came from (`random`, `npy`, `images`), when calibrated here. */
  calibration: string | undefined;
  /** The `--auto` options it was made with (absent without `--auto`). */
  auto?: AutoChoice | undefined;
}

export interface QuantizeDeps {
  /** With `auto`: `zeropoint quantize --auto` on a calibration of `auto.config` (progress per sample). */
  quantize: (bytes: Uint8Array, stats: CalibrationStats | undefined, settings: QuantizeSettings, auto?: Omit<AutoRequest, 'limits' | 'shapes'>, onProgress?: (progress: Progress) => void) => Promise<QuantizeResult>;
  rankLayers: BeyondHost['rankLayers'];
  /** Ends the engine worker's current work (a fresh worker takes over): the Stop buttons. */
  interrupt: () => void;
  /** Changes the calibration method (the Calibrate tab recomputes and publishes the statistics). */
  setMethod: (method: CalibrationMethod) => void;
  currentMethod: () => CalibrationMethod;
  showCalibrate: () => void;
  showError: (message: string) => void;
  hideError: () => void;
  /** Show the quantized model in the Model tab. */
  showInModelView: () => void;
}

type PanelState = 'idle' | 'running' | 'done' | 'error';

function select(testId: string, label: string, options: readonly { value: string; label: string }[]): [HTMLLabelElement, HTMLSelectElement] {
  const el = h('select', { 'data-testid': testId }, options.map((o) => h('option', { value: o.value }, o.label)));
  return [h('label', { class: 'field' }, h('span', {}, label), el), el];
}

export class QuantizePanel {
  private model: QuantizeModel | undefined;
  private stats: CalibrationStats | undefined;
  /** The number of signatures of a calibration by signature (each quantized with its own ranges). */
  private bySignature: number | undefined;
  private method = '';
  private floatOps = new Set<number>();
  private int16Ops = new Set<number>();
  private result: QuantizedModel | undefined;
  /** The I/O type the user chose last: a mode that forces float I/O does not forget it. */
  private ioWanted = 'int8';
  private readonly runs = latest();
  private readonly ioNote = h('span', { class: 'muted small', 'data-testid': 'quant-io-note', 'aria-live': 'polite' });
  private readonly stale = h('p', { class: 'warning-text', 'data-testid': 'quant-stale', hidden: true }, 'The settings above changed since this file was made: Quantize again to apply them. The file, its name and the settings shown here belong together.');

  private readonly title = h('h3', {}, 'Quantize');
  private readonly mode: HTMLSelectElement;
  private readonly io: HTMLSelectElement;
  private readonly weights: HTMLSelectElement;
  private readonly methodSelect: HTMLSelectElement;
  private readonly percentile = h('input', { type: 'number', step: 'any', min: '0', max: '100', value: '99.99', 'data-testid': 'quant-percentile' });
  private readonly percentileLabel: HTMLLabelElement;
  private readonly calibrationInfo = h('div', { class: 'quant-calibration', 'data-testid': 'quant-calibration' });
  private readonly graph: GraphView;
  private readonly floatList = h('ul', { class: 'float-list', 'data-testid': 'quant-float-list' });
  private readonly int16List = h('ul', { class: 'float-list', 'data-testid': 'quant-int16-list' });
  private readonly clickAs: HTMLSelectElement;
  private readonly start = h('button', { type: 'button', class: 'primary', 'data-testid': 'quant-start' }, 'Quantize');
  private readonly progress = h('progress', { 'data-testid': 'quant-progress', 'aria-label': 'Quantization progress', hidden: true });
  private readonly stop = h('button', { type: 'button', 'data-testid': 'quant-stop', hidden: true, title: 'Ends the engine worker and starts a fresh one: calibrate again before ranking layers' }, 'Stop');
  private readonly status = h('span', { class: 'calibrate-status', 'data-testid': 'quant-status', 'aria-live': 'polite' });
  private readonly resultBox = h('div', { class: 'quant-result', 'data-testid': 'quant-result', hidden: true });
  private readonly beyond: BeyondPanel;

  constructor(
    private readonly root: HTMLElement,
    private readonly store: PageStore,
    private readonly deps: QuantizeDeps,
  ) {
    const [modeLabel, mode] = select('quant-mode', 'Mode', MODES);
    const [ioLabel, io] = select('quant-io', 'Input/output type', []);
    const [weightsLabel, weights] = select('quant-weights', 'Weights', [
      { value: 'per-channel', label: 'per channel' },
      { value: 'per-tensor', label: 'per tensor' },
    ]);
    const [methodLabel, method] = select('quant-method', 'Range method', [
      { value: 'minmax', label: 'min/max (as TF)' },
      { value: 'percentile', label: 'percentile' },
      { value: 'mse', label: 'MSE-optimal' },
      { value: 'moving-average', label: 'moving-average min/max' },
    ]);
    const [clickLabel, clickAs] = select('quant-click', 'Clicking an operator', [
      { value: 'float', label: 'keeps it float' },
      { value: 'int16', label: 'makes it int16 (16x8, int8 mode)' },
    ]);
    this.clickAs = clickAs;
    this.mode = mode;
    this.io = io;
    this.weights = weights;
    this.methodSelect = method;
    this.percentileLabel = h('label', { class: 'field' }, h('span', {}, 'P'), this.percentile);
    this.graph = new GraphView({
      testIdPrefix: 'quant-graph',
      onSelect: (selection) => {
        if (selection?.kind === 'op') this.toggle(selection.index);
      },
    });
    this.graph.element.classList.add('graph-compact');

    mode.addEventListener('change', () => {
      this.syncIo();
      this.syncCalibration();
      this.renderFloatList();
      this.syncStale();
    });
    io.addEventListener('change', () => {
      this.ioWanted = io.value;
      this.syncIo();
      this.syncStale();
    });
    weights.addEventListener('change', () => {
      this.syncStale();
    });
    const methodChanged = (): void => {
      this.percentileLabel.hidden = method.value !== 'percentile';
      const choice = this.methodChoice();
      if (choice) deps.setMethod(choice);
    };
    method.addEventListener('change', methodChanged);
    this.percentile.addEventListener('change', methodChanged);
    this.start.addEventListener('click', () => {
      this.run();
    });
    this.beyond = new BeyondPanel({
      current: () => {
        const model = this.model;
        const mode = this.currentMode();
        return model && this.stats && (mode === 'int8' || mode === 'int16x8') && !this.bySignature ? { bytes: model.bytes, stats: this.stats, settings: this.settings() } : undefined;
      },
      rankLayers: deps.rankLayers,
      setFix: (layer, add) => {
        this.setFix(layer, add);
        this.run();
      },
      paint: (fills) => {
        this.graph.paintOps(fills);
      },
      showError: deps.showError,
      interrupt: deps.interrupt,
    });
    this.stop.addEventListener('click', () => {
      deps.interrupt();
    });
    const clear = h('button', { type: 'button', 'data-testid': 'quant-float-clear' }, 'Quantize all again');
    clear.addEventListener('click', () => {
      this.setOps(new Set(), new Set());
    });

    root.replaceChildren(
      this.title,
      h('p', { class: 'muted' }, 'The same quantizer as ', h('code', {}, 'zeropoint quantize'), ': TF 2.21’s post-training quantization, run in the engine worker.'),
      h('div', { class: 'fields' }, modeLabel, ioLabel, weightsLabel, methodLabel, this.percentileLabel),
      this.ioNote,
      this.calibrationInfo,
      h(
        'details',
        { class: 'keep-float', open: true },
        h('summary', {}, 'Keep operators float, or make them int16'),
        h(
          'p',
          { class: 'muted' },
          'Click an operator (or focus it and press Enter) to keep it float, or — with “makes it int16” — to give it int16 activations in an int8 model (',
          h('code', {}, '--int16-ops'),
          '); QUANTIZE/DEQUANTIZE are inserted where types meet. Click it again, or use the list, to quantize it as int8 again.',
        ),
        h('div', { class: 'fields' }, clickLabel),
        this.graph.element,
        h('div', { class: 'float-ops' }, h('strong', {}, 'Kept float: '), this.floatList, clear),
        h('div', { class: 'float-ops' }, h('strong', {}, 'int16: '), this.int16List),
      ),
      this.beyond.element,
      h('div', { class: 'fields' }, this.start, this.stop, this.progress, this.status),
      this.resultBox,
    );
    this.syncIo();
    this.percentileLabel.hidden = true;
    this.setState('idle');
    this.renderFloatList();
    this.syncCalibration();
    store.subscribe('model', (model) => {
      if (model) this.setModel(model);
    });
    store.subscribe('calibration', (calibration) => {
      this.bySignature = calibration?.signatures?.length;
      this.setStats(calibration?.stats, calibration?.method ?? '');
    });
  }

  /** A new float model: settings stay, kept-float ops and the result go. */
  private setModel(model: QuantizeModel): void {
    this.runs.cancel();
    this.model = model;
    this.title.textContent = `Quantize ${model.name}`;
    this.floatOps = new Set();
    this.int16Ops = new Set();
    this.result = undefined;
    this.resultBox.hidden = true;
    this.resultBox.replaceChildren();
    this.status.textContent = '';
    this.progress.hidden = true;
    this.setState('idle');
    const main = model.summary.subgraphs[0];
    if (main) this.graph.show(main);
    this.beyond.reset();
    this.renderFloatList();
    this.syncCalibration();
    this.store.set({ quantized: undefined });
  }

  /** Statistics from the Calibrate tab (after a run or a method change). */
  private setStats(stats: CalibrationStats | undefined, method: string): void {
    this.stats = stats;
    this.method = method;
    this.beyond.reset();
    const current = this.deps.currentMethod();
    this.methodSelect.value = current.kind;
    if (current.kind === 'percentile') this.percentile.value = String(current.percentile);
    this.percentileLabel.hidden = current.kind !== 'percentile';
    this.syncCalibration();
  }

  /** The tab became visible: lay the graph out now that it has a size. */
  shown(): void {
    this.graph.refit();
  }

  /** The last quantized model. */
  get quantized(): QuantizedModel | undefined {
    return this.result;
  }

  private setState(state: PanelState): void {
    this.root.dataset['state'] = state;
    this.start.disabled = state === 'running';
  }

  private currentMode(): Mode {
    return isMode(this.mode.value) ? this.mode.value : 'int8';
  }

  /**
   * The I/O choices of the mode, with the user's last choice when the mode offers it (back to
   * int8 after dynamic range restores int8 I/O), and a note when the mode forces another.
   */
  private syncIo(): void {
    const mode = this.currentMode();
    const choices = ioChoices(mode);
    this.io.replaceChildren(...choices.map((c) => h('option', { value: c }, c)));
    // int16x8 has no int8 I/O: its own integer type stands in for the user's integer choice.
    const wanted = choices.includes(this.ioWanted) ? this.ioWanted : this.ioWanted !== 'float' && choices.includes('int16') ? 'int16' : (choices[0] ?? 'float');
    this.io.value = wanted;
    this.io.disabled = choices.length === 1;
    this.weights.disabled = mode === 'float16';
    this.ioNote.textContent = wanted === this.ioWanted ? '' : `${mode} keeps ${wanted} inputs and outputs; your choice (${this.ioWanted}) comes back with a mode that offers it.`;
    this.ioNote.hidden = this.ioNote.textContent === '';
  }

  /** Whether the shown result was made with other settings than the form's (then it says so). */
  private syncStale(): void {
    const q = this.result;
    const now = this.settings();
    this.stale.hidden = !q || JSON.stringify([q.settings, q.auto]) === JSON.stringify([now, this.beyond.autoChoice(this.currentMode() === 'int8')]);
  }

  private methodChoice(): CalibrationMethod | undefined {
    switch (this.methodSelect.value) {
      case 'percentile': {
        const p = Number(this.percentile.value);
        return p > 0 && p <= 100 ? { kind: 'percentile', percentile: p } : undefined;
      }
      case 'mse':
        return { kind: 'mse' };
      case 'moving-average':
        return { kind: 'moving-average' };
      default:
        return { kind: 'minmax' };
    }
  }

  private syncCalibration(): void {
    const needs = needsCalibration(this.currentMode());
    this.methodSelect.disabled = !needs;
    if (this.stats) {
      this.calibrationInfo.dataset['calibrated'] = 'true';
      this.calibrationInfo.replaceChildren();
      append(this.calibrationInfo, [
        h('span', {}, this.bySignature ? `Ranges of ${formatCount(this.bySignature)} signatures, each from its own calibration samples (${this.method}).` : `Ranges from ${formatCount(this.stats.samples)} calibration sample${this.stats.samples === 1 ? '' : 's'} (${this.method}), ${formatCount(this.stats.tensors.length)} tensors.`),
        needs ? null : h('span', { class: 'muted' }, ' This mode does not use them.'),
      ]);
      return;
    }
    this.calibrationInfo.dataset['calibrated'] = 'false';
    const go = h('button', { type: 'button', 'data-testid': 'quant-go-calibrate' }, 'Calibrate →');
    go.addEventListener('click', () => {
      this.deps.showCalibrate();
    });
    this.calibrationInfo.replaceChildren();
    append(this.calibrationInfo, [
      needs
        ? h('span', { class: 'warning-text' }, `Not calibrated yet: ${this.currentMode()} quantization needs the ranges of the activations. `)
        : h('span', { class: 'muted' }, 'Not calibrated (not needed for this mode). '),
      needs ? go : null,
    ]);
  }

  /** A click on an op: into the chosen set (out of the other one), or out of it if it was there. */
  private toggle(op: number): void {
    if (this.clickAs.value === 'int16') {
      const float = new Set(this.floatOps);
      float.delete(op);
      this.setOps(float, toggleOp(this.int16Ops, op));
    } else {
      const int16 = new Set(this.int16Ops);
      int16.delete(op);
      this.setOps(toggleOp(this.floatOps, op), int16);
    }
  }

  /** A step of the ranking accepted (`add`) or undone: the operator in or out of its list. */
  private setFix(layer: RankedLayer, add: boolean): void {
    const float = new Set(this.floatOps);
    const int16 = new Set(this.int16Ops);
    const set = layer.fix === 'int16' ? int16 : float;
    if (add) set.add(layer.index);
    else set.delete(layer.index);
    this.setOps(float, int16);
  }

  private setOps(float: Set<number>, int16: Set<number>): void {
    for (const op of [...this.floatOps, ...this.int16Ops]) if (!float.has(op) && !int16.has(op)) this.beyond.forget(op);
    this.floatOps = float;
    this.int16Ops = int16;
    this.graph.markOps(float, 'keep-float');
    this.graph.markOps(int16, 'keep-int16');
    this.renderFloatList();
    this.syncStale();
  }

  private renderFloatList(): void {
    const ops = this.model?.summary.subgraphs[0]?.operators ?? [];
    const chips = (list: HTMLElement, set: ReadonlySet<number>, kind: 'float' | 'int16', none: string): void => {
      const sorted = [...set].sort((a, b) => a - b);
      if (sorted.length === 0) {
        list.replaceChildren(h('li', { class: 'muted' }, none));
        return;
      }
      list.replaceChildren(
        ...sorted.map((index) => {
          const remove = h('button', { type: 'button', class: 'chip-remove', 'data-testid': `quant-${kind}-remove`, 'data-op': index, 'aria-label': `Quantize operator ${String(index)} as int8 again` }, '×');
          remove.addEventListener('click', () => {
            const next = new Set(set);
            next.delete(index);
            if (kind === 'float') this.setOps(next, this.int16Ops);
            else this.setOps(this.floatOps, next);
          });
          return h('li', { class: 'chip', 'data-testid': `quant-${kind}-op`, 'data-op': index }, `${ops[index]?.op ?? '?'} #${String(index)} `, remove);
        }),
      );
    };
    chips(this.floatList, this.floatOps, 'float', 'none: every operator the quantizer supports is quantized');
    chips(this.int16List, this.int16Ops, 'int16', this.currentMode() === 'int8' ? 'none' : 'none (int16 operators are for int8 mode)');
  }

  private settings(): QuantizeSettings {
    return settingsFor(this.currentMode(), this.io.value, this.weights.value === 'per-tensor', this.floatOps, this.int16Ops);
  }

  private run(): void {
    const model = this.model;
    if (!model) return;
    const settings = this.settings();
    const mode = this.currentMode();
    if (needsCalibration(mode) && !this.stats) {
      this.deps.showError(`Quantize: ${mode} needs calibration statistics. Run the Calibrate tab first.`);
      return;
    }
    const auto = this.beyond.autoChoice(mode === 'int8');
    const { source, tfCaches } = this.store.get().calibration ?? {};
    if (auto && (!source || this.bySignature)) {
      this.deps.showError('Quantize --auto: it calibrates again on the Calibrate tab’s samples; calibrate this model there first (not by signature).');
      return;
    }
    if (auto?.targetAccuracyDrop !== undefined && !auto.labels) {
      this.deps.showError('Quantize --auto: an accuracy target is measured against the class of each calibration sample: pick its labels (.npy) under Beyond TF.');
      return;
    }
    this.deps.hideError();
    const stats = needsCalibration(mode) ? this.stats : undefined;
    this.setState('running');
    this.progress.hidden = false;
    this.progress.removeAttribute('value'); // indeterminate: one call in the worker
    this.status.textContent = auto ? '--auto: calibrating again, keeping every sample…' : `quantizing (${settings.mode}, I/O ${settings.io})…`;
    const onProgress = (p: Progress): void => {
      if (p.total === 0) {
        // The search: a count, no end known (the budget, or the time limit, caps each search).
        this.progress.removeAttribute('value');
        this.status.textContent = `--auto: scoring candidate models against the float model: ${String(p.done)} scored (${formatDuration(p.elapsedMs)})…`;
        return;
      }
      this.progress.max = p.total;
      this.progress.value = p.done;
      this.status.textContent = p.done < p.total ? `--auto: calibrating again, keeping every sample (${String(p.done)} of ${String(p.total)})…` : '--auto: scoring candidate models against the float model…';
    };
    const request =
      auto && source
        ? this.deps.quantize(
            model.bytes,
            stats,
            settings,
            { config: { source, method: { kind: 'minmax' }, tfCaches }, targetSqnrDb: auto.targetSqnrDb, targetAccuracyDrop: auto.targetAccuracyDrop, labels: auto.labels?.classes, labelOutput: auto.labels ? auto.labelOutput : undefined, budget: auto.budget, timeLimit: auto.timeLimit },
            onProgress,
          )
        : this.deps.quantize(model.bytes, stats, settings);
    this.stop.hidden = !auto;
    this.runs.run(
      request,
      (result) => {
        this.stop.hidden = true;
        this.progress.hidden = true;
        this.result = { ...result, name: quantizedFileName(model.name, settings), settings, source: model.name, calibration: stats ? this.store.get().calibration?.source.kind : undefined, auto };
        this.setState('done');
        this.status.textContent = `Done in ${formatDuration(result.elapsedMs)}.`;
        this.renderResult(model, this.result, stats !== undefined);
        this.syncStale();
        this.store.set({ quantized: this.result });
      },
      (error: unknown) => {
        this.stop.hidden = true;
        this.progress.hidden = true;
        if (error instanceof Error && error.name === 'InterruptedError') {
          this.setState('idle');
          this.status.textContent = 'Stopped: the engine was restarted (calibrate again before ranking layers).';
          return;
        }
        this.setState('error');
        this.status.textContent = 'quantization failed';
        this.deps.showError(`Quantization failed: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  }

  private renderResult(model: QuantizeModel, q: QuantizedModel, withStats: boolean): void {
    const ops = q.summary.subgraphs[0]?.operators ?? [];
    const floatOps = q.settings.float_ops.length;
    const size = h(
      'p',
      { class: 'quant-size', 'data-testid': 'quant-size', 'data-original': model.bytes.byteLength, 'data-quantized': q.bytes.byteLength },
      h('strong', {}, q.name),
      `: ${sizeChange(model.bytes.byteLength, q.bytes.byteLength)} · ${formatCount(ops.length)} operators${floatOps > 0 ? `, ${String(floatOps)} kept float` : ''}`,
    );
    // The settings it was made with, and the I/O type read back from the file itself.
    const fileIo = fileIoType(q.summary);
    const made = h(
      'p',
      { 'data-testid': 'quant-made-with', 'data-mode': q.settings.mode, 'data-io': q.settings.io, 'data-file-io': fileIo },
      `Made with: ${describeSettings(q.settings)} · the file's inputs/outputs: ${fileIo}.`,
    );
    const show = h('button', { type: 'button', class: 'primary', 'data-testid': 'quant-show-model' }, 'Show in Model view');
    show.addEventListener('click', () => {
      this.deps.showInModelView();
    });
    const dlModel = h('button', { type: 'button', 'data-testid': 'quant-download-model' }, `Download ${q.name}`);
    dlModel.addEventListener('click', () => {
      saveFile(q.name, q.bytes, 'application/octet-stream');
    });
    const dlReport = h('button', { type: 'button', 'data-testid': 'quant-download-report' }, 'Download report (JSON)');
    dlReport.addEventListener('click', () => {
      saveFile(reportFileName(q.name), q.reportJson, 'application/json');
    });
    const statsJson = q.statsJson;
    const dlStats = statsJson
      ? h('button', { type: 'button', 'data-testid': 'quant-download-stats' }, 'Download calibration statistics (JSON)')
      : null;
    dlStats?.addEventListener('click', () => {
      saveFile(cliStatsFileName(model.name), statsJson ?? '', 'application/json');
    });
    const errors = errorSummary(q.report);
    const outputNames = new Set((q.summary.subgraphs[0]?.outputs ?? []).map((i) => q.summary.subgraphs[0]?.tensors.find((t) => t.index === i)?.name ?? ''));
    const verdict = (q.report.error_samples ?? 0) > 0 ? sqnrVerdict(layersFromReport(q.report.op_errors ?? [], outputNames), q.calibration === 'random') : undefined;
    // Downloads first: however many warnings there are, they never push the buttons down.
    this.resultBox.replaceChildren(
      h('h4', {}, 'Result'),
      size,
      made,
      this.stale,
      h('div', { class: 'fields' }, show, dlModel, dlReport, dlStats),
      ...(verdict ? [verdictBox(verdict, 'quant-verdict')] : []),
      ...(q.report.auto ? [autoReportBox(q.report.auto)] : []),
      h('p', { 'data-testid': 'quant-errors', hidden: errors === undefined }, errors ?? ''),
      warningList(q.warnings, 'quant-warnings'),
      h(
        'p',
        { class: 'muted small' },
        'The same files from the command line',
        q.auto ? ' (with the calibration samples as SAMPLES.npy, one per input)' : withStats ? ' (with the statistics downloaded above)' : '',
        ':',
      ),
      // One span a word: a line breaks between words, never after a word's leading '-' ("-" / "o").
      h('pre', { class: 'cli', 'data-testid': 'quant-cli' }, ...cliCommand(model.name, q.settings, withStats, q.auto).split(' ').flatMap((word, i) => [...(i > 0 ? [' '] : []), h('span', {}, word)])),
    );
    this.resultBox.hidden = false;
    // The result in view (its downloads), without moving a page whose result already shows.
    const top = this.resultBox.getBoundingClientRect().top;
    if (top < 0 || top > window.innerHeight - 160) this.resultBox.scrollIntoView({ block: 'start' });
  }
}
