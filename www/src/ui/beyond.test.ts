import { describe, expect, it } from 'vitest';
import { fewSamplesHint, heldOut } from './beyond';

describe('heldOut', () => {
  it('gives what the guard judged: the whole result, and the result without the range search when that was judged after it', () => {
    expect(heldOut({ held_out_sqnr_db: 21.666, held_out_better: 11 })).toBe('21.67 dB (less error on 11)');
    expect(heldOut({ held_out_sqnr_db: 19.91, held_out_better: 0, whole_held_out_sqnr_db: 21.666, whole_held_out_better: 11 })).toBe(
      'the whole result 21.67 dB (less error on 11), without the range search 19.91 dB (less error on 0),',
    );
    expect(heldOut({ held_out_sqnr_db: undefined, held_out_better: undefined })).toBe('exact');
  });
});

describe('fewSamplesHint', () => {
  it('says a gain is hard to confirm when the guard fell back on fewer than 64 samples, counting each sample once', () => {
    // Cross-validated: every sample was searched on and held out once.
    expect(fewSamplesHint({ fell_back: true, cross_validated: true, samples: 16, held_out_samples: 16 })).toBe(
      'With 16 calibration samples a gain is hard to confirm: Beyond TF takes up to 64 (48 to search, 16 to hold out); calibrate on more samples to give the guard more to confirm with.',
    );
    // One split: the search samples and the held-out ones.
    expect(fewSamplesHint({ fell_back: true, cross_validated: false, samples: 18, held_out_samples: 6 })).toContain('With 24 calibration samples');
    expect(fewSamplesHint({ fell_back: true, cross_validated: false, samples: 48, held_out_samples: 16 })).toBe('');
    expect(fewSamplesHint({ fell_back: false, cross_validated: true, samples: 8, held_out_samples: 8 })).toBe('');
  });
});
