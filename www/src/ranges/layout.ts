/**
 * Where the Ranges plot puts its parts, for the width of the box it is drawn in. A wide box gets
 * the desktop layout: a 900-unit canvas scaled to the box, each row's name in a left margin and
 * its range after its right end. A narrow box (a phone) gets a stacked layout drawn one unit per
 * CSS pixel, so the text keeps its size: every label on a line of its own above what it names,
 * placed so that it stays inside the box, nothing scrolling sideways. No DOM; unit-tested in
 * layout.test.ts.
 */

/** Positions (in the SVG's own units) of the plot's parts. */
export interface PlotLayout {
  /** Narrow: labels stacked above their rows, one unit per CSS pixel. */
  stacked: boolean;
  width: number;
  height: number;
  /** Left and right ends of the value axis. */
  left: number;
  right: number;
  /** The observed min / max labels' baselines (stacked: two lines, so they never collide). */
  markerLabelY: [number, number];
  histTop: number;
  histBottom: number;
  gridY: number;
  /** Baseline of the q labels at both ends of the grid, and of the grid's own title. */
  gridLabelY: number;
  gridTitleY: number;
  /** The four range rows' lines; stacked layouts put each row's label 9 units above its line. */
  rowsY: [number, number, number, number];
  /** Font size of the plot's text in SVG units (stacked: CSS pixels). */
  fontSize: number;
}

/** Below this box width (CSS px) the plot is stacked; the desktop layout would shrink its text under 8.5 px. */
export const STACK_BELOW_PX = 760;
/** The narrowest stacked canvas (a narrower box scales it down). */
const MIN_STACKED_WIDTH = 280;

/** The layout for a plot box `widthPx` wide (0 when unknown, e.g. a hidden tab: desktop). */
export function plotLayout(widthPx: number): PlotLayout {
  if (!(widthPx > 0) || widthPx >= STACK_BELOW_PX) {
    return {
      stacked: false,
      width: 900,
      height: 330,
      left: 120,
      right: 780,
      markerLabelY: [18, 18],
      histTop: 28,
      histBottom: 170,
      gridY: 196,
      gridLabelY: 216,
      gridTitleY: 200,
      rowsY: [238, 262, 286, 310],
      fontSize: 10,
    };
  }
  const width = Math.max(MIN_STACKED_WIDTH, Math.floor(widthPx));
  const histTop = 44;
  return {
    stacked: true,
    width,
    height: 398,
    left: 12,
    right: width - 12,
    markerLabelY: [14, 30],
    histTop,
    histBottom: 176,
    gridY: 208,
    gridLabelY: 230,
    gridTitleY: 248,
    rowsY: [282, 318, 354, 390],
    fontSize: 12,
  };
}

/** Where a text goes: its x and its anchor. */
export interface Placed {
  x: number;
  anchor: 'start' | 'middle' | 'end';
}

/** Estimated width of `text` at `fontSize` (0.62 em a character: wider than a monospace digit). */
export function textWidth(text: string, fontSize: number): number {
  return text.length * fontSize * 0.62;
}

/**
 * A label meant to sit centred on `x`, moved to start at `lo` or end at `hi` when centred it
 * would stick out of `[lo, hi]`.
 */
export function placeLabel(x: number, text: string, fontSize: number, lo: number, hi: number): Placed {
  const half = textWidth(text, fontSize) / 2;
  if (x - half < lo) return { x: lo, anchor: 'start' };
  if (x + half > hi) return { x: hi, anchor: 'end' };
  return { x, anchor: 'middle' };
}

/**
 * A label next to a mark at `x`: after it when it fits before `hi`, else before it (ending at
 * the mark), else flush with whichever edge leaves it whole.
 */
export function besideMark(x: number, text: string, fontSize: number, lo: number, hi: number, gap = 5): Placed {
  const w = textWidth(text, fontSize);
  if (x + gap + w <= hi) return { x: x + gap, anchor: 'start' };
  if (x - gap - w >= lo) return { x: x - gap, anchor: 'end' };
  return x - lo < hi - x ? { x: lo, anchor: 'start' } : { x: hi, anchor: 'end' };
}
