/**
 * What the page knows about operators beyond their names: which input is the weights and which
 * the bias, the per-channel axis of the weights, and the operands of a requantization
 * (`M = S_x · S_w / S_y`). Pure: unit-tested in ops.test.ts.
 */
import type { OperatorSummary, SubgraphSummary, TensorSummary } from '../engine/types';

/** Names of the inputs of ops whose inputs are not interchangeable. */
const INPUT_ROLES: Record<string, readonly string[]> = {
  CONV_2D: ['input', 'weights', 'bias'],
  DEPTHWISE_CONV_2D: ['input', 'weights', 'bias'],
  FULLY_CONNECTED: ['input', 'weights', 'bias'],
  TRANSPOSE_CONV: ['output shape', 'weights', 'input', 'bias'],
  PAD: ['input', 'paddings'],
  PADV2: ['input', 'paddings', 'constant'],
  RESHAPE: ['input', 'shape'],
  MEAN: ['input', 'axes'],
  SUM: ['input', 'axes'],
  REDUCE_MAX: ['input', 'axes'],
  TRANSPOSE: ['input', 'permutation'],
  PRELU: ['input', 'alpha'],
};

/** "input", "weights", "bias", … or `input k` when the op's inputs have no fixed roles. */
export function inputRole(op: string, k: number): string {
  return INPUT_ROLES[op]?.[k] ?? `input ${String(k)}`;
}

/** The weights' per-channel axis (TFLite's `quantized_dimension`) of ops that requantize with one. */
export const WEIGHT_AXIS: Readonly<Record<string, number>> = {
  CONV_2D: 0,
  DEPTHWISE_CONV_2D: 3,
  FULLY_CONNECTED: 0,
};

/** Whether the op multiplies an activation by weights and requantizes: M = S_x · S_w / S_y. */
export function hasRequantization(op: string): boolean {
  return op in WEIGHT_AXIS;
}

export interface RequantOperands {
  op: OperatorSummary;
  input: TensorSummary;
  weights: TensorSummary;
  output: TensorSummary;
  axis: number;
}

function tensorAt(subgraph: SubgraphSummary, index: number | undefined): TensorSummary | undefined {
  if (index === undefined || index < 0) return undefined;
  const byPosition = subgraph.tensors[index];
  return byPosition?.index === index ? byPosition : subgraph.tensors.find((t) => t.index === index);
}

/** Input, weights and output of a CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED op. */
export function requantOperands(subgraph: SubgraphSummary, opIndex: number): RequantOperands | undefined {
  const op = subgraph.operators[opIndex];
  if (!op || !hasRequantization(op.op)) return undefined;
  const input = tensorAt(subgraph, op.inputs[0]);
  const weights = tensorAt(subgraph, op.inputs[1]);
  const output = tensorAt(subgraph, op.outputs[0]);
  const axis = WEIGHT_AXIS[op.op];
  if (!input || !weights || !output || axis === undefined) return undefined;
  return { op, input, weights, output, axis };
}

/** The scales of a quantized (int8/int16/int32) tensor, or undefined for float or unquantized ones. */
export function quantScales(t: TensorSummary): number[] | undefined {
  if (t.dtype === 'FLOAT32' || t.dtype === 'FLOAT16') return undefined;
  const scales = t.quantization?.scale ?? [];
  return scales.length > 0 ? scales : undefined;
}

/** Ops of the subgraph that requantize (for the Ranges view's multiplier picker). */
export function requantOps(subgraph: SubgraphSummary): OperatorSummary[] {
  return subgraph.operators.filter((op) => hasRequantization(op.op));
}

/** M = M0 · 2^(shift − 31), written as LiteRT stores it: "M0 · 2^−n" with n = 31 − shift. */
export function multiplierText(m0: number, shift: number): string {
  const n = 31 - shift;
  return `${String(m0)} \u00b7 2^${n >= 0 ? '\u2212' : ''}${String(Math.abs(n))}`;
}
