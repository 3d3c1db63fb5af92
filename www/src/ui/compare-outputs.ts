/**
 * One model output in the Compare view, float vs quantized, read by its kind (compare/kinds.ts):
 * a select to change the kind (the guess and why are shown), the output's SQNR, max / mean
 * |float − quantized|, and what the kind is judged by: top-1 / top-5 agreement for class scores,
 * IoU for boxes, point error and a point overlay for landmarks, the float / quantized / |diff|
 * images of one channel for masks and heat maps, cosine similarity for embeddings, the first
 * elements side by side for plain values. The choices (kind, values per point, box format,
 * channel) are the caller's `OutputView`, kept while the model stays loaded.
 */
import {
  BOX_FORMAT_LABELS,
  boxAgreement,
  boxAt,
  channel,
  classAgreement,
  cosineSimilarity,
  greyPixels,
  planeOf,
  pointBounds,
  pointError,
  points,
  valueRange,
  toCorners,
  type BoxFormat,
  type Point,
} from '../compare/by-kind';
import { KIND_LABELS, OUTPUT_KINDS, isOutputKind, pointStride, type KindGuess, type OutputKind } from '../compare/kinds';
import { diffStats, formatDb, topK } from '../compare/outputs';
import type { RunOutput } from '../engine/protocol';
import type { TensorComparison } from '../engine/types';
import { formatFloat, formatShape } from '../format';
import { h, s, table, type Child } from './dom';

/** What the user chose for one output (unset: the guess). */
export interface OutputView {
  kind?: OutputKind | undefined;
  /** Values per landmark point. */
  stride?: number | undefined;
  boxFormat?: BoxFormat | undefined;
  /** Channel of a mask / heat map. */
  channel?: number | undefined;
}

export interface OutputBlockInput {
  /** Position among the model's outputs. */
  index: number;
  float: RunOutput;
  quant: RunOutput | undefined;
  guess: KindGuess;
  /** Whether the float output comes from a detection post-process (boxes are corners). */
  postProcess: boolean;
  /** `zeropoint compare`'s row of this output, when the run compared every tensor. */
  sqnr?: TensorComparison | undefined;
  view: OutputView;
  /** The user changed a choice: the caller keeps it and draws the block again. */
  onChange: (view: OutputView) => void;
}

/** Classes listed per model in the top-k tables. */
const TOP_K = 5;
/** Elements listed side by side for plain values. */
export const SHOWN_ELEMENTS = 8;
/** Side of the landmark overlay (SVG user units; it scales to the panel). */
const OVERLAY = 240;
/** Most points drawn in the overlay (a 478-point face mesh fits). */
const MAX_POINTS_DRAWN = 2000;
/** Most boxes drawn in the box overlay. */
const MAX_BOXES_DRAWN = 50;
/** Largest image side drawn (browsers refuse bigger canvases; no mask is this large). */
const MAX_IMAGE_SIDE = 4096;

const pct = (x: number): string => (Number.isFinite(x) ? `${(100 * x).toFixed(1)} %` : String(x));

function select<T extends string | number>(testId: string, label: string, options: readonly [T, string][], value: T, onChange: (v: string) => void): HTMLLabelElement {
  const el = h('select', { 'data-testid': testId }, options.map(([v, text]) => h('option', { value: String(v), selected: v === value }, text)));
  el.addEventListener('change', () => {
    onChange(el.value);
  });
  return h('label', { class: 'field inline' }, h('span', {}, label), el);
}

