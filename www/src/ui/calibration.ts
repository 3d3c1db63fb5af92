/**
 * The Calibrate panel: data source (seeded random, one `.npy` per input, or images with stated
 * preprocessing), range-selection method, Start / Cancel with a progress bar, then a per-tensor
 * table of observed and chosen ranges and a JSON download of the statistics.
 *
 * All work happens in the engine worker; this only collects settings and shows what comes back.
 * Settings survive errors and model changes; results belong to the model they were made for.
 * The panel follows the page store's `model` and publishes its result as the store's
 * `calibration`. The panel's `data-state` (idle, running, done, cancelled, error) is for tests
 * and styling.
 *
 * A model with several signatures is calibrated by signature, as `zeropoint calibrate
 * --signature-data` does: the panel lists each signature (key, inputs, outputs) with one `.npy`
 * picker per input of it (or seeded random data with the same settings for each), the worker
 * calibrates each signature on its own samples, and the result shows one table per signature.
 */
import type { CalibrationResult, CalibrationRun, RestatsResult } from '../engine/client';
import type { ModelSummary } from '../engine/types';
import { formatDtype, formatFloat, formatShape } from '../format';
import { describeNormalization, isImageFile, parseNumberList, type Normalization } from '../calibration/preprocess';
import { formatProgress, fraction, type Progress } from '../calibration/progress';
import { imageLayout, type InputDesc } from '../calibration/shapes';
import {
  describeSource,
  methodString,
  validateMethod,
  validateRandom,
  type CalibrationConfig,
  type CalibrationMethod,
  type CalibrationSource,
  type CalibrationStats,
  type SignatureCalibration,
} from '../calibration/types';
import { isClipped, rangeBar, signatureStatsExport, statsExport, statsFileName } from '../calibration/view';
import { forSignature, signatureInputs, type SignatureInput } from '../model/signatures';
import type { PageStore } from '../page-state';
import { latest } from '../store';
import { h, table } from './dom';

export interface CalibrationModel {
  name: string;
  bytes: Uint8Array;
  summary: ModelSummary;
}

export interface CalibrationDeps {
  calibrate: (bytes: Uint8Array, config: CalibrationConfig, onProgress: (p: Progress) => void) => CalibrationRun;
  restats: (method: string) => Promise<RestatsResult>;
  showError: (message: string) => void;
  hideError: () => void;
}

type PanelState = 'idle' | 'running' | 'done' | 'cancelled' | 'error';

/** The last finished calibration (with each signature's, for a calibration by signature). */
interface LastResult {
  stats: CalibrationStats;
  method: string;
  source: string;
  model: string;
  config: CalibrationSource;
  signatures?: { key: string; stats: CalibrationStats; source: string; config: CalibrationSource }[] | undefined;
  /** `CalibrationConfig.tfCaches` of the run. */
  tfCaches: string | undefined;
}
type SourceKind = CalibrationSource['kind'];

/** The inputs of subgraph 0 as the summary lists them. */
export function modelInputs(summary: ModelSummary): InputDesc[] {
  const main = summary.subgraphs[0];
  if (!main) return [];
  return main.inputs.flatMap((index) => {
    const t = main.tensors.find((x) => x.index === index);
    return t ? [{ name: t.name, shape: t.shape, dtype: t.dtype }] : [];
  });
}

function numberField(label: string, testId: string, value: string, attrs: Record<string, string> = {}): [HTMLLabelElement, HTMLInputElement] {
  const input = h('input', { type: 'number', 'data-testid': testId, value, ...attrs });
  return [h('label', { class: 'field' }, h('span', {}, label), input), input];
}

function radio(name: string, value: string, label: string, testId: string, checked: boolean): [HTMLLabelElement, HTMLInputElement] {
  const input = h('input', { type: 'radio', name, value, 'data-testid': testId, checked });
  return [h('label', { class: 'check' }, input, ` ${label}`), input];
}

