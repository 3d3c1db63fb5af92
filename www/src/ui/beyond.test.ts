import { describe, expect, it } from 'vitest';
import { heldOut } from './beyond';

describe('heldOut', () => {
  it('gives what the guard judged: the whole result, and the result without the range search when that was judged after it', () => {
    expect(heldOut({ held_out_sqnr_db: 21.666, held_out_better: 11 })).toBe('21.67 dB (less error on 11)');
    expect(heldOut({ held_out_sqnr_db: 19.91, held_out_better: 0, whole_held_out_sqnr_db: 21.666, whole_held_out_better: 11 })).toBe(
      'the whole result 21.67 dB (less error on 11), without the range search 19.91 dB (less error on 0),',
    );
    expect(heldOut({ held_out_sqnr_db: undefined, held_out_better: undefined })).toBe('exact');
  });
});
