import { describe, expect, it } from 'vitest';
import { STACK_BELOW_PX, besideMark, placeLabel, plotLayout, textWidth } from './layout';

describe('plotLayout', () => {
  it('keeps the desktop canvas for a wide box and for an unknown width (hidden tab)', () => {
    for (const w of [0, STACK_BELOW_PX, 1060]) {
      const l = plotLayout(w);
      expect(l.stacked).toBe(false);
      expect([l.width, l.height, l.left, l.right]).toEqual([900, 330, 120, 780]);
    }
  });
  it('draws a narrow box one unit per pixel, the axis nearly edge to edge', () => {
    const l = plotLayout(358.4);
    expect(l.stacked).toBe(true);
    expect(l.width).toBe(358);
    expect(l.left).toBe(12);
    expect(l.right).toBe(346);
  });
  it('never stacks on a canvas under 280 units (a tinier box scales it down)', () => {
    expect(plotLayout(200).width).toBe(280);
  });
  it('stacks every part below the one above it, with room for a 12 px line between rows', () => {
    const l = plotLayout(360);
    expect(l.markerLabelY[1] - l.markerLabelY[0]).toBeGreaterThanOrEqual(l.fontSize + 2);
    expect(l.markerLabelY[1]).toBeLessThan(l.histTop - 6);
    expect(l.histBottom).toBeLessThan(l.gridY - 12 - l.fontSize);
    expect(l.gridLabelY).toBeLessThan(l.gridTitleY - l.fontSize);
    // Each row's label (9 above its line) clears the line and end ticks (±5) of the row above.
    expect(l.rowsY[0] - 9 - l.fontSize).toBeGreaterThan(l.gridTitleY);
    l.rowsY.slice(1).forEach((y, i) => {
      expect(y - 9 - l.fontSize).toBeGreaterThan((l.rowsY[i] ?? Infinity) + 5);
    });
    expect(l.rowsY[3] + 5).toBeLessThanOrEqual(l.height);
  });
});

describe('placeLabel', () => {
  const w = textWidth('max 12.34', 12);
  it('centres a label that fits', () => {
    expect(placeLabel(180, 'max 12.34', 12, 4, 356)).toEqual({ x: 180, anchor: 'middle' });
  });
  it('starts it at the left edge or ends it at the right edge when centred it would stick out', () => {
    expect(placeLabel(10, 'max 12.34', 12, 4, 356)).toEqual({ x: 4, anchor: 'start' });
    expect(placeLabel(356 - w / 2 + 1, 'max 12.34', 12, 4, 356)).toEqual({ x: 356, anchor: 'end' });
  });
});

describe('besideMark', () => {
  const text = '0.0 = q -128 (zero point)';
  it('goes after the mark when it fits, before it otherwise', () => {
    expect(besideMark(12, text, 12, 4, 356)).toEqual({ x: 17, anchor: 'start' });
    expect(besideMark(346, text, 12, 4, 356)).toEqual({ x: 341, anchor: 'end' });
  });
  it('is flush with the nearer edge when it fits on neither side', () => {
    const wide = textWidth(text, 12);
    expect(besideMark(140, text, 12, 4, 4 + wide + 100)).toEqual({ x: 4, anchor: 'start' });
    expect(besideMark(wide, text, 12, 4, wide + 30)).toEqual({ x: wide + 30, anchor: 'end' });
  });
});
