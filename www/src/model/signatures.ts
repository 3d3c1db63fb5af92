/**
 * The signature picker's choices for a model with several signatures (a SavedModel converted with
 * several `signature_keys`: one subgraph each). The page runs the chosen signature as LiteRT's
 * `get_signature_runner(key)` does: its subgraph, its inputs and outputs in its order, named by
 * its keys. No DOM: unit-tested in Node (signatures.test.ts).
 */
import type { ModelSummary, SubgraphSummary } from '../engine/types';

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

/** One input of a signature, as its calibration samples are given. */
export interface SignatureInput {
  /** The signature's name for it (what `inspect` and LiteRT's signature runner call it). */
  name: string;
  /** The tensor's own name. */
  tensor: string;
  shape: number[];
  dtype: string;
}

/**
 * The inputs of signature `key` in its subgraph's order (the order its calibrator takes one
 * `.npy` each in), each named by the signature; empty for a key the model lacks.
 */
export function signatureInputs(summary: ModelSummary, key: string): SignatureInput[] {
  const sig = summary.signatures.find((s) => s.key === key);
  const sg = sig ? summary.subgraphs[sig.subgraph] : undefined;
  if (!sig || !sg) return [];
  return sg.inputs.flatMap((index) => {
    const t = sg.tensors.find((x) => x.index === index);
    if (!t) return [];
    const name = sig.inputs.find((n) => n.tensor === index)?.name ?? t.name;
    return [{ name, tensor: t.name, shape: t.shape, dtype: t.dtype }];
  });
}

/** A calibration by signature: each signature's statistics and samples. */
export interface BySignature<S, Src> {
  stats: S;
  source: Src;
  signatures?: { key: string; stats: S; source: Src }[] | undefined;
}

/**
 * `calibration` as signature `key` sees it: the statistics and samples of that signature (what
 * the Ranges view, the graph's links and Compare's calibration sample use, whose tensor indices
 * are that signature's subgraph's); unchanged for a calibration not made by signature or a key
 * it lacks.
 */
export function forSignature<C extends BySignature<unknown, unknown>>(calibration: C, key: string | undefined): C {
  const s = calibration.signatures?.find((x) => x.key === key);
  return s ? { ...calibration, stats: s.stats, source: s.source } : calibration;
}

/** A signature as its picker names it: `key (inputs → outputs)`, by the signature's names. */
export function signatureLabel(signature: { key: string; inputs: { name: string }[]; outputs: { name: string }[] }): string {
  const names = (items: { name: string }[]): string => items.map((i) => i.name).join(', ') || '—';
  return `${signature.key} (${names(signature.inputs)} → ${names(signature.outputs)})`;
}

/**
 * The subgraph a run with signature `key` shows, with its outputs in the run's order (the
 * signature's order, which need not be the subgraph's; subgraph 0's own without a signature).
 */
export function runSubgraph(summary: ModelSummary, key: string | undefined): { subgraph: SubgraphSummary | undefined; outputs: number[] } {
  const subgraph = summary.subgraphs[signatureSubgraph(summary, key)];
  const sig = key === undefined ? undefined : summary.signatures.find((s) => s.key === key);
  return { subgraph, outputs: sig ? sig.outputs.map((o) => o.tensor) : (subgraph?.outputs ?? []) };
}
