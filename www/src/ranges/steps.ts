/**
 * The computation from a calibrated range to scale and zero point, written out with one
 * tensor's numbers. The numbers are the engine's (`quantParams`, from crate/src/quant/params.rs);
 * this only phrases them. Pure: unit-tested in steps.test.ts.
 */
import type { QuantSteps } from '../engine/types';
import { formatInt } from '../format';

const MINUS = '\u2212';

/** A real number with enough digits to follow the arithmetic (7 significant, f32-ish). */
export function num(x: number, digits = 7): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '\u221e' : `${MINUS}\u221e`;
  if (x === 0) return '0';
  const abs = Math.abs(x);
  let text = abs >= 1e-4 && abs < 1e6 ? String(Number(abs.toPrecision(digits))) : abs.toExponential(digits - 1).replace(/\.?0+e/, 'e').replace('e+', 'e');
  if (text.includes('e-')) text = text.replace('e-', `e${MINUS}`);
  return x < 0 ? `${MINUS}${text}` : text;
}

export interface StepLine {
  /** data-testid suffix: `ranges-<id>`. */
  id: string;
  title: string;
  text: string;
}

/** The chosen range, then the quantizer's steps. */
export function stepLines(steps: QuantSteps): StepLine[] {
  const lines: StepLine[] = [];
  const widenedNote =
    steps.widened_min !== steps.min || steps.widened_max !== steps.max
      ? ' (the range must contain 0 so that 0.0 — zero padding, ReLU’s zeros — is exact)'
      : ' (it already contains 0)';
  lines.push({
    id: 'widened',
    title: 'Include 0',
    text: `[min(${num(steps.min)}, 0), max(${num(steps.max)}, 0)] = [${num(steps.widened_min)}, ${num(steps.widened_max)}]${widenedNote}`,
  });
  if (steps.near_zero_widened) {
    lines.push({
      id: 'near-zero',
      title: 'Too narrow',
      text:
        steps.dtype === 'int8'
          ? `narrower than 1e${MINUS}6: each end moves out by 1e${MINUS}6 → [${num(steps.rmin)}, ${num(steps.rmax)}]`
          : `all zero: treated as ±1e${MINUS}6`,
    });
  }
  if (steps.dtype === 'int8') {
    const levels = steps.qmax - steps.qmin;
    lines.push({
      id: 'scale-line',
      title: 'Scale',
      text: `scale = (rmax − rmin) / (qmax − qmin) = (${num(steps.rmax)} − ${num(steps.rmin)}) / (${formatInt(steps.qmax)} − ${formatInt(steps.qmin)}) = ${num(steps.scale_f64, 9)}; TF keeps it in float32: (f32(rmax) − f32(rmin)) / ${String(levels)} = ${num(steps.scale, 9)}`,
    });
    const chosen = steps.zp_side === 'min' ? 'the min side' : 'the max side';
    lines.push({
      id: 'zero-point-line',
      title: 'Zero point',
      text: `from the min: qmin − rmin/scale = ${num(steps.zp_from_min)} (error ${num(steps.zp_from_min_error)}); from the max: qmax − rmax/scale = ${num(steps.zp_from_max)} (error ${num(steps.zp_from_max_error)}) → ${chosen} has the smaller error, nudged to ${formatInt(steps.zp_nudged_f64)}. With the float32 scale TF recomputes ${formatInt(steps.qmin)} − rmin/scale = ${num(steps.zp_real)} → round → zero point ${formatInt(steps.zero_point)}`,
    });
  } else {
    lines.push({
      id: 'scale-line',
      title: 'Scale',
      text: `symmetric: scale = max(|min|, |max|) / ${String(steps.qmax)} = ${num(Math.max(Math.abs(steps.widened_min), Math.abs(steps.widened_max)))} / ${String(steps.qmax)} = ${num(steps.scale, 9)}`,
    });
    lines.push({ id: 'zero-point-line', title: 'Zero point', text: 'int16 activations are symmetric: zero point 0' });
  }
  lines.push({
    id: 'nudged',
    title: 'Represented',
    text: `[scale · (${formatInt(steps.storage_min)} − zp), scale · (${formatInt(steps.qmax)} − zp)] = [${num(steps.nudged_min)}, ${num(steps.nudged_max)}] (the “nudged” range: its ends are grid points)`,
  });
  lines.push({
    id: 'zero-exact',
    title: '0.0 is exact',
    text: `q = zero point = ${formatInt(steps.zero_point)} stands for scale · (${formatInt(steps.zero_point)} − ${formatInt(steps.zero_point)}) = 0.0 exactly`,
  });
  return lines;
}
