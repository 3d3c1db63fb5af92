/**
 * What kind of thing each model output is — class scores, boxes, landmarks, a mask or heat map,
 * an embedding, or plain values — inferred from the graph (the operator that makes it, its name)
 * and its shape, and, for a flat vector, from its values (probabilities sum to 1). The Compare
 * view compares each kind the way people judge it (compare/by-kind.ts); the user can override the
 * guess. Pure; unit-tested on the shapes of real models (MediaPipe, MobileNet, SSD).
 */

/** The kinds an output can be read as. */
export type OutputKind = 'classes' | 'boxes' | 'landmarks' | 'mask' | 'embedding' | 'values';

/** Every kind, in the order the select lists them, with its label. */
export const KIND_LABELS: Readonly<Record<OutputKind, string>> = {
  classes: 'class scores',
  boxes: 'boxes',
  landmarks: 'landmarks (points)',
  mask: 'mask / heat map',
  embedding: 'embedding',
  values: 'values',
};

export const OUTPUT_KINDS = Object.keys(KIND_LABELS) as OutputKind[];

export function isOutputKind(value: string): value is OutputKind {
  return (OUTPUT_KINDS as string[]).includes(value);
}

/** What the guess is made from. */
export interface OutputFacts {
  shape: readonly number[];
  /** The operator that makes the output (`SOFTMAX`, `TFLite_Detection_PostProcess`, …), if any. */
  producer?: string | undefined;
  /** The output tensor's name. */
  name?: string | undefined;
  /** Its float values on a sample, if known (a probability vector sums to 1). */
  values?: ArrayLike<number> | undefined;
  /** Its position among the producer's outputs (a detection post-process has four). */
  producerOutput?: number | undefined;
}

export interface KindGuess {
  kind: OutputKind;
  /** Why, in a few words ("made by SOFTMAX"). */
  reason: string;
}

/** Operators whose output is a score per class along the last axis. */
const SCORE_OPS = new Set(['SOFTMAX', 'LOGISTIC', 'LOG_SOFTMAX']);
/** Largest flat vector read as landmarks (MediaPipe's face mesh has 478 × 3 = 1,434 values). */
const MAX_LANDMARK_VALUES = 3000;
/** Smallest flat vector read as landmarks: three points of two coordinates. */
const MIN_LANDMARK_VALUES = 6;
/** Smallest side of a [1, H, W] output read as a mask (whose sides are also within 4:1: not rows of scores). */
const MIN_MASK_SIDE = 8;
/** Box rows carry 4 coordinates, then up to this many (x, y) keypoints (BlazeFace 6, palm 7). */
const MAX_BOX_KEYPOINTS = 20;

const NAME_HINTS: readonly [RegExp, OutputKind][] = [
  [/landmark|keypoint|kpts?\b|joints?\b|ld_\d+/i, 'landmarks'],
  [/mask|segment|heat_?map|matting|alpha\b/i, 'mask'],
  [/embed|feature_?vector|descriptor/i, 'embedding'],
  [/regressor|bbox|boxes|box_encod|anchors?\b/i, 'boxes'],
  [/logit|class|predict|prob/i, 'classes'],
];

/** Product of all dimensions but the last. */
function rows(shape: readonly number[]): number {
  return shape.slice(0, -1).reduce((a, b) => a * b, 1);
}

/** The dims after squeezing the leading batch 1s. */
function squeezeLeading(shape: readonly number[]): number[] {
  const out = [...shape];
  while (out.length > 1 && out[0] === 1) out.shift();
  return out;
}

/** Whether every row of `values` (rows of `width`) lies in [0, 1] and sums to 1 (±1e-3 per element). */
export function isProbabilityRows(values: ArrayLike<number>, width: number): boolean {
  if (width < 2 || values.length === 0 || values.length % width !== 0) return false;
  for (let r = 0; r < values.length; r += width) {
    let sum = 0;
    for (let i = r; i < r + width; i++) {
      const v = values[i] ?? NaN;
      if (!(v >= 0 && v <= 1)) return false;
      sum += v;
    }
    if (Math.abs(sum - 1) > Math.max(1e-3, width * 1e-6)) return false;
  }
  return true;
}

/** Whether `shape` is [.., H, W, C] with H, W > 1 (an image-like output). */
function isSpatial(shape: readonly number[]): boolean {
  if (shape.length !== 4) return false;
  const [, height = 0, width = 0] = shape;
  return height > 1 && width > 1;
}

/** Whether `shape` is rows of 4 box coordinates, maybe followed by (x, y) keypoints: [1, N, 4 + 2k]. */
function isBoxRows(shape: readonly number[]): boolean {
  const d = shape[shape.length - 1] ?? 0;
  return shape.length >= 2 && shape.length <= 3 && rows(shape) >= 1 && d >= 4 && (d - 4) % 2 === 0 && (d - 4) / 2 <= MAX_BOX_KEYPOINTS;
}

