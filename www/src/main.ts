/**
 * Page entry point: wires the drop zone, the engine worker and the panels together.
 *
 * State for tests and styling is on `document.body.dataset.state`: `loading` while a model is
 * read/inspected, `ready` when the shown model is the last one asked for, `error` when the last
 * load failed (the previously shown model, if any, stays on screen). `dataset.shown` says which
 * model the Model tab shows (`float`, `quantized`, or `inspected`: a model that reads but that the
 * engine cannot prepare, shown for inspection while the previous model stays loaded).
 *
 * The Limits panel's values (localStorage) are sent with every request that reads or prepares a
 * model; a file over the model-size limit is refused before it is read.
 *
 * Everything the user made — the model bytes, the calibration statistics, the settings, the
 * quantized model — lives here on the main thread and is sent with each request, so when the
 * engine worker dies (a wasm trap) and is restarted, nothing is lost. What the panels share (the
 * model, the calibration, the quantized model, the selection) is in one store (page-state.ts):
 * this file sets the model and the selection, the panels subscribe to what they show.
 */
import './style.css';
import exampleUrl from '../assets/example.tflite?url';
import { EngineClient, errorMessage } from './engine/client';
import type { EngineInfo, EnginePreference } from './engine/protocol';
import type { UnrunnableOp } from './engine/types';
import { formatBytesExact, looksLikeTflite, rewrittenFileName } from './format';
import { loadLimits, saveLimits, workerLimits } from './limits';
import { shapesToSend, storedShapes } from './model/input-shapes';
import { defaultSignature, forSignature, signatureSubgraph, streamKey } from './model/signatures';
import { createPageStore, type PageModel } from './page-state';
import { latest } from './store';
import { Banner } from './ui/banner';
import { h, required } from './ui/dom';
import { CalibrationPanel } from './ui/calibration';
import { ComparePanel } from './ui/compare';
import { DetailsPanel } from './ui/details';
import { setupDropZone } from './ui/dropzone';
import { GraphView } from './ui/graph';
import { LimitsPanel } from './ui/limits';
import { QuantizePanel } from './ui/quantize';
import { RangesView } from './ui/ranges';
import { renderSummary } from './ui/summary';
import { Tabs } from './ui/tabs';

type LoadState = 'loading' | 'ready' | 'error';

/** Test and debugging hooks (see tests/e2e/steps/builds.mjs and resilience.mjs). */
interface ZeropointDebug {
  crashWorker: () => void;
  /** Makes the Rust engine panic (a wasm trap) with `message`; resolves with the error text. */
  panicWorker: (message: string) => Promise<string>;
  readonly workerRestarts: number;
}

declare global {
  interface Window {
    zeropoint?: ZeropointDebug;
  }
}

const EXAMPLE_NAME = 'example.tflite';

const badge = required('[data-testid="engine-badge"]', HTMLElement);
const zone = required('[data-testid="drop-zone"]', HTMLElement);
const input = required('[data-testid="file-input"]', HTMLInputElement);
const status = required('[data-testid="load-status"]', HTMLElement);
const summaryRoot = required('[data-testid="summary"]', HTMLElement);
const modelView = required('[data-testid="model-view"]', HTMLElement);
const modelSwitch = required('[data-testid="model-switch"]', HTMLElement);
const errorBanner = new Banner(required('[data-testid="error-banner"]', HTMLElement));
const noticeBanner = new Banner(required('[data-testid="notice-banner"]', HTMLElement));

const store = createPageStore();
// The Model tab follows first, before the panels subscribe below: a new float model is shown
// (and the selection cleared) before the panels reset for it.
store.subscribe('model', () => {
  inspected = undefined;
  inspectedOps = [];
  // A new model runs at its stored shapes until the user picks others, and its default
  // signature (none for a model with at most one).
  const loaded = store.get().model;
  store.set({ inputShapes: storedShapes(), signature: loaded ? defaultSignature(loaded.summary) : undefined });
  updateSwitch();
  shown = 'float';
  showModel('float');
});
// Another signature: the Model tab shows its subgraph (and the picker its choice); a calibration
// by signature gives the panels that signature's statistics and samples.
store.subscribe('signature', (signature) => {
  if (modelOf(shown)) showModel(shown);
  const { calibration } = store.get();
  if (calibration?.signatures) store.set({ calibration: forSignature(calibration, signature) });
});
store.subscribe('quantized', () => {
  updateSwitch();
  const { quantized } = store.get();
  if (!quantized && shown === 'quantized') showModel('float');
  else if (quantized && shown === 'quantized') showModel('quantized');
});
store.subscribe('selection', (selection) => {
  graph.select(selection);
  details.show(selection);
  // The Ranges view follows selections in the float model (its statistics' tensor indices).
  if (shown !== 'float') return;
  if (selection?.kind === 'tensor') ranges.selectTensor(selection.index);
  if (selection?.kind === 'op') ranges.selectOp(selection.index);
});

