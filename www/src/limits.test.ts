import { describe, expect, it } from 'vitest';
import type { EngineModule } from './engine/loader';
import {
  DEFAULT_LIMITS,
  DEFAULT_MAX_CONSTANT_BYTES,
  DEFAULT_MAX_WHILE_ITERATIONS,
  MB,
  STORAGE_KEY,
  checkSampleCount,
  limitProblem,
  loadLimits,
  saveLimits,
  workerLimits,
} from './limits';
import { loadTestEngine } from './engine/testing';


function memoryStorage(initial?: string): Storage {
  const items = new Map<string, string>(initial === undefined ? [] : [[STORAGE_KEY, initial]]);
  return {
    get length() {
      return items.size;
    },
    clear: () => {
      items.clear();
    },
    getItem: (k) => items.get(k) ?? null,
    key: (i) => [...items.keys()][i] ?? null,
    removeItem: (k) => {
      items.delete(k);
    },
    setItem: (k, v) => {
      items.set(k, v);
    },
  };
}

describe('limits', () => {
  it('the page defaults are the library defaults (wasm defaultLimits)', async () => {
    const api: EngineModule = await loadTestEngine();
    const lib = api.defaultLimits();
    const page = workerLimits(DEFAULT_LIMITS);
    expect(page.maxModelBytes).toBe(lib.max_model_bytes);
    expect(page.engine).toEqual(lib.engine);
    expect(DEFAULT_MAX_CONSTANT_BYTES).toBe(lib.engine.max_constant_bytes);
    expect(DEFAULT_MAX_WHILE_ITERATIONS).toBe(lib.engine.max_while_iterations);
  });

  it('converts MB (2^20 bytes, fractions allowed) to whole bytes', () => {
    const l = workerLimits({ ...DEFAULT_LIMITS, maxTensorMb: 0.001, maxArenaMb: 1.5 });
    expect(l.engine.max_tensor_bytes).toBe(Math.floor(0.001 * MB));
    expect(l.engine.max_arena_bytes).toBe(1.5 * MB);
  });

  it('names unusable values', () => {
    expect(limitProblem('maxTensorMb', 0)).toMatch(/largest tensor/);
    expect(limitProblem('maxTensorMb', Number.NaN)).toBeDefined();
    expect(limitProblem('maxTensorMb', 4096)).toBeDefined(); // wasm32 sizes are 32-bit
    expect(limitProblem('maxTensorMb', 1e-9)).toBeDefined(); // less than a byte
    expect(limitProblem('maxModelMb', 0.5)).toBeUndefined();
    expect(limitProblem('maxCalibrationSamples', 2.5)).toMatch(/whole number/);
    expect(limitProblem('maxCalibrationSamples', 1)).toBeUndefined();
  });

  it('persists, and falls back per field on missing or bad saved values', () => {
    const storage = memoryStorage();
    expect(loadLimits(storage)).toEqual(DEFAULT_LIMITS);
    const mine = { ...DEFAULT_LIMITS, maxTensorMb: 0.25, maxCalibrationSamples: 64 };
    saveLimits(storage, mine);
    expect(loadLimits(storage)).toEqual(mine);
    expect(loadLimits(memoryStorage('{not json'))).toEqual(DEFAULT_LIMITS);
    expect(loadLimits(memoryStorage('{"maxArenaMb": -1, "maxModelMb": 3, "maxTensorMb": "x"}'))).toEqual({ ...DEFAULT_LIMITS, maxModelMb: 3 });
    expect(loadLimits(undefined)).toEqual(DEFAULT_LIMITS);
  });

  it('refuses a source holding more samples than the limit, naming it', () => {
    expect(() => {
      checkSampleCount('big.npy', 10, 10);
    }).not.toThrow();
    expect(() => {
      checkSampleCount('big.npy', 11, 10);
    }).toThrow(/big\.npy holds 11 samples, more than the limit of 10/);
  });
});
