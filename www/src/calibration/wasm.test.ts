/**
 * The worker's calibration run against the real wasm engine in Node, on the bundled example
 * model: what the page gets for random data, a wrong-shape .npy and a NaN; and on the golden
 * `calib_conv_caches`, TF's recorded ranges when the page is told TF's CPU caches.
 * Needs `bash scripts/build-wasm.sh` (www/pkg) like engine/wasm.test.ts.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EngineModule } from '../engine/loader';
import { writeNpy } from './npy';
import { calibrate, type RunEnv } from './run';
import { sampleSeed } from './sources';
import { loadTestEngine } from '../engine/testing';

let api: EngineModule;
let model: Uint8Array;

beforeAll(async () => {
  api = await loadTestEngine();
  model = new Uint8Array(readFileSync('www/assets/example.tflite'));
});

function env(overrides: Partial<RunEnv> = {}): RunEnv {
  return {
    engine: api,
    decodeImage: () => Promise.reject(new Error('no images in Node')),
    onProgress: () => undefined,
    isCancelled: () => false,
    yieldToEventLoop: () => Promise.resolve(),
    ...overrides,
  };
}

const npyFile = (name: string, shape: number[], data: Float32Array): File =>
  new File([writeNpy(shape, data)], name);

describe('calibration run with the real engine', () => {
  it('random data: the same statistics as feeding the Calibrator by hand', async () => {
    const source = { kind: 'random', count: 5, lo: -1, hi: 2, seed: 9 } as const;
    const out = await calibrate(model, { source, method: { kind: 'minmax' } }, env());
    expect(out.status).toBe('done');
    expect(out.stats?.samples).toBe(5);

    const by = new api.Calibrator(model);
    try {
      for (let i = 0; i < 5; i++) {
        by.setInput(0, api.randomData(32 * 32 * 3, -1, 2, sampleSeed(9, i, 0)));
        by.addSample();
      }
      expect(out.stats).toEqual(by.stats('minmax'));
      const input = out.stats?.tensors.find((t) => t.name === by.inputs()[0]?.name);
      expect(input?.min).toBeGreaterThanOrEqual(-1);
      expect(input?.max).toBeLessThan(2);
      // The kept calibrator answers other methods (the page's method selector).
      expect(out.calibrator?.stats('percentile:99').tensors.length).toBe(out.stats?.tensors.length);
    } finally {
      by.free();
      out.calibrator?.free();
    }
  });

  it('.npy with and without the batch axis; wrong shape and NaN are named', async () => {
    const n = 3;
    const data = Float32Array.from({ length: n * 3072 }, (_, i) => (i % 255) / 255);
    const a = await calibrate(model, { source: { kind: 'npy', files: [npyFile('a.npy', [n, 1, 32, 32, 3], data)] }, method: { kind: 'mse' } }, env());
    const b = await calibrate(model, { source: { kind: 'npy', files: [npyFile('b.npy', [n, 32, 32, 3], data)] }, method: { kind: 'mse' } }, env());
    expect(a.stats).toEqual(b.stats);
    a.calibrator?.free();
    b.calibrator?.free();

    await expect(
      calibrate(model, { source: { kind: 'npy', files: [npyFile('w.npy', [n, 3072], data)] }, method: { kind: 'minmax' } }, env()),
    ).rejects.toThrow(/w\.npy: shape \(3, 3072\) does not fit input "serving_default_image:0": expected \(N, 1, 32, 32, 3\)/);

    data[1 * 3072 + 10] = NaN;
    await expect(
      calibrate(model, { source: { kind: 'npy', files: [npyFile('nan.npy', [n, 1, 32, 32, 3], data)] }, method: { kind: 'minmax' } }, env()),
    ).rejects.toThrow(/sample 1: NaN in input 0 'serving_default_image:0'/);
  });

  it("TF's CPU caches decide the last bits: with the recorded ones every range equals TF's", async () => {
    // A 3×3 stride-2 conv with 576 products per output, calibrated by TF 2.21 on a CPU whose
    // caches (calibrator.toml's eigen_caches) are not the golden machine's: Eigen cut its sums
    // elsewhere, so its recorded min/max (model_calibrated.tflite) are not the default's.
    const dir = 'tests/golden/calib_conv_caches';
    const float = new Uint8Array(readFileSync(`${dir}/model_float.tflite`));
    const caches = /eigen_caches = "([0-9,]+)"/.exec(readFileSync(`${dir}/calibrator.toml`, 'utf8'))?.[1];
    expect(caches).toBeDefined();
    const recorded = new Map<string, [number, number]>();
    for (const t of api.inspectModel(new Uint8Array(readFileSync(`${dir}/model_calibrated.tflite`))).subgraphs[0]?.tensors ?? []) {
      const [min, max] = [t.quantization?.min[0], t.quantization?.max[0]];
      if (min !== undefined && max !== undefined) recorded.set(t.name, [min, max]);
    }
    expect(recorded.size).toBe(2);
    const calib = new File([readFileSync(`${dir}/calib.npy`)], 'calib.npy');
    const differing = async (tfCaches: string | undefined): Promise<string[]> => {
      const out = await calibrate(float, { source: { kind: 'npy', files: [calib] }, method: { kind: 'minmax' }, tfCaches }, env());
      out.calibrator?.free();
      const seen = out.stats?.tensors.filter((t) => recorded.has(t.name)) ?? [];
      expect(seen.length).toBe(recorded.size);
      return seen.filter((t) => recorded.get(t.name)?.[0] !== t.min || recorded.get(t.name)?.[1] !== t.max).map((t) => t.name);
    };
    expect(await differing(caches)).toEqual([]);
    expect(await differing(undefined)).not.toEqual([]);
    expect(await differing('golden')).toEqual(await differing(undefined));
    await expect(differing('48,2048')).rejects.toThrow(/TF's CPU caches: '48,2048' is not three cache sizes in KiB/);
  });

  it('a model the engine cannot read fails with its message', async () => {
    await expect(
      calibrate(new Uint8Array(16), { source: { kind: 'random', count: 1, lo: 0, hi: 1, seed: 0 }, method: { kind: 'minmax' } }, env()),
    ).rejects.toThrow(Error);
  });
});