const calibration = new CalibrationPanel(required('[data-testid="calibration"]', HTMLElement), store, {
  calibrate: (bytes, config, onProgress) => client.calibrate(bytes, config, onProgress, shapesToSend(store.get().inputShapes)),
  restats: (method) => client.calibrationStats(method),
  showError: (message) => {
    errorBanner.show(message);
  },
  hideError: () => {
    errorBanner.hide();
  },
});

const quantize = new QuantizePanel(required('[data-testid="quantize"]', HTMLElement), store, {
  // A calibration by signature quantizes every signature with its own statistics (the modes
  // that take statistics: `stats` is absent for the others).
  quantize: (bytes, stats, settings, auto, onProgress) => {
    const signatures = stats ? store.get().calibration?.signatures?.map((s) => ({ key: s.key, stats: s.stats })) : undefined;
    return client.quantize(bytes, stats, settings, signatures, auto ? { ...auto, shapes: shapesToSend(store.get().inputShapes) } : undefined, onProgress);
  },
  rankLayers: (bytes, stats, settings, onProgress) => client.rankLayers(bytes, stats, settings, onProgress),
  interrupt: () => {
    client.interrupt();
    showEngine(client.init());
  },
  setMethod: (method) => {
    calibration.selectMethod(method);
  },
  currentMethod: () => calibration.currentMethod(),
  showCalibrate: () => {
    tabs.show('calibrate');
  },
  showError: (message) => {
    errorBanner.show(message);
  },
  hideError: () => {
    errorBanner.hide();
  },
  showInModelView: () => {
    showModel('quantized');
    tabs.show('model');
  },
});

const compare = new ComparePanel(required('[data-testid="compare"]', HTMLElement), store, {
  run: (bytes, sample, runs, arithmetic) => client.run(bytes, sample, runs, shapesToSend(store.get().inputShapes), store.get().signature, arithmetic),
  stream: (key, bytes, sample, start, arithmetic) => {
    const { inputShapes, signature } = store.get();
    return client.stream(streamKey(key, signature), bytes, sample, start, shapesToSend(inputShapes), signature, arithmetic);
  },
  compare: (float, quant, sample, arithmetic) => client.compare(float, quant, sample, shapesToSend(store.get().inputShapes), store.get().signature, arithmetic),
  showError: (message) => {
    errorBanner.show(message);
  },
  hideError: () => {
    errorBanner.hide();
  },
  showQuantize: () => {
    tabs.show('quantize');
  },
});

const ranges = new RangesView(required('[data-testid="ranges"]', HTMLElement), store, {
  quantParams: (min, max, dtype) => client.quantParams(min, max, dtype),
  requant: (sx, sw, sy) => client.requant(sx, sw, sy),
  weightScales: (bytes, tensor, axis) => client.weightScales(bytes, tensor, axis),
  setMethod: (method) => {
    calibration.selectMethod(method);
  },
  currentMethod: () => calibration.currentMethod(),
  showCalibrate: () => {
    tabs.show('calibrate');
  },
});

const graph = new GraphView({
  onSelect: (selection) => {
    store.set({ selection });
  },
});
const details = new DetailsPanel(store, {
  requant: (sx, sw, sy) => client.requant(sx, sw, sy),
  // Statistics belong to the float model's tensor indices.
  hasStats: (tensor) => shown === 'float' && ranges.hasTensor(tensor),
  openRanges: (tensor) => {
    ranges.selectTensor(tensor);
    tabs.show('ranges');
  },
  openRangesOp: (op) => {
    ranges.selectOp(op);
    tabs.show('ranges');
    ranges.revealOp();
  },
});
modelView.append(graph.element, details.element);

const tabs = new Tabs(required('[data-testid="tabs"]', HTMLElement), (tab) => {
  if (tab === 'model') graph.refit();
  if (tab === 'quantize') quantize.shown();
  if (tab === 'compare') compare.shown();
});

function setState(state: LoadState): void {
  document.body.dataset['state'] = state;
}

