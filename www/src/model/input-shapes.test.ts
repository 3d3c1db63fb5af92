import { describe, expect, it } from 'vitest';
import type { ModelSummary, TensorSummary } from '../engine/types';
import { createPageStore } from '../page-state';
import { chosenShape, dynamicInputs, shapesToSend, storedShapes, withDim, type DynamicInput } from './input-shapes';

function tensor(name: string, shape: number[], signature?: number[]): TensorSummary {
  return { name, shape, shape_signature: signature, dtype: 'FLOAT32' } as unknown as TensorSummary;
}

function summary(tensors: TensorSummary[], inputs: number[]): ModelSummary {
  return { subgraphs: [{ tensors, inputs, outputs: [], operators: [] }] } as unknown as ModelSummary;
}

describe('input shapes', () => {
  const m = summary(
    [tensor('image', [1, 8, 8, 3], [-1, 8, 8, 3]), tensor('fixed', [1, 4]), tensor('seq', [1, 1, 2], [-1, -1, 2])],
    [0, 1, 2],
  );

  it('lists the inputs with -1 in their signature and which axes', () => {
    expect(dynamicInputs(m)).toEqual([
      { index: 0, name: 'image', shape: [1, 8, 8, 3], axes: [0] },
      { index: 2, name: 'seq', shape: [1, 1, 2], axes: [0, 1] },
    ]);
    expect(dynamicInputs(summary([tensor('x', [1, 4], [])], [0]))).toEqual([]);
  });

  it('sets one dim at a time and sends nothing when every input is back at its stored shape', () => {
    const [image, seq] = dynamicInputs(m) as [DynamicInput, DynamicInput];
    let chosen = storedShapes();
    expect(shapesToSend(chosen)).toBeUndefined();
    chosen = withDim(chosen, image, 0, 2);
    chosen = withDim(chosen, seq, 1, 5);
    chosen = withDim(chosen, seq, 0, 3);
    expect(shapesToSend(chosen)).toEqual({
      shapes: [
        { input: 'image', dims: [2, 8, 8, 3] },
        { input: 'seq', dims: [3, 5, 2] },
      ],
    });
    expect(chosenShape(chosen, seq)).toEqual([3, 5, 2]);
    chosen = withDim(chosen, image, 0, 1);
    chosen = withDim(withDim(chosen, seq, 0, 1), seq, 1, 1);
    expect(shapesToSend(chosen)).toBeUndefined();
  });

  it('refuses a fixed dim and a value that is not a whole number >= 1, naming input and dim', () => {
    const [image] = dynamicInputs(m) as [DynamicInput];
    expect(() => withDim(storedShapes(), image, 1, 4)).toThrow("input 'image': dim 1 is not dynamic");
    expect(() => withDim(storedShapes(), image, 0, 0)).toThrow(/dim 0 must be a whole number/);
    expect(() => withDim(storedShapes(), image, 0, 1.5)).toThrow(/got 1.5/);
  });

  it('lives in the page store, stored shapes at first', () => {
    expect(createPageStore().get().inputShapes).toEqual(storedShapes());
  });
});
