/**
 * "Beyond TF" in the Quantize tab: the `--auto` switch (with its target SQNR and budget) and
 * "fix the worst layers": every operator ranked by the output SQNR it reaches alone in int16 (or
 * float where it has no 16x8 kernel), painted on the graph, and steps a person accepts or undoes
 * one by one (each step is one more `--int16-ops` / `--float-ops` operator, quantized at once).
 * After an `--auto` run, its report: what it chose and what it measured.
 */
import type { CalibrationStats } from '../calibration/types';
import { formatDuration, type Progress } from '../calibration/progress';
import type { LayerRanking, RankedLayer } from '../engine/protocol';
import type { QuantizeSettings, Report } from '../engine/types';
import { parseLabels, type Labels } from '../quantize/labels';
import { h } from './dom';

/** What the panel needs of the Quantize tab around it. */
export interface BeyondHost {
  /** The float model's bytes, the statistics and the settings the next quantization takes. */
  current: () => { bytes: Uint8Array; stats: CalibrationStats; settings: QuantizeSettings } | undefined;
  rankLayers: (bytes: Uint8Array, stats: CalibrationStats, settings: QuantizeSettings, onProgress: (progress: Progress) => void) => Promise<LayerRanking>;
  /** Moves an operator to int16 / float (`add`) or back to int8, then quantizes again. */
  setFix: (layer: RankedLayer, add: boolean) => void;
  /** Paints op boxes of the Quantize tab's graph (undefined clears). */
  paint: (fills: ReadonlyMap<number, { fill: string; title: string; value: string }>) => void;
  showError: (message: string) => void;
  /** Ends the engine worker's current work (the ranking's Stop). */
  interrupt: () => void;
}

/** The `--auto` options the user set, when the switch is on. */
export interface AutoChoice {
  targetSqnrDb: number | undefined;
  /** `--target-accuracy-drop`: with `labels` (a target without them is refused at Quantize). */
  targetAccuracyDrop: number | undefined;
  /** `--labels`: the file read, with an accuracy target only. */
  labels: Labels | undefined;
  /** `--label-output` (0 by default). */
  labelOutput: number;
  budget: number | undefined;
  /** `--auto-time-limit` in seconds (none: the budget alone ends the search). */
  timeLimit: number | undefined;
}

const percent = (v: number): string => `${(100 * v).toFixed(1)} %`;

const db = (v: number | null | undefined): string => (v === null || v === undefined ? 'exact' : Number.isFinite(v) ? `${v.toFixed(2)} dB` : 'exact');

/** A gain in dB as a fill: none at or below 0, deeper red up to +12 dB. */
export function gainColor(gain: number): string | undefined {
  if (!(gain > 0)) return undefined;
  const t = Math.min(1, gain / 12);
  const light = Math.round(92 - 40 * t);
  return `hsl(8 85% ${String(light)}%)`;
}

