import { describe, expect, it } from 'vitest';
import { storageRange } from './details';

describe('storageRange', () => {
  it('gives the stored range of each quantized type, INT4 (two to a byte) included', () => {
    expect(storageRange('INT4')).toEqual([-8, 7]);
    expect(storageRange('INT8')).toEqual([-128, 127]);
    expect(storageRange('UINT8')).toEqual([0, 255]);
    expect(storageRange('INT16')).toEqual([-32768, 32767]);
    expect(storageRange('FLOAT32')).toBeUndefined();
  });
});
