/**
 * A model with several signatures on the real wasm package in Node, as the worker drives it
 * (tests/realworld/signatures: decode / encode / score): each signature calibrated by the page's
 * `calibrate` on its own `.npy` samples (the golden's calibration files, inputs in the subgraph's
 * order as the Calibrate tab lists them), and quantized to int8 from every signature's
 * statistics by `quantizeSignatures`; every signature of the result then gives, on the
 * golden's inputs, exactly the outputs of TF 2.21's int8 model run the same way (the e2e case
 * `signatures-calibrate` checks the bytes against `zeropoint quantize --signature-data`).
 * Needs `bash scripts/build-wasm.sh`.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseNpy } from '../calibration/npy';
import { calibrate } from '../calibration/run';
import type { SignatureCalibration } from '../calibration/types';
import type { EngineModule } from '../engine/loader';
import { signatureInputs } from '../model/signatures';
import { loadTestEngine } from '../engine/testing';

const DIR = 'tests/realworld/signatures';
const KEYS = ['decode', 'encode', 'score'];

let api: EngineModule;
let model: Uint8Array;

beforeAll(async () => {
  api = await loadTestEngine();
  model = new Uint8Array(readFileSync(`${DIR}/model.tflite`));
});

const file = (name: string): File => new File([readFileSync(`${DIR}/${name}`)], name);

/** Every output of signature `key` of `bytes` on row 0 of the golden's inputs. */
function run(bytes: Uint8Array, key: string): number[][] {
  const runner = new api.Runner(bytes, 'reference', undefined, undefined, key);
  try {
    runner.inputs().forEach((input, k) => {
      const a = parseNpy(readFileSync(`${DIR}/sig_${key}_in_${input.name}.npy`));
      const n = input.shape.reduce((x, y) => x * y, 1);
      runner.setInput(k, Float32Array.from(a.data.subarray(0, n)));
    });
    runner.invoke();
    return runner.outputs().map((_, k) => Array.from(runner.outputFloat(k)));
  } finally {
    runner.free();
  }
}

describe('a model with several signatures, calibrated and quantized by signature', () => {
  it('gives every signature TF\'s int8 outputs; a calibrator without a signature is refused, naming what to do', async () => {
    const summary = api.inspectModel(model);
    const signatures: SignatureCalibration[] = [];
    for (const key of KEYS) {
      const files = signatureInputs(summary, key).map((i) => file(`sig_${key}_calib_${i.name}.npy`));
      const outcome = await calibrate(model, { source: { kind: 'npy', files }, method: { kind: 'minmax' } }, {
        engine: api,
        decodeImage: () => Promise.reject(new Error('no images')),
        onProgress: () => undefined,
        isCancelled: () => false,
        yieldToEventLoop: () => Promise.resolve(),
        signature: key,
      });
      outcome.calibrator?.free();
      expect(outcome.status).toBe('done');
      expect(outcome.stats?.samples).toBe(8);
      if (outcome.stats) signatures.push({ key, stats: outcome.stats });
    }
    const json = api.signatureStatsJson(signatures);
    expect(JSON.parse(json)).toMatchObject({ format: 'zeropoint-signature-stats', version: 1 });
    const q = api.quantizeSignatures(model, signatures, { mode: 'int8', io: 'float', per_tensor: false, float_ops: [], int16_ops: [] });
    let bytes: Uint8Array;
    try {
      bytes = q.bytes();
    } finally {
      q.free();
    }
    const tf = new Uint8Array(readFileSync(`${DIR}/model_int8.tflite`));
    for (const key of KEYS) expect(run(bytes, key), key).toEqual(run(tf, key));
    // One signature's statistics alone: the others are named as missing.
    expect(() => api.quantizeSignatures(model, signatures.slice(0, 1), { mode: 'int8', io: 'float', per_tensor: false, float_ops: [], int16_ops: [] })).toThrow(/signature 'encode' has no calibration ranges/);
    expect(() => new api.Calibrator(model)).toThrow(/Calibrate tab takes samples for each signature/);
    expect(() => new api.Calibrator(model, undefined, undefined, 'nope')).toThrow(/nope/);
  });
});
