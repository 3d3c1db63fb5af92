/**
 * The two exact integer arithmetics the quantized model can run with on the page, as the CLI's
 * `zeropoint run / compare --arithmetic reference|xnnpack` (README "Two exact arithmetics"): their
 * labels, the one-line difference, and what the Compare view says about results run with one of
 * them. No DOM: unit-tested in Node (arithmetic.test.ts).
 */
import type { Arithmetic } from '../engine/types';

export type { Arithmetic };

/** Both, in the order the control lists them (the first is the default). */
export const ARITHMETICS: readonly Arithmetic[] = ['reference', 'xnnpack'];

/** The default: LiteRT's reference kernels, the arithmetic every golden checks. */
export const DEFAULT_ARITHMETIC: Arithmetic = 'reference';

/** What each choice means, as the control offers it. */
export const ARITHMETIC_LABELS: Readonly<Record<Arithmetic, string>> = {
  reference: 'Same bits as LiteRT reference kernels (BUILTIN_REF)',
  xnnpack: 'Same bits as LiteRT’s default CPU path (XNNPACK)',
};

/** A short name, for the lines next to results. */
export const ARITHMETIC_SHORT: Readonly<Record<Arithmetic, string>> = {
  reference: 'reference kernels (BUILTIN_REF)',
  xnnpack: 'XNNPACK (LiteRT’s default CPU path)',
};

/** The tag of the quantized model's latency (the time depends on the arithmetic). */
export const ARITHMETIC_TAG: Readonly<Record<Arithmetic, string>> = {
  reference: 'reference arithmetic',
  xnnpack: 'XNNPACK arithmetic',
};

/** The difference in one line, for people learning quantization. */
export const ARITHMETIC_DIFFERENCE =
  'XNNPACK requantizes an int8 convolution’s or fully connected layer’s sum in f32 with one rounding; the reference kernels do it in fixed point with two roundings, so a few int8 values may differ by one step.';

/** What the XNNPACK choice does not (yet) cover, said next to the control. */
export const XNNPACK_COVERAGE =
  'Operators not yet made XNNPACK-exact (README “Two exact arithmetics” lists the covered ones) keep the reference arithmetic, so a model holding them may differ from LiteRT’s default path there.';

/** Whether `value` names an arithmetic. */
export function isArithmetic(value: string): value is Arithmetic {
  return (ARITHMETICS as readonly string[]).includes(value);
}

/** The line shown next to results of the quantized model run with `arithmetic`. */
export function ranWith(arithmetic: Arithmetic): string {
  return `Quantized model run with: ${ARITHMETIC_LABELS[arithmetic]}`;
}

/**
 * What to say about results of the quantized model run with `shown` while `chosen` is selected:
 * nothing when they agree, else that the results are stale (`undefined`: no results shown).
 */
export function staleNote(shown: Arithmetic | undefined, chosen: Arithmetic): string | undefined {
  if (shown === undefined || shown === chosen) return undefined;
  return `Stale: these results are from the ${ARITHMETIC_SHORT[shown]}; you chose the ${ARITHMETIC_SHORT[chosen]}. Run again to see its results.`;
}

/**
 * The message of a comparison that failed with `arithmetic`: an operator the XNNPACK arithmetic
 * refuses is said to be XNNPACK's limit (the reference arithmetic may still run the model).
 */
export function failureMessage(arithmetic: Arithmetic, message: string): string {
  if (arithmetic === 'xnnpack' && /unsupported/i.test(message)) {
    return `Compare failed: the XNNPACK arithmetic cannot run this quantized model (${message}). Choose “${ARITHMETIC_LABELS.reference}” to run it; your model and earlier results are kept.`;
  }
  return `Compare failed: ${message}`;
}
