/**
 * What the page's panels share, in one store (see store.ts): the float model, its calibration,
 * the quantized model and the Model tab's selection. Who sets each field:
 *
 * - `model`: main.ts, when a dropped model loads (not a model that cannot run: that one is only
 *   shown). Every panel resets what belonged to the old model.
 * - `calibration`: the Calibrate panel, after a run or a method change; `undefined` when a new
 *   model clears it; main.ts when another signature is chosen (its statistics become `stats`).
 *   The Ranges, Quantize and Compare panels and the details panel follow.
 * - `quantized`: the Quantize panel, after a run; `undefined` when a new model clears it. The
 *   Model tab's switch and the Compare panel follow.
 * - `selection`: main.ts (a click in the graph, the tensor table or the details panel); cleared
 *   when the Model tab shows another graph.
 * - `inputShapes`: the summary panel's dims control, for inputs with dynamic dims
 *   (model/input-shapes.ts); back to the stored shapes when a new model loads. Sent with every
 *   run and calibrate request.
 * - `signature`: the summary panel's signature picker, for a model with several signatures
 *   (model/signatures.ts); back to the default when a new model loads. Sent with every run,
 *   stream and compare request; the Model tab shows that signature's subgraph.
 * - `arithmetic`: the Compare panel's arithmetic control (compare/arithmetic.ts): the integer
 *   arithmetic the quantized model runs with (LiteRT's reference kernels or its default XNNPACK
 *   path), sent with its run, stream and compare requests. Kept when another model loads.
 *
 * Everything the user made lives here on the main thread and is sent with each request, so a
 * restarted engine worker loses nothing.
 */
import type { CalibrationSource, CalibrationStats } from './calibration/types';
import { DEFAULT_ARITHMETIC, type Arithmetic } from './compare/arithmetic';
import type { InputShapes, ModelSummary } from './engine/types';
import { storedShapes } from './model/input-shapes';
import { Store } from './store';
import type { Selection } from './ui/graph';
import type { QuantizedModel } from './ui/quantize';

/** A model the page holds: its file name and size, the engine's summary and the bytes. */
export interface PageModel {
  name: string;
  size: number;
  summary: ModelSummary;
  bytes: Uint8Array;
  /**
   * Whether it keeps state between calls (resource variables: a streaming model), as the engine
   * said when the page loaded it (absent for models shown only, not loaded to run).
   */
  stateful?: boolean | undefined;
}

/** The last finished calibration of the float model. */
export interface Calibration {
  stats: CalibrationStats;
  /** The range method the chosen ranges were computed with (`minmax`, `percentile:99`, …). */
  method: string;
  /** Where the samples came from (Compare can take one of them again). */
  source: CalibrationSource;
  /**
   * A model with several signatures, calibrated by signature: each signature's statistics and
   * samples, in the model's order (quantization takes them all). `stats` and `source` are then
   * those of the chosen `signature` (model/signatures.ts `forSignature`), so the panels that show
   * one subgraph's tensors follow the picker.
   */
  signatures?: { key: string; stats: CalibrationStats; source: CalibrationSource }[] | undefined;
  /** The CPU caches whose TF calibration was reproduced (`CalibrationConfig.tfCaches`); `--auto` calibrates again with them. */
  tfCaches?: string | undefined;
}

export interface PageState {
  model: PageModel | undefined;
  calibration: Calibration | undefined;
  quantized: QuantizedModel | undefined;
  selection: Selection;
  inputShapes: InputShapes;
  /** The signature key runs use (`undefined`: subgraph 0, for a model with at most one). */
  signature: string | undefined;
  /** The integer arithmetic the quantized model runs with. */
  arithmetic: Arithmetic;
}

export type PageStore = Store<PageState>;

/** An empty page: no model yet. */
export function createPageStore(): PageStore {
  return new Store<PageState>({
    model: undefined,
    calibration: undefined,
    quantized: undefined,
    selection: undefined,
    inputShapes: storedShapes(),
    signature: undefined,
    arithmetic: DEFAULT_ARITHMETIC,
  });
}
