import { describe, expect, it } from 'vitest';
import type { ModelSummary } from '../engine/types';
import { defaultSignature, signatureSubgraph, streamKey } from './signatures';

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