/** Files in a dropped folder (recursively), via the non-standard but universal entries API. */
async function entryFiles(entry: FileSystemEntry): Promise<File[]> {
  if (entry.isFile) {
    return [await new Promise<File>((resolve, reject) => { (entry as FileSystemFileEntry).file(resolve, reject); })];
  }
  if (!entry.isDirectory) return [];
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  const all: File[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => { reader.readEntries(resolve, reject); });
    if (batch.length === 0) break;
    for (const child of batch) all.push(...(await entryFiles(child)));
  }
  return all;
}

async function droppedFiles(data: DataTransfer): Promise<File[]> {
  const entries = [...data.items].flatMap((item) => {
    const entry = item.kind === 'file' ? item.webkitGetAsEntry() : null;
    return entry ? [entry] : [];
  });
  if (entries.length === 0) return [...data.files];
  return (await Promise.all(entries.map(entryFiles))).flat();
}

export class CalibrationPanel {
  private model: CalibrationModel | undefined;
  private inputs: InputDesc[] = [];
  private run: CalibrationRun | undefined;
  private readonly runs = latest();
  /** Only the latest method change may update the table (answers can arrive out of order). */
  private readonly restats = latest();
  private npyFiles: (File | undefined)[] = [];
  private images: File[] = [];
  private lastResult: LastResult | undefined;
  /** A model with several signatures: each signature's inputs (subgraph order) and chosen `.npy` files. */
  private signatures: { key: string; inputs: SignatureInput[]; files: (File | undefined)[] }[] = [];
  private readonly signatureInfo = h('p', { class: 'muted', 'data-testid': 'calibrate-signatures', hidden: true });

  private readonly sourceRadios: Record<SourceKind, HTMLInputElement>;
  private readonly sourceBoxes: Record<SourceKind, HTMLElement>;
  private readonly lo: HTMLInputElement;
  private readonly hi: HTMLInputElement;
  private readonly count: HTMLInputElement;
  private readonly seed: HTMLInputElement;
  private readonly npyBox = h('div', { class: 'npy-inputs' });
  private readonly imageInfo = h('span', { class: 'muted', 'data-testid': 'image-count' }, 'no images chosen');
  private readonly imageLayoutInfo = h('p', { class: 'muted', 'data-testid': 'image-layout' });
  private readonly normRange: HTMLInputElement;
  private readonly normMin: HTMLInputElement;
  private readonly normMax: HTMLInputElement;
  private readonly normMean = h('input', { type: 'text', value: '127.5', 'data-testid': 'norm-mean', size: 14 });
  private readonly normStd = h('input', { type: 'text', value: '127.5', 'data-testid': 'norm-std', size: 14 });
  private readonly normInfo = h('p', { class: 'muted', 'data-testid': 'norm-info' });
  private readonly method = h(
    'select',
    { 'data-testid': 'calibrate-method' },
    h('option', { value: 'minmax' }, 'min/max (as TF)'),
    h('option', { value: 'percentile' }, 'percentile'),
    h('option', { value: 'mse' }, 'MSE-optimal'),
    h('option', { value: 'moving-average' }, 'moving-average min/max'),
  );
  private readonly percentile: HTMLInputElement;
  private readonly percentileLabel: HTMLLabelElement;
  /** `--tf-caches`: whose CPU's TF calibration the float sums reproduce. */
  private readonly tfCaches = h('input', {
    type: 'text',
    value: 'golden',
    size: 16,
    'data-testid': 'calibrate-tf-caches',
    title:
      'TF’s calibration adds the products of a long convolution in blocks sized by the CPU’s data caches (Eigen), so the last bits of some ranges are the CPU’s. golden: the machine the test goldens were made on (48,2048,491520). To equal TF on your machine, give what `zeropoint tf-caches` prints there: L1,L2,L3 in KiB.',
  });
  private readonly start = h('button', { type: 'button', class: 'primary', 'data-testid': 'calibrate-start' }, 'Start');
  private readonly cancel = h('button', { type: 'button', 'data-testid': 'calibrate-cancel', disabled: true }, 'Cancel');
  private readonly progress = h('progress', { 'data-testid': 'calibrate-progress', 'aria-label': 'Calibration progress', max: 1, value: 0 });
  private readonly status = h('span', { class: 'calibrate-status', 'data-testid': 'calibrate-status', 'aria-live': 'polite' });
  private readonly result = h('div', { class: 'calibration-result', 'data-testid': 'calibration-result', hidden: true });
  private readonly title = h('h3', {}, 'Calibrate');

