import { describe, expect, it } from 'vitest';
import type { ModelSummary } from '../engine/types';
import { defaultSignature, forSignature, runSubgraph, signatureInputs, signatureLabel, signatureSubgraph, streamKey } from './signatures';

/** A summary with `n` subgraphs and the given signatures (key, subgraph). */
function summary(n: number, sigs: [string, number][]): ModelSummary {
  return {
    subgraphs: Array.from({ length: n }, () => ({ tensors: [], operators: [], inputs: [], outputs: [] })),
    signatures: sigs.map(([key, subgraph]) => ({ key, subgraph, inputs: [], outputs: [] })),
  } as unknown as ModelSummary;
}

describe('signatures', () => {
  it('chooses none for at most one signature, else the one of subgraph 0, else the first', () => {
    expect(defaultSignature(summary(1, []))).toBeUndefined();
    expect(defaultSignature(summary(1, [['serving_default', 0]]))).toBeUndefined();
    expect(defaultSignature(summary(3, [['decode', 0], ['encode', 1], ['score', 2]]))).toBe('decode');
    expect(defaultSignature(summary(3, [['b', 2], ['a', 1]]))).toBe('b');
  });

  it('finds the subgraph a key runs, 0 when there is none', () => {
    const s = summary(3, [['decode', 0], ['encode', 1], ['score', 2], ['broken', 7]]);
    expect(signatureSubgraph(s, 'score')).toBe(2);
    expect(signatureSubgraph(s, undefined)).toBe(0);
    expect(signatureSubgraph(s, 'nope')).toBe(0);
    expect(signatureSubgraph(s, 'broken')).toBe(0);
  });

  it('keeps one stream runner per signature', () => {
    expect(streamKey('float', undefined)).toBe('float');
    expect(streamKey('float', 'score')).toBe('float#score');
  });
});

describe('signature inputs, labels and calibrations', () => {
  // Subgraph 1 takes tensors 4 then 2 ("query" first); the signature names them sorted.
  const model = {
    subgraphs: [
      { tensors: [{ index: 0, name: 'code:0', shape: [1, 8], dtype: 'FLOAT32' }], operators: [], inputs: [0], outputs: [] },
      {
        tensors: [
          { index: 2, name: 'score_candidate:0', shape: [1, 16], dtype: 'FLOAT32' },
          { index: 4, name: 'score_query:0', shape: [1, 16], dtype: 'FLOAT32' },
        ],
        operators: [],
        inputs: [4, 2],
        outputs: [],
      },
    ],
    signatures: [
      { key: 'decode', subgraph: 0, inputs: [{ name: 'code', tensor: 0 }], outputs: [{ name: 'reconstruction', tensor: 9 }] },
      { key: 'score', subgraph: 1, inputs: [{ name: 'candidate', tensor: 2 }, { name: 'query', tensor: 4 }], outputs: [] },
    ],
  } as unknown as ModelSummary;

  it('lists a signature\'s inputs in its subgraph\'s order, named by the signature', () => {
    expect(signatureInputs(model, 'score')).toEqual([
      { name: 'query', tensor: 'score_query:0', shape: [1, 16], dtype: 'FLOAT32' },
      { name: 'candidate', tensor: 'score_candidate:0', shape: [1, 16], dtype: 'FLOAT32' },
    ]);
    expect(signatureInputs(model, 'decode').map((i) => i.name)).toEqual(['code']);
    expect(signatureInputs(model, 'nope')).toEqual([]);
  });

  it('gives the subgraph a run shows, its outputs in the signature\'s order', () => {
    const s: ModelSummary = {
      ...model,
      subgraphs: model.subgraphs.map((sg, i) => (i === 1 ? { ...sg, outputs: [7, 6] } : { ...sg, outputs: [9] })),
      signatures: [...model.signatures.slice(0, 1), { key: 'score', subgraph: 1, inputs: [], outputs: [{ name: 'a', tensor: 6 }, { name: 'b', tensor: 7 }] }],
    };
    expect(runSubgraph(s, 'score')).toEqual({ subgraph: s.subgraphs[1], outputs: [6, 7] });
    expect(runSubgraph(s, undefined)).toEqual({ subgraph: s.subgraphs[0], outputs: [9] });
  });

  it('names a signature by its key, inputs and outputs', () => {
    const [decode, score] = model.signatures;
    expect(decode && signatureLabel(decode)).toBe('decode (code → reconstruction)');
    expect(score && signatureLabel(score)).toBe('score (candidate, query → —)');
  });

  it('gives the chosen signature\'s statistics and samples, else the calibration unchanged', () => {
    const calibration = {
      stats: 'a-stats',
      source: 'a-source',
      method: 'minmax',
      signatures: [
        { key: 'a', stats: 'a-stats', source: 'a-source' },
        { key: 'b', stats: 'b-stats', source: 'b-source' },
      ],
    };
    expect(forSignature(calibration, 'b')).toEqual({ ...calibration, stats: 'b-stats', source: 'b-source' });
    expect(forSignature(forSignature(calibration, 'b'), 'a')).toEqual(calibration);
    expect(forSignature(calibration, 'nope')).toBe(calibration);
    expect(forSignature(calibration, undefined)).toBe(calibration);
    const single = { stats: 's', source: 'src', method: 'mse' };
    expect(forSignature(single, 'a')).toBe(single);
  });
});
