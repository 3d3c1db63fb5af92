import { describe, expect, it } from 'vitest';
import { chooseBuild, simdSupported } from './loader';
import { errorMessage, isWorkerResponse } from './protocol';

describe('isWorkerResponse', () => {
  it('accepts the response types', () => {
    expect(isWorkerResponse({ type: 'error', id: 1, message: 'x', fatal: false })).toBe(true);
    expect(isWorkerResponse({ type: 'ready', id: 2, engine: {} })).toBe(true);
    for (const type of ['quant-params', 'requant', 'weight-scales']) expect(isWorkerResponse({ type, id: 3 })).toBe(true);
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