  constructor(
    private readonly root: HTMLElement,
    private readonly store: PageStore,
    private readonly deps: CalibrationDeps,
  ) {
    const [randomLabel, randomRadio] = radio('cal-source', 'random', 'seeded random', 'source-random', true);
    const [npyLabel, npyRadio] = radio('cal-source', 'npy', '.npy files', 'source-npy', false);
    const [imagesLabel, imagesRadio] = radio('cal-source', 'images', 'images', 'source-images', false);
    this.sourceRadios = { random: randomRadio, npy: npyRadio, images: imagesRadio };

    const [loLabel, lo] = numberField('lo', 'random-lo', '0', { step: 'any' });
    const [hiLabel, hi] = numberField('hi', 'random-hi', '1', { step: 'any' });
    const [countLabel, count] = numberField('samples', 'random-count', '100', { min: '1', step: '1' });
    const [seedLabel, seed] = numberField('seed', 'random-seed', '0', { min: '0', step: '1' });
    this.lo = lo;
    this.hi = hi;
    this.count = count;
    this.seed = seed;

    const [rangeLabel, normRange] = radio('cal-norm', 'range', 'map 0…255 to [min, max]', 'norm-range', true);
    const [meanStdLabel, normMeanStd] = radio('cal-norm', 'meanstd', '(pixel − mean) / std', 'norm-meanstd', false);
    this.normRange = normRange;
    const [minLabel, normMin] = numberField('min', 'norm-min', '0', { step: 'any' });
    const [maxLabel, normMax] = numberField('max', 'norm-max', '1', { step: 'any' });
    this.normMin = normMin;
    this.normMax = normMax;

    const [pLabel, percentile] = numberField('P', 'calibrate-percentile', '99.99', { step: 'any', min: '0', max: '100' });
    this.percentile = percentile;
    this.percentileLabel = pLabel;

    const pickImages = h('input', { type: 'file', multiple: true, accept: 'image/*', 'data-testid': 'image-input', class: 'visually-hidden' });
    const pickFolder = h('input', { type: 'file', multiple: true, webkitdirectory: true, 'data-testid': 'image-folder-input', class: 'visually-hidden' });
    const imageDrop = h(
      'div',
      { class: 'image-drop', 'data-testid': 'image-drop' },
      h('span', {}, 'Drop images or a folder here, or '),
      h('label', { class: 'button-like' }, pickImages, 'choose images'),
      ' ',
      h('label', { class: 'button-like' }, pickFolder, 'choose a folder'),
      h('div', {}, this.imageInfo),
    );
    for (const picker of [pickImages, pickFolder]) {
      picker.addEventListener('change', () => {
        this.setImages([...(picker.files ?? [])]);
        picker.value = '';
      });
    }
    imageDrop.addEventListener('dragover', (event) => {
      event.preventDefault();
      event.stopPropagation();
      imageDrop.classList.add('dragging');
    });
    imageDrop.addEventListener('dragleave', () => { imageDrop.classList.remove('dragging'); });
    imageDrop.addEventListener('drop', (event) => {
      // Not a model drop: keep it away from the window-level model drop handler.
      event.preventDefault();
      event.stopPropagation();
      imageDrop.classList.remove('dragging');
      const data = event.dataTransfer;
      if (data) {
        droppedFiles(data).then(
          (files) => {
            this.setImages(files);
          },
          (error: unknown) => {
            this.deps.showError(`Could not read the dropped images: ${error instanceof Error ? error.message : String(error)}`);
          },
        );
      }
    });

    this.sourceBoxes = {
      random: h(
        'div',
        { class: 'source-box fields', 'data-source': 'random' },
        loLabel,
        hiLabel,
        countLabel,
        seedLabel,
        h('p', { class: 'muted' }, 'Uniform in [lo, hi) for every input element; the same seed gives the same samples.'),
      ),
      npy: h(
        'div',
        { class: 'source-box', 'data-source': 'npy' },
        h('p', { class: 'muted' }, 'One .npy per model input; first axis = samples, each sample of the input’s shape (batch 1 optional). float32/64/16 or integers.'),
        this.npyBox,
      ),
      images: h(
        'div',
        { class: 'source-box', 'data-source': 'images' },
        imageDrop,
        this.imageLayoutInfo,
        h('div', { class: 'fields' }, rangeLabel, minLabel, maxLabel),
        h(
          'div',
          { class: 'fields' },
          meanStdLabel,
          h('label', { class: 'field' }, h('span', {}, 'mean'), this.normMean),
          h('label', { class: 'field' }, h('span', {}, 'std'), this.normStd),
        ),
        this.normInfo,
      ),
    };

    for (const r of Object.values(this.sourceRadios)) r.addEventListener('change', () => { this.syncVisibility(); });
    for (const el of [normRange, normMeanStd, normMin, normMax, this.normMean, this.normStd]) {
      el.addEventListener('input', () => { this.syncVisibility(); });
    }
    this.method.addEventListener('change', () => {
      this.syncVisibility();
      this.onMethodChange();
    });
    percentile.addEventListener('change', () => { this.onMethodChange(); });
    this.start.addEventListener('click', () => { this.startRun(); });
    this.cancel.addEventListener('click', () => { this.cancelRun(); });

    root.replaceChildren(
      this.title,
      h('p', { class: 'muted' }, 'Runs samples through the float model in the engine worker and records every tensor’s range.'),
      h('div', { class: 'fields', role: 'radiogroup', 'aria-label': 'Calibration data' }, h('strong', {}, 'Data:'), randomLabel, npyLabel, imagesLabel),
      this.signatureInfo,
      ...Object.values(this.sourceBoxes),
      h(
        'div',
        { class: 'fields' },
        h('label', { class: 'field' }, h('span', {}, 'Range method'), this.method),
        pLabel,
        h('label', { class: 'field' }, h('span', {}, 'TF’s CPU caches (KiB)'), this.tfCaches),
        this.start,
        this.cancel,
      ),
      h('div', { class: 'progress-row' }, this.progress, this.status),
      this.result,
    );
    this.setState('idle');
    this.syncVisibility();
    store.subscribe('model', (model) => {
      if (model) this.setModel(model);
    });
  }