export class BeyondPanel {
  readonly element: HTMLElement;
  private readonly autoBox = h('input', { type: 'checkbox', 'data-testid': 'quant-auto' });
  private readonly target = h('input', { type: 'number', step: 'any', min: '0', placeholder: 'none', 'data-testid': 'quant-target' });
  private readonly budget = h('input', { type: 'number', step: '1', min: '1', value: '400', 'data-testid': 'quant-budget' });
  private readonly timeLimit = h('input', { type: 'number', step: 'any', min: '0', placeholder: 'none', 'data-testid': 'quant-time-limit' });
  private readonly accuracy = h('input', { type: 'number', step: 'any', placeholder: 'none', 'data-testid': 'quant-target-accuracy' });
  private readonly labelsPicker = h('input', { type: 'file', accept: '.npy', 'data-testid': 'quant-labels' });
  private readonly labelOutput = h('input', { type: 'number', step: '1', min: '0', value: '0', 'data-testid': 'quant-label-output' });
  private readonly labelsStatus = h('span', { class: 'muted small', 'data-testid': 'quant-labels-status', 'aria-live': 'polite' }, 'no labels');
  private labels: Labels | undefined;
  private readonly rankButton = h('button', { type: 'button', 'data-testid': 'quant-rank' }, 'Rank layers by sensitivity');
  private readonly next = h('button', { type: 'button', 'data-testid': 'quant-fix-next', disabled: true }, 'Fix the worst layer');
  private readonly undo = h('button', { type: 'button', 'data-testid': 'quant-fix-undo', disabled: true }, 'Undo the last fix');
  private readonly progress = h('progress', { 'data-testid': 'quant-rank-progress', 'aria-label': 'Ranking progress', hidden: true });
  private readonly stop = h('button', { type: 'button', 'data-testid': 'quant-rank-stop', hidden: true, title: 'Ends the engine worker and starts a fresh one: calibrate again before ranking layers' }, 'Stop');
  private readonly status = h('span', { class: 'muted small', 'data-testid': 'quant-rank-status', 'aria-live': 'polite' });
  private readonly table = h('div', { 'data-testid': 'quant-ranking' });
  private ranking: LayerRanking | undefined;
  /** Accepted steps, in order (undone from the end). */
  private applied: RankedLayer[] = [];
  private generation = 0;

  constructor(private readonly host: BeyondHost) {
    this.rankButton.addEventListener('click', () => {
      void this.rank();
    });
    this.next.addEventListener('click', () => {
      const layer = this.ranking?.layers.find((l) => !this.applied.includes(l));
      if (!layer) return;
      this.applied.push(layer);
      this.render();
      host.setFix(layer, true);
    });
    this.stop.addEventListener('click', () => {
      host.interrupt();
    });
    this.labelsPicker.addEventListener('change', () => {
      void this.readLabels();
    });
    this.undo.addEventListener('click', () => {
      const layer = this.applied.pop();
      if (!layer) return;
      this.render();
      host.setFix(layer, false);
    });
    this.element = h(
      'details',
      { class: 'keep-float beyond', open: true, 'data-testid': 'quant-beyond' },
      h('summary', {}, 'Beyond TF'),
      h(
        'p',
        { class: 'muted' },
        h('label', { class: 'check' }, this.autoBox, ' ', h('code', {}, '--auto'), ' (int8): '),
        '\u00a0per tensor the best of min/max, percentile, MSE and KL ranges, bias correction, cross-layer equalization and per-channel weight clipping, each kept only when the measured output error drops on every fold of the calibration samples and on held-out ones, so never below TF’s choices. It calibrates again keeping every sample, then scores up to the budget of candidate models: minutes on large models (a time limit stops the search and judges the best found by then).',
      ),
      h(
        'div',
        { class: 'fields' },
        h('label', { class: 'field' }, h('span', {}, 'Target output SQNR, dB (moves layers to int16)'), this.target),
        h('label', { class: 'field' }, h('span', {}, 'Budget (candidate models)'), this.budget),
        h('label', { class: 'field' }, h('span', {}, 'Time limit, s (then the best found so far is judged)'), this.timeLimit),
      ),
      h(
        'div',
        { class: 'fields' },
        h('label', { class: 'field' }, h('span', {}, 'Max top-1 accuracy drop, points (moves layers; needs labels)'), this.accuracy),
        h('label', { class: 'field' }, h('span', {}, 'Labels (.npy, one class per calibration sample)'), this.labelsPicker),
        h('label', { class: 'field' }, h('span', {}, 'Class scores in output #'), this.labelOutput),
        this.labelsStatus,
      ),
      h(
        'p',
        { class: 'muted' },
        h('strong', {}, 'Fix the worst layers: '),
        'each operator’s output SQNR with it alone in int16 (or float, without a 16x8 kernel), measured on the first calibration samples and painted on the graph (redder: more to gain). Accept the steps one by one; each adds one operator to the lists above and quantizes again.',
      ),
      h('div', { class: 'fields' }, this.rankButton, this.next, this.undo, this.stop, this.progress, this.status),
      this.table,
    );
  }