/** The block of one output. */
export function outputBlock(input: OutputBlockInput): HTMLElement {
  const { float: fo, quant: qo, guess, view } = input;
  const kind = view.kind ?? guess.kind;
  const head = h('h5', {}, `Output ${String(input.index)}: `, h('code', {}, fo.name), ` ${formatShape(fo.shape)} (quantized: ${qo?.dtype.toLowerCase() ?? '—'})`);
  const kindSelect = select(
    'compare-kind-select',
    'read as',
    OUTPUT_KINDS.map((k) => [k, KIND_LABELS[k]] as [OutputKind, string]),
    kind,
    (v) => {
      if (isOutputKind(v)) input.onChange({ ...view, kind: v === guess.kind ? undefined : v });
    },
  );
  const why = h(
    'span',
    { class: 'muted small', 'data-testid': 'compare-kind-reason' },
    view.kind === undefined || view.kind === guess.kind ? `guessed: ${guess.reason}` : `your choice (guessed ${KIND_LABELS[guess.kind]}: ${guess.reason})`,
  );
  const root = h('div', { class: 'compare-output', 'data-testid': 'compare-output', 'data-kind': kind, 'data-guess': guess.kind }, head, h('div', { class: 'fields kind-row' }, kindSelect, why));
  if (!qo) {
    root.append(h('p', { class: 'error-text' }, 'the quantized model has no such output'));
    return root;
  }
  const d = diffStats(fo.values, qo.values);
  const figures: Child[] = [
    input.sqnr ? h('span', { 'data-testid': 'compare-output-sqnr', 'data-value': String(input.sqnr.sqnr_db) }, `SQNR ${formatDb(input.sqnr.sqnr_db)} · `) : null,
    `max |float − quantized| ${formatFloat(d.maxAbs)} (element ${String(d.at)}), mean ${formatFloat(d.meanAbs)}`,
    kind === 'landmarks' || kind === 'mask' ? h('span', { class: 'muted' }, ' (in the output’s units)') : null,
  ];
  root.append(h('p', { 'data-testid': 'compare-diff', 'data-max': d.maxAbs, 'data-mean': d.meanAbs }, ...figures));
  const body =
    kind === 'classes'
      ? classesBody(fo, qo)
      : kind === 'boxes'
        ? boxesBody(input, fo, qo)
        : kind === 'landmarks'
          ? landmarksBody(input, fo, qo)
          : kind === 'mask'
            ? maskBody(input, fo, qo)
            : kind === 'embedding'
              ? embeddingBody(fo, qo)
              : valuesBody(fo, qo);
  root.append(body);
  return root;
}

function classesBody(fo: RunOutput, qo: RunOutput): HTMLElement {
  const classes = fo.shape[fo.shape.length - 1] ?? fo.values.length;
  const a = classAgreement(fo.values, qo.values, classes, TOP_K);
  const box = h('div', { 'data-testid': 'compare-kind-classes', 'data-top1-same': a.top1Same, 'data-rows': a.rows, 'data-topk-overlap': a.topKOverlap });
  if (a.rows !== 1) {
    box.append(
      h(
        'p',
        { 'data-testid': 'compare-top1', 'data-agree': String(a.top1Same === a.rows) },
        `${a.rows.toLocaleString('en-US')} rows of ${String(classes)} classes: the top-1 class is the same in ${a.top1Same.toLocaleString('en-US')} (${pct(a.top1Same / a.rows)}); top-${String(a.k)} overlap ${pct(a.topKOverlap)} on average.`,
      ),
    );
    return box;
  }
  const ft = topK(fo.values, a.k);
  const qt = topK(qo.values, a.k);
  const agree = ft[0]?.index === qt[0]?.index;
  const common = Math.round(a.topKOverlap * a.k);
  const list = (ranked: typeof ft, values: Float32Array, other: Float32Array, testId: string): HTMLElement =>
    h(
      'ol',
      { class: 'topk', 'data-testid': testId },
      ranked.map((r) => h('li', { 'data-class': r.index }, h('strong', {}, `class ${String(r.index)}`), ` ${formatFloat(values[r.index] ?? NaN)}`, h('span', { class: 'muted' }, ` (other ${formatFloat(other[r.index] ?? NaN)})`))),
    );
  box.append(
    h(
      'p',
      { 'data-testid': 'compare-top1', 'data-agree': String(agree) },
      agree ? `Top-1 agrees: both pick class ${String(ft[0]?.index ?? '')}.` : `Top-1 differs: float class ${String(ft[0]?.index ?? '')}, quantized class ${String(qt[0]?.index ?? '')}.`,
      ` Top-${String(a.k)}: ${String(common)} of ${String(a.k)} classes in common${agree ? '' : `; the float top-1 is ${a.top1InTopK === 1 ? '' : 'not '}in the quantized top-${String(a.k)}`}.`,
    ),
    h('div', { class: 'side-by-side' }, h('div', {}, h('h6', {}, 'float'), list(ft, fo.values, qo.values, 'compare-topk-float')), h('div', {}, h('h6', {}, 'quantized'), list(qt, qo.values, fo.values, 'compare-topk-quant'))),
  );
  return box;
}