  /** A (new) model is shown: results and per-input files are for the old one, settings stay. */
  private setModel(model: CalibrationModel): void {
    if (this.run) {
      this.run.cancel();
      this.run = undefined;
      this.runs.cancel(); // ignore what the old run reports
    }
    this.model = model;
    this.inputs = modelInputs(model.summary);
    this.title.textContent = `Calibrate ${model.name}`;
    this.npyFiles = this.inputs.map(() => undefined);
    const keys = model.summary.signatures.length > 1 ? model.summary.signatures.map((sig) => sig.key) : [];
    this.signatures = keys.map((key) => {
      const inputs = signatureInputs(model.summary, key);
      return { key, inputs, files: inputs.map(() => undefined) };
    });
    this.sourceRadios.images.disabled = this.signatures.length > 0;
    if (this.signatures.length > 0 && this.sourceRadios.images.checked) this.sourceRadios.random.checked = true;
    this.signatureInfo.hidden = this.signatures.length === 0;
    this.signatureInfo.textContent = `This model has ${String(this.signatures.length)} signatures (${keys.join(', ')}): each is calibrated on its own samples, as zeropoint calibrate --signature-data does (random data: these settings for each; .npy: one file per input of each signature; images: not for several signatures).`;
    this.npyBox.replaceChildren(
      ...(this.signatures.length > 0 ? this.signatures.map((sig) => this.signatureNpy(model, sig)) : []),
      ...(this.signatures.length > 0 ? [] : this.inputs).map((input, k) => {
        const picker = h('input', { type: 'file', accept: '.npy', 'data-testid': `npy-input-${String(k)}` });
        picker.addEventListener('change', () => {
          this.npyFiles[k] = picker.files?.[0];
        });
        return h(
          'label',
          { class: 'npy-row' },
          h('code', {}, input.name),
          ` ${formatShape(input.shape)} ${formatDtype(input.dtype)} `,
          picker,
        );
      }),
    );
    this.result.hidden = true;
    this.result.replaceChildren();
    this.lastResult = undefined;
    this.store.set({ calibration: undefined });
    this.progress.value = 0;
    this.status.textContent = '';
    this.setState('idle');
    this.syncVisibility();
    this.root.hidden = false;
  }