  /** The `--auto` options when the switch is on (and the mode is int8). */
  autoChoice(int8: boolean): AutoChoice | undefined {
    if (!int8 || !this.autoBox.checked) return undefined;
    const number = (input: HTMLInputElement): number | undefined => {
      const v = input.value.trim() === '' ? undefined : Number(input.value);
      return v !== undefined && Number.isFinite(v) ? v : undefined;
    };
    const budget = number(this.budget);
    const limit = number(this.timeLimit);
    const drop = number(this.accuracy);
    const output = number(this.labelOutput);
    return {
      targetSqnrDb: number(this.target),
      targetAccuracyDrop: drop,
      labels: drop === undefined ? undefined : this.labels,
      labelOutput: output !== undefined && Number.isInteger(output) && output >= 0 ? output : 0,
      budget: budget !== undefined && Number.isInteger(budget) && budget > 0 ? budget : undefined,
      timeLimit: limit !== undefined && limit >= 0 ? limit : undefined,
    };
  }

  /** Reads the labels file picked; a file that is not labels is said and leaves none. */
  private async readLabels(): Promise<void> {
    const file = this.labelsPicker.files?.[0];
    this.labels = undefined;
    this.labelsStatus.textContent = 'no labels';
    if (!file) return;
    try {
      const labels = parseLabels(file.name, new Uint8Array(await file.arrayBuffer()));
      this.labels = labels;
      const top = labels.classes.reduce((a, b) => Math.max(a, b), 0);
      this.labelsStatus.textContent = `${file.name}: ${String(labels.classes.length)} labels, classes 0–${String(top)}`;
    } catch (error) {
      this.labelsPicker.value = '';
      this.host.showError(`Labels: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** A new model or calibration: the ranking and its steps go (the lists keep what was accepted). */
  reset(): void {
    this.generation += 1;
    this.ranking = undefined;
    this.applied = [];
    this.status.textContent = '';
    this.progress.hidden = true;
    this.stop.hidden = true;
    this.rankButton.disabled = false;
    this.host.paint(new Map());
    this.render();
  }

  /** An operator moved back to int8 from the lists: no longer an accepted step. */
  forget(index: number): void {
    const before = this.applied.length;
    this.applied = this.applied.filter((l) => l.index !== index);
    if (this.applied.length !== before) this.render();
  }

  private async rank(): Promise<void> {
    const current = this.host.current();
    if (!current) {
      this.host.showError('Rank layers: calibrate this model in the Calibrate tab first (int8 or int16x8 mode).');
      return;
    }
    const generation = ++this.generation;
    this.rankButton.disabled = true;
    this.stop.hidden = false;
    this.progress.hidden = false;
    this.progress.removeAttribute('value');
    this.status.textContent = 'scoring each operator…';
    try {
      const ranking = await this.host.rankLayers(current.bytes, current.stats, current.settings, (p) => {
        if (generation !== this.generation) return;
        this.progress.max = p.total;
        this.progress.value = p.done;
        this.status.textContent = `${String(p.done)} of ${String(p.total)} operators scored (${formatDuration(p.elapsedMs)})`;
      });
      if (generation !== this.generation) return;
      this.ranking = ranking;
      this.applied = [];
      this.status.textContent = `${String(ranking.layers.length)} operators ranked on ${String(ranking.samples)} samples; now ${db(ranking.baseSqnrDb)}.`;
      this.host.paint(
        new Map(
          ranking.layers.flatMap((l) => {
            const gain = l.sqnrDb - ranking.baseSqnrDb;
            const fill = gainColor(gain);
            return fill ? [[l.index, { fill, title: `${l.label}: ${db(l.sqnrDb)} alone in ${l.fix} (${gain >= 0 ? '+' : ''}${gain.toFixed(2)} dB)`, value: String(gain) }] as const] : [];
          }),
        ),
      );
    } catch (error) {
      if (generation !== this.generation) return;
      if (error instanceof Error && error.name === 'InterruptedError') this.status.textContent = 'Stopped: the engine was restarted (calibrate again before ranking layers).';
      else this.host.showError(`Rank layers: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      if (generation === this.generation) {
        this.stop.hidden = true;
        this.progress.hidden = true;
        this.rankButton.disabled = false;
        this.render();
      }
    }
  }

  private render(): void {
    const ranking = this.ranking;
    this.next.disabled = !ranking || ranking.layers.every((l) => this.applied.includes(l));
    this.undo.disabled = this.applied.length === 0;
    if (!ranking) {
      this.table.replaceChildren();
      return;
    }
    const rows = ranking.layers.map((l, k) => {
      const gain = l.sqnrDb - ranking.baseSqnrDb;
      const step = this.applied.indexOf(l);
      return h(
        'tr',
        { 'data-testid': 'quant-ranked', 'data-op': l.index, 'data-fix': l.fix, 'data-sqnr': String(l.sqnrDb), 'data-applied': step >= 0 ? String(step + 1) : null },
        h('td', { class: 'num' }, String(k + 1)),
        h('td', { class: 'ranked-op' }, l.label),
        h('td', {}, l.fix),
        h('td', { class: 'num' }, db(l.sqnrDb)),
        h('td', { class: 'num' }, Number.isFinite(gain) ? `${gain >= 0 ? '+' : ''}${gain.toFixed(2)}` : '—'),
        h('td', {}, step >= 0 ? `step ${String(step + 1)} ✓` : ''),
      );
    });
    this.table.replaceChildren(
      h(
        'div',
        { class: 'table-scroll' },
        h(
          'table',
          { class: 'data ranking' },
        h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'operator'), h('th', {}, 'moved to'), h('th', {}, 'output SQNR alone'), h('th', {}, 'gain, dB'), h('th', {}, 'accepted'))),
        h('tbody', {}, rows),
        ),
      ),
      ...(ranking.refused.length > 0 ? [h('p', { class: 'muted small', 'data-testid': 'quant-rank-refused' }, `Not movable: ${ranking.refused.map((r) => `${r.label} (${r.reason})`).join('; ')}`)] : []),
    );
  }
}