/**
 * The values per landmark point of a flat vector of `n` values: 5 for MediaPipe's pose
 * (x, y, z, visibility, presence: 39 × 5 = 195), 3 for (x, y, z) (hand 21 × 3 = 63, face mesh
 * 468 × 3), else 2. The user can change it.
 */
export function pointStride(n: number): number {
  if (n % 5 === 0 && n / 5 >= 20 && n % 3 !== 0 && n % 2 !== 0) return 5;
  if (n % 5 === 0 && n / 5 >= 20 && n % 15 === 0) return 5;
  if (n % 3 === 0) return 3;
  return 2;
}

/** Whether a flat vector of `n` values reads as landmarks: a few to ~1,000 points of 2 or 3 values. */
function landmarkLength(n: number): boolean {
  const powerOfTwo = (n & (n - 1)) === 0;
  return n >= MIN_LANDMARK_VALUES && n <= MAX_LANDMARK_VALUES && (n % 3 === 0 || n % 2 === 0) && !(powerOfTwo && n >= 64);
}

/**
 * The kind of an output, with the reason. In order: the outputs of a detection post-process;
 * a spatial shape ([1, H, W, C], H, W > 1: mask / heat map); a score operator (SOFTMAX,
 * LOGISTIC) or a row of probabilities (class scores); L2_NORMALIZATION (embedding); a name
 * that says it; rows of 4 (+ 2k) coordinates (boxes); rows of 2 or 3 (points); a [1, H, W]
 * plane of sides ≥ 8 within 4:1 (mask); a flat vector of 2- or 3-value points (landmarks); another flat
 * vector (embedding); else values.
 */
export function inferKind(facts: OutputFacts): KindGuess {
  const { shape, producer, name = '' } = facts;
  const last = shape[shape.length - 1] ?? 0;
  const n = shape.reduce((a, b) => a * b, 1);
  const squeezed = squeezeLeading(shape);
  if (producer === 'TFLite_Detection_PostProcess') {
    if (last === 4 && shape.length >= 2) return { kind: 'boxes', reason: 'detection post-process boxes [ymin, xmin, ymax, xmax]' };
    return { kind: 'values', reason: 'detection post-process classes / scores / count' };
  }
  if (isSpatial(shape)) return { kind: 'mask', reason: `spatial output ${String(shape[1])}×${String(shape[2])}${producer ? ` made by ${producer}` : ''}` };
  const hinted = NAME_HINTS.find(([re]) => re.test(name))?.[1];
  if (producer && SCORE_OPS.has(producer) && last >= 2 && hinted !== 'mask' && hinted !== 'landmarks') {
    return { kind: 'classes', reason: `made by ${producer} over ${String(last)} values` };
  }
  if (producer === 'L2_NORMALIZATION') return { kind: 'embedding', reason: 'made by L2_NORMALIZATION' };
  if (facts.values && last >= 2 && hinted === undefined && isProbabilityRows(facts.values, last)) {
    return { kind: 'classes', reason: `rows of ${String(last)} probabilities (each in [0, 1], summing to 1)` };
  }
  // A name says boxes only for rows of ≥ 4 values and classes only for ≥ 2 scores per row
  // (BlazeFace's `classificators` is one score per anchor).
  if (hinted && (hinted !== 'boxes' || last >= 4) && (hinted !== 'classes' || last >= 2)) return { kind: hinted, reason: `named ‘${name}’` };
  if (squeezed.length === 2 && (squeezed[0] ?? 0) > 1 && isBoxRows(shape)) {
    return { kind: 'boxes', reason: last === 4 ? `${String(squeezed[0])} rows of 4 coordinates` : `${String(squeezed[0])} rows of 4 box coordinates + ${String((last - 4) / 2)} keypoints` };
  }
  if (squeezed.length === 2 && (squeezed[0] ?? 0) > 1 && (last === 2 || last === 3)) {
    return { kind: 'landmarks', reason: `${String(squeezed[0])} points of ${String(last)} values` };
  }
  const side = shape[1] ?? 0;
  if (shape.length === 3 && shape[0] === 1 && side >= MIN_MASK_SIDE && last >= MIN_MASK_SIDE && Math.max(side, last) <= 4 * Math.min(side, last)) {
    return { kind: 'mask', reason: `a ${String(shape[1])}×${String(last)} plane` };
  }
  if (squeezed.length === 1 && n >= 2) {
    if (landmarkLength(n)) {
      const stride = pointStride(n);
      return { kind: 'landmarks', reason: `${String(n)} values = ${String(n / stride)} points of ${String(stride)}, no SOFTMAX / LOGISTIC before it` };
    }
    if (n >= 16) return { kind: 'embedding', reason: `a vector of ${String(n)} values without SOFTMAX / LOGISTIC` };
  }
  return { kind: 'values', reason: n === 1 ? 'one value' : `shape [${shape.join(', ')}]` };
}
