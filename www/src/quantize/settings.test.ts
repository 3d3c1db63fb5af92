import { describe, expect, it } from 'vitest';
import { cliCommand, defaultIo, describeSettings, errorSummary, fileIoType, ioChoices, isMode, needsCalibration, quantizedFileName, reportFileName, settingsFor, shellQuote, sizeChange, toggleOp } from './settings';

describe('quantize settings', () => {
  it('offers the I/O types each mode takes', () => {
    expect(ioChoices('int8')).toEqual(['int8', 'uint8', 'float']);
    expect(ioChoices('int16x8')).toEqual(['int16', 'float']);
    expect(ioChoices('dynamic')).toEqual(['float']);
    expect(needsCalibration('int8') && needsCalibration('int16x8')).toBe(true);
    expect(needsCalibration('dynamic') || needsCalibration('float16')).toBe(false);
    expect(isMode('int16x8') && !isMode('int4')).toBe(true);
  });

  it('builds the CLI options, sorted ops, a valid I/O type', () => {
    expect(settingsFor('int8', 'uint8', true, [5, 1, 5])).toEqual({ mode: 'int8', io: 'uint8', per_tensor: true, float_ops: ['1', '5'], int16_ops: [] });
    // int16 operators: int8 mode only, and never an op kept float.
    expect(settingsFor('int8', 'int8', false, [2], [7, 2, 4]).int16_ops).toEqual(['4', '7']);
    expect(settingsFor('int16x8', 'int16', false, [], [3]).int16_ops).toEqual([]);
    expect(settingsFor('int16x8', 'uint8', false, []).io).toBe('int16');
    expect(settingsFor('float16', 'int8', false, []).io).toBe('float');
  });

  it('toggles kept-float ops without touching the old set', () => {
    const a = new Set([1]);
    const b = toggleOp(a, 2);
    expect([...b]).toEqual([1, 2]);
    expect([...toggleOp(b, 1)]).toEqual([2]);
    expect([...a]).toEqual([1]);
  });

  it('names the files and writes the equivalent command', () => {
    expect(quantizedFileName('net.tflite', { mode: 'int8', io: 'int8' })).toBe('net_int8.tflite');
    expect(quantizedFileName('net.tflite', { mode: 'float16', io: 'float' })).toBe('net_fp16.tflite');
    expect(quantizedFileName('net.tflite', { mode: 'dynamic', io: 'float' })).toBe('net_dynamic.tflite');
    expect(quantizedFileName('net.tflite', { mode: 'int16x8', io: 'int16' })).toBe('net_16x8.tflite');
    // An I/O type other than the mode's own is in the name: never "_int8.tflite" for a float-I/O file.
    expect(quantizedFileName('net.tflite', { mode: 'int8', io: 'float' })).toBe('net_int8_floatio.tflite');
    expect(quantizedFileName('net.tflite', { mode: 'int8', io: 'uint8' })).toBe('net_int8_uint8io.tflite');
    expect(quantizedFileName('net.tflite', { mode: 'int16x8', io: 'float' })).toBe('net_16x8_floatio.tflite');
    expect(defaultIo('int8')).toBe('int8');
    expect(defaultIo('dynamic')).toBe('float');
    expect(describeSettings(settingsFor('int8', 'float', false, []))).toBe('int8, I/O float, per-channel weights');
    expect(describeSettings(settingsFor('int8', 'uint8', true, []))).toBe('int8, I/O uint8, per-tensor weights');
    expect(describeSettings(settingsFor('float16', 'float', false, []))).toBe('float16, I/O float, float16 weights');
    expect(reportFileName('net_int8.tflite')).toBe('net_int8.report.json');
    expect(cliCommand('net.tflite', settingsFor('int8', 'int8', false, [3, 0]), true)).toBe(
      'zeropoint quantize net.tflite --stats net.stats.json --mode int8 --io int8 --float-ops 0,3 -o net_int8.tflite --report net_int8.report.json',
    );
    expect(cliCommand('net.tflite', settingsFor('int8', 'float', false, [], [4, 1]), true)).toBe(
      'zeropoint quantize net.tflite --stats net.stats.json --mode int8 --io float --int16-ops 1,4 -o net_int8_floatio.tflite --report net_int8_floatio.report.json',
    );
    expect(cliCommand('my net.tflite', settingsFor('dynamic', 'float', true, []), false)).toBe(
      "zeropoint quantize 'my net.tflite' --mode dynamic --io float --per-tensor -o 'my net_dynamic.tflite' --report 'my net_dynamic.report.json'",
    );
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });

  it('sums up the report\'s errors: worst operator output and last operator', () => {
    const report = { mode: 'int8', io: 'int8', tensors: [], ops: [], warnings: [] };
    expect(errorSummary(report)).toBeUndefined();
    const op = (index: number, op: string, sqnr_db: number | undefined) => ({ index, op, output: `t${String(index)}`, sqnr_db, max_abs_error: 0 });
    expect(errorSummary({ ...report, error_samples: 16, op_errors: [op(0, 'CONV_2D', 41.25), op(1, 'RESHAPE', undefined), op(2, 'FULLY_CONNECTED', 30.04), op(3, 'SOFTMAX', 35)] })).toBe(
      'SQNR against the float model on the first 16 calibration samples: worst operator output 30.0 dB (FULLY_CONNECTED #2), last operator 35.0 dB (SOFTMAX #3).',
    );
    expect(errorSummary({ ...report, error_samples: 1, op_errors: [op(0, 'RESHAPE', undefined)] })).toBe(
      'SQNR against the float model on the first calibration sample: worst operator output identical (RESHAPE #0), last operator identical (RESHAPE #0).',
    );
  });

  it('reads the I/O types from the file\'s summary', () => {
    const tensor = (index: number, dtype: string) => ({ index, dtype });
    const summary = (inputs: number[], outputs: number[], dtypes: string[]) =>
      ({ subgraphs: [{ inputs, outputs, tensors: dtypes.map((d, i) => tensor(i, d)) }] }) as unknown as Parameters<typeof fileIoType>[0];
    expect(fileIoType(summary([0], [2], ['INT8', 'INT8', 'INT8']))).toBe('int8');
    expect(fileIoType(summary([0], [2], ['FLOAT32', 'INT8', 'INT8']))).toBe('float32 in, int8 out');
    expect(fileIoType(summary([0, 1], [2], ['FLOAT32', 'INT8', 'FLOAT32']))).toBe('float32/int8 in, float32 out');
    expect(fileIoType({ subgraphs: [] } as unknown as Parameters<typeof fileIoType>[0])).toBe('none');
  });

  it('describes the size change', () => {
    expect(sizeChange(4096, 1024)).toBe('4.00 KiB \u2192 1.00 KiB (25.0% of the original)');
    expect(sizeChange(0, 10)).toBe('0 B \u2192 10 B');
  });
});

