/**
 * The operator graph as SVG: boxes for operators (and the graph's inputs and outputs), edges
 * labelled with tensor shape and dtype. Drag to pan, wheel to scroll, Ctrl/⌘ + wheel (or the
 * buttons) to zoom. Clicking a box selects the op, clicking an edge (or its label) the tensor.
 * A big graph opens at a legible zoom at its top; constant-weight DEQUANTIZE ops (with the DENSIFY
 * of sparse weights) are folded into their consumers; the search box selects and pans to matching
 * ops. The graph is one Tab stop:
 * arrow keys move the focus between boxes (roving tabindex), Enter opens the focused box's
 * details, and the focused box is panned into view.
 */
import type { SubgraphSummary, UnrunnableOp } from '../engine/types';
import { formatMs } from '../format';
import { fitView, layoutGraph, pathData, zoomAt, type GraphLayout, type PlacedNode } from '../graph/layout';
import { initialView, neighbour, resizedView, revealNode, searchNodes, type NavKey, type View, type ViewOrigin } from '../graph/navigate';
import { cannotRunSummary } from '../model/ops';
import { h, s } from './dom';


/** Beyond this many operators the layout (on the UI thread) would stall the page: not drawn. */
export const MAX_DRAWN_OPS = 3000;


export type Selection = { kind: 'op'; index: number } | { kind: 'tensor'; index: number } | undefined;

export interface GraphViewOptions {
  onSelect: (selection: Selection) => void;
  /** Prefix of the elements' `data-testid`s (`graph` → `graph-op`, `graph-svg`, …). */
  testIdPrefix?: string;
}

export class GraphView {
  readonly element: HTMLElement;
  private readonly svg: SVGSVGElement;
  private readonly viewport: SVGGElement;
  private readonly info = h('span', { class: 'muted graph-info', 'data-testid': 'graph-info' });
  /** What `markCannotRun` says: hidden when every op runs. */
  private readonly cannotRunNote = h('p', { class: 'graph-cannot-run', role: 'status' });
  private layout: GraphLayout | undefined;
  private view: View = { tx: 0, ty: 0, k: 1 };
  /** How the view was set (a fit, or the user's pan / zoom), and the svg's size it was set for. */
  private origin: ViewOrigin = { fit: 'first' };
  private viewSize = { w: 0, h: 0 };
  private selected: Selection;
  /** Drawn boxes by node id, and the id of the one that holds the graph's Tab stop. */
  private boxes = new Map<string, { node: PlacedNode; el: SVGGElement }>();
  private tabStop: string | undefined;
  private readonly search = h('input', { type: 'search', class: 'graph-search', placeholder: 'Find op or tensor', 'aria-label': 'Find an operator by name, #index or tensor name' });
  private readonly searchStatus = h('span', { class: 'muted graph-search-status', role: 'status' });
  private matches: string[] = [];
  private matchAt = -1;
  /** Whether the drawn graph got its first view, and a box to reveal once it does. */
  private fitted = false;
  private pendingReveal: PlacedNode | undefined;

  private readonly prefix: string;

