/**
 * The Quantize view's settings as the CLI takes them: which I/O types a mode allows, the file
 * names of the downloads, the equivalent `zeropoint quantize` command line, the size change,
 * and the set of operators kept float. Pure functions, unit-tested in Node.
 */
import type { ModelSummary, QuantizeSettings, Report } from '../engine/types';
import { baseName, formatBytes } from '../format';

export type Mode = 'int8' | 'int16x8' | 'dynamic' | 'float16';
export const MODES: readonly { value: Mode; label: string }[] = [
  { value: 'int8', label: 'int8 (full integer)' },
  { value: 'int16x8', label: '16x8 (int16 activations, int8 weights)' },
  { value: 'dynamic', label: 'dynamic range (int8 weights, float activations)' },
  { value: 'float16', label: 'float16 weights' },
];

export function isMode(value: string): value is Mode {
  return MODES.some((m) => m.value === value);
}

/** Whether the mode quantizes activations (and so needs calibration statistics). */
export function needsCalibration(mode: Mode): boolean {
  return mode === 'int8' || mode === 'int16x8';
}

/** The `--io` values a mode offers (dynamic and float16 models keep float I/O). */
export function ioChoices(mode: Mode): string[] {
  switch (mode) {
    case 'int8':
      return ['int8', 'uint8', 'float'];
    case 'int16x8':
      return ['int16', 'float'];
    case 'dynamic':
    case 'float16':
      return ['float'];
  }
}

const sortedOps = (ops: Iterable<number>): string[] => [...new Set(ops)].sort((a, b) => a - b).map(String);

/**
 * The settings for a mode: an I/O type the mode does not offer becomes its first choice; int16
 * operators (`--int16-ops`) only exist in an int8 model, and an op kept float is not int16.
 */
export function settingsFor(mode: Mode, io: string, perTensor: boolean, floatOps: Iterable<number>, int16Ops: Iterable<number> = []): QuantizeSettings {
  const choices = ioChoices(mode);
  const float = new Set(floatOps);
  return {
    mode,
    io: choices.includes(io) ? io : (choices[0] ?? 'float'),
    per_tensor: perTensor,
    float_ops: sortedOps(float),
    int16_ops: mode === 'int8' ? sortedOps([...int16Ops].filter((op) => !float.has(op))) : [],
  };
}

/** Adds `op` to the kept-float set, or removes it if it is there; returns a new set. */
export function toggleOp(ops: ReadonlySet<number>, op: number): Set<number> {
  const next = new Set(ops);
  if (!next.delete(op)) next.add(op);
  return next;
}

const MODE_SUFFIX: Record<Mode, string> = { int8: 'int8', int16x8: '16x8', dynamic: 'dynamic', float16: 'fp16' };

/** The I/O type a mode gives unless asked otherwise (the first of [ioChoices]). */
export function defaultIo(mode: Mode): string {
  return ioChoices(mode)[0] ?? 'float';
}

/**
 * The download's name says what the file is: "net.tflite", int8 with int8 I/O →
 * "net_int8.tflite"; with another I/O type than the mode's own it is named too, as the goldens
 * do: int8 with float I/O → "net_int8_floatio.tflite", uint8 I/O → "net_int8_uint8io.tflite".
 */
export function quantizedFileName(model: string, settings: { mode: string; io: string }): string {
  const mode = isMode(settings.mode) ? settings.mode : 'int8';
  const io = settings.io === defaultIo(mode) ? '' : `_${settings.io}io`;
  return `${baseName(model)}_${MODE_SUFFIX[mode]}${io}.tflite`;
}

/**
 * The element types of a model's inputs and outputs as its file has them ("float32", "int8"; one
 * word when they are all the same, else "float32 in, int8 out"); what the result shows.
 */
export function fileIoType(summary: ModelSummary): string {
  const sg = summary.subgraphs[0];
  if (!sg) return 'none';
  const dtypes = (indices: number[]): string[] => [...new Set(indices.map((i) => (sg.tensors.find((t) => t.index === i)?.dtype ?? '?').toLowerCase()))];
  const ins = dtypes(sg.inputs);
  const outs = dtypes(sg.outputs);
  const all = [...new Set([...ins, ...outs])];
  return all.length === 1 ? (all[0] ?? 'none') : `${ins.join('/')} in, ${outs.join('/')} out`;
}