function boxesBody(input: OutputBlockInput, fo: RunOutput, qo: RunOutput): HTMLElement {
  const width = fo.shape[fo.shape.length - 1] ?? 4;
  const format = input.view.boxFormat ?? (input.postProcess ? 'corners' : 'center');
  const a = boxAgreement(fo.values, qo.values, width, format);
  const formatSelect = select(
    'compare-box-format',
    'coordinates',
    (Object.keys(BOX_FORMAT_LABELS) as BoxFormat[]).map((f) => [f, BOX_FORMAT_LABELS[f]] as [BoxFormat, string]),
    format,
    (v) => {
      input.onChange({ ...input.view, boxFormat: v === 'corners' ? 'corners' : 'center' });
    },
  );
  const what = input.postProcess
    ? 'Detection slots compared one to one (slot i of both models).'
    : `Raw regressor rows: IoU of the first 4 values of each row read as ${BOX_FORMAT_LABELS[format]}${width > 4 ? `; the ${String((width - 4) / 2)} keypoints after them count in the value error above` : ''}. A centre form reads [x, y, w, h] the same way (IoU does not change when both axes swap).`;
  return h(
    'div',
    { 'data-testid': 'compare-kind-boxes', 'data-mean-iou': a.meanIou, 'data-min-iou': a.minIou, 'data-boxes': a.boxes, 'data-empty': a.emptyInBoth, 'data-format': format },
    h('div', { class: 'fields' }, formatSelect),
    h(
      'p',
      { 'data-testid': 'compare-iou' },
      a.boxes === 0
        ? 'No box to compare: every row is all zeros in both models.'
        : [
            h('strong', {}, `Mean IoU ${Number.isFinite(a.meanIou) ? a.meanIou.toFixed(3) : String(a.meanIou)}`),
            ` over ${a.boxes.toLocaleString('en-US')} boxes; lowest ${Number.isFinite(a.minIou) ? a.minIou.toFixed(3) : String(a.minIou)} (box ${String(a.worst)}); ${a.below50.toLocaleString('en-US')} below 0.5.`,
          ],
      a.emptyInBoth > 0 ? ` ${a.emptyInBoth.toLocaleString('en-US')} rows all zeros in both (unused slots) left out.` : '',
    ),
    h('p', { class: 'muted small' }, what),
    boxOverlay(fo.values, qo.values, width, format),
  );
}

/** Up to MAX_BOXES_DRAWN compared boxes: float solid, quantized dashed, y down. */
function boxOverlay(fv: Float32Array, qv: Float32Array, width: number, format: BoxFormat): Element | null {
  const w = Math.max(4, width);
  const rows = Math.floor(Math.min(fv.length, qv.length) / w);
  const pairs: [number, [number, number, number, number], [number, number, number, number]][] = [];
  let more = false;
  for (let r = 0; r < rows; r++) {
    const a = boxAt(fv, r, w);
    const b = boxAt(qv, r, w);
    if ((a.every((v) => v === 0) && b.every((v) => v === 0)) || ![...a, ...b].every(Number.isFinite)) continue;
    if (pairs.length === MAX_BOXES_DRAWN) {
      more = true;
      break;
    }
    pairs.push([r, toCorners(a, format), toCorners(b, format)]);
  }
  if (pairs.length === 0) return null;
  const corners = pairs.flatMap(([, a, b]) => [a, b].flatMap(([y0, x0, y1, x1]) => [{ x: x0, y: y0 }, { x: x1, y: y1 }]));
  const bd = pointBounds([corners]);
  const scale = OVERLAY / Math.max(bd.x1 - bd.x0, bd.y1 - bd.y0);
  const [vw, vh] = [(bd.x1 - bd.x0) * scale, (bd.y1 - bd.y0) * scale];
  const rect = ([y0, x0, y1, x1]: [number, number, number, number], cls: string, title: string): Element =>
    s('rect', { x: (x0 - bd.x0) * scale, y: (y0 - bd.y0) * scale, width: Math.max(0.5, (x1 - x0) * scale), height: Math.max(0.5, (y1 - y0) * scale), class: cls }, s('title', {}, title));
  const svg = s(
    'svg',
    { class: 'point-overlay box-overlay', viewBox: `-4 -4 ${String(vw + 8)} ${String(vh + 8)}`, 'data-testid': 'compare-box-overlay', role: 'img', 'aria-label': `${String(pairs.length)} float and quantized box pairs` },
    s('rect', { x: -4, y: -4, width: vw + 8, height: vh + 8, class: 'bg' }),
    ...pairs.flatMap(([r, a, b]) => [rect(a, 'float-box', `float box ${String(r)}`), rect(b, 'quant-box', `quantized box ${String(r)}`)]),
  );
  return h(
    'figure',
    { class: 'kind-figure' },
    svg,
    h('figcaption', { class: 'muted small' }, h('span', { class: 'key float' }), ' float · ', h('span', { class: 'key quant' }), ` quantized (dashed), ${more ? `the first ${String(pairs.length)} boxes` : 'every box compared'}, y down`),
  );
}

