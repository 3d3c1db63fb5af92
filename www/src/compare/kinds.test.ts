import { describe, expect, it } from 'vitest';
import { boxAgreement, channel, classAgreement, cosineSimilarity, greyPixels, iou, planeOf, pointBounds, pointError, points, valueRange } from './by-kind';
import { inferKind, isOutputKind, isProbabilityRows, pointStride } from './kinds';

describe('inferKind on the outputs of real models', () => {
  it('MediaPipe pose landmark: 1×195 landmarks (39 × 5), 1×117 world landmarks, the mask and the heat map', () => {
    // pose_landmark_full.tflite: Identity [1,195] (CONV_2D + RESHAPE), Identity_1 [1,1] (LOGISTIC),
    // Identity_2 [1,256,256,1] segmentation, Identity_3 [1,64,64,39] heat map, Identity_4 [1,117].
    const pose = inferKind({ shape: [1, 195], producer: 'RESHAPE', name: 'Identity' });
    expect(pose.kind).toBe('landmarks');
    expect(pointStride(195)).toBe(5);
    expect(inferKind({ shape: [1, 1], producer: 'LOGISTIC', name: 'Identity_1' }).kind).toBe('values');
    expect(inferKind({ shape: [1, 256, 256, 1], producer: 'LOGISTIC', name: 'Identity_2' }).kind).toBe('mask');
    expect(inferKind({ shape: [1, 64, 64, 39], producer: 'CONV_2D', name: 'Identity_3' }).kind).toBe('mask');
    expect(inferKind({ shape: [1, 117], producer: 'RESHAPE', name: 'Identity_4' }).kind).toBe('landmarks');
    expect(pointStride(117)).toBe(3);
  });

  it('MediaPipe hand landmark: 1×63 landmarks (21 × 3) from a FULLY_CONNECTED, never class scores', () => {
    const values = Array.from({ length: 63 }, (_, i) => 100 + i); // pixel coordinates
    const guess = inferKind({ shape: [1, 63], producer: 'FULLY_CONNECTED', name: 'Identity', values });
    expect(guess.kind).toBe('landmarks');
    expect(guess.reason).toContain('21 points of 3');
    expect(inferKind({ shape: [1, 63], producer: 'FULLY_CONNECTED', name: 'Identity_3' }).kind).toBe('landmarks');
    expect(inferKind({ shape: [1, 1], producer: 'LOGISTIC', name: 'Identity_1' }).kind).toBe('values');
  });

  it('MediaPipe palm detection: [1,2016,18] box regressors with 7 keypoints, [1,2016,1] scores as values', () => {
    const boxes = inferKind({ shape: [1, 2016, 18], producer: 'CONCATENATION', name: 'Identity' });
    expect(boxes.kind).toBe('boxes');
    expect(boxes.reason).toContain('7 keypoints');
    expect(inferKind({ shape: [1, 2016, 1], producer: 'CONCATENATION', name: 'Identity_1' }).kind).toBe('values');
    // BlazeFace: regressors [1,896,16] (6 keypoints), classificators [1,896,1].
    expect(inferKind({ shape: [1, 896, 16], producer: 'CONCATENATION', name: 'regressors' }).kind).toBe('boxes');
    expect(inferKind({ shape: [1, 896, 1], producer: 'CONCATENATION', name: 'classificators' }).kind).toBe('values');
  });

  it('MediaPipe selfie segmentation: [1,256,256,1] mask', () => {
    expect(inferKind({ shape: [1, 256, 256, 1], producer: 'LOGISTIC', name: 'activation_10' }).kind).toBe('mask');
    expect(inferKind({ shape: [1, 144, 256, 2], producer: 'SOFTMAX', name: 'segment' }).kind).toBe('mask');
    // A mask without its channel axis; rows of 5 values are not one.
    expect(inferKind({ shape: [1, 256, 256], producer: 'RESHAPE' }).kind).toBe('mask');
    expect(inferKind({ shape: [1, 144, 5], producer: 'RESHAPE' }).kind).toBe('values');
    expect(inferKind({ shape: [1, 1917, 91], producer: 'RESHAPE' }).kind).toBe('values');
  });

  it('MobileNet: 1×1001 after SOFTMAX are class scores; a probability row without the op too', () => {
    expect(inferKind({ shape: [1, 1001], producer: 'SOFTMAX', name: 'MobilenetV1/Predictions/Reshape_1' }).kind).toBe('classes');
    const probs = Array.from({ length: 1001 }, () => 1 / 1001);
    expect(inferKind({ shape: [1, 1001], producer: 'DEQUANTIZE', values: probs }).kind).toBe('classes');
    // The same shape with logits (no SOFTMAX, values not probabilities) is not read as classes.
    const logits = Array.from({ length: 1001 }, (_, i) => Math.sin(i) * 8);
    expect(inferKind({ shape: [1, 1001], producer: 'FULLY_CONNECTED', values: logits }).kind).toBe('embedding');
    // … unless its name says logits.
    expect(inferKind({ shape: [1, 1000], producer: 'FULLY_CONNECTED', name: 'resnet/logits/BiasAdd', values: logits.slice(0, 1000) }).kind).toBe('classes');
  });

  it('SSD: raw [1,1917,4] boxes and [1,1917,91] LOGISTIC scores; the post-process outputs', () => {
    expect(inferKind({ shape: [1, 1917, 4], producer: 'RESHAPE' }).kind).toBe('boxes');
    expect(inferKind({ shape: [1, 1917, 91], producer: 'LOGISTIC' }).kind).toBe('classes');
    const pp = 'TFLite_Detection_PostProcess';
    const b = inferKind({ shape: [1, 10, 4], producer: pp, name: 'detection_boxes' });
    expect(b.kind).toBe('boxes');
    expect(b.reason).toContain('ymin');
    expect(inferKind({ shape: [1, 10], producer: pp, name: 'detection_classes' }).kind).toBe('values');
    expect(inferKind({ shape: [1, 10], producer: pp, name: 'detection_scores' }).kind).toBe('values');
    expect(inferKind({ shape: [1], producer: pp, name: 'num_detections' }).kind).toBe('values');
  });

  it('embeddings: after L2_NORMALIZATION, or a power-of-two vector like 1×128', () => {
    expect(inferKind({ shape: [1, 192], producer: 'L2_NORMALIZATION' }).kind).toBe('embedding');
    expect(inferKind({ shape: [1, 128], producer: 'FULLY_CONNECTED' }).kind).toBe('embedding');
    expect(inferKind({ shape: [1, 512], producer: 'FULLY_CONNECTED', name: 'embedding' }).kind).toBe('embedding');
  });

  it('small vectors and other shapes are values', () => {
    expect(inferKind({ shape: [1, 3], producer: 'FULLY_CONNECTED', values: [2.5, -1, 0.3] }).kind).toBe('values');
    expect(inferKind({ shape: [1, 1], producer: 'TANH' }).kind).toBe('values');
    expect(inferKind({ shape: [] }).kind).toBe('values');
    expect(inferKind({ shape: [2, 3, 5, 7, 11] }).kind).toBe('values');
    expect(isOutputKind('mask')).toBe(true);
    expect(isOutputKind('class')).toBe(false);
  });

  it('tells probability rows from other values', () => {
    expect(isProbabilityRows([0.2, 0.8, 0.5, 0.5], 2)).toBe(true);
    expect(isProbabilityRows([0.2, 0.7], 2)).toBe(false);
    expect(isProbabilityRows([1.5, -0.5], 2)).toBe(false);
    expect(isProbabilityRows([NaN, 1], 2)).toBe(false);
    expect(isProbabilityRows([1], 1)).toBe(false);
  });
});