  /** The `.npy` pickers of one signature: its key, inputs and outputs, one picker per input. */
  private signatureNpy(model: CalibrationModel, sig: { key: string; inputs: SignatureInput[]; files: (File | undefined)[] }): HTMLElement {
    const summary = model.summary.signatures.find((x) => x.key === sig.key);
    const outputs = summary?.outputs.map((o) => o.name).join(', ') ?? '';
    return h(
      'fieldset',
      { class: 'npy-signature', 'data-testid': 'npy-signature', 'data-signature': sig.key },
      h('legend', {}, 'signature ', h('code', {}, sig.key), h('span', { class: 'muted' }, ` → ${outputs}`)),
      ...sig.inputs.map((input, k) => {
        const picker = h('input', { type: 'file', accept: '.npy', 'data-testid': `npy-input-${sig.key}-${String(k)}`, 'aria-label': `${sig.key}: .npy for input ${input.name}` });
        picker.addEventListener('change', () => {
          sig.files[k] = picker.files?.[0];
        });
        return h('label', { class: 'npy-row' }, h('code', { title: input.tensor }, input.name), ` ${formatShape(input.shape)} ${formatDtype(input.dtype)} `, picker);
      }),
    );
  }

  private setState(state: PanelState): void {
    this.root.dataset['state'] = state;
    const running = state === 'running';
    this.start.disabled = running;
    this.cancel.disabled = !running;
  }

  private sourceKind(): SourceKind {
    return (Object.keys(this.sourceRadios) as SourceKind[]).find((k) => this.sourceRadios[k].checked) ?? 'random';
  }

  private setImages(files: File[]): void {
    const images = files.filter((f) => isImageFile(f.name, f.type)).sort((a, b) => a.name.localeCompare(b.name));
    this.images = images;
    const skipped = files.length - images.length;
    this.imageInfo.textContent =
      `${images.length.toLocaleString('en-US')} image${images.length === 1 ? '' : 's'} chosen` +
      (skipped > 0 ? ` (${String(skipped)} other file${skipped === 1 ? '' : 's'} skipped)` : '');
  }

  private normalization(): Normalization {
    if (this.normRange.checked) return { kind: 'range', min: Number(this.normMin.value), max: Number(this.normMax.value) };
    return { kind: 'meanstd', mean: parseNumberList(this.normMean.value), std: parseNumberList(this.normStd.value) };
  }

  private methodChoice(): CalibrationMethod {
    switch (this.method.value) {
      case 'percentile':
        return { kind: 'percentile', percentile: Number(this.percentile.value) };
      case 'mse':
        return { kind: 'mse' };
      case 'moving-average':
        return { kind: 'moving-average' };
      default:
        return { kind: 'minmax' };
    }
  }

