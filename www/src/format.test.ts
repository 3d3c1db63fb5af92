import { describe, expect, it } from 'vitest';
import type { QuantSummary } from './engine/types';
import {
  baseName,
  formatBytes,
  formatBytesExact,
  formatCount,
  formatDtype,
  formatFloat,
  formatInt,
  formatMs,
  formatQuant,
  formatShape,
  formatTensorType,
  hasQuantParams,
  looksLikeTflite,
  rewrittenFileName,
} from './format';

const quant = (q: Partial<QuantSummary>): QuantSummary => ({
  scale: [],
  zero_point: [],
  quantized_dimension: 0,
  min: [],
  max: [],
  ...q,
});

describe('formatCount', () => {
  it('groups thousands', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1234567)).toBe('1,234,567');
  });
});

describe('formatBytes', () => {
  it('keeps small sizes in bytes', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1)).toBe('1 B');
    expect(formatBytes(1023)).toBe('1023 B');
  });
  it('uses binary units with three significant digits', () => {
    expect(formatBytes(1024)).toBe('1.00 KiB');
    expect(formatBytes(2400)).toBe('2.34 KiB');
    expect(formatBytes(14_100_000)).toBe('13.4 MiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.00 GiB');
  });
  it('never shows 1024 of a unit after rounding', () => {
    expect(formatBytes(1024 * 1024 - 1)).toBe('1.00 MiB');
    expect(formatBytes(1000 * 1024)).toBe('1000 KiB');
    expect(formatBytes(999.4 * 1024)).toBe('999 KiB');
  });
  it('passes odd values through', () => {
    expect(formatBytes(-1)).toBe('-1 B');
    expect(formatBytes(Number.NaN)).toBe('NaN B');
  });
  it('adds the exact count when abbreviated', () => {
    expect(formatBytesExact(512)).toBe('512 B');
    expect(formatBytesExact(2400)).toBe('2.34 KiB (2,400 bytes)');
  });
});

describe('formatShape', () => {
  it('joins dimensions', () => {
    expect(formatShape([1, 224, 224, 3])).toBe('1×224×224×3');
    expect(formatShape([10])).toBe('10');
  });
  it('names scalars', () => {
    expect(formatShape([])).toBe('scalar');
  });
  it('marks dynamic dimensions from the signature', () => {
    expect(formatShape([1, 28, 28, 1], [-1, 28, 28, 1])).toBe('?×28×28×1');
    expect(formatShape([1, 28], null)).toBe('1×28');
  });
  it('ignores a signature of the wrong rank', () => {
    expect(formatShape([1, 28], [-1])).toBe('1×28');
  });
});

describe('formatDtype / formatTensorType', () => {
  it('lower-cases schema names', () => {
    expect(formatDtype('FLOAT32')).toBe('float32');
    expect(formatDtype('INT8')).toBe('int8');
    expect(formatTensorType({ dtype: 'INT8', shape: [1, 10], shape_signature: undefined })).toBe('int8 1×10');
  });
});

describe('formatFloat / formatInt', () => {
  it('uses 4 significant digits', () => {
    expect(formatFloat(0.00392156862745098)).toBe('0.003922');
    expect(formatFloat(1)).toBe('1');
    expect(formatFloat(123.456)).toBe('123.5');
  });
  it('switches to exponent form for tiny and huge values', () => {
    expect(formatFloat(1.2346e-5)).toBe('1.235e-5');
    expect(formatFloat(6e7)).toBe('6.000e7');
  });
  it('uses a real minus sign and handles specials', () => {
    expect(formatFloat(-0.5)).toBe('\u22120.5');
    expect(formatFloat(0)).toBe('0');
    expect(formatFloat(Number.NaN)).toBe('NaN');
    expect(formatFloat(-Infinity)).toBe('\u2212\u221e');
    expect(formatInt(-128)).toBe('\u2212128');
    expect(formatInt(5)).toBe('5');
  });
});

describe('formatQuant', () => {
  it('shows a dash without parameters', () => {
    expect(formatQuant(null)).toBe('—');
    expect(formatQuant(undefined)).toBe('—');
    expect(formatQuant(quant({}))).toBe('—');
    expect(hasQuantParams(quant({}))).toBe(false);
  });
  it('formats per-tensor parameters', () => {
    expect(formatQuant(quant({ scale: [1 / 255], zero_point: [-128] }))).toBe('scale 0.003922, zp \u2212128');
  });
  it('summarises per-channel parameters as ranges', () => {
    expect(
      formatQuant(quant({ scale: [0.001, 0.5, 0.02], zero_point: [0, 0, 0], quantized_dimension: 3 })),
    ).toBe('per-channel \u00d73 (axis 3): scale 0.001…0.5, zp 0');
  });
  it('appends recorded float ranges', () => {
    expect(formatQuant(quant({ min: [-1], max: [1] }))).toBe('range [\u22121, 1]');
    expect(formatQuant(quant({ scale: [0.5], zero_point: [0], min: [-1], max: [1] }))).toBe(
      'scale 0.5, zp 0, range [\u22121, 1]',
    );
  });
});

describe('file names', () => {
  it('derives names', () => {
    expect(baseName('mobilenet.tflite')).toBe('mobilenet');
    expect(baseName('.hidden')).toBe('.hidden');
    expect(baseName('noext')).toBe('noext');
    expect(rewrittenFileName('a.b.tflite')).toBe('a.b.rewritten.tflite');
    expect(looksLikeTflite('m.TFLITE')).toBe(true);
    expect(looksLikeTflite('m.onnx')).toBe(false);
  });
});

describe('formatMs', () => {
  it('shows times below 1 ms in µs, never "0.00 ms"', () => {
    expect(formatMs(0.4213)).toBe('421 µs');
    expect(formatMs(0.0042)).toBe('4.2 µs');
    expect(formatMs(0.0001)).toBe('< 1 µs');
    expect(formatMs(0)).toBe('< 1 µs');
    expect(formatMs(1.234)).toBe('1.23 ms');
    expect(formatMs(12.34)).toBe('12.3 ms');
    expect(formatMs(1234.5)).toBe('1,235 ms');
    expect(formatMs(NaN)).toBe('—');
    expect(formatMs(-1)).toBe('—');
  });
});