/** The held-out figures of what the guard judged: the whole result's, then (if judged) the result without the range search. */
export function heldOut(a: Pick<NonNullable<Report['auto']>, 'held_out_sqnr_db' | 'held_out_better' | 'whole_held_out_sqnr_db' | 'whole_held_out_better'>): string {
  const better = (k: number | undefined): string => (k !== undefined ? ` (less error on ${String(k)})` : '');
  const last = `${db(a.held_out_sqnr_db)}${better(a.held_out_better)}`;
  return a.whole_held_out_better !== undefined ? `the whole result ${db(a.whole_held_out_sqnr_db)}${better(a.whole_held_out_better)}, without the range search ${last},` : last;
}

/** How many samples `--auto` takes at most: 48 to search, 16 to hold out (`quant::auto::AUTO_SAMPLES`). */
export const AUTO_SAMPLES = 64;

/**
 * When the guard wrote the TF-compatible model from fewer than {@link AUTO_SAMPLES} samples: that a gain is
 * hard to confirm with so few, and what to do (the CLI summary's hint); '' otherwise.
 */
export function fewSamplesHint(a: Pick<NonNullable<Report['auto']>, 'fell_back' | 'cross_validated' | 'samples' | 'held_out_samples'>): string {
  // Cross-validated, every sample was searched on and held out once.
  const given = a.cross_validated ? a.samples : a.samples + a.held_out_samples;
  if (!a.fell_back || given >= AUTO_SAMPLES) return '';
  return `With ${String(given)} calibration samples a gain is hard to confirm: Beyond TF takes up to ${String(AUTO_SAMPLES)} (${String(AUTO_SAMPLES - AUTO_SAMPLES / 4)} to search, ${String(AUTO_SAMPLES / 4)} to hold out); calibrate on more samples to give the guard more to confirm with.`;
}