  private syncVisibility(): void {
    const kind = this.sourceKind();
    for (const [k, box] of Object.entries(this.sourceBoxes)) box.hidden = k !== kind;
    this.percentileLabel.hidden = this.method.value !== 'percentile';
    const first = this.inputs[0];
    let layoutText: string;
    try {
      if (this.inputs.length !== 1 || !first) throw new Error(`images need a model with one input (this one has ${String(this.inputs.length)})`);
      const layout = imageLayout(first);
      const kindText = layout.channels === 1 ? 'gray (luma)' : layout.channels === 3 ? 'RGB' : 'RGBA';
      layoutText = `Each image is resized (stretched) to ${String(layout.width)}×${String(layout.height)}, ${kindText}, then mapped:`;
    } catch (error) {
      layoutText = error instanceof Error ? error.message : String(error);
    }
    this.imageLayoutInfo.textContent = layoutText;
    this.normInfo.textContent = `Input value = ${describeNormalization(this.normalization())}`;
  }

  private config(): CalibrationConfig {
    return { ...this.sourceConfig(), tfCaches: this.tfCaches.value.trim() || undefined };
  }

  /** The samples and range method of a run. */
  private sourceConfig(): CalibrationConfig {
    const method = this.methodChoice();
    validateMethod(method);
    const kind = this.sourceKind();
    let source: CalibrationSource;
    if (kind === 'random') {
      source = {
        kind,
        lo: Number(this.lo.value),
        hi: Number(this.hi.value),
        count: Number(this.count.value),
        seed: Number(this.seed.value),
      };
      validateRandom(source);
      // Several signatures: the same seeded random settings for each.
      if (this.signatures.length > 0) return { source, method, signatures: this.signatures.map((sig) => ({ key: sig.key, source })) };
    } else if (this.signatures.length > 0) {
      if (kind === 'images') throw new Error('images: a model with several signatures is calibrated from .npy files or random data, per signature');
      const signatures = this.signatures.map((sig) => {
        const missing = sig.inputs.filter((_, k) => !sig.files[k]).map((i) => `"${i.name}"`);
        if (missing.length > 0) throw new Error(`choose a .npy for input ${missing.join(', ')} of signature '${sig.key}'`);
        return { key: sig.key, source: { kind: 'npy' as const, files: sig.files.filter((f): f is File => f !== undefined) } };
      });
      const first = signatures[0];
      if (!first) throw new Error('the model has no signature');
      return { source: first.source, method, signatures };
    } else if (kind === 'npy') {
      const missing = this.inputs.filter((_, k) => !this.npyFiles[k]).map((i) => `"${i.name}"`);
      if (missing.length > 0) throw new Error(`choose a .npy for input ${missing.join(', ')}`);
      source = { kind, files: this.npyFiles.filter((f): f is File => f !== undefined) };
    } else {
      if (this.images.length === 0) throw new Error('choose or drop some images first');
      source = { kind, files: this.images, normalization: this.normalization() };
    }
    return { source, method };
  }

