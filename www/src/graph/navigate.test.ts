import { describe, expect, it } from 'vitest';
import type { SubgraphSummary, TensorSummary } from '../engine/types';
import { constantDequantize, foldedInto } from './fold';
import { graphOf, type GraphLayout, type PlacedNode } from './layout';
import { boxInView, initialView, neighbour, resizedView, revealNode, searchNodes } from './navigate';

function tensor(index: number, name: string, extra: Partial<TensorSummary> = {}): TensorSummary {
  return { index, name, shape: [1, 8], shape_signature: undefined, dtype: 'FLOAT32', is_constant: false, is_variable: false, data_bytes: 0, quantization: undefined, ...extra };
}

/**
 * x → ADD(x, DEQUANTIZE(w16)) → a → MUL(a, DEQUANTIZE(w16)) → y; a second DEQUANTIZE of a
 * constant is a graph output (kept), one of an activation is kept too.
 */
const SG: SubgraphSummary = {
  name: undefined,
  inputs: [0],
  outputs: [5, 7, 9],
  tensors: [
    tensor(0, 'x'),
    tensor(1, 'w16', { dtype: 'FLOAT16', is_constant: true, data_bytes: 16 }),
    tensor(2, 'w'),
    tensor(3, 'a'),
    tensor(4, 'unused'),
    tensor(5, 'y'),
    tensor(6, 'c16', { dtype: 'FLOAT16', is_constant: true, data_bytes: 16 }),
    tensor(7, 'c_out'),
    tensor(8, 'q', { dtype: 'INT8' }),
    tensor(9, 'dq_out'),
  ],
  operators: [
    { index: 0, op: 'DEQUANTIZE', version: 1, custom_code: undefined, inputs: [1], outputs: [2] },
    { index: 1, op: 'ADD', version: 1, custom_code: undefined, inputs: [0, 2], outputs: [3] },
    { index: 2, op: 'MUL', version: 1, custom_code: undefined, inputs: [3, 2], outputs: [5] },
    { index: 3, op: 'DEQUANTIZE', version: 1, custom_code: undefined, inputs: [6], outputs: [7] },
    { index: 4, op: 'QUANTIZE', version: 1, custom_code: undefined, inputs: [0], outputs: [8] },
    { index: 5, op: 'DEQUANTIZE', version: 1, custom_code: undefined, inputs: [8], outputs: [9] },
  ],
};

