import { describe, expect, it } from 'vitest';
import type { ModelSummary, SubgraphSummary, TensorSummary } from './engine/types';
import { filterTensors, ioRows, modelStats, tensorKind, tensorRole } from './view-model';

function tensor(index: number, over: Partial<TensorSummary> = {}): TensorSummary {
  return {
    index,
    name: `t${String(index)}`,
    shape: [1, 4],
    shape_signature: undefined,
    dtype: 'FLOAT32',
    is_constant: false,
    is_variable: false,
    data_bytes: 0,
    quantization: undefined,
    ...over,
  };
}

const subgraph: SubgraphSummary = {
  name: 'main',
  inputs: [0],
  outputs: [2],
  tensors: [
    tensor(0, { name: 'input', shape: [1, 28, 28, 1], shape_signature: [-1, 28, 28, 1] }),
    tensor(1, { name: 'weights', is_constant: true, data_bytes: 64, dtype: 'INT8' }),
    tensor(2, {
      name: 'output',
      dtype: 'INT8',
      quantization: { scale: [0.5], zero_point: [-3], quantized_dimension: 0, min: [], max: [] },
    }),
  ],
  operators: [{ index: 0, op: 'FULLY_CONNECTED', version: 1, custom_code: undefined, inputs: [0, 1], outputs: [2] }],
};

const summary: ModelSummary = {
  version: 3,
  description: 'test model',
  subgraphs: [subgraph],
  operator_counts: [{ op: 'FULLY_CONNECTED', count: 1 }],
  signatures: [],
  metadata: [],
  buffers: 3,
  constant_bytes: 64,
  warnings: [],
};

describe('ioRows', () => {
  it('lists inputs then outputs with formatted types', () => {
    expect(ioRows(summary)).toEqual([
      { role: 'input', tensor: 0, name: 'input', shape: '?×28×28×1', dtype: 'float32', quant: '—' },
      { role: 'output', tensor: 2, name: 'output', shape: '1×4', dtype: 'int8', quant: 'scale 0.5, zp \u22123' },
    ]);
  });
  it('copes with a missing subgraph or tensor', () => {
    expect(ioRows(summary, 5)).toEqual([]);
    const broken: ModelSummary = { ...summary, subgraphs: [{ ...subgraph, inputs: [9] , outputs: [] }] };
    expect(ioRows(broken)).toEqual([{ role: 'input', tensor: 9, name: '#9', shape: '?', dtype: '?', quant: '—' }]);
  });
  it('finds tensors whose list is not in index order', () => {
    const shuffled: ModelSummary = {
      ...summary,
      subgraphs: [{ ...subgraph, tensors: [...subgraph.tensors].reverse() }],
    };
    expect(ioRows(shuffled).map((r) => r.name)).toEqual(['input', 'output']);
  });
});

describe('modelStats', () => {
  it('counts across subgraphs', () => {
    const all = modelStats(summary, 2400);
    expect(all[0]).toEqual({ label: 'File size', value: '2.34 KiB', detail: '2,400 bytes' });
    expect(all.find((s) => s.label === 'Constant data')).toEqual({ label: 'Constant data', value: '64 B' });
    const stats = Object.fromEntries(all.map((s) => [s.label, s.value]));
    expect(stats).toMatchObject({
      'File size': '2.34 KiB',
      'Schema version': '3',
      Subgraphs: '1',
      Operators: '1',
      Tensors: '3',
      Buffers: '3',
      'Constant data': '64 B',
      Description: 'test model',
    });
  });
  it('omits an empty description', () => {
    const labels = modelStats({ ...summary, description: undefined }, 1).map((s) => s.label);
    expect(labels).not.toContain('Description');
  });
});

describe('tensor helpers', () => {
  it('classifies tensors', () => {
    expect(subgraph.tensors.map(tensorKind)).toEqual(['activation', 'constant', 'activation']);
    expect(tensorKind(tensor(5, { is_variable: true, is_constant: true }))).toBe('variable');
    expect([0, 1, 2].map((i) => tensorRole(subgraph, i))).toEqual(['input', '', 'output']);
  });
  it('filters by name, dtype or index', () => {
    expect(filterTensors(subgraph.tensors, '').length).toBe(3);
    expect(filterTensors(subgraph.tensors, 'PUT').map((t) => t.name)).toEqual(['input', 'output']);
    expect(filterTensors(subgraph.tensors, 'int8').map((t) => t.name)).toEqual(['weights', 'output']);
    expect(filterTensors(subgraph.tensors, ' 1 ').map((t) => t.name)).toEqual(['weights']);
  });
});
