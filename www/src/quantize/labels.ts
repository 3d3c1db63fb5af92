/**
 * Class labels for `--auto`'s accuracy target (`zeropoint quantize --labels`): an integer `.npy`
 * of shape `[N]` or `[N, 1]`, one class per calibration sample, each ≥ 0 — what the CLI reads
 * (`crate/src/bin/zeropoint/samples.rs`, `read_labels`). The page decodes `.npy` in TypeScript
 * (`calibration/npy.ts`); the engine checks the count against the samples and each class against
 * the label output's size.
 */
import { NpyError, parseNpy } from '../calibration/npy';

/** Labels read from a file: its name (for the CLI line) and one class per sample. */
export interface Labels {
  name: string;
  classes: number[];
}

/** The integer dtypes the CLI takes (int8 … int64, uint8), without the byte-order mark. */
const INTEGER = new Set(['i1', 'u1', 'i2', 'i4', 'i8']);

/** Reads a labels `.npy`; throws NpyError naming the file and what is wrong. */
export function parseLabels(name: string, bytes: Uint8Array): Labels {
  let array;
  try {
    array = parseNpy(bytes);
  } catch (error) {
    throw new NpyError(`${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const { dtype, shape, data } = array;
  const code = /^[<>|=]/.test(dtype) ? dtype.slice(1) : dtype;
  if (!INTEGER.has(code)) throw new NpyError(`${name}: labels are ${dtype}: an integer type (int8 … int64, uint8)`);
  if (!(shape.length === 1 || (shape.length === 2 && shape[1] === 1))) {
    throw new NpyError(`${name}: labels have shape (${shape.join(', ')}): one class per sample, [N] or [N, 1]`);
  }
  const classes = Array.from(data);
  const negative = classes.findIndex((c) => c < 0);
  if (negative >= 0) throw new NpyError(`${name}: label ${String(negative)} is ${String(classes[negative])}: classes count from 0`);
  const inexact = classes.findIndex((c) => !Number.isSafeInteger(c) || c >= 2 ** 24);
  if (inexact >= 0) throw new NpyError(`${name}: label ${String(inexact)} is too large`);
  return { name, classes };
}
