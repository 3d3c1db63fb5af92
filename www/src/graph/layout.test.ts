import { describe, expect, it } from 'vitest';
import type { SubgraphSummary, TensorSummary } from '../engine/types';
import { edgeLabel, ellipsize, fitView, graphOf, layoutGraph, pathData, zoomAt } from './layout';

function tensor(index: number, name: string, shape: number[], extra: Partial<TensorSummary> = {}): TensorSummary {
  return {
    index,
    name,
    shape,
    shape_signature: undefined,
    dtype: 'FLOAT32',
    is_constant: false,
    is_variable: false,
    data_bytes: 0,
    quantization: undefined,
    ...extra,
  };
}

/** x → CONV_2D(w, b) → y → RELU → z; y also goes to ADD(y, z) → out. */
const SG: SubgraphSummary = {
  name: undefined,
  inputs: [0],
  outputs: [6],
  tensors: [
    tensor(0, 'x', [1, 8, 8, 3]),
    tensor(1, 'w', [4, 3, 3, 3], { is_constant: true, data_bytes: 432 }),
    tensor(2, 'b', [4], { is_constant: true, data_bytes: 16 }),
    tensor(3, 'y', [1, 8, 8, 4]),
    tensor(4, 'z', [1, 8, 8, 4]),
    tensor(5, 'unused', [1]),
    tensor(6, 'out', [1, 8, 8, 4], { shape_signature: [-1, 8, 8, 4] }),
  ],
  operators: [
    { index: 0, op: 'CONV_2D', version: 1, custom_code: undefined, inputs: [0, 1, 2], outputs: [3] },
    { index: 1, op: 'RELU', version: 1, custom_code: undefined, inputs: [3], outputs: [4] },
    { index: 2, op: 'ADD', version: 1, custom_code: undefined, inputs: [3, 4], outputs: [6] },
  ],
};

describe('graphOf', () => {
  it('makes one box per op plus the graph inputs and outputs', () => {
    const { nodes } = graphOf(SG);
    expect(nodes.filter((n) => n.kind === 'op').map((n) => n.label)).toEqual(['CONV_2D', 'RELU', 'ADD']);
    expect(nodes.filter((n) => n.kind === 'input').map((n) => n.tensor)).toEqual([0]);
    expect(nodes.filter((n) => n.kind === 'output').map((n) => n.tensor)).toEqual([6]);
  });

  it('draws edges for produced tensors only (no constants), labelled with shape and dtype', () => {
    const { edges } = graphOf(SG);
    expect(edges.map((e) => `${e.from}>${e.to}#${String(e.tensor)}`)).toEqual([
      'in:0>op:0#0',
      'op:0>op:1#3',
      'op:0>op:2#3',
      'op:1>op:2#4',
      'op:2>out:6#6',
    ]);
    expect(edges[0]?.label).toBe('1×8×8×3 float32');
    expect(edges[4]?.label).toBe('?×8×8×4 float32');
  });

  it('draws a tensor read twice by one op once, and skips omitted inputs', () => {
    const sg: SubgraphSummary = {
      ...SG,
      operators: [{ index: 0, op: 'MUL', version: 1, custom_code: undefined, inputs: [0, 0, -1], outputs: [6] }],
    };
    expect(graphOf(sg).edges.map((e) => e.id)).toEqual(['in:0->op:0:0', 'op:0->out:6:6']);
  });
});

describe('layoutGraph', () => {
  it('places every node with dagre, top to bottom in data-flow order', () => {
    const layout = layoutGraph(SG);
    expect(layout.nodes).toHaveLength(5);
    const y = (id: string): number => layout.nodes.find((n) => n.id === id)?.y ?? NaN;
    expect(y('in:0')).toBeLessThan(y('op:0'));
    expect(y('op:0')).toBeLessThan(y('op:1'));
    expect(y('op:1')).toBeLessThan(y('op:2'));
    expect(y('op:2')).toBeLessThan(y('out:6'));
    expect(layout.width).toBeGreaterThan(0);
    expect(layout.height).toBeGreaterThan(0);
    for (const e of layout.edges) expect(e.points.length).toBeGreaterThanOrEqual(2);
  });
});

describe('helpers', () => {
  it('ellipsizes long names in the middle', () => {
    expect(ellipsize('short')).toBe('short');
    const long = ellipsize('serving_default_input_layer_with_a_long_name:0', 12);
    expect(long).toBe('servin\u2026ame:0');
    expect(long).toHaveLength(12);
  });

  it('formats edge labels and path data', () => {
    expect(edgeLabel({ shape: [], shape_signature: undefined, dtype: 'INT8' })).toBe('scalar int8');
    expect(pathData([{ x: 0, y: 0 }, { x: 1.25, y: 2 }])).toBe('M0.0,0.0 L1.3,2.0');
  });

  it('zooms about a fixed point', () => {
    const v = zoomAt({ tx: 0, ty: 0, k: 1 }, { x: 100, y: 50 }, 2);
    expect(v).toEqual({ k: 2, tx: -100, ty: -50 });
    // The drawing point under the cursor stays under it.
    expect(v.tx + 100 * v.k).toBe(100);
    expect(zoomAt({ tx: 0, ty: 0, k: 1 }, { x: 0, y: 0 }, 1000).k).toBe(4);
  });

  it('fits without enlarging, whole or by width', () => {
    expect(fitView(200, 100, 400, 400)).toEqual({ k: 1, tx: 100, ty: 150 });
    expect(fitView(800, 4000, 400, 400, 'all').k).toBe(0.1);
    expect(fitView(800, 4000, 400, 400, 'width').k).toBe(0.5);
  });
});
