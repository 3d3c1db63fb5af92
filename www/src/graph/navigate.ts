/**
 * Finding one's way in a big graph, as pure functions of a layout (unit-tested in Node): the
 * legible first view, the view after the viewport is resized, the search box's matches, and where
 * an arrow key moves the keyboard focus.
 */
import { fitView, type GraphLayout, type PlacedNode } from './layout';

/** The view transform: translate (tx, ty), then scale k. */
export interface View {
  tx: number;
  ty: number;
  k: number;
}

/** A box's extent in the drawing (centre x, y). */
type Box = Pick<PlacedNode, 'x' | 'y' | 'width' | 'height'>;

const MARGIN = 16;

/**
 * The first view of a graph in a `vw × vh` viewport: the whole width when that keeps scale 1 or
 * the widest box still fits; otherwise the scale at which the widest box fits (so labels stay
 * legible, never below `minK`), at the top, centred on the first node (the first graph input).
 */
export function initialView(layout: GraphLayout, vw: number, vh: number, minK = 0.85): View {
  if (layout.width <= 0 || layout.height <= 0 || vw <= 0 || vh <= 0) return { tx: 0, ty: 0, k: 1 };
  const widest = Math.max(1, ...layout.nodes.map((n) => n.width));
  const kColumn = Math.min(1, Math.max(minK, (vw - 2 * MARGIN) / widest));
  const k = Math.max(Math.min(1, vw / layout.width), kColumn);
  if (layout.width * k <= vw) return { k, tx: (vw - layout.width * k) / 2, ty: Math.max(0, (vh - layout.height * k) / 2) };
  const first = layout.nodes[0];
  const cx = first ? first.x : layout.width / 2;
  // Centred on the first node, clamped so no empty band shows at either side.
  const tx = Math.min(0, Math.max(vw - layout.width * k, vw / 2 - cx * k));
  return { k, tx, ty: 0 };
}

/**
 * The view panned (scale kept) so the whole box of `node` is inside the viewport with a margin;
 * unchanged when it already is. A box larger than the viewport is aligned at its top-left.
 */
export function revealNode(view: View, node: Box, vw: number, vh: number, margin = MARGIN): View {
  const axis = (t: number, centre: number, size: number, span: number): number => {
    const lo = t + (centre - size / 2) * view.k;
    const hi = t + (centre + size / 2) * view.k;
    if (lo >= margin && hi <= span - margin) return t;
    if (hi - lo > span - 2 * margin || lo < margin) return t + (margin - lo);
    return t - (hi - (span - margin));
  };
  return { k: view.k, tx: axis(view.tx, node.x, node.width, vw), ty: axis(view.ty, node.y, node.height, vh) };
}

/** Whether the centre of `box` is inside the `vw × vh` viewport under `view` (the box is seen). */
export function boxInView(view: View, box: Box, vw: number, vh: number): boolean {
  const x = view.tx + box.x * view.k;
  const y = view.ty + box.y * view.k;
  return x >= 0 && x <= vw && y >= 0 && y <= vh;
}

/**
 * How the current view was set: by a fit (`first`: {@link initialView}, `all`: the whole graph)
 * that the user has not panned or zoomed since, or by the user (`user`). `anchor` is the box last
 * brought into view on purpose (selected, found, focused, the heat map's worst op), if any.
 */
export interface ViewOrigin {
  fit: 'first' | 'all' | 'user';
  anchor?: Box | undefined;
}

/**
 * The view once the viewport, `fromW` wide when `view` was set, is `vw × vh` (a window resized,
 * a phone turned, a tab shown again after the window changed while it was hidden). A view no
 * one has moved since its fit is fitted again for the new size (a legible zoom), with the anchor
 * box brought back into view; a view the user moved keeps its centre column where it was, and
 * if that leaves no box in view, the anchor box (else the first one) is panned into view.
 * `fromW` ≤ 0 (never measured) counts as unchanged. Scale is kept except when fitting again.
 */
export function resizedView(layout: GraphLayout, view: View, origin: ViewOrigin, fromW: number, vw: number, vh: number): View {
  if (vw <= 0 || vh <= 0) return view;
  if (origin.fit !== 'user') {
    const fitted = origin.fit === 'first' ? initialView(layout, vw, vh) : fitView(layout.width, layout.height, vw, vh, 'all');
    return origin.anchor ? revealNode(fitted, origin.anchor, vw, vh) : fitted;
  }
  const kept = fromW > 0 ? { ...view, tx: view.tx + (vw - fromW) / 2 } : view;
  if (layout.nodes.some((n) => boxInView(kept, n, vw, vh))) return kept;
  const target = origin.anchor ?? layout.nodes[0];
  return target ? revealNode(kept, target, vw, vh) : kept;
}

/**
 * Node ids matching a search, in drawing order: `#12` is op 12 exactly; any other text matches
 * (case-insensitively) part of an op's name, its output tensors' or folded weights' names, or a
 * graph input/output's name. Blank text matches nothing.
 */
export function searchNodes(nodes: readonly Pick<PlacedNode, 'id' | 'op' | 'search'>[], query: string): string[] {
  const q = query.trim().toLowerCase();
  if (q === '') return [];
  const index = /^#(\d+)$/.exec(q);
  if (index) return nodes.filter((n) => n.op === Number(index[1])).map((n) => n.id);
  return nodes.filter((n) => n.search.includes(q)).map((n) => n.id);
}

export type NavKey = 'ArrowDown' | 'ArrowUp' | 'ArrowLeft' | 'ArrowRight' | 'Home' | 'End';

/**
 * Where a key moves the focus from node `id`: ↓ to the first node it feeds (the next node in
 * order if it feeds none), ↑ to the nearest node feeding it (else the previous one), ← / → to the
 * previous / next node in order (inputs, ops in execution order, outputs), Home / End to the
 * first / last. Undefined when there is nowhere to go.
 */
export function neighbour(layout: Pick<GraphLayout, 'nodes' | 'edges'>, id: string, key: NavKey): string | undefined {
  const order = layout.nodes.map((n) => n.id);
  const at = order.indexOf(id);
  if (at < 0) return order[0];
  const rank = new Map(order.map((n, i) => [n, i]));
  const byOrder = (a: string, b: string): number => (rank.get(a) ?? 0) - (rank.get(b) ?? 0);
  switch (key) {
    case 'Home':
      return order[0];
    case 'End':
      return order[order.length - 1];
    case 'ArrowLeft':
      return order[at - 1];
    case 'ArrowRight':
      return order[at + 1];
    case 'ArrowDown': {
      const next = layout.edges.filter((e) => e.from === id).map((e) => e.to).sort(byOrder);
      return next[0] ?? order[at + 1];
    }
    case 'ArrowUp': {
      const prev = layout.edges.filter((e) => e.to === id).map((e) => e.from).sort(byOrder);
      return prev[prev.length - 1] ?? order[at - 1];
    }
  }
}