/** The settings in words, as the result shows them: "int8, I/O float, per-channel weights". */
export function describeSettings(settings: QuantizeSettings): string {
  const weights = settings.mode === 'float16' ? 'float16 weights' : settings.per_tensor ? 'per-tensor weights' : 'per-channel weights';
  return `${settings.mode}, I/O ${settings.io}, ${weights}`;
}

/** "net_int8.tflite" → "net_int8.report.json". */
export function reportFileName(quantized: string): string {
  return `${baseName(quantized)}.report.json`;
}

/** "net.tflite" → "net.stats.json" (what `zeropoint calibrate -o` would write). */
export function cliStatsFileName(model: string): string {
  return `${baseName(model)}.stats.json`;
}

/** Quotes an argument for a POSIX shell when it needs it. */
export function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The `zeropoint quantize` command that writes the same files from the downloaded statistics. */
export function cliCommand(
  model: string,
  settings: QuantizeSettings,
  withStats: boolean,
  auto?: { targetSqnrDb?: number | undefined; targetAccuracyDrop?: number | undefined; labels?: { name: string } | undefined; labelOutput?: number | undefined; budget?: number | undefined; timeLimit?: number | undefined },
): string {
  const out = quantizedFileName(model, settings);
  const args = ['zeropoint', 'quantize', model];
  // --auto calibrates on the samples themselves (the CLI takes them as --data, not statistics).
  if (auto) {
    args.push('--data', AUTO_DATA_FILE, '--auto');
    if (auto.targetSqnrDb !== undefined) args.push('--target-sqnr', String(auto.targetSqnrDb));
    if (auto.targetAccuracyDrop !== undefined && auto.labels) {
      args.push('--target-accuracy-drop', String(auto.targetAccuracyDrop), '--labels', auto.labels.name);
      if (auto.labelOutput) args.push('--label-output', String(auto.labelOutput));
    }
    if (auto.budget !== undefined && auto.budget !== AUTO_DEFAULT_BUDGET) args.push('--auto-budget', String(auto.budget));
    if (auto.timeLimit !== undefined) args.push('--auto-time-limit', String(auto.timeLimit));
  } else if (withStats) args.push('--stats', cliStatsFileName(model));
  args.push('--mode', settings.mode, '--io', settings.io);
  if (settings.per_tensor) args.push('--per-tensor');
  if (settings.float_ops.length > 0) args.push('--float-ops', settings.float_ops.join(','));
  const int16 = settings.int16_ops ?? [];
  if (int16.length > 0) args.push('--int16-ops', int16.join(','));
  args.push('-o', out, '--report', reportFileName(out));
  return args.map(shellQuote).join(' ');
}

/** The calibration samples in the `--auto` command line (the page's source, as a `.npy`). */
export const AUTO_DATA_FILE = 'SAMPLES.npy';

/** `zeropoint quantize --auto-budget`'s default. */
export const AUTO_DEFAULT_BUDGET = 400;

/** "1.20 MiB → 312 KiB (26.0% of the original)". */
export function sizeChange(original: number, quantized: number): string {
  const share = original > 0 ? ` (${((100 * quantized) / original).toFixed(1)}% of the original)` : '';
  return `${formatBytes(original)} \u2192 ${formatBytes(quantized)}${share}`;
}

/**
 * The report's errors in one line (measured on the first calibration samples when the model was
 * calibrated in this page, as `zeropoint quantize --data … --report` does): the worst operator
 * output and the model's last operator, in dB. Undefined when the report has none.
 */
export function errorSummary(report: Report): string | undefined {
  const samples = report.error_samples ?? 0;
  const ops = report.op_errors ?? [];
  const last = ops[ops.length - 1];
  if (samples === 0 || !last) return undefined;
  const db = (v: number | undefined): string => (v === undefined ? 'identical' : `${v.toFixed(1)} dB`);
  const worst = ops.reduce((w, o) => ((o.sqnr_db ?? Infinity) < (w.sqnr_db ?? Infinity) ? o : w), last);
  const which = samples === 1 ? 'the first calibration sample' : `the first ${String(samples)} calibration samples`;
  return `SQNR against the float model on ${which}: worst operator output ${db(worst.sqnr_db)} (${worst.op} #${String(worst.index)}), last operator ${db(last.sqnr_db)} (${last.op} #${String(last.index)}).`;
}
