import { describe, expect, it } from 'vitest';
import { POOR_DB, RANDOM_HINT, RUINED_DB, levelOf, sqnrVerdict, type LayerSqnr } from './verdict';

const layer = (label: string, db: number, output = false): LayerSqnr => ({ label, db, output });

describe('SQNR verdict', () => {
  it('draws the lines at 10 and 20 dB', () => {
    expect([RUINED_DB, POOR_DB]).toEqual([10, 20]);
    expect(levelOf(-9.3)).toBe('ruined');
    expect(levelOf(9.99)).toBe('ruined');
    expect(levelOf(10)).toBe('poor');
    expect(levelOf(19.9)).toBe('poor');
    expect(levelOf(20)).toBe('ok');
    expect(levelOf(Infinity)).toBe('ok');
  });

  it('names the first layer below 20 dB and the worst ones, and blames random data when it was used', () => {
    const layers = [layer('input', 40), layer('CONV_2D #0', 31), layer('CONV_2D #1', 18.5), layer('ADD #2', 6.1), layer('RESHAPE #3', Infinity), layer('FULLY_CONNECTED #4', 3.9, true)];
    const v = sqnrVerdict(layers, true);
    expect(v?.level).toBe('ruined');
    expect(v?.worstOutput.label).toBe('FULLY_CONNECTED #4');
    expect(v?.firstBelow?.label).toBe('CONV_2D #1');
    expect(v?.worst.map((l) => l.label)).toEqual(['FULLY_CONNECTED #4', 'ADD #2', 'CONV_2D #1']);
    expect(v?.text).toBe(
      'Quantization ruined: the worst output SQNR is 3.9 dB (FULLY_CONNECTED #4), below 10 dB: the error is about as large as the signal. ' +
        'SQNR first falls below 20 dB at CONV_2D #1 (18.5 dB). Worst layers: FULLY_CONNECTED #4 3.9 dB, ADD #2 6.1 dB, CONV_2D #1 18.5 dB. ' +
        RANDOM_HINT,
    );
    expect(sqnrVerdict(layers, false)?.text.includes('random')).toBe(false);
  });

  it('says poor between 10 and 20 dB, takes the worst of several outputs, and is quiet when fine', () => {
    const poor = sqnrVerdict([layer('a', 25), layer('out0', 30, true), layer('out1', 14.2, true)], false);
    expect(poor?.level).toBe('poor');
    expect(poor?.worstOutput.label).toBe('out1');
    expect(poor?.text.startsWith('Poor quantization: the worst output SQNR is 14.2 dB (out1), below 20 dB.')).toBe(true);
    const ok = sqnrVerdict([layer('a', 12), layer('out', 26.9, true)], true);
    expect(ok?.level).toBe('ok');
    expect(ok?.randomHint).toBe(false);
    expect(ok?.text).toBe('Worst output SQNR 26.9 dB (out): at least 20 dB.');
    expect(sqnrVerdict([layer('out', Infinity, true)], false)?.level).toBe('ok');
  });

  it('counts a NaN output as ruined and gives no verdict without outputs', () => {
    expect(sqnrVerdict([layer('out', NaN, true)], false)?.level).toBe('ruined');
    expect(sqnrVerdict([layer('a', 3)], false)).toBeUndefined();
    expect(sqnrVerdict([], false)).toBeUndefined();
  });
});

describe('layers for the verdict', () => {
  it('reads the report (identical outputs are Infinity) and the comparison rows', async () => {
    const { layersFromComparison, layersFromReport } = await import('./verdict');
    const report = [
      { index: 2, op: 'SOFTMAX', output: 'probs', sqnr_db: 4.5 },
      { index: 0, op: 'CONV_2D', output: 'c', sqnr_db: 30 },
      { index: 1, op: 'RESHAPE', output: 'r' },
    ];
    expect(layersFromReport(report, new Set(['probs']))).toEqual([
      { label: 'CONV_2D #0', db: 30, output: false },
      { label: 'RESHAPE #1', db: Infinity, output: false },
      { label: 'SOFTMAX #2', db: 4.5, output: true },
    ]);
    const ops = [{ index: 0, op: 'CONV_2D', outputs: [1] }, { index: 1, op: 'SOFTMAX', outputs: [2] }];
    expect(layersFromComparison([{ float_tensor: 0, sqnr_db: 40 }, { float_tensor: 1, sqnr_db: 12 }, { float_tensor: 2, sqnr_db: 8 }], ops, [2])).toEqual([
      { label: 'input tensor #0', db: 40, output: false },
      { label: 'CONV_2D #0', db: 12, output: false },
      { label: 'SOFTMAX #1', db: 8, output: true },
    ]);
  });
});
