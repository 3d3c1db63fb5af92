/**
 * The operator graph of one subgraph as a laid-out DAG: one box per operator, one per graph input
 * and output, and one edge per (producer → consumer) tensor, labelled with its shape and dtype.
 * Constant tensors (weights, biases) are not drawn as edges; they are listed in the op's details.
 * A DEQUANTIZE of a constant (fp16 weights; sparse ones after a DENSIFY) is folded into the op(s)
 * reading it (graph/fold.ts).
 *
 * `graphOf` is the pure adapter from the engine's summary; `layoutGraph` runs dagre on it. No DOM:
 * both are unit-tested in Node (layout.test.ts).
 */
import { Graph, layout } from '@dagrejs/dagre';
import type { SubgraphSummary, TensorSummary } from '../engine/types';
import { formatDtype, formatShape } from '../format';
import { constantDequantize, foldedInto, foldedOps } from './fold';

export type NodeKind = 'op' | 'input' | 'output';

export interface GraphNode {
  /** `op:<index>`, `in:<tensor>` or `out:<tensor>`. */
  id: string;
  kind: NodeKind;
  /** The box text: operator name, or the input/output tensor name. */
  label: string;
  /** Second line: `#index` for ops, "input" / "output" for the I/O nodes. */
  sub: string;
  /** Operator index (ops only). */
  op?: number;
  /** Tensor index (I/O nodes only). */
  tensor?: number;
  /** Constant-weight DEQUANTIZE ops (and the DENSIFY before one) folded into this op (not drawn themselves). */
  folded?: number[];
  /** Lower-case text the graph's search box matches: op name, `#index`, tensor names. */
  search: string;
  width: number;
  height: number;
}

export interface GraphEdge {
  id: string;
  from: string;
  to: string;
  tensor: number;
  /** "1×16×16×8 float32". */
  label: string;
}

export interface Point {
  x: number;
  y: number;
}

export interface PlacedNode extends GraphNode {
  /** Centre of the box. */
  x: number;
  y: number;
}

export interface PlacedEdge extends GraphEdge {
  points: Point[];
  /** Where the label goes (centre). */
  labelAt: Point;
}

export interface GraphLayout {
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  width: number;
  height: number;
}

/** Approximate text width in the SVG's 12 px sans-serif; boxes only need to be roughly right. */
export function textWidth(text: string, px = 12): number {
  return Math.ceil(text.length * px * 0.6);
}

const NODE_HEIGHT = 40;
const NODE_MIN_WIDTH = 90;
const NODE_PAD = 24;
const EDGE_LABEL_PX = 10;
/** I/O names can be long paths ("serving_default_input_1:0"); the box shows at most this much. */
const MAX_LABEL_CHARS = 28;

/** Shortens a long name in the middle: "serving_de…input_1:0". */
export function ellipsize(text: string, max = MAX_LABEL_CHARS): string {
  if (text.length <= max) return text;
  const head = Math.ceil((max - 1) / 2);
  const tail = max - 1 - head;
  return `${text.slice(0, head)}\u2026${text.slice(text.length - tail)}`;
}

/** "1×16×16×8 float32": the edge label of a tensor. */
export function edgeLabel(t: Pick<TensorSummary, 'shape' | 'shape_signature' | 'dtype'>): string {
  return `${formatShape(t.shape, t.shape_signature)} ${formatDtype(t.dtype)}`;
}

function box(id: string, kind: NodeKind, label: string, sub: string, search: string): GraphNode {
  // Bold labels run wider than the average glyph.
  const width = Math.max(NODE_MIN_WIDTH, Math.ceil(textWidth(label) * 1.12) + NODE_PAD, textWidth(sub, 10) + NODE_PAD);
  return { id, kind, label, sub, width, height: NODE_HEIGHT, search: search.toLowerCase() };
}

/**
 * Nodes and edges of a subgraph. An edge runs from the op (or graph input) that produces a tensor
 * to each op (or graph output) that reads it; tensors nobody produces (constants, omitted
 * optional inputs, variables) give no edge. With `fold` (the default), constant-weight DEQUANTIZE
 * ops (with the DENSIFY of sparse weights before one) get no box: their consumers' boxes say "+N
 * dequantized" and carry their indices in `folded`.
 */
