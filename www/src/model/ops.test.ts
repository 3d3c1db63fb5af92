import { describe, expect, it } from 'vitest';
import type { SubgraphSummary, TensorSummary } from '../engine/types';
import { OP_TABLE } from './op-table';
import { cannotRunSummary, hasRequantization, inputRole, multiplierText, opSupport, quantScales, requantOperands, requantOps } from './ops';

function t(index: number, dtype: string, scale: number[] = []): TensorSummary {
  return {
    index,
    name: `t${String(index)}`,
    shape: [1],
    shape_signature: undefined,
    dtype,
    is_constant: false,
    is_variable: false,
    data_bytes: 0,
    quantization: scale.length ? { scale, zero_point: scale.map(() => 0), quantized_dimension: 0, min: [], max: [] } : undefined,
  };
}

const SG: SubgraphSummary = {
  name: undefined,
  inputs: [0],
  outputs: [3],
  tensors: [t(0, 'INT8', [0.5]), t(1, 'INT8', [0.01, 0.02]), t(2, 'INT32', [0.005, 0.01]), t(3, 'INT8', [0.25])],
  operators: [
    { index: 0, op: 'DEPTHWISE_CONV_2D', version: 1, custom_code: undefined, inputs: [0, 1, 2], outputs: [3] },
    { index: 1, op: 'RELU', version: 1, custom_code: undefined, inputs: [3], outputs: [3] },
  ],
};

describe('ops', () => {
  it('names inputs by role', () => {
    expect(inputRole('CONV_2D', 1)).toBe('weights');
    expect(inputRole('TRANSPOSE_CONV', 2)).toBe('input');
    expect(inputRole('ADD', 1)).toBe('input 1');
  });

  it('finds the operands of a requantization with the weights axis', () => {
    const r = requantOperands(SG, 0);
    expect(r?.axis).toBe(3);
    expect([r?.input.index, r?.weights.index, r?.output.index]).toEqual([0, 1, 3]);
    expect(requantOperands(SG, 1)).toBeUndefined();
    expect(requantOperands(SG, 9)).toBeUndefined();
    expect(requantOps(SG).map((o) => o.index)).toEqual([0]);
    expect(hasRequantization('FULLY_CONNECTED')).toBe(true);
    expect(hasRequantization('ADD')).toBe(false);
    // TRANSPOSE_CONV's activation is input 2 (input 0 is the output shape).
    expect(OP_TABLE['TRANSPOSE_CONV']?.requant).toEqual({ input: 2, weights: 1, axis: 0 });
  });

  it('says what the engine runs and how the quantizer treats each op, from the op table', () => {
    expect(opSupport('CONV_2D')).toBe('Runs float, int8, int16, hybrid · quantizer: weights per channel (axis 0), bias int32 (int64 in 16x8)');
    expect(opSupport('SPLIT')).toBe('Runs float, int8, int16 · quantizer: same scale in and out');
    expect(opSupport('DIV')).toBe('Runs float · quantizer: kept float');
    expect(opSupport('NOT_AN_OP')).toContain('Not in the op table');
  });

  it('reads scales of quantized tensors only', () => {
    expect(quantScales(t(0, 'INT8', [0.5]))).toEqual([0.5]);
    expect(quantScales(t(0, 'FLOAT32', [0.5]))).toBeUndefined();
    expect(quantScales(t(0, 'INT8'))).toBeUndefined();
  });

  it('writes M0 · 2^−n with n = 31 − shift', () => {
    expect(multiplierText(1610612736, 0)).toBe('1610612736 \u00b7 2^\u221231');
    expect(multiplierText(1073741824, -7)).toBe('1073741824 \u00b7 2^\u221238');
    expect(multiplierText(1073741824, 33)).toBe('1073741824 \u00b7 2^2');
  });
});

describe('cannotRunSummary', () => {
  const op = (op_index: number, op_name: string) => ({ op_index, op_name, unsupported: true, message: `operator ${String(op_index)} (${op_name})` });
  it('is empty when every operator runs', () => {
    expect(cannotRunSummary([])).toBe('');
  });
  it('counts by name, most frequent first, then by name', () => {
    expect(cannotRunSummary([op(2, 'IF'), op(3, 'WHILE'), op(7, 'WHILE'), op(9, 'CUSTOM_A')])).toBe(
      '4 operators cannot run (marked on the graph): WHILE ×2, CUSTOM_A, IF',
    );
    expect(cannotRunSummary([op(0, 'LSTM')])).toBe('1 operator cannot run (marked on the graph): LSTM');
  });
});