  private startRun(): void {
    const model = this.model;
    if (!model || this.run) return;
    let config: CalibrationConfig;
    try {
      config = this.config();
    } catch (error) {
      this.deps.showError(`Calibration settings: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    this.deps.hideError();
    const isLatest = this.runs.next();
    this.setState('running');
    this.result.hidden = true;
    this.progress.value = 0;
    this.status.textContent = 'starting…';
    const method = methodString(config.method);
    const source = describeSource(config.source);
    const run = this.deps.calibrate(model.bytes, config, (p) => {
      if (!isLatest()) return;
      this.progress.max = Math.max(1, p.total);
      this.progress.value = fraction(p) * this.progress.max;
      this.status.textContent = formatProgress(p);
    });
    this.run = run;
    run.result.then(
      (result) => {
        if (isLatest()) this.finish(result, model.name, method, source, config);
      },
      (error: unknown) => {
        if (!isLatest()) return;
        this.run = undefined;
        this.setState('error');
        this.status.textContent = 'calibration failed';
        this.result.hidden = this.lastResult === undefined; // the previous result still holds
        this.deps.showError(`Calibration failed: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  }

  private cancelRun(): void {
    if (!this.run) return;
    this.status.textContent = `${this.status.textContent} · cancelling…`;
    this.cancel.disabled = true;
    this.run.cancel();
  }

  private finish(result: CalibrationResult, modelName: string, method: string, source: string, config: CalibrationConfig): void {
    this.run = undefined;
    const signatures = config.signatures ? bySignature(config, result.signatures) : undefined;
    if (result.status === 'cancelled' || !result.stats || (config.signatures && !signatures)) {
      this.setState('cancelled');
      this.status.textContent = `Cancelled after ${result.samples.toLocaleString('en-US')} samples; nothing was kept.`;
      this.result.hidden = this.lastResult === undefined; // the previous result still holds
      return;
    }
    this.setState('done');
    this.status.textContent = formatProgress({ done: result.samples, total: result.samples, elapsedMs: result.elapsedMs });
    this.lastResult = { stats: result.stats, method, source, model: modelName, config: config.source, signatures, tfCaches: config.tfCaches };
    this.renderResult();
  }

  /** The method changed after a run: recompute the chosen ranges from the recorded statistics. */
  private onMethodChange(): void {
    const last = this.lastResult;
    if (!last || this.run) return;
    let method: string;
    try {
      const choice = this.methodChoice();
      validateMethod(choice);
      method = methodString(choice);
    } catch (error) {
      this.deps.showError(`Calibration settings: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const sameRun = this.runs.current();
    const isLatest = this.restats.next();
    this.deps.restats(method).then(
      ({ stats, signatures }) => {
        if (!sameRun() || !isLatest() || this.lastResult !== last) return;
        const again = last.signatures?.map((sig) => ({ ...sig, stats: signatures?.find((x) => x.key === sig.key)?.stats ?? sig.stats }));
        this.lastResult = { ...last, stats, method, signatures: again };
        this.renderResult();
      },
      (error: unknown) => {
        this.deps.showError(`Could not recompute the ranges: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  }

  /** The method now selected (the Ranges view shows and changes the same one). */
  currentMethod(): CalibrationMethod {
    return this.methodChoice();
  }

  /** Selects a method from elsewhere (the Ranges view) and recomputes the ranges with it. */
  selectMethod(method: CalibrationMethod): void {
    this.method.value = method.kind;
    if (method.kind === 'percentile') this.percentile.value = String(method.percentile);
    this.syncVisibility();
    this.onMethodChange();
  }

  private renderResult(): void {
    const last = this.lastResult;
    if (!last) return;
    const signatures = last.signatures?.map(({ key, stats, config }) => ({ key, stats, source: config }));
    const calibration = { stats: last.stats, method: last.method, source: last.config, signatures, tfCaches: last.tfCaches };
    this.store.set({ calibration: forSignature(calibration, this.store.get().signature) });
    const download = h('button', { type: 'button', 'data-testid': 'stats-download' }, 'Download calibration stats (JSON)');
    download.addEventListener('click', () => {
      const data = last.signatures ? signatureStatsExport(last.model, last.method, last.signatures, last.tfCaches) : statsExport(last.model, last.method, last.source, last.stats, last.tfCaches);
      const json = JSON.stringify(data, null, 1);
      const url = URL.createObjectURL(new Blob([json], { type: 'application/json' }));
      const link = h('a', { href: url, download: statsFileName(last.model), hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => {
        URL.revokeObjectURL(url);
      }, 60_000);
    });
    const tables = (last.signatures ?? [{ key: undefined, stats: last.stats, source: last.source }]).map(({ key, stats, source }) => {
      const table = statsTable(stats);
      table.dataset['signature'] = key ?? '';
      if (key === undefined) return h('div', { class: 'table-scroll' }, table);
      return h(
        'section',
        { class: 'signature-stats', 'data-testid': 'signature-stats', 'data-signature': key },
        h('h4', {}, 'signature ', h('code', {}, key), h('span', { class: 'muted' }, ` · ${stats.samples.toLocaleString('en-US')} samples · ${source} · ${stats.tensors.length.toLocaleString('en-US')} tensors`)),
        h('div', { class: 'table-scroll' }, table),
      );
    });
    const samples = last.signatures ? last.signatures.reduce((n, x) => n + x.stats.samples, 0) : last.stats.samples;
    const tensors = last.signatures ? last.signatures.reduce((n, x) => n + x.stats.tensors.length, 0) : last.stats.tensors.length;
    const perSignature = last.signatures ? ` · ${String(last.signatures.length)} signatures, each on its own samples` : ` · ${last.source}`;
    this.result.replaceChildren(
      h(
        'div',
        { class: 'result-head' },
        h(
          'span',
          { 'data-testid': 'calibration-summary' },
          `${samples.toLocaleString('en-US')} samples · ${last.method}${perSignature}${last.tfCaches && last.tfCaches !== 'golden' ? ` · TF caches ${last.tfCaches} KiB` : ''} · ${tensors.toLocaleString('en-US')} tensors`,
        ),
        download,
      ),
      h(
        'p',
        { class: 'muted legend' },
        h('span', { class: 'swatch swatch-observed' }),
        ' observed min…max ',
        h('span', { class: 'swatch swatch-chosen' }),
        ' chosen range ',
        h('span', { class: 'swatch swatch-zero' }),
        ' zero',
      ),
      ...tables,
    );
    this.result.hidden = false;
  }
}

/**
 * Each signature's statistics with the source it was calibrated on, in the config's order;
 * `undefined` unless every signature of the config has its statistics.
 */
function bySignature(config: CalibrationConfig, stats: SignatureCalibration[] | undefined): LastResult['signatures'] {
  const all = (config.signatures ?? []).map((sig) => {
    const found = stats?.find((x) => x.key === sig.key);
    return found ? { key: sig.key, stats: found.stats, source: describeSource(sig.source), config: sig.source } : undefined;
  });
  return all.every((x) => x !== undefined) ? all : undefined;
}

/** The per-tensor table of one calibration's statistics. */
function statsTable(stats: CalibrationStats): HTMLTableElement {
  const rows = stats.tensors.map((t) => {
    const bar = rangeBar(t);
    const observed = h('span', { class: 'range-observed' });
    observed.style.setProperty('left', `${String(bar.observed.left)}%`);
    observed.style.setProperty('width', `${String(bar.observed.width)}%`);
    const chosen = h('span', { class: 'range-chosen' });
    chosen.style.setProperty('left', `${String(bar.chosen.left)}%`);
    chosen.style.setProperty('width', `${String(bar.chosen.width)}%`);
    const zero = bar.zero === undefined ? null : h('span', { class: 'range-zero' });
    zero?.style.setProperty('left', `${String(bar.zero ?? 0)}%`);
    const title = `observed [${formatFloat(t.min)}, ${formatFloat(t.max)}], chosen [${formatFloat(t.chosen_min)}, ${formatFloat(t.chosen_max)}]`;
    return [
      String(t.index),
      h('code', { class: 'name', title: t.name }, t.name),
      formatFloat(t.min),
      formatFloat(t.max),
      h('span', { class: isClipped(t) ? 'clipped' : undefined }, `${formatFloat(t.chosen_min)} … ${formatFloat(t.chosen_max)}`),
      // A picture of the two ranges: named for a screen reader (its card read "range: observed …").
      h('div', { class: 'range-bar', title, role: 'img', 'aria-label': title }, observed, chosen, zero),
    ];
  });
  return table('stats-table', ['#', 'tensor', 'min', 'max', 'chosen range', 'range'], rows, [0, 2, 3, 4]);
}
