/**
 * Whether a quantization is usable, from the SQNR of its layers against the float model: the
 * worst model output below RUINED_DB is "ruined" (the error is about as large as the signal),
 * below POOR_DB "poor"; then the layers that cause it (the first one, in execution order, whose
 * SQNR falls below POOR_DB, and the worst ones), and, when the ranges came from random data,
 * that this is the likely cause. The Quantize result (the report's per-operator errors) and the
 * Compare view (every tensor) both use it; `zeropoint compare` / `quantize --report` print the
 * same verdict with the same thresholds (crate/src/bin/zeropoint/verdict.rs). Pure.
 */
import { formatDb } from './outputs';

/** Worst output SQNR below this (dB): the quantization ruined the model. */
export const RUINED_DB = 10;
/** Worst output SQNR below this (dB): poor; also where a layer counts as "dropped". */
export const POOR_DB = 20;
/** Worst layers named. */
const WORST_SHOWN = 3;

export type Level = 'ruined' | 'poor' | 'ok';

/** One layer's SQNR, in execution order. */
export interface LayerSqnr {
  /** How the page names it: "CONV_2D #12 ‘conv1/Relu’". */
  label: string;
  /** SQNR in dB; Infinity when identical. */
  db: number;
  /** Whether it is a model output. */
  output: boolean;
}

export interface Verdict {
  level: Level;
  worstOutput: LayerSqnr;
  /** The first layer (execution order) below POOR_DB, when the level is not ok. */
  firstBelow: LayerSqnr | undefined;
  /** The worst layers, worst first, when the level is not ok. */
  worst: LayerSqnr[];
  /** Whether the text blames random calibration data. */
  randomHint: boolean;
  text: string;
}

/** The advice when the ranges came from random data. */
export const RANDOM_HINT = 'Calibrated with random data: ranges from random inputs rarely resemble real ones; calibrate with real samples.';

export function levelOf(db: number): Level {
  return db < RUINED_DB ? 'ruined' : db < POOR_DB ? 'poor' : 'ok';
}

/**
 * The verdict on `layers` (execution order), or undefined when none of them is a model output.
 * NaN counts as ruined (a NaN SQNR means the quantized output is not a number).
 */
export function sqnrVerdict(layers: readonly LayerSqnr[], randomCalibration: boolean): Verdict | undefined {
  const key = (l: LayerSqnr): number => (Number.isNaN(l.db) ? -Infinity : l.db);
  const outputs = layers.filter((l) => l.output);
  const worstOutput = outputs.reduce<LayerSqnr | undefined>((w, l) => (w === undefined || key(l) < key(w) ? l : w), undefined);
  if (!worstOutput) return undefined;
  const level = levelOf(key(worstOutput));
  const db = formatDb(worstOutput.db);
  if (level === 'ok') {
    return { level, worstOutput, firstBelow: undefined, worst: [], randomHint: false, text: `Worst output SQNR ${db} (${worstOutput.label}): at least ${String(POOR_DB)} dB.` };
  }
  const firstBelow = layers.find((l) => key(l) < POOR_DB);
  const worst = [...layers].sort((a, b) => key(a) - key(b)).slice(0, WORST_SHOWN);
  const head =
    level === 'ruined'
      ? `Quantization ruined: the worst output SQNR is ${db} (${worstOutput.label}), below ${String(RUINED_DB)} dB: the error is about as large as the signal.`
      : `Poor quantization: the worst output SQNR is ${db} (${worstOutput.label}), below ${String(POOR_DB)} dB.`;
  const where = firstBelow ? ` SQNR first falls below ${String(POOR_DB)} dB at ${firstBelow.label} (${formatDb(firstBelow.db)}).` : '';
  const worstText = ` Worst layers: ${worst.map((l) => `${l.label} ${formatDb(l.db)}`).join(', ')}.`;
  return { level, worstOutput, firstBelow, worst, randomHint: randomCalibration, text: `${head}${where}${worstText}${randomCalibration ? ` ${RANDOM_HINT}` : ''}` };
}

/** The report's per-operator errors as layers (operator order); outputs by tensor name. */
export function layersFromReport(opErrors: readonly { index: number; op: string; output: string; sqnr_db?: number | undefined }[], outputNames: ReadonlySet<string>): LayerSqnr[] {
  return [...opErrors]
    .sort((a, b) => a.index - b.index)
    .map((e) => ({ label: `${e.op} #${String(e.index)}`, db: e.sqnr_db ?? Infinity, output: outputNames.has(e.output) }));
}

/**
 * `zeropoint compare`'s rows (execution order) as layers, each named by the float model's
 * operator that makes it ("input" for a model input); outputs are the float model's outputs.
 */
export function layersFromComparison(
  rows: readonly { float_tensor: number; sqnr_db: number }[],
  operators: readonly { index: number; op: string; outputs: number[] }[],
  outputs: readonly number[],
): LayerSqnr[] {
  const producer = new Map<number, { index: number; op: string }>();
  for (const op of operators) for (const t of op.outputs) producer.set(t, op);
  const outs = new Set(outputs);
  return rows.map((r) => {
    const op = producer.get(r.float_tensor);
    return { label: op ? `${op.op} #${String(op.index)}` : `input tensor #${String(r.float_tensor)}`, db: r.sqnr_db, output: outs.has(r.float_tensor) };
  });
}
