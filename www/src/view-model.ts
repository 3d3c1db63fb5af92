/**
 * Pure derivations from an engine ModelSummary to what the summary panel shows.
 * No DOM: unit-tested in Node (view-model.test.ts).
 */
import type { ModelSummary, SubgraphSummary, TensorSummary } from './engine/types';
import {
  formatBytes,
  formatCount,
  formatDtype,
  formatQuant,
  formatShape,
} from './format';

export interface IoRow {
  role: 'input' | 'output';
  /** Tensor index within the subgraph. */
  tensor: number;
  name: string;
  shape: string;
  dtype: string;
  quant: string;
}

export interface Stat {
  label: string;
  value: string;
  /** A secondary line (the exact byte count under an abbreviated size). */
  detail?: string;
}

function sizeStat(label: string, bytes: number): Stat {
  const value = formatBytes(bytes);
  return bytes < 1024 ? { label, value } : { label, value, detail: `${formatCount(bytes)} bytes` };
}

function tensorAt(subgraph: SubgraphSummary, index: number): TensorSummary | undefined {
  const byPosition = subgraph.tensors[index];
  return byPosition?.index === index ? byPosition : subgraph.tensors.find((t) => t.index === index);
}

/** Inputs then outputs of a subgraph (the main one by default). */
export function ioRows(summary: ModelSummary, subgraphIndex = 0): IoRow[] {
  const subgraph = summary.subgraphs[subgraphIndex];
  if (!subgraph) return [];
  const row = (role: IoRow['role'], index: number): IoRow => {
    const t = tensorAt(subgraph, index);
    return {
      role,
      tensor: index,
      name: t?.name ?? `#${String(index)}`,
      shape: t ? formatShape(t.shape, t.shape_signature) : '?',
      dtype: t ? formatDtype(t.dtype) : '?',
      quant: formatQuant(t?.quantization),
    };
  };
  return [...subgraph.inputs.map((i) => row('input', i)), ...subgraph.outputs.map((i) => row('output', i))];
}

/** Headline numbers for the summary panel. */
export function modelStats(summary: ModelSummary, fileSize: number): Stat[] {
  let tensors = 0;
  let operators = 0;
  for (const sg of summary.subgraphs) {
    tensors += sg.tensors.length;
    operators += sg.operators.length;
  }
  const stats: Stat[] = [
    sizeStat('File size', fileSize),
    { label: 'Schema version', value: String(summary.version) },
    { label: 'Subgraphs', value: formatCount(summary.subgraphs.length) },
    { label: 'Operators', value: formatCount(operators) },
    { label: 'Tensors', value: formatCount(tensors) },
    { label: 'Buffers', value: formatCount(summary.buffers) },
    sizeStat('Constant data', summary.constant_bytes),
  ];
  if (summary.description) stats.push({ label: 'Description', value: summary.description });
  return stats;
}

/** What kind of tensor this is, for the tensor table. */
export function tensorKind(t: TensorSummary): string {
  if (t.is_variable) return 'variable';
  if (t.is_constant) return 'constant';
  return 'activation';
}

/** Tensor role within its subgraph: "input", "output", or "". */
export function tensorRole(subgraph: SubgraphSummary, index: number): string {
  if (subgraph.inputs.includes(index)) return 'input';
  if (subgraph.outputs.includes(index)) return 'output';
  return '';
}

/** Case-insensitive filter on tensor name, dtype or index. */
export function filterTensors(tensors: readonly TensorSummary[], query: string): TensorSummary[] {
  const q = query.trim().toLowerCase();
  if (!q) return [...tensors];
  return tensors.filter(
    (t) => t.name.toLowerCase().includes(q) || t.dtype.toLowerCase() === q || String(t.index) === q,
  );
}