/** `?engine=nosimd` forces the scalar build (to compare, or to test it); `?engine=simd` is the default. */
function preference(): EnginePreference {
  const value = new URLSearchParams(window.location.search).get('engine');
  return value === 'simd' || value === 'nosimd' || value === 'relaxed' ? value : 'auto';
}

const client = new EngineClient({
  prefer: preference(),
  onRestart: (reason) => {
    noticeBanner.show(
      `${reason}. The engine was restarted; your model, calibration statistics, settings and quantized model are kept on this page and sent to it again with the next request.`,
    );
    showEngine(client.init());
  },
});

/** localStorage, if this browser lets the page use it. */
function storage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

const limitsPanel = new LimitsPanel(required('[data-testid="limits"]', HTMLElement), {
  initial: loadLimits(storage()),
  onChange: (limits) => {
    saveLimits(storage(), limits);
    client.setLimits(workerLimits(limits));
  },
});
client.setLimits(workerLimits(limitsPanel.current));

function showEngine(ready: Promise<EngineInfo>): void {
  badge.textContent = 'engine loading…';
  badge.dataset['engine'] = 'loading';
  ready.then(
    (info) => {
      const kind = info.build === 'relaxed' ? 'relaxed SIMD' : info.simd ? 'SIMD' : 'no SIMD';
      badge.textContent = `engine ${info.version} · ${kind}`;
      badge.dataset['engine'] = info.build;
      badge.dataset['dot'] = info.dotScheme;
      badge.title =
        info.build === 'relaxed'
          ? `WebAssembly relaxed-SIMD build (int8 dot product: ${info.dotScheme})`
          : info.simd
            ? 'WebAssembly SIMD128 build'
            : info.simdSupported
              ? 'Scalar build (chosen with ?engine=nosimd)'
              : 'Scalar build: this browser has no WebAssembly SIMD';
    },
    (error: unknown) => {
      badge.textContent = 'engine failed';
      badge.dataset['engine'] = 'failed';
      badge.title = errorMessage(error);
    },
  );
}

type Shown = 'float' | 'quantized' | 'inspected';

/** The last model dropped that reads but cannot run: shown, never sent to the other panels. */
let inspected: PageModel | undefined;
/** The operators of `inspected` the engine cannot run (marked on its graph). */
let inspectedOps: UnrunnableOp[] = [];
let shown: Shown = 'float';
/** Only the latest model asked for may update the page. */
const loads = latest();

function modelOf(which: Shown): PageModel | undefined {
  if (which === 'inspected') return inspected;
  if (which === 'float') return store.get().model;
  const quantized = store.get().quantized;
  return quantized ? { name: quantized.name, size: quantized.bytes.byteLength, summary: quantized.summary, bytes: quantized.bytes } : undefined;
}

/** The switch offers the float model and whichever of the other two exist. */
function updateSwitch(): void {
  const { model: current, quantized } = store.get();
  modelSwitch.hidden = quantized === undefined && inspected === undefined;
  for (const button of modelSwitch.querySelectorAll<HTMLElement>('[data-show]')) {
    const which = button.getAttribute('data-show');
    if (which === 'quantized') button.hidden = quantized === undefined;
    if (which === 'inspected') {
      button.hidden = inspected === undefined;
      button.textContent = inspected ? `${inspected.name} (cannot run)` : '';
    }
    if (which === 'float') button.hidden = current === undefined;
  }
}

/** Shows the float model, its quantized version or a model that cannot run in the Model tab. */
function showModel(which: Shown): void {
  const model = modelOf(which);
  if (!model) return;
  shown = which;
  document.body.dataset['shown'] = which;
  for (const button of modelSwitch.querySelectorAll('[data-show]')) {
    button.setAttribute('aria-pressed', String(button.getAttribute('data-show') === which));
  }
  renderSummary(summaryRoot, model, {
    download,
    // The dims control of inputs with dynamic dims: for the float model (its shapes are sent
    // with every run, calibrate and compare request; the quantized model follows them).
    shapes:
      which === 'float'
        ? {
            chosen: store.get().inputShapes,
            set: (inputShapes) => {
              store.set({ inputShapes });
            },
          }
        : undefined,
    // The signature picker (a model with several): runs and the graph follow the choice.
    signature:
      which === 'inspected'
        ? undefined
        : {
            chosen: store.get().signature,
            set: (signature) => {
              store.set({ signature });
            },
          },
    selectTensor: (index) => {
      store.set({ selection: { kind: 'tensor', index } });
      // The details panel sits beside the graph, above the table.
      modelView.scrollIntoView({ block: 'start' });
    },
  });
  const main = model.summary.subgraphs[which === 'inspected' ? 0 : signatureSubgraph(model.summary, store.get().signature)];
  modelView.hidden = main === undefined;
  details.setSubgraph(main);
  if (main) {
    graph.show(main);
    graph.markCannotRun(which === 'inspected' ? inspectedOps : []);
    // A new graph has nothing selected.
    store.set({ selection: undefined });
  }
}