describe('cliCommand with --auto', () => {
  const settings = { mode: 'int8', io: 'int8', per_tensor: false, float_ops: [], int16_ops: ['3'] };
  it('takes the samples as --data, with the target and a non-default budget', () => {
    expect(cliCommand('m.tflite', settings, true, { targetSqnrDb: 42.5, budget: 50 })).toBe(
      'zeropoint quantize m.tflite --data SAMPLES.npy --auto --target-sqnr 42.5 --auto-budget 50 --mode int8 --io int8 --int16-ops 3 -o m_int8.tflite --report m_int8.report.json',
    );
    expect(cliCommand('m.tflite', settings, true, { targetSqnrDb: undefined, budget: 400, timeLimit: 90 })).toBe(
      'zeropoint quantize m.tflite --data SAMPLES.npy --auto --auto-time-limit 90 --mode int8 --io int8 --int16-ops 3 -o m_int8.tflite --report m_int8.report.json',
    );
    expect(cliCommand('m.tflite', settings, true, { targetSqnrDb: undefined, budget: 400 })).toBe(
      'zeropoint quantize m.tflite --data SAMPLES.npy --auto --mode int8 --io int8 --int16-ops 3 -o m_int8.tflite --report m_int8.report.json',
    );
  });

  it('gives an accuracy target with its labels file and a non-default label output', () => {
    const labels = { name: 'my labels.npy' };
    expect(cliCommand('m.tflite', settings, true, { targetAccuracyDrop: 1.5, labels, labelOutput: 1 })).toBe(
      "zeropoint quantize m.tflite --data SAMPLES.npy --auto --target-accuracy-drop 1.5 --labels 'my labels.npy' --label-output 1 --mode int8 --io int8 --int16-ops 3 -o m_int8.tflite --report m_int8.report.json",
    );
    expect(cliCommand('m.tflite', settings, true, { targetAccuracyDrop: 0, labels, labelOutput: 0 })).toContain('--auto --target-accuracy-drop 0 --labels \'my labels.npy\' --mode');
    // Without labels the target is not given (the page refuses it before quantizing).
    expect(cliCommand('m.tflite', settings, true, { targetAccuracyDrop: 2 })).not.toContain('--target-accuracy-drop');
  });
});
