import { describe, expect, it } from 'vitest';
import { chooseBuild, simdSupported } from './loader';
import { errorMessage, isWorkerResponse, panicMessage } from './protocol';

describe('isWorkerResponse', () => {
  it('accepts the response types', () => {
    expect(isWorkerResponse({ type: 'error', id: 1, message: 'x', fatal: false })).toBe(true);
    expect(isWorkerResponse({ type: 'ready', id: 2, engine: {} })).toBe(true);
    for (const type of ['quant-params', 'requant', 'weight-scales', 'quantized', 'stats-json', 'ran', 'compared']) {
      expect(isWorkerResponse({ type, id: 3 })).toBe(true);
    }
  });
  it('rejects anything else', () => {
    expect(isWorkerResponse(null)).toBe(false);
    expect(isWorkerResponse('ready')).toBe(false);
    expect(isWorkerResponse({ type: 'inspect', id: 1 })).toBe(false);
    expect(isWorkerResponse({ type: 'ready', id: '1' })).toBe(false);
  });
});

describe('errorMessage', () => {
  it('reads errors, strings and other values', () => {
    expect(errorMessage(new Error('truncated file'))).toBe('truncated file');
    expect(errorMessage(new TypeError(''))).toBe('TypeError');
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage({ code: 3 })).toBe('{"code":3}');
    expect(errorMessage(undefined)).toBe('undefined');
  });
});

describe('panicMessage', () => {
  it('reads what console_error_panic_hook logs', () => {
    const logged = 'panicked at crate/src/wasm/run.rs:318:5:\ndebugPanic (test hook): boom\n\nStack:\n\nError\n    at x';
    expect(panicMessage(logged)).toBe('debugPanic (test hook): boom (at crate/src/wasm/run.rs:318:5)');
    expect(panicMessage('panicked at a.rs:1:1:\n\nStack:')).toBe('panic at a.rs:1:1');
    expect(panicMessage('something else')).toBeUndefined();
  });
});

describe('loader build choice', () => {
  it('prefers SIMD when supported', () => {
    expect(chooseBuild('auto', true)).toBe('simd');
    expect(chooseBuild('simd', true)).toBe('simd');
    expect(chooseBuild('auto', false)).toBe('nosimd');
    expect(chooseBuild('simd', false)).toBe('nosimd');
    expect(chooseBuild('nosimd', true)).toBe('nosimd');
  });
  it('detects SIMD in Node (V8 has had it since Node 16)', () => {
    expect(simdSupported()).toBe(true);
  });
});