export function graphOf(subgraph: SubgraphSummary, fold = true): { nodes: GraphNode[]; edges: GraphEdge[] } {
  const byIndex = new Map<number, TensorSummary>(subgraph.tensors.map((t) => [t.index, t]));
  const folded = fold ? constantDequantize(subgraph) : new Map<number, never>();
  const into = foldedInto(folded);
  const hidden = new Set([...folded.values()].flatMap(foldedOps));
  const nameOf = (t: number): string => byIndex.get(t)?.name ?? '';
  const nodes: GraphNode[] = [];
  const producer = new Map<number, string>();
  for (const index of subgraph.inputs) {
    const name = byIndex.get(index)?.name ?? `#${String(index)}`;
    const id = `in:${String(index)}`;
    nodes.push({ ...box(id, 'input', ellipsize(name), 'input', name), tensor: index });
    producer.set(index, id);
  }
  for (const op of subgraph.operators) {
    if (hidden.has(op.index)) continue;
    const id = `op:${String(op.index)}`;
    const mine = into.get(op.index) ?? [];
    const sub = `#${String(op.index)}${mine.length > 0 ? ` \u00b7 +${String(mine.length)} dequantized` : ''}`;
    const name = op.custom_code ?? op.op;
    const search = [name, `#${String(op.index)}`, ...op.outputs.map(nameOf), ...mine.map((f) => nameOf(f.from))].join('\n');
    const node: GraphNode = { ...box(id, 'op', name, sub, search), op: op.index };
    if (mine.length > 0) node.folded = mine.flatMap(foldedOps);
    nodes.push(node);
    for (const out of op.outputs) if (out >= 0 && !producer.has(out)) producer.set(out, id);
  }
  const edges: GraphEdge[] = [];
  const seen = new Set<string>();
  const connect = (tensor: number, to: string): void => {
    const from = producer.get(tensor);
    const t = byIndex.get(tensor);
    if (from === undefined || !t || from === to) return;
    const id = `${from}->${to}:${String(tensor)}`;
    if (seen.has(id)) return; // the same tensor read twice by one op (e.g. x * x)
    seen.add(id);
    edges.push({ id, from, to, tensor, label: edgeLabel(t) });
  };
  for (const op of subgraph.operators) {
    for (const input of op.inputs) if (input >= 0) connect(input, `op:${String(op.index)}`);
  }
  for (const index of subgraph.outputs) {
    const name = byIndex.get(index)?.name ?? `#${String(index)}`;
    const id = `out:${String(index)}`;
    nodes.push({ ...box(id, 'output', ellipsize(name), 'output', name), tensor: index });
    connect(index, id);
  }
  return { nodes, edges };
}

/** Lays the subgraph out top to bottom with dagre; coordinates start at (0, 0). */
export function layoutGraph(subgraph: SubgraphSummary): GraphLayout {
  const { nodes, edges } = graphOf(subgraph);
  const g = new Graph<Record<string, unknown>, { width: number; height: number; x?: number; y?: number }, {
    width: number;
    height: number;
    labelpos: 'c';
    points?: Point[];
    x?: number;
    y?: number;
  }>({ multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: 24, ranksep: 36, edgesep: 12, marginx: 16, marginy: 16 });
  for (const n of nodes) g.setNode(n.id, { width: n.width, height: n.height });
  for (const e of edges) {
    g.setEdge(e.from, e.to, { width: textWidth(e.label, EDGE_LABEL_PX) + 8, height: 14, labelpos: 'c' }, e.id);
  }
  layout(g);
  const placedNodes: PlacedNode[] = nodes.map((n) => {
    const label = g.node(n.id);
    return { ...n, x: label.x ?? 0, y: label.y ?? 0 };
  });
  const placedEdges: PlacedEdge[] = edges.map((e) => {
    const label = g.edge(e.from, e.to, e.id);
    const points = label.points ?? [];
    const mid = points[Math.floor(points.length / 2)] ?? { x: 0, y: 0 };
    return { ...e, points, labelAt: { x: label.x ?? mid.x, y: label.y ?? mid.y } };
  });
  const graphLabel = g.graph() as { width?: number; height?: number };
  return {
    nodes: placedNodes,
    edges: placedEdges,
    width: graphLabel.width ?? 0,
    height: graphLabel.height ?? 0,
  };
}

/** SVG path data through the points of an edge (straight segments). */
export function pathData(points: readonly Point[]): string {
  return points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');
}

/** Zoom about a point: the new view transform (translate tx, ty; scale k) keeping `at` fixed. */
export function zoomAt(
  view: { tx: number; ty: number; k: number },
  at: Point,
  factor: number,
  limits: { min: number; max: number } = { min: 0.05, max: 4 },
): { tx: number; ty: number; k: number } {
  const k = Math.min(limits.max, Math.max(limits.min, view.k * factor));
  const f = k / view.k;
  return { k, tx: at.x - (at.x - view.tx) * f, ty: at.y - (at.y - view.ty) * f };
}

/**
 * The transform that shows a `width × height` drawing in a `vw × vh` viewport, never enlarging:
 * `all` fits the whole drawing, `width` fits its width and starts at the top (a tall graph is
 * then scrolled).
 */
export function fitView(
  width: number,
  height: number,
  vw: number,
  vh: number,
  mode: 'all' | 'width' = 'all',
): { tx: number; ty: number; k: number } {
  if (width <= 0 || height <= 0 || vw <= 0 || vh <= 0) return { tx: 0, ty: 0, k: 1 };
  const k = mode === 'all' ? Math.min(1, vw / width, vh / height) : Math.min(1, vw / width);
  return { k, tx: (vw - width * k) / 2, ty: Math.max(0, (vh - height * k) / 2) };
}