/** What an `--auto` run chose and measured (the report's `auto`). */
export function autoReportBox(a: NonNullable<Report['auto']>): HTMLElement {
  const floatOps = a.float_ops ?? [];
  const hint = fewSamplesHint(a);
  const targets = [
    ...(a.target_sqnr_db !== undefined ? [`${String(a.target_sqnr_db)} dB`] : []),
    ...(a.target_accuracy_drop !== undefined ? [`top-1 accuracy at most ${String(a.target_accuracy_drop)} points below float`] : []),
  ];
  const lines = [
    `Output SQNR ${db(a.sqnr_db)} against TF-compatible ${db(a.tf_compatible_sqnr_db)} on ${String(a.samples)} search samples (${String(a.folds)} folds); ${String(a.evaluations)} candidate models scored${a.budget_exhausted ? ' (the budget ran out)' : ''}${a.time_limit_reached ? ' (the time limit stopped the search: the best found by then was judged)' : ''}.`,
    a.held_out_samples > 0 ? `Held out (never used to choose): ${String(a.held_out_samples)} samples${a.cross_validated ? ', cross-validated' : ''}: ${heldOut(a)} against TF-compatible ${db(a.held_out_tf_compatible_sqnr_db)}.` : 'No held-out samples (fewer than 4 given).',
    a.fell_back ? `Nothing held up against TF’s choices on every fold and the held-out samples: the TF-compatible model was written.${hint !== '' ? ` ${hint}` : ''}` : a.guard_dropped_search ? 'The range search did not hold up on the held-out samples and was dropped; equalization and bias correction were kept.' : '',
    `${a.fell_back ? 'What the search found (not written): ' : ''}cross-layer equalization: ${a.equalized.length > 0 ? a.equalized.join(', ') : 'none kept'}; weight clipping: ${(a.weights_clipped ?? []).length > 0 ? `${String((a.weights_clipped ?? []).length)} operators` : 'none kept'}; bias correction: ${a.bias_corrected.length > 0 ? `${String(a.bias_corrected.length)} operators` : 'none kept'}; ranges other than min/max: ${String(a.ranges.length)}.`,
    targets.length > 0
      ? `Target ${targets.join(' and ')} ${a.target_reached ? 'reached' : 'not reached'}: ${String(a.int16_ops.length)} operators moved to int16 (${a.int16_ops.map((i) => `#${String(i)}`).join(', ') || 'none'})${floatOps.length > 0 ? `, ${String(floatOps.length)} kept float (${floatOps.map((i) => `#${String(i)}`).join(', ')})` : ''}.`
      : '',
    a.float_accuracy !== undefined
      ? `Top-1 accuracy (output ${String(a.label_output ?? 0)}) on the search samples: ${a.accuracy !== undefined ? percent(a.accuracy) : 'not measured'}, float ${percent(a.float_accuracy)}.`
      : '',
  ].filter((l) => l !== '');
  const ranges = a.ranges.map((r) => h('li', {}, `${r.name}: ${r.method} [${r.min.toPrecision(4)}, ${r.max.toPrecision(4)}] instead of min/max [${r.minmax[0].toPrecision(4)}, ${r.minmax[1].toPrecision(4)}]`));
  return h(
    'div',
    { class: 'auto-report', 'data-testid': 'quant-auto-report', 'data-sqnr': String(a.sqnr_db ?? 'exact'), 'data-tf-sqnr': String(a.tf_compatible_sqnr_db ?? 'exact'), 'data-fell-back': String(a.fell_back), 'data-accuracy': a.accuracy !== undefined ? String(a.accuracy) : null },
    h('h4', {}, '--auto'),
    ...lines.map((l) => h('p', {}, l)),
    ranges.length > 0 ? h('details', {}, h('summary', {}, `${String(ranges.length)} ranges changed`), h('ul', {}, ranges)) : null,
  );
}