function landmarksBody(input: OutputBlockInput, fo: RunOutput, qo: RunOutput): HTMLElement {
  const last = fo.shape[fo.shape.length - 1] ?? 2;
  const flat = fo.shape.filter((x) => x !== 1).length <= 1;
  const stride = input.view.stride ?? (flat ? pointStride(fo.values.length) : Math.max(2, last));
  const fp = points(fo.values, stride);
  const qp = points(qo.values, stride);
  const e = pointError(fp, qp);
  const strideSelect = select(
    'compare-point-stride',
    'values per point',
    [2, 3, 4, 5].filter((k) => fo.values.length % k === 0 || k === stride).map((k) => [k, k === 5 ? '5 (x, y, z, visibility, presence)' : k === 3 ? '3 (x, y, z)' : String(k)] as [number, string]),
    stride,
    (v) => {
      input.onChange({ ...input.view, stride: Number(v) });
    },
  );
  return h(
    'div',
    { 'data-testid': 'compare-kind-landmarks', 'data-points': e.points, 'data-max-distance': e.maxDistance, 'data-mean-distance': e.meanDistance, 'data-stride': stride },
    h('div', { class: 'fields' }, strideSelect),
    h(
      'p',
      { 'data-testid': 'compare-point-error' },
      `${e.points.toLocaleString('en-US')} points (x, y = the first 2 of every ${String(stride)} values): distance float → quantized max ${formatFloat(e.maxDistance)} (point ${String(e.worst)}), mean ${formatFloat(e.meanDistance)}, in the output’s units.`,
    ),
    pointOverlay(fp, qp),
  );
}

/** Float points (filled) and quantized points (rings) with a line between each pair, y down. */
function pointOverlay(fp: readonly Point[], qp: readonly Point[]): Element {
  const f = fp.slice(0, MAX_POINTS_DRAWN);
  const q = qp.slice(0, MAX_POINTS_DRAWN);
  const b = pointBounds([f, q]);
  const scale = OVERLAY / Math.max(b.x1 - b.x0, b.y1 - b.y0);
  const w = (b.x1 - b.x0) * scale;
  const ht = (b.y1 - b.y0) * scale;
  const X = (x: number): number => (x - b.x0) * scale;
  const Y = (y: number): number => (y - b.y0) * scale;
  const ok = (p: Point | undefined): p is Point => p !== undefined && Number.isFinite(p.x) && Number.isFinite(p.y);
  const lines: Element[] = [];
  const dots: Element[] = [];
  f.forEach((p, i) => {
    const o = q[i];
    if (ok(p) && ok(o)) lines.push(s('line', { x1: X(p.x), y1: Y(p.y), x2: X(o.x), y2: Y(o.y), class: 'pair' }));
    if (ok(p)) dots.push(s('circle', { cx: X(p.x), cy: Y(p.y), r: 2.2, class: 'float' }, s('title', {}, `float point ${String(i)}: (${formatFloat(p.x)}, ${formatFloat(p.y)})`)));
  });
  q.forEach((p, i) => {
    if (ok(p)) dots.push(s('circle', { cx: X(p.x), cy: Y(p.y), r: 3.2, class: 'quant' }, s('title', {}, `quantized point ${String(i)}: (${formatFloat(p.x)}, ${formatFloat(p.y)})`)));
  });
  const svg = s(
    'svg',
    { class: 'point-overlay', viewBox: `-4 -4 ${String(w + 8)} ${String(ht + 8)}`, 'data-testid': 'compare-point-overlay', role: 'img', 'aria-label': `${String(f.length)} float points and ${String(q.length)} quantized points` },
    s('rect', { x: -4, y: -4, width: w + 8, height: ht + 8, class: 'bg' }),
    ...lines,
    ...dots,
  );
  return h(
    'figure',
    { class: 'kind-figure' },
    svg,
    h('figcaption', { class: 'muted small' }, h('span', { class: 'key float' }), ' float · ', h('span', { class: 'key quant' }), ` quantized (y down, x ${formatFloat(b.x0)}…${formatFloat(b.x1)}, y ${formatFloat(b.y0)}…${formatFloat(b.y1)})`),
  );
}

