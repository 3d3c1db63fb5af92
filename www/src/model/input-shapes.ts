/**
 * Input shapes the user chooses for a model with dynamic dims (`shape_signature` −1; TF writes 1
 * in `shape`): which inputs have such dims, the value chosen for each (default: the stored one),
 * and the `InputShapes` object sent with run / calibrate requests (the engine's
 * `ShapeOverrides`: only −1 dims may change, as `zeropoint … --shape` / `--batch`). No DOM:
 * unit-tested in Node (input-shapes.test.ts).
 */
import type { InputShapes, ModelSummary } from '../engine/types';

/** A graph input with at least one dynamic dim. */
export interface DynamicInput {
  /** Position among subgraph 0's inputs. */
  index: number;
  /** Tensor name (what the engine matches the chosen shape by). */
  name: string;
  /** The stored shape (1 where the dim is dynamic, in TF's exports). */
  shape: number[];
  /** Axes whose `shape_signature` is −1. */
  axes: number[];
}

/** The inputs of subgraph 0 that have dynamic dims, in input order. */
export function dynamicInputs(summary: ModelSummary): DynamicInput[] {
  const sg = summary.subgraphs[0];
  if (!sg) return [];
  const out: DynamicInput[] = [];
  sg.inputs.forEach((t, index) => {
    const tensor = sg.tensors[t];
    const sig = tensor?.shape_signature;
    if (!tensor || sig?.length !== tensor.shape.length) return;
    const axes = sig.flatMap((d, axis) => (d === -1 ? [axis] : []));
    if (axes.length > 0) out.push({ index, name: tensor.name, shape: [...tensor.shape], axes });
  });
  return out;
}

/** No shape chosen: the stored shapes. */
export function storedShapes(): InputShapes {
  return { shapes: [] };
}

/** The shape `input` runs with under `chosen` (the stored shape where nothing was chosen). */
export function chosenShape(chosen: InputShapes, input: DynamicInput): number[] {
  return (chosen.shapes ?? []).find((s) => s.input === input.name)?.dims ?? input.shape;
}

/**
 * `chosen` with dim `axis` of `input` set to `value` (a whole number ≥ 1; anything else throws,
 * naming the input and the dim). Only dynamic axes can be set.
 */
export function withDim(chosen: InputShapes, input: DynamicInput, axis: number, value: number): InputShapes {
  if (!input.axes.includes(axis)) throw new Error(`input '${input.name}': dim ${String(axis)} is not dynamic`);
  if (!Number.isInteger(value) || value < 1) throw new Error(`input '${input.name}': dim ${String(axis)} must be a whole number ≥ 1, got ${String(value)}`);
  const dims = [...chosenShape(chosen, input)];
  dims[axis] = value;
  const others = (chosen.shapes ?? []).filter((s) => s.input !== input.name);
  const same = dims.every((d, i) => d === input.shape[i]);
  return { ...chosen, shapes: same ? others : [...others, { input: input.name, dims }] };
}

/** What to send with a request: `undefined` when every input keeps its stored shape. */
export function shapesToSend(chosen: InputShapes): InputShapes | undefined {
  return (chosen.shapes ?? []).length === 0 && chosen.batch === undefined ? undefined : chosen;
}