  constructor(private readonly options: GraphViewOptions) {
    const prefix = options.testIdPrefix ?? 'graph';
    this.prefix = prefix;
    this.info.dataset['testid'] = `${prefix}-info`;
    this.cannotRunNote.dataset['testid'] = `${prefix}-cannot-run`;
    this.cannotRunNote.hidden = true;
    this.search.dataset['testid'] = `${prefix}-search`;
    this.searchStatus.dataset['testid'] = `${prefix}-search-status`;
    this.svg = s('svg', {
      class: 'graph-svg',
      'data-testid': `${prefix}-svg`,
      role: 'group',
      'aria-label': 'Operator graph: arrow keys move between boxes (down and up follow the edges), Enter opens the details',
    });
    const defs = s(
      'defs',
      {},
      s('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, s('path', { d: 'M0,0 L10,5 L0,10 z', class: 'graph-arrow' })),
    );
    // Chromium puts the transformed group in the Tab order by itself: the boxes hold the one stop.
    this.viewport = s('g', { class: 'graph-viewport', tabindex: -1 });
    this.svg.append(defs, this.viewport);
    const button = (label: string, title: string, testId: string, action: () => void): HTMLButtonElement => {
      const b = h('button', { type: 'button', title, 'data-testid': testId }, label);
      b.addEventListener('click', action);
      return b;
    };
    this.element = h(
      'div',
      { class: 'graph', 'data-testid': prefix },
      h(
        'div',
        { class: 'graph-tools' },
        button('+', 'Zoom in', `${prefix}-zoom-in`, () => {
          this.zoomBy(1.25);
        }),
        button('\u2212', 'Zoom out', `${prefix}-zoom-out`, () => {
          this.zoomBy(0.8);
        }),
        button('fit', 'Show the whole graph', `${prefix}-fit`, () => {
          this.fit('all');
        }),
        this.search,
        this.searchStatus,
        this.info,
      ),
      this.cannotRunNote,
      this.svg,
    );
    this.installPanZoom();
    this.installKeyboard();
    this.followResize();
  }

  /**
   * When the graph's box changes size (a window resized, a phone turned, or the tab shown again
   * after the window changed while it was hidden), the view is made again for the new size from
   * the size it was set for (graph/navigate.ts `resizedView`): a fitted view is fitted again, a
   * view the user moved keeps its centre column, and some box always stays in view.
   */
  private followResize(): void {
    if (typeof ResizeObserver === 'undefined') return;
    new ResizeObserver(() => {
      const { w, h: hh } = this.size();
      if (!this.layout || w === 0 || hh === 0) return;
      if (!this.fitted) {
        this.fit('first');
        return;
      }
      if (w === this.viewSize.w && hh === this.viewSize.h) return;
      this.view = resizedView(this.layout, this.view, this.origin, this.viewSize.w, w, hh);
      this.viewSize = { w, h: hh };
      this.apply();
    }).observe(this.svg);
  }

  /** Sets the view after the user panned or zoomed it (at the svg's current size). */
  private userView(view: View): void {
    this.view = view;
    this.origin = { fit: 'user', anchor: this.origin.anchor };
    this.viewSize = this.size();
    this.apply();
  }

  /** Lays out and draws a subgraph (replacing what was shown). */
  show(subgraph: SubgraphSummary): void {
    if (subgraph.operators.length > MAX_DRAWN_OPS) {
      this.layout = undefined;
      this.selected = undefined;
      this.boxes = new Map();
      this.tabStop = undefined;
      this.viewport.replaceChildren();
      this.info.textContent = `${subgraph.operators.length.toLocaleString('en-US')} operators: too many to draw here; the tensor table below lists every tensor.`;
      return;
    }
    const started = performance.now();
    const layout = layoutGraph(subgraph);
    this.layout = layout;
    this.selected = undefined;
    this.boxes = new Map();
    this.fitted = false;
    this.pendingReveal = undefined;
    this.tabStop = layout.nodes[0]?.id;
    this.matches = [];
    this.matchAt = -1;
    this.search.value = '';
    this.searchStatus.textContent = '';
    // Identity until fitted, so a graph drawn in a hidden tab is fitted when the tab shows.
    this.view = { tx: 0, ty: 0, k: 1 };
    this.origin = { fit: 'first' };
    this.viewSize = { w: 0, h: 0 };
    this.apply();
    this.viewport.replaceChildren();
    const edges = s('g', { class: 'graph-edges' });
    const labels = s('g', { class: 'graph-edge-labels' });
    for (const e of layout.edges) {
      const select = (): void => {
        this.options.onSelect({ kind: 'tensor', index: e.tensor });
      };
      const path = s('path', { d: pathData(e.points), class: 'graph-edge', 'marker-end': 'url(#arrow)', 'data-tensor': e.tensor });
      const hit = s('path', { d: pathData(e.points), class: 'graph-edge-hit', 'data-tensor': e.tensor }, s('title', {}, e.label));
      hit.addEventListener('click', select);
      edges.append(path, hit);
      const text = s('text', { x: e.labelAt.x, y: e.labelAt.y + 3, class: 'graph-edge-label', 'text-anchor': 'middle', 'data-tensor': e.tensor }, e.label);
      text.addEventListener('click', select);
      labels.append(text);
    }
    const nodes = s('g', { class: 'graph-nodes' });
    for (const n of layout.nodes) {
      const g = s('g', {
        class: `graph-node graph-node-${n.kind}`,
        transform: `translate(${(n.x - n.width / 2).toFixed(1)},${(n.y - n.height / 2).toFixed(1)})`,
        'data-testid': `${this.prefix}-${n.kind}`,
        'data-node': n.id,
        tabindex: n.id === this.tabStop ? 0 : -1,
        role: 'button',
        'aria-label': `${n.label} ${n.sub}`,
      });
      if (n.folded) g.setAttribute('data-folded', n.folded.join(' '));
      if (n.op !== undefined) g.setAttribute('data-op', String(n.op));
      if (n.tensor !== undefined) g.setAttribute('data-tensor', String(n.tensor));
      g.append(
        s('rect', { width: n.width, height: n.height, rx: n.kind === 'op' ? 6 : 18 }),
        s('text', { x: n.width / 2, y: 17, 'text-anchor': 'middle', class: 'graph-node-label' }, n.label),
        s('text', { x: n.width / 2, y: 31, 'text-anchor': 'middle', class: 'graph-node-sub' }, n.sub),
      );
      const select = (): void => {
        if (n.op !== undefined) this.options.onSelect({ kind: 'op', index: n.op });
        else if (n.tensor !== undefined) this.options.onSelect({ kind: 'tensor', index: n.tensor });
      };
      g.addEventListener('click', select);
      g.addEventListener('keydown', (event) => {
        if (event.key === 'Enter' || event.key === ' ') {
          event.preventDefault();
          select();
        }
      });
      this.boxes.set(n.id, { node: n, el: g });
      nodes.append(g);
    }
    this.viewport.append(edges, labels, nodes);
    const ops = subgraph.operators.length;
    // Each folded op once (a weight read by two ops is folded into both boxes).
    const foldedOps = [...new Set(layout.nodes.flatMap((n) => n.folded ?? []))];
    const dequantize = foldedOps.filter((i) => subgraph.operators[i]?.op === 'DEQUANTIZE').length;
    const densify = foldedOps.length - dequantize;
    const foldNote =
      dequantize > 0
        ? ` (${dequantize.toLocaleString('en-US')} weight DEQUANTIZE${densify > 0 ? `, ${densify.toLocaleString('en-US')} of them after a DENSIFY,` : ''} folded into their consumers)`
        : '';
    this.info.textContent = `${ops.toLocaleString('en-US')} operators${foldNote} · ${layout.edges.length.toLocaleString('en-US')} edges · laid out in ${formatMs(performance.now() - started)} · drag to pan, Ctrl+wheel to zoom`;
    // The container may not be laid out yet (hidden tab): fit once it has a size.
    requestAnimationFrame(() => {
      this.fit('first');
    });
  }

  /** Highlights the selected op or tensor (and scrolls it into view). */
  select(selection: Selection): void {
    this.selected = selection;
    for (const el of this.viewport.querySelectorAll('.selected')) el.classList.remove('selected');
    if (!selection) return;
    const query = selection.kind === 'op' ? `[data-op="${String(selection.index)}"]` : `[data-tensor="${String(selection.index)}"]`;
    const found = [...this.viewport.querySelectorAll(query)];
    for (const el of found) el.classList.add('selected');
    const node = selection.kind === 'op' ? this.opNode(selection.index) : this.layout?.nodes.find((n) => n.tensor === selection.index);
    if (node) {
      // A folded DEQUANTIZE is shown by the box it is folded into.
      this.boxes.get(node.id)?.el.classList.add('selected');
      this.moveTabStop(node.id);
      this.revealBox(node);
      return;
    }
    const edge = this.layout?.edges.find((e) => selection.kind === 'tensor' && e.tensor === selection.index);
    if (edge) this.reveal(edge.labelAt);
  }

  /**
   * Pans (scale kept) so the box of op `index` (or the box it is folded into) is in view; before
   * the first fit (a graph drawn in a hidden tab), right after it.
   */
  revealOp(index: number): void {
    const node = this.opNode(index);
    if (!node) return;
    if (this.fitted) this.revealBox(node);
    else this.pendingReveal = node;
  }

  /** The box that shows op `index`: its own, or the consumer's for a folded DEQUANTIZE. */
  private opNode(index: number): PlacedNode | undefined {
    return this.layout?.nodes.find((n) => n.op === index) ?? this.layout?.nodes.find((n) => n.folded?.includes(index));
  }

  private revealBox(node: PlacedNode): void {
    const { w, h: hh } = this.size();
    if (w === 0) return;
    this.view = revealNode(this.view, node, w, hh);
    this.origin = { ...this.origin, anchor: node };
    this.viewSize = { w, h: hh };
    this.apply();
  }

  /** Gives the graph's one Tab stop to node `id`. */
  private moveTabStop(id: string): void {
    if (id === this.tabStop || !this.boxes.has(id)) return;
    if (this.tabStop !== undefined) this.boxes.get(this.tabStop)?.el.setAttribute('tabindex', '-1');
    this.boxes.get(id)?.el.setAttribute('tabindex', '0');
    this.tabStop = id;
  }

  private focusNode(id: string): void {
    const box = this.boxes.get(id);
    if (!box) return;
    this.moveTabStop(id);
    box.el.focus({ preventScroll: true });
    this.revealBox(box.node);
  }

  private installKeyboard(): void {
    const keys = new Set<string>(['ArrowDown', 'ArrowUp', 'ArrowLeft', 'ArrowRight', 'Home', 'End']);
    this.viewport.addEventListener('keydown', (event) => {
      const id = (event.target instanceof Element ? event.target.closest('g.graph-node') : null)?.getAttribute('data-node');
      if (!id || !this.layout || !keys.has(event.key)) return;
      event.preventDefault();
      const to = neighbour(this.layout, id, event.key as NavKey);
      if (to !== undefined) this.focusNode(to);
    });
    // A box focused by Tab is panned into view too; one focused by a press of the pointer is not
    // moved (it would slide away from under the pointer before the click).
    this.viewport.addEventListener('focusin', (event) => {
      const el = event.target instanceof Element ? event.target.closest('g.graph-node') : null;
      const id = el?.getAttribute('data-node');
      const box = id ? this.boxes.get(id) : undefined;
      if (!el || !id || !box) return;
      this.moveTabStop(id);
      if (el.matches(':focus-visible')) this.revealBox(box.node);
    });
    const find = (step: 1 | -1): void => {
      if (!this.layout) return;
      const query = this.search.value;
      const matches = searchNodes(this.layout.nodes, query);
      const same = matches.length === this.matches.length && matches.every((m, i) => m === this.matches[i]);
      this.matches = matches;
      this.matchAt = matches.length === 0 ? -1 : same ? (this.matchAt + step + matches.length) % matches.length : 0;
      this.search.dataset['matches'] = String(matches.length);
      const id = matches[this.matchAt];
      if (id === undefined) {
        this.searchStatus.textContent = query.trim() === '' ? '' : 'no match';
        return;
      }
      this.searchStatus.textContent = `${String(this.matchAt + 1)} of ${String(matches.length)}`;
      const node = this.boxes.get(id)?.node;
      if (!node) return;
      if (node.op !== undefined) this.options.onSelect({ kind: 'op', index: node.op });
      else if (node.tensor !== undefined) this.options.onSelect({ kind: 'tensor', index: node.tensor });
      this.moveTabStop(id);
      this.revealBox(node);
    };
    this.search.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter') return;
      event.preventDefault();
      find(event.shiftKey ? -1 : 1);
    });
    this.search.addEventListener('input', () => {
      this.matches = [];
      find(1);
    });
  }

  /**
   * Marks the boxes of `ops` with `className` (removed from every other op box): e.g. the ops
   * kept float in the Quantize view.
   */
  markOps(ops: ReadonlySet<number>, className: string): void {
    for (const g of this.viewport.querySelectorAll<SVGGElement>('[data-op]')) {
      if (!g.classList.contains('graph-node')) continue;
      g.classList.toggle(className, ops.has(Number(g.dataset['op'])));
    }
  }

  /**
   * Marks the ops the engine cannot run (class `cannot-run`, the engine's reason as the box's
   * tooltip) and says how many in the graph's info line; an empty list clears the marks.
   */
  markCannotRun(ops: readonly UnrunnableOp[]): void {
    const reasons = new Map<number, string[]>();
    for (const op of ops) reasons.set(op.op_index, [...(reasons.get(op.op_index) ?? []), op.message]);
    for (const g of this.viewport.querySelectorAll<SVGGElement>('g.graph-node[data-op]')) {
      const reason = reasons.get(Number(g.dataset['op']));
      g.classList.toggle('cannot-run', reason !== undefined);
      g.querySelector('title.graph-cannot-run-title')?.remove();
      if (reason) g.append(s('title', { class: 'graph-cannot-run-title' }, reason.join('\n')));
    }
    this.cannotRunNote.hidden = ops.length === 0;
    this.cannotRunNote.textContent = cannotRunSummary(ops);
  }

  /**
   * Paints op boxes (a heat map): `fills` maps an op index to a fill colour, a tooltip and a
   * value for tests (`data-heat`); ops not in the map lose their paint.
   */
  paintOps(fills: ReadonlyMap<number, { fill: string; title: string; value: string }>): void {
    for (const g of this.viewport.querySelectorAll<SVGGElement>('g.graph-node[data-op]')) {
      const paint = fills.get(Number(g.dataset['op']));
      const rect = g.querySelector('rect');
      g.querySelector('title.graph-heat-title')?.remove();
      if (!paint) {
        rect?.style.removeProperty('fill');
        g.removeAttribute('data-heat');
        continue;
      }
      rect?.style.setProperty('fill', paint.fill);
      g.setAttribute('data-heat', paint.value);
      g.append(s('title', { class: 'graph-heat-title' }, paint.title));
    }
  }

  /** The currently highlighted selection. */
  get selection(): Selection {
    return this.selected;
  }

  /** Re-fit after the container became visible (tab switch). */
  refit(): void {
    if (!this.fitted) this.fit('first');
  }

  private size(): { w: number; h: number } {
    const rect = this.svg.getBoundingClientRect();
    return { w: rect.width, h: rect.height };
  }

  private apply(): void {
    const { tx, ty, k } = this.view;
    this.viewport.setAttribute('transform', `translate(${tx.toFixed(1)},${ty.toFixed(1)}) scale(${k.toFixed(4)})`);
  }

  /** `all`: the whole graph; `first`: the legible first view (graph/navigate.ts `initialView`). */
  private fit(mode: 'all' | 'first'): void {
    if (!this.layout) return;
    const { w, h: hh } = this.size();
    if (w === 0) return;
    this.view = mode === 'all' ? fitView(this.layout.width, this.layout.height, w, hh, 'all') : initialView(this.layout, w, hh);
    this.origin = { fit: mode };
    this.viewSize = { w, h: hh };
    this.apply();
    this.fitted = true;
    if (this.pendingReveal) this.revealBox(this.pendingReveal);
    this.pendingReveal = undefined;
  }

  private zoomBy(factor: number): void {
    const { w, h: hh } = this.size();
    this.userView(zoomAt(this.view, { x: w / 2, y: hh / 2 }, factor));
  }

  /** Pans so that a point of the drawing is inside the viewport (centred if it was outside). */
  private reveal(at: { x: number; y: number }): void {
    const { w, h: hh } = this.size();
    if (w === 0) return;
    const x = this.view.tx + at.x * this.view.k;
    const y = this.view.ty + at.y * this.view.k;
    if (x >= 20 && x <= w - 20 && y >= 20 && y <= hh - 20) return;
    this.view = { ...this.view, tx: w / 2 - at.x * this.view.k, ty: hh / 2 - at.y * this.view.k };
    this.origin = { ...this.origin, anchor: { ...at, width: 0, height: 0 } };
    this.viewSize = { w, h: hh };
    this.apply();
  }

  private installPanZoom(): void {
    let drag: { x: number; y: number; tx: number; ty: number; moved: boolean } | undefined;
    this.svg.addEventListener('pointerdown', (event) => {
      if (event.button !== 0) return;
      drag = { x: event.clientX, y: event.clientY, tx: this.view.tx, ty: this.view.ty, moved: false };
    });
    this.svg.addEventListener('pointermove', (event) => {
      if (!drag) return;
      const dx = event.clientX - drag.x;
      const dy = event.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < 4) return;
      if (!drag.moved) this.svg.setPointerCapture(event.pointerId);
      drag.moved = true;
      this.userView({ ...this.view, tx: drag.tx + dx, ty: drag.ty + dy });
    });
    const end = (event: PointerEvent): void => {
      if (drag?.moved) {
        // A pan is not a click on whatever is under the pointer at the end.
        const swallow = (e: Event): void => {
          e.stopPropagation();
        };
        this.svg.addEventListener('click', swallow, { capture: true, once: true });
        setTimeout(() => {
          this.svg.removeEventListener('click', swallow, { capture: true });
        });
        if (this.svg.hasPointerCapture(event.pointerId)) this.svg.releasePointerCapture(event.pointerId);
      }
      drag = undefined;
    };
    this.svg.addEventListener('pointerup', end);
    this.svg.addEventListener('pointercancel', end);
    this.svg.addEventListener(
      'wheel',
      (event) => {
        event.preventDefault();
        if (event.ctrlKey || event.metaKey) {
          const rect = this.svg.getBoundingClientRect();
          this.userView(zoomAt(this.view, { x: event.clientX - rect.left, y: event.clientY - rect.top }, Math.exp(-event.deltaY / 300)));
        } else {
          this.userView({ ...this.view, tx: this.view.tx - event.deltaX, ty: this.view.ty - event.deltaY });
        }
      },
      { passive: false },
    );
  }
}
