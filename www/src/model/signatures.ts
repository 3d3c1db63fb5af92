/**
 * The signature picker's choices for a model with several signatures (a SavedModel converted with
 * several `signature_keys`: one subgraph each). The page runs the chosen signature as LiteRT's
 * `get_signature_runner(key)` does: its subgraph, its inputs and outputs in its order, named by
 * its keys. No DOM: unit-tested in Node (signatures.test.ts).
 */
import type { ModelSummary } from '../engine/types';

/**
 * The signature a newly loaded model runs: none for a model with at most one signature (subgraph 0,
 * as before), otherwise the one whose subgraph is 0 (what runs without a choice), else the first.
 */
export function defaultSignature(summary: ModelSummary): string | undefined {
  if (summary.signatures.length < 2) return undefined;
  return (summary.signatures.find((s) => s.subgraph === 0) ?? summary.signatures[0])?.key;
}

/** The subgraph signature `key` runs (0 without a signature, or for a key the model lacks). */
export function signatureSubgraph(summary: ModelSummary, key: string | undefined): number {
  if (key === undefined) return 0;
  const s = summary.signatures.find((x) => x.key === key);
  return s && s.subgraph < summary.subgraphs.length ? s.subgraph : 0;
}

/** The `stream` key of a page model run with signature `key` (a runner per signature). */
export function streamKey(model: string, key: string | undefined): string {
  return key === undefined ? model : `${model}#${key}`;
}