modelSwitch.addEventListener('click', (event) => {
  const which = event.target instanceof Element ? event.target.closest('[data-show]')?.getAttribute('data-show') : null;
  if (which === 'float' || which === 'quantized' || which === 'inspected') showModel(which);
});

/**
 * Read and inspect a model (a file of known `fileSize` is checked against the model-size limit
 * before it is read); only the most recent request updates the page. A model that reads but
 * cannot run is shown for inspection, with the engine's reason; the loaded model stays.
 */
async function loadModel(name: string, fileSize: number | undefined, read: () => Promise<Uint8Array>): Promise<void> {
  const isLatest = loads.next();
  setState('loading');
  errorBanner.hide();
  status.textContent = `Reading ${name}…`;
  try {
    if (fileSize !== undefined) await client.checkModelSize(name, fileSize);
    const bytes = await read();
    const { summary, size, cannotRun, cannotRunOps, stateful } = await client.inspect(name, bytes);
    if (!isLatest()) return;
    if (cannotRun !== undefined) {
      inspected = { name, size, summary, bytes };
      inspectedOps = cannotRunOps;
      updateSwitch();
      showModel('inspected');
      const current = store.get().model;
      const kept = current
        ? ` It is shown for inspection only; ${current.name} stays loaded for calibration, quantization and comparison.`
        : ' It is shown for inspection only.';
      errorBanner.show(`${name}: this model cannot run: ${cannotRun}.${kept}`);
      setState('error');
      return;
    }
    // The Model tab shows it, every panel resets for it (the subscribers of `model`).
    store.set({ model: { name, size, summary, bytes, stateful } });
    setState('ready');
  } catch (error) {
    if (!isLatest()) return;
    const message = errorMessage(error);
    // The engine names formats it recognises ("this is a PNG image, not a TFLite model"): one hint.
    const hint = looksLikeTflite(name) || message.includes('not a TFLite model') ? '' : ' (is it a .tflite model?)';
    errorBanner.show(`Could not load ${name}: ${message}${hint}`);
    setState('error');
  } finally {
    if (isLatest()) status.textContent = '';
  }
}

async function download(externalBuffers: boolean): Promise<string> {
  const model = modelOf(shown);
  if (!model) throw new Error('no model loaded');
  try {
    const bytes = await client.rewrite(model.bytes, externalBuffers);
    const fileName = rewrittenFileName(model.name);
    const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }));
    const link = h('a', { href: url, download: fileName, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => {
      URL.revokeObjectURL(url);
    }, 60_000);
    return `Saved ${fileName}: ${formatBytesExact(bytes.byteLength)}; the original is ${formatBytesExact(model.bytes.byteLength)}.`;
  } catch (error) {
    errorBanner.show(`Could not rewrite ${model.name}: ${errorMessage(error)}`);
    throw error;
  }
}

async function fetchBytes(url: string): Promise<Uint8Array> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${String(response.status)} ${response.statusText}`);
  return new Uint8Array(await response.arrayBuffer());
}

setupDropZone(zone, input, (file) => {
  void loadModel(file.name, file.size, async () => new Uint8Array(await file.arrayBuffer()));
});

window.zeropoint = {
  crashWorker: () => {
    client.crash();
  },
  panicWorker: (message) => client.debugPanic(message).catch((error: unknown) => errorMessage(error)),
  get workerRestarts() {
    return client.restartCount;
  },
};

showEngine(client.init());
// First visit: show the bundled example as if it had been dropped.
void loadModel(EXAMPLE_NAME, undefined, () => fetchBytes(exampleUrl));

// Offline: a service worker caches the built page on first load (production builds only; the
// dev server's modules change on every edit).
if (import.meta.env.PROD && 'serviceWorker' in navigator) {
  navigator.serviceWorker.register(new URL('sw.js', document.baseURI)).catch((error: unknown) => {
    console.warn(`offline cache unavailable: ${errorMessage(error)}`);
  });
}