describe('comparisons by kind', () => {
  it('class agreement: top-1 and top-k overlap, row by row', () => {
    // Row 0: same top-1 (class 2), top-2 {2,0} vs {2,1}; row 1: top-1 differs (0 vs 1), float's top-1 is quantized's 2nd.
    const f = [0.3, 0.1, 0.6, 0.7, 0.2, 0.1];
    const q = [0.1, 0.3, 0.6, 0.4, 0.5, 0.1];
    expect(classAgreement(f, q, 3, 2)).toEqual({ rows: 2, top1Same: 1, topKOverlap: 0.75, top1InTopK: 1, k: 2 });
    expect(classAgreement([1, 0], [1, 0], 2, 5).k).toBe(2);
    expect(classAgreement([], [], 3, 5).rows).toBe(0);
  });

  it('IoU of boxes in both formats', () => {
    // Corners: [0,0,2,2] and [1,1,3,3] overlap in a 1×1 square: 1 / (4 + 4 − 1).
    expect(iou([0, 0, 2, 2], [1, 1, 3, 3], 'corners')).toBeCloseTo(1 / 7, 12);
    // Centre-size: the same two boxes as (y, x, h, w).
    expect(iou([1, 1, 2, 2], [2, 2, 2, 2], 'center')).toBeCloseTo(1 / 7, 12);
    expect(iou([0, 0, 1, 1], [0, 0, 1, 1], 'corners')).toBe(1);
    expect(iou([0, 0, 1, 1], [2, 2, 3, 3], 'corners')).toBe(0);
    expect(iou([0, 0, 0, 0], [0, 0, 0, 0], 'corners')).toBe(1);
    expect(iou([0, 0, 0, 0], [1, 1, 1, 1], 'corners')).toBe(0);
    expect(iou([NaN, 0, 1, 1], [0, 0, 1, 1], 'corners')).toBeNaN();
    // Swapped corners are read as the same box.
    expect(iou([2, 2, 0, 0], [0, 0, 2, 2], 'corners')).toBe(1);
  });

  it('box agreement over rows with keypoints after the 4 coordinates', () => {
    const f = [0, 0, 2, 2, 9, 9, 0, 0, 1, 1, 9, 9];
    const q = [1, 1, 3, 3, 8, 8, 0, 0, 1, 1, 7, 7];
    const a = boxAgreement(f, q, 6, 'corners');
    expect(a.boxes).toBe(2);
    expect(a.meanIou).toBeCloseTo((1 / 7 + 1) / 2, 12);
    expect(a.minIou).toBeCloseTo(1 / 7, 12);
    expect(a.worst).toBe(0);
    expect(a.below50).toBe(1);
    expect(a.emptyInBoth).toBe(0);
    expect(boxAgreement([NaN, 0, 1, 1], [0, 0, 1, 1], 4, 'corners').worst).toBe(0);
    // Unused detection slots (zeros in both) are left out, not counted as IoU 1; a box only one
    // model found counts as IoU 0.
    const slots = boxAgreement([0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0], 4, 'corners');
    expect(slots).toEqual({ boxes: 2, emptyInBoth: 1, meanIou: 0.5, minIou: 0, worst: 1, below50: 1 });
    expect(boxAgreement([0, 0, 0, 0], [0, 0, 0, 0], 4, 'corners').meanIou).toBeNaN();
  });

  it('landmark points and their error', () => {
    const f = points([0, 0, 9, 3, 4, 9, 6, 8, 9], 3);
    expect(f).toEqual([
      { x: 0, y: 0 },
      { x: 3, y: 4 },
      { x: 6, y: 8 },
    ]);
    const q = points([0, 0, 1, 0, 0, 1, 6, 8, 1], 3);
    const e = pointError(f, q);
    expect(e).toEqual({ points: 3, maxDistance: 5, meanDistance: 5 / 3, worst: 1 });
    expect(pointError([{ x: NaN, y: 0 }, { x: 9, y: 9 }], [{ x: 0, y: 0 }, { x: 0, y: 0 }]).worst).toBe(0);
    const b = pointBounds([f, q]);
    for (const [got, want] of [
      [b.x0, -0.3],
      [b.x1, 6.3],
      [b.y0, -0.4],
      [b.y1, 8.4],
    ] as const)
      expect(got).toBeCloseTo(want, 12);
    expect(pointBounds([[]])).toEqual({ x0: 0, y0: 0, x1: 1, y1: 1 });
  });

  it('cosine similarity', () => {
    expect(cosineSimilarity([1, 0], [0, 1])).toBe(0);
    expect(cosineSimilarity([1, 2, 3], [2, 4, 6])).toBeCloseTo(1, 15);
    expect(cosineSimilarity([1, 0], [-1, 0])).toBe(-1);
    expect(cosineSimilarity([0, 0], [1, 0])).toBeNaN();
  });

  it('one channel of a mask as grey pixels', () => {
    expect(planeOf([1, 256, 256])).toEqual({ height: 256, width: 256, channels: 1 });
    expect(planeOf([64, 64, 3])).toEqual({ height: 64, width: 64, channels: 3 });
    expect(planeOf([1, 16])).toEqual({ height: 1, width: 16, channels: 1 });
    expect(planeOf([7])).toEqual({ height: 1, width: 7, channels: 1 });
    expect(planeOf([])).toEqual({ height: 1, width: 1, channels: 1 });
    const plane = planeOf([1, 2, 2, 2]);
    expect(plane).toEqual({ height: 2, width: 2, channels: 2 });
    const values = [0, 10, 1, 11, 2, 12, 3, 13];
    expect(Array.from(channel(values, plane, 1))).toEqual([10, 11, 12, 13]);
    expect(valueRange([0, 1, NaN], [3, -Infinity])).toEqual([0, 3]);
    expect(valueRange([NaN])).toEqual([0, 1]);
    expect(Array.from(greyPixels([0, 3, NaN], 0, 3))).toEqual([0, 0, 0, 255, 255, 255, 255, 255, 255, 0, 255, 255]);
    expect(Array.from(greyPixels([5], 5, 5))).toEqual([128, 128, 128, 255]);
  });
});