function image(values: ArrayLike<number>, width: number, height: number, lo: number, hi: number, testId: string, caption: string): HTMLElement {
  const canvas = h('canvas', { width, height, class: 'mask-image', 'data-testid': testId, role: 'img', 'aria-label': `${caption}: ${String(width)}×${String(height)} grey image` });
  const ctx = canvas.getContext('2d');
  ctx?.putImageData(new ImageData(greyPixels(values, lo, hi) as Uint8ClampedArray<ArrayBuffer>, width, height), 0, 0);
  return h('figure', { class: 'kind-figure' }, canvas, h('figcaption', { class: 'muted small' }, caption));
}

function maskBody(input: OutputBlockInput, fo: RunOutput, qo: RunOutput): HTMLElement {
  const plane = planeOf(fo.shape);
  const c = Math.min(Math.max(0, input.view.channel ?? 0), plane.channels - 1);
  const f = channel(fo.values, plane, c);
  const q = channel(qo.values, plane, c);
  const diff = f.map((v, i) => Math.abs(v - (q[i] ?? NaN)));
  const d = diffStats(f, q);
  const [lo, hi] = valueRange(f, q);
  const channelSelect =
    plane.channels > 1
      ? select(
          'compare-mask-channel',
          'channel',
          Array.from({ length: plane.channels }, (_, k) => [k, String(k)] as [number, string]),
          c,
          (v) => {
            input.onChange({ ...input.view, channel: Number(v) });
          },
        )
      : null;
  const batch = fo.shape.length === 4 && (fo.shape[0] ?? 1) > 1 ? ' (the first image of the batch)' : '';
  return h(
    'div',
    { 'data-testid': 'compare-kind-mask', 'data-channel': c, 'data-max': d.maxAbs, 'data-mean': d.meanAbs },
    channelSelect ? h('div', { class: 'fields' }, channelSelect) : null,
    h(
      'p',
      { 'data-testid': 'compare-mask-error' },
      `Channel ${String(c)} of ${String(plane.channels)}${batch}, ${String(plane.height)}×${String(plane.width)}: max |float − quantized| ${formatFloat(d.maxAbs)}, mean ${formatFloat(d.meanAbs)}.`,
    ),
    plane.width > MAX_IMAGE_SIDE || plane.height > MAX_IMAGE_SIDE
      ? h('p', { class: 'muted' }, `${String(plane.height)}×${String(plane.width)} is too large to draw (more than ${String(MAX_IMAGE_SIDE)} pixels a side).`)
      : h(
          'div',
          { class: 'mask-row' },
          image(f, plane.width, plane.height, lo, hi, 'compare-mask-float', 'float'),
          image(q, plane.width, plane.height, lo, hi, 'compare-mask-quant', 'quantized'),
          image(diff, plane.width, plane.height, 0, d.maxAbs, 'compare-mask-diff', `|diff| (white = ${formatFloat(d.maxAbs)})`),
        ),
    h('p', { class: 'muted small' }, `Grey scale: black ${formatFloat(lo)} … white ${formatFloat(hi)}, the same for both models.`),
  );
}

function embeddingBody(fo: RunOutput, qo: RunOutput): HTMLElement {
  const cos = cosineSimilarity(fo.values, qo.values);
  const norm = (v: Float32Array): number => Math.sqrt(v.reduce((a, x) => a + x * x, 0));
  return h(
    'div',
    { 'data-testid': 'compare-kind-embedding', 'data-cosine': cos },
    h(
      'p',
      { 'data-testid': 'compare-cosine' },
      h('strong', {}, `Cosine similarity ${Number.isFinite(cos) ? cos.toFixed(5) : String(cos)}`),
      ` (1 = same direction); length float ${formatFloat(norm(fo.values))}, quantized ${formatFloat(norm(qo.values))}.`,
    ),
  );
}

function valuesBody(fo: RunOutput, qo: RunOutput): HTMLElement {
  const n = Math.min(SHOWN_ELEMENTS, fo.values.length);
  const rows: Child[][] = Array.from({ length: n }, (_, i) => [String(i), formatFloat(fo.values[i] ?? NaN), formatFloat(qo.values[i] ?? NaN), formatFloat(Math.abs((fo.values[i] ?? 0) - (qo.values[i] ?? 0)))]);
  return h(
    'div',
    { 'data-testid': 'compare-kind-values' },
    table('compare-values', ['#', 'float', 'quantized', '|diff|'], rows, [0, 1, 2, 3]),
    fo.values.length > n ? h('p', { class: 'muted small' }, `first ${String(n)} of ${fo.values.length.toLocaleString('en-US')} elements`) : null,
  );
}
