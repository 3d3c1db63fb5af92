/**
 * What the page knows about operators beyond their names, read from the op table generated from the
 * crate's (`op-table.ts`): which input is the weights and which the bias, the per-channel axis of the
 * weights, the operands of a requantization (`M = S_x · S_w / S_y`), and what the engine runs.
 * Pure: unit-tested in ops.test.ts.
 */
import type { OperatorSummary, SubgraphSummary, TensorSummary, UnrunnableOp } from '../engine/types';
import { NO_ROW_SUPPORT, OP_TABLE } from './op-table';

/** "input", "weights", "bias", … or `input k` when the op's inputs have no fixed roles. */
export function inputRole(op: string, k: number): string {
  return OP_TABLE[op]?.inputs[k] ?? `input ${String(k)}`;
}

/** Whether the op multiplies an activation by weights and requantizes: M = S_x · S_w / S_y. */
export function hasRequantization(op: string): boolean {
  return OP_TABLE[op]?.requant !== undefined;
}

/** What Zeropoint does with `op`, in words, as `zeropoint inspect` says it (generated from the op table's row). */
export function opSupport(op: string): string {
  return OP_TABLE[op]?.support ?? NO_ROW_SUPPORT;
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

/** Input, weights and output of an op that requantizes (CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, FULLY_CONNECTED). */
export function requantOperands(subgraph: SubgraphSummary, opIndex: number): RequantOperands | undefined {
  const op = subgraph.operators[opIndex];
  const slots = op ? OP_TABLE[op.op]?.requant : undefined;
  if (!op || !slots) return undefined;
  const input = tensorAt(subgraph, op.inputs[slots.input]);
  const weights = tensorAt(subgraph, op.inputs[slots.weights]);
  const output = tensorAt(subgraph, op.outputs[0]);
  if (!input || !weights || !output) return undefined;
  return { op, input, weights, output, axis: slots.axis };
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

/**
 * One line on the operators the engine cannot run, by name with counts (most frequent first):
 * `3 operators cannot run (marked on the graph): WHILE ×2, IF`.
 */
export function cannotRunSummary(ops: readonly UnrunnableOp[]): string {
  if (ops.length === 0) return '';
  const counts = new Map<string, number>();
  for (const op of ops) counts.set(op.op_name, (counts.get(op.op_name) ?? 0) + 1);
  const names = [...counts]
    .sort(([a, m], [b, n]) => n - m || a.localeCompare(b))
    .map(([name, n]) => (n > 1 ? `${name} ×${String(n)}` : name));
  const what = ops.length === 1 ? '1 operator cannot run' : `${String(ops.length)} operators cannot run`;
  return `${what} (marked on the graph): ${names.join(', ')}`;
}
