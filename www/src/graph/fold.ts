/**
 * Constant-weight DEQUANTIZE ops (an fp16 model has one per weight tensor): DEQUANTIZE of a
 * constant tensor whose output only feeds other ops; with sparse weights (MediaPipe's
 * face_detection_full_range_sparse: 46 of them) the DEQUANTIZE reads a DENSIFY of the constant,
 * and the two are folded together. The graph folds each into the op(s) that read its output (no
 * box, no edge; a note on the consumer's box and in its details). Pure: no DOM, unit-tested in
 * Node.
 */
import type { SubgraphSummary } from '../engine/types';

/** One folded DEQUANTIZE: its op index, the constant it reads, the tensor it writes. */
export interface FoldedDequantize {
  op: number;
  /** The constant input (e.g. FLOAT16 weights; the sparse constant for a densified one). */
  from: number;
  /** The DENSIFY op between the constant and this DEQUANTIZE (its output read by this one alone). */
  densify?: number;
  /** Its float output, read by the consumers. */
  to: number;
  /** Ops that read `to`. */
  consumers: number[];
}

/**
 * Every DEQUANTIZE whose input is a constant, or the output of a DENSIFY of a constant read by
 * that DEQUANTIZE alone, and whose output is read by at least one op and is not a graph output,
 * keyed by its op index.
 */
export function constantDequantize(subgraph: SubgraphSummary): Map<number, FoldedDequantize> {
  const constant = new Set(subgraph.tensors.filter((t) => t.is_constant).map((t) => t.index));
  const graphOutputs = new Set(subgraph.outputs);
  const readers = new Map<number, number[]>();
  const producer = new Map<number, SubgraphSummary['operators'][number]>();
  for (const op of subgraph.operators) {
    for (const t of new Set(op.inputs)) if (t >= 0) readers.set(t, [...(readers.get(t) ?? []), op.index]);
    for (const t of op.outputs) if (t >= 0) producer.set(t, op);
  }
  /** The DENSIFY of a constant writing `t` for this DEQUANTIZE alone. */
  const densifyOf = (t: number, reader: number): { op: number; from: number } | undefined => {
    const p = producer.get(t);
    const from = p?.inputs[0] ?? -1;
    if (p?.op !== 'DENSIFY' || p.inputs.length !== 1 || p.outputs.length !== 1 || !constant.has(from)) return undefined;
    const only = readers.get(t);
    return only?.length === 1 && only[0] === reader && !graphOutputs.has(t) ? { op: p.index, from } : undefined;
  };
  const folded = new Map<number, FoldedDequantize>();
  for (const op of subgraph.operators) {
    if (op.op !== 'DEQUANTIZE' || op.inputs.length !== 1 || op.outputs.length !== 1) continue;
    const input = op.inputs[0] ?? -1;
    const to = op.outputs[0] ?? -1;
    const consumers = readers.get(to) ?? [];
    if (graphOutputs.has(to) || consumers.length === 0) continue;
    if (constant.has(input)) {
      folded.set(op.index, { op: op.index, from: input, to, consumers });
      continue;
    }
    const dense = densifyOf(input, op.index);
    if (dense) folded.set(op.index, { op: op.index, from: dense.from, densify: dense.op, to, consumers });
  }
  return folded;
}

/** The op indices a fold removes from the graph: the DENSIFY (if any), then the DEQUANTIZE. */
export function foldedOps(f: FoldedDequantize): number[] {
  return f.densify === undefined ? [f.op] : [f.densify, f.op];
}

/** The folded DEQUANTIZE ops each consumer op reads from, keyed by the consumer's op index. */
export function foldedInto(folded: ReadonlyMap<number, FoldedDequantize>): Map<number, FoldedDequantize[]> {
  const into = new Map<number, FoldedDequantize[]>();
  for (const f of folded.values()) for (const c of f.consumers) into.set(c, [...(into.get(c) ?? []), f]);
  return into;
}