describe('constantDequantize', () => {
  it('folds a DEQUANTIZE of a constant read by ops, into every op reading it', () => {
    const folded = constantDequantize(SG);
    expect([...folded.keys()]).toEqual([0]);
    expect(folded.get(0)).toEqual({ op: 0, from: 1, to: 2, consumers: [1, 2] });
    expect([...foldedInto(folded)].map(([c, f]) => [c, f.map((d) => d.op)])).toEqual([
      [1, [0]],
      [2, [0]],
    ]);
  });

  it('keeps a DEQUANTIZE whose output is a graph output or whose input is computed', () => {
    const { nodes, edges } = graphOf(SG);
    expect(nodes.filter((n) => n.kind === 'op').map((n) => n.op)).toEqual([1, 2, 3, 4, 5]);
    expect(nodes.find((n) => n.op === 1)?.folded).toEqual([0]);
    expect(nodes.find((n) => n.op === 1)?.sub).toBe('#1 \u00b7 +1 dequantized');
    expect(nodes.find((n) => n.op === 3)?.folded).toBeUndefined();
    // The folded op's output is read like a constant: no edge from it.
    expect(edges.some((e) => e.tensor === 2)).toBe(false);
    expect(edges.some((e) => e.from === 'op:0' || e.to === 'op:0')).toBe(false);
  });

  it('folds a DENSIFY of sparse constant weights with the DEQUANTIZE reading it (face_detection_full_range_sparse)', () => {
    // x → CONV(x, DEQUANTIZE(DENSIFY(s16))) → y; a DENSIFY read by two ops and one of a
    // computed tensor stay drawn, and so does the DEQUANTIZE after each.
    const sparse: SubgraphSummary = {
      name: undefined,
      inputs: [0],
      outputs: [4, 8, 11],
      tensors: [
        tensor(0, 'x'),
        tensor(1, 's16', { dtype: 'FLOAT16', is_constant: true, data_bytes: 16 }),
        tensor(2, 'w16'),
        tensor(3, 'w'),
        tensor(4, 'y'),
        tensor(5, 't16', { dtype: 'FLOAT16', is_constant: true, data_bytes: 16 }),
        tensor(6, 'v16'),
        tensor(7, 'v'),
        tensor(8, 'z'),
        tensor(9, 'u16'),
        tensor(10, 'u'),
        tensor(11, 'o'),
      ],
      operators: [
        { index: 0, op: 'DENSIFY', version: 1, custom_code: undefined, inputs: [1], outputs: [2] },
        { index: 1, op: 'DEQUANTIZE', version: 1, custom_code: undefined, inputs: [2], outputs: [3] },
        { index: 2, op: 'CONV_2D', version: 1, custom_code: undefined, inputs: [0, 3], outputs: [4] },
        { index: 3, op: 'DENSIFY', version: 1, custom_code: undefined, inputs: [5], outputs: [6] },
        { index: 4, op: 'DEQUANTIZE', version: 1, custom_code: undefined, inputs: [6], outputs: [7] },
        { index: 5, op: 'ADD', version: 1, custom_code: undefined, inputs: [7, 6], outputs: [8] },
        { index: 6, op: 'DENSIFY', version: 1, custom_code: undefined, inputs: [0], outputs: [9] },
        { index: 7, op: 'DEQUANTIZE', version: 1, custom_code: undefined, inputs: [9], outputs: [10] },
        { index: 8, op: 'ADD', version: 1, custom_code: undefined, inputs: [10, 0], outputs: [11] },
      ],
    };
    const folded = constantDequantize(sparse);
    expect([...folded.values()]).toEqual([{ op: 1, from: 1, densify: 0, to: 3, consumers: [2] }]);
    const { nodes, edges } = graphOf(sparse);
    expect(nodes.filter((n) => n.kind === 'op').map((n) => n.op)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(nodes.find((n) => n.op === 2)?.folded).toEqual([0, 1]);
    expect(nodes.find((n) => n.op === 2)?.sub).toBe('#2 \u00b7 +1 dequantized');
    expect(edges.some((e) => e.from === 'op:0' || e.to === 'op:0' || e.from === 'op:1' || e.to === 'op:1')).toBe(false);
    expect(edges.filter((e) => e.to === 'op:2').map((e) => e.from)).toEqual(['in:0']);
  });

  it('draws every DEQUANTIZE when folding is off', () => {
    const { nodes, edges } = graphOf(SG, false);
    expect(nodes.filter((n) => n.kind === 'op')).toHaveLength(6);
    expect(edges.filter((e) => e.tensor === 2).map((e) => e.to)).toEqual(['op:1', 'op:2']);
  });
});

describe('searchNodes', () => {
  const { nodes } = graphOf(SG);
  it('matches op names, output and folded weight names, case-insensitively, in order', () => {
    expect(searchNodes(nodes, 'mul')).toEqual(['op:2']);
    expect(searchNodes(nodes, 'W16')).toEqual(['op:1', 'op:2']);
    expect(searchNodes(nodes, 'dequantize')).toEqual(['op:3', 'op:5']);
    expect(searchNodes(nodes, 'x')).toEqual(['in:0']);
  });
  it('takes #N as exactly op N, and blank as nothing', () => {
    expect(searchNodes(nodes, '#2')).toEqual(['op:2']);
    expect(searchNodes(nodes, ' #0 ')).toEqual([]);
    expect(searchNodes(nodes, '  ')).toEqual([]);
    expect(searchNodes(nodes, 'nothing like it')).toEqual([]);
  });
});

function placed(id: string, x: number, y: number, width = 100): PlacedNode {
  return { id, kind: 'op', label: id, sub: '', width, height: 40, x, y, search: id };
}

describe('neighbour', () => {
  // a → b, a → c, b → d, c → d; order a, b, c, d, e (e unconnected).
  const layout: Pick<GraphLayout, 'nodes' | 'edges'> = {
    nodes: ['a', 'b', 'c', 'd', 'e'].map((id, i) => placed(id, 0, i * 50)),
    edges: [
      ['a', 'c'],
      ['a', 'b'],
      ['b', 'd'],
      ['c', 'd'],
    ].map(([from = '', to = ''], i) => ({ id: String(i), from, to, tensor: i, label: '', points: [], labelAt: { x: 0, y: 0 } })),
  };
  it('follows edges down to the earliest consumer and up to the nearest producer', () => {
    expect(neighbour(layout, 'a', 'ArrowDown')).toBe('b');
    expect(neighbour(layout, 'd', 'ArrowUp')).toBe('c');
    expect(neighbour(layout, 'c', 'ArrowUp')).toBe('a');
  });
  it('falls back to execution order, and Left/Right/Home/End walk the order', () => {
    expect(neighbour(layout, 'd', 'ArrowDown')).toBe('e');
    expect(neighbour(layout, 'e', 'ArrowDown')).toBeUndefined();
    expect(neighbour(layout, 'a', 'ArrowUp')).toBeUndefined();
    expect(neighbour(layout, 'c', 'ArrowLeft')).toBe('b');
    expect(neighbour(layout, 'c', 'ArrowRight')).toBe('d');
    expect(neighbour(layout, 'c', 'Home')).toBe('a');
    expect(neighbour(layout, 'c', 'End')).toBe('e');
  });
});

describe('initialView', () => {
  it('shows a narrow graph whole at scale 1, centred', () => {
    const layout: GraphLayout = { nodes: [placed('a', 100, 20)], edges: [], width: 200, height: 1000 };
    expect(initialView(layout, 600, 400)).toEqual({ k: 1, tx: 200, ty: 0 });
  });
  it('keeps a wide graph legible: scale 1 at the top, centred on the first node, no empty band', () => {
    const layout: GraphLayout = { nodes: [placed('a', 3000, 20), placed('b', 100, 80)], edges: [], width: 6000, height: 9000 };
    expect(initialView(layout, 800, 600)).toEqual({ k: 1, tx: 400 - 3000, ty: 0 });
    const atLeft: GraphLayout = { ...layout, nodes: [placed('a', 50, 20)] };
    expect(initialView(atLeft, 800, 600).tx).toBe(0);
  });
  it('shrinks only as far as the widest box needs, never below minK', () => {
    const layout: GraphLayout = { nodes: [placed('a', 1000, 20, 400)], edges: [], width: 2000, height: 500 };
    expect(initialView(layout, 332, 600, 0.5).k).toBeCloseTo(300 / 400, 10);
    expect(initialView(layout, 332, 600, 0.85).k).toBe(0.85);
  });
});

describe('revealNode', () => {
  const view = { tx: 0, ty: 0, k: 1 };
  it('leaves a box that is in view alone', () => {
    expect(revealNode(view, { x: 100, y: 100, width: 100, height: 40 }, 400, 300)).toEqual(view);
  });
  it('pans a box below or right of the viewport just into view, with the margin', () => {
    expect(revealNode(view, { x: 600, y: 1000, width: 100, height: 40 }, 400, 300)).toEqual({ k: 1, tx: 400 - 16 - 650, ty: 300 - 16 - 1020 });
  });
  it('pans a box above or left of it to the margin, at any scale', () => {
    const v = revealNode({ tx: -500, ty: -500, k: 0.5 }, { x: 100, y: 100, width: 100, height: 40 }, 400, 300);
    expect(v.k).toBe(0.5);
    expect(v.tx + 50 * 0.5).toBe(16);
    expect(v.ty + 80 * 0.5).toBe(16);
  });
});

describe('boxInView', () => {
  const box = { x: 100, y: 20, width: 100, height: 40 };
  it('is true while the centre of the box is inside the viewport, at any scale', () => {
    expect(boxInView({ tx: 0, ty: 0, k: 1 }, box, 360, 400)).toBe(true);
    expect(boxInView({ tx: 260, ty: 0, k: 1 }, box, 360, 400)).toBe(true);
    expect(boxInView({ tx: 0, ty: 0, k: 4 }, box, 360, 400)).toBe(false);
  });
  it('is false for a box whose centre is past any edge (a sliver does not count)', () => {
    expect(boxInView({ tx: 261, ty: 0, k: 1 }, box, 360, 400)).toBe(false);
    expect(boxInView({ tx: -101, ty: 0, k: 1 }, box, 360, 400)).toBe(false);
    expect(boxInView({ tx: 0, ty: -21, k: 1 }, box, 360, 400)).toBe(false);
    expect(boxInView({ tx: 0, ty: 381, k: 1 }, box, 360, 400)).toBe(false);
  });
});

describe('resizedView', () => {
  // A narrow column (200 wide): fitted at 1240 px it is centred at tx = (1240 − 200) / 2 = 520,
  // which at 360 px puts every box right of the viewport unless the view is made again.
  const a = placed('a', 100, 20);
  const b = placed('b', 100, 80);
  const narrow: GraphLayout = { nodes: [a, b], edges: [], width: 200, height: 1000 };
  const at1240 = { k: 1, tx: 520, ty: 0 };

  it('fits an untouched first view again for the new width: the column centred at 360 px', () => {
    const v = resizedView(narrow, at1240, { fit: 'first' }, 1240, 360, 400);
    expect(v).toEqual({ k: 1, tx: 80, ty: 0 });
    expect(boxInView(v, a, 360, 400)).toBe(true);
  });

  it('fits again and brings back the anchor box (a wide graph, the box at its left edge)', () => {
    const wide: GraphLayout = { nodes: [placed('a', 3000, 20), b], edges: [], width: 6000, height: 9000 };
    // At 360 px the first view is centred on a (tx = 180 − 3000); b's left edge then goes to the 16 px margin.
    expect(resizedView(wide, { k: 1, tx: 0, ty: 0 }, { fit: 'first', anchor: b }, 1240, 360, 400)).toEqual({ k: 1, tx: 16 - 50, ty: 0 });
  });

  it('fits the whole graph again after the fit button', () => {
    // k = min(1, 360 / 200, 400 / 1000) = 0.4; the 80 px wide drawing centred in 360.
    expect(resizedView(narrow, { k: 1, tx: 0, ty: 0 }, { fit: 'all' }, 1240, 360, 400)).toEqual({ k: 0.4, tx: 140, ty: 0 });
  });

  it('keeps the centre column of a view the user moved (scale kept)', () => {
    const moved = { k: 1.5, tx: 470, ty: -20 };
    // The centre column x = (620 − 470) / 1.5 = 100 (box a) stays in the middle: 180 = tx + 100 · 1.5.
    expect(resizedView(narrow, moved, { fit: 'user' }, 1240, 360, 400)).toEqual({ k: 1.5, tx: 30, ty: -20 });
  });

  it('pans a user-moved view that keeps no box in view to the anchor box, else the first box', () => {
    // tx 900 − 440 = 460: both boxes' centres at x = 560, past 360. Box a is then moved to end
    // 16 px inside the right edge (tx = 360 − 16 − 150) and 16 px below the top.
    const away = { k: 1, tx: 900, ty: 0 };
    expect(resizedView(narrow, away, { fit: 'user' }, 1240, 360, 400)).toEqual({ k: 1, tx: 194, ty: 16 });
    expect(resizedView(narrow, away, { fit: 'user', anchor: b }, 1240, 360, 400)).toEqual({ k: 1, tx: 194, ty: 0 });
  });

  it('leaves the view alone in a hidden (0-sized) viewport, and treats an unmeasured width as unchanged', () => {
    expect(resizedView(narrow, at1240, { fit: 'first' }, 1240, 0, 0)).toEqual(at1240);
    expect(resizedView(narrow, { k: 1, tx: 80, ty: 0 }, { fit: 'user' }, 0, 360, 400)).toEqual({ k: 1, tx: 80, ty: 0 });
  });
});
