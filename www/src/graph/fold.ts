/**
 * Constant-weight DEQUANTIZE ops (an fp16 model has one per weight tensor): DEQUANTIZE of a
 * constant tensor whose output only feeds other ops. The graph folds each into the op(s) that
 * read its output (no box, no edge; a note on the consumer's box and in its details). Pure: no
 * DOM, unit-tested in Node.
 */
import type { SubgraphSummary } from '../engine/types';

/** One folded DEQUANTIZE: its op index, the constant it reads, the tensor it writes. */
export interface FoldedDequantize {
  op: number;
  /** The constant input (e.g. FLOAT16 weights). */
  from: number;
  /** Its float output, read by the consumers. */
  to: number;
  /** Ops that read `to`. */
  consumers: number[];
}

/**
 * Every DEQUANTIZE whose input is a constant and whose output is read by at least one op and is
 * not a graph output, keyed by its op index.
 */
export function constantDequantize(subgraph: SubgraphSummary): Map<number, FoldedDequantize> {
  const constant = new Set(subgraph.tensors.filter((t) => t.is_constant).map((t) => t.index));
  const graphOutputs = new Set(subgraph.outputs);
  const readers = new Map<number, number[]>();
  for (const op of subgraph.operators) {
    for (const t of new Set(op.inputs)) if (t >= 0) readers.set(t, [...(readers.get(t) ?? []), op.index]);
  }
  const folded = new Map<number, FoldedDequantize>();
  for (const op of subgraph.operators) {
    if (op.op !== 'DEQUANTIZE' || op.inputs.length !== 1 || op.outputs.length !== 1) continue;
    const from = op.inputs[0] ?? -1;
    const to = op.outputs[0] ?? -1;
    const consumers = readers.get(to) ?? [];
    if (!constant.has(from) || graphOutputs.has(to) || consumers.length === 0) continue;
    folded.set(op.index, { op: op.index, from, to, consumers });
  }
  return folded;
}

/** The folded DEQUANTIZE ops each consumer op reads from, keyed by the consumer's op index. */
export function foldedInto(folded: ReadonlyMap<number, FoldedDequantize>): Map<number, FoldedDequantize[]> {
  const into = new Map<number, FoldedDequantize[]>();
  for (const f of folded.values()) for (const c of f.consumers) into.set(c, [...(into.get(c) ?? []), f]);
  return into;
}
