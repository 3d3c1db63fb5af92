/**
 * The page's quantize / run / compare path on the real wasm package in Node, as the worker drives
 * it: calibrate the example model, hand the statistics over as the CLI's JSON, quantize with the
 * CLI's options, run both models and compare them. (The e2e test checks the files against the
 * CLI's byte for byte.) Needs `bash scripts/build-wasm.sh`.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CalibrationStats } from '../calibration/types';
import type { EngineModule } from '../engine/loader';
import { settingsFor } from './settings';
import { loadTestEngine } from '../engine/testing';

const EXAMPLE = 'www/assets/example.tflite';

let api: EngineModule;
let example: Uint8Array;
let stats: CalibrationStats;
let sample: Float32Array;

beforeAll(async () => {
  api = await loadTestEngine();
  example = new Uint8Array(readFileSync(EXAMPLE));
  const cal = new api.Calibrator(example);
  try {
    const n = cal.inputs()[0]?.shape.reduce((a, b) => a * b, 1) ?? 0;
    for (let s = 0; s < 4; s++) {
      cal.setInput(0, api.randomData(n, 0, 1, s));
      cal.addSample();
    }
    stats = cal.stats('minmax');
    sample = api.randomData(n, 0, 1, 99);
  } finally {
    cal.free();
  }
});

function quantize(floatOps: number[] = [], io = 'int8') {
  const q = api.quantizeModel(example, api.statsJson(stats), settingsFor('int8', io, false, floatOps));
  try {
    return { bytes: q.bytes(), report: q.report(), reportJson: q.reportJson(), warnings: q.warnings() };
  } finally {
    q.free();
  }
}

describe('quantize in wasm (Node)', () => {
  it('writes the statistics as the CLI does: compact JSON with a trailing newline', () => {
    const json = api.statsJson(stats);
    expect(json.endsWith('}\n')).toBe(true);
    expect(json.includes('\n ')).toBe(false);
    const back = JSON.parse(json) as CalibrationStats;
    expect(back.samples).toBe(4);
    expect(back.tensors.map((t) => [t.index, t.name])).toEqual(stats.tensors.map((t) => [t.index, t.name]));
    back.tensors.forEach((t, i) => {
      expect(Math.fround(t.chosen_max)).toBe(stats.tensors[i]?.chosen_max);
    });
  });

  it('quantizes to an int8 model whose report matches it', () => {
    const { bytes, report, reportJson, warnings } = quantize();
    const main = api.inspectModel(bytes).subgraphs[0];
    expect(main).toBeDefined();
    if (!main) return;
    expect(report.mode).toBe('int8');
    expect(report.tensors).toHaveLength(main.tensors.length);
    for (const t of report.tensors) expect(main.tensors[t.index]?.dtype).toBe(t.dtype);
    const input = main.tensors[main.inputs[0] ?? -1];
    expect(input?.dtype).toBe('INT8');
    expect((JSON.parse(reportJson) as { tensors: unknown[] }).tensors).toHaveLength(report.tensors.length);
    expect(warnings).toEqual(report.warnings);
    // Deterministic: the same inputs give the same bytes.
    expect(quantize().bytes).toEqual(bytes);
  });

  it('keeps an operator float when asked', () => {
    const float = api.inspectModel(example).subgraphs[0];
    const op = float?.operators.find((o) => o.op === 'DEPTHWISE_CONV_2D');
    expect(op).toBeDefined();
    if (!op || !float) return;
    const name = float.tensors[op.outputs[0] ?? -1]?.name;
    const { bytes, warnings } = quantize([op.index]);
    const t = api.inspectModel(bytes).subgraphs[0]?.tensors.find((x) => x.name === name);
    expect(t?.dtype).toBe('FLOAT32');
    expect(warnings.join(' ')).toContain(`operator ${String(op.index)}`);
  });

  it('refuses int8 without statistics, with a readable message', () => {
    expect(() => api.quantizeModel(example, undefined, settingsFor('int8', 'int8', false, []))).toThrow(/needs calibration statistics/);
  });

  it('runs both models on a float sample and compares them tensor by tensor', () => {
    const { bytes } = quantize([], 'int8');
    const outputs = [example, bytes].map((model) => {
      const r = new api.Runner(model, 'fast');
      try {
        r.setInput(0, sample);
        r.invoke();
        return r.outputFloat(0);
      } finally {
        r.free();
      }
    });
    const [f, q] = outputs;
    expect(f?.length).toBe(q?.length);
    // Softmax outputs: the int8 model's are multiples of 1/256.
    for (const v of q ?? []) expect(Number.isInteger(v * 256)).toBe(true);
    const same = api.compareModels(example, example, sample);
    expect(same.length).toBeGreaterThan(3);
    expect(same.every((r) => r.sqnr_db === Infinity)).toBe(true);
    const rows = api.compareModels(example, bytes, sample);
    expect(rows.filter((r) => r.dtype === 'INT8').every((r) => Number.isFinite(r.sqnr_db) && r.scale !== undefined)).toBe(true);
    expect(() => api.compareModels(example, bytes, sample.subarray(1))).toThrow(/a multiple of/);
  });
});
