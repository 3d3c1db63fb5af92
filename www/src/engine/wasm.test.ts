/**
 * The real wasm package, loaded in Node: what the worker calls, on the bundled example model.
 * Needs `bash scripts/build-wasm.sh` (www/pkg) and www/assets/example.tflite; fails loudly if not.
 */
import { existsSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EngineModule } from './loader';
import { loadTestEngine } from './testing';

const EXAMPLE = 'www/assets/example.tflite';

let api: EngineModule;
let example: Uint8Array;

beforeAll(async () => {
  if (!existsSync(EXAMPLE)) throw new Error(`${EXAMPLE} is missing (the bundled example model)`);
  api = await loadTestEngine();
  example = new Uint8Array(readFileSync(EXAMPLE));
});

describe('wasm engine (SIMD build, Node)', () => {
  it('reports its version and SIMD', () => {
    expect(api.version()).toMatch(/^\d+\.\d+\.\d+/);
    expect(api.simdEnabled()).toBe(true);
  });

  it('inspects the example model', () => {
    const summary = api.inspectModel(example);
    const ops = summary.operator_counts.map((c) => c.op);
    expect(ops).toContain('CONV_2D');
    const counted = summary.operator_counts.reduce((n, c) => n + c.count, 0);
    expect(counted).toBe(summary.subgraphs.reduce((n, sg) => n + sg.operators.length, 0));
    const counts = summary.operator_counts.map((c) => c.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));

    const main = summary.subgraphs[0];
    expect(main).toBeDefined();
    if (!main) return;
    expect(main.inputs.length).toBeGreaterThan(0);
    const input = main.tensors.find((t) => t.index === main.inputs[0]);
    expect(input?.dtype).toBe('FLOAT32');
    expect(input?.shape.length).toBeGreaterThan(0);
    expect(summary.constant_bytes).toBeGreaterThan(0);
  });

  it('throws an Error with a message on truncated bytes', () => {
    for (const length of [0, 7, 64, Math.floor(example.length / 2)]) {
      let caught: unknown;
      try {
        api.inspectModel(example.slice(0, length));
      } catch (error) {
        caught = error;
      }
      expect(caught, `truncated to ${String(length)} bytes`).toBeInstanceOf(Error);
      expect((caught as Error).message.length).toBeGreaterThan(0);
    }
  });

  it('throws on random bytes', () => {
    let seed = 12345;
    const noise = new Uint8Array(4096).map(() => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed >>> 24;
    });
    expect(() => api.inspectModel(noise)).toThrow(Error);
  });

  it('rewrites into a model that inspects identically', () => {
    const before = api.inspectModel(example);
    for (const external of [false, true]) {
      const rewritten = api.rewriteModel(example, external);
      expect(rewritten).toBeInstanceOf(Uint8Array);
      expect(new TextDecoder().decode(rewritten.slice(4, 8))).toBe('TFL3');
      expect(api.inspectModel(rewritten)).toEqual(before);
    }
  });
});
