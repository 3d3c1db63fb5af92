/**
 * A tiny element builder: `h('td', { class: 'num' }, '42')`. Text is always set as text
 * (never parsed as HTML), so model-provided strings (tensor names, descriptions) are safe.
 */

export type Child = Node | string | number | null | undefined | false;
export type Attrs = Record<string, string | number | boolean | null | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element: `s('circle', { cx: 1, cy: 2, r: 3 })`; text children are set as text. */
export function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}, ...children: (Node | string)[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  for (const child of children) el.append(child);
  return el;
}

/** Look up an element that index.html must contain; a missing one is a programming error. */
export function required<T extends HTMLElement>(selector: string, type: new () => T): T {
  const el = document.querySelector(selector);
  if (!(el instanceof type)) throw new Error(`page is missing ${selector}`);
  return el;
}

/**
 * A table with a header row; `numeric` columns are right-aligned. Each cell carries its column's
 * header as `data-label`, so a narrow screen can show a row as a stacked card, each value under
 * its label (styles/narrow.css). The table, row, header and cell roles are written out: a table
 * whose rows are laid out as cards (display: flex / block) would otherwise lose its table
 * semantics in the browser's accessibility tree, and a screen reader would no longer pair each
 * value with its column's name.
 */
export function table(
  testId: string,
  headers: readonly string[],
  rows: readonly Child[][],
  numeric: readonly number[] = [],
  rowAttrs?: (row: number) => Attrs,
): HTMLTableElement {
  const cls = (i: number): string | undefined => (numeric.includes(i) ? 'num' : undefined);
  return h(
    'table',
    { 'data-testid': testId, role: 'table' },
    h('thead', { role: 'rowgroup' }, h('tr', { role: 'row' }, headers.map((text, i) => h('th', { scope: 'col', role: 'columnheader', class: cls(i) }, text)))),
    h(
      'tbody',
      { role: 'rowgroup' },
      rows.map((cells, r) => h('tr', { ...(rowAttrs?.(r) ?? {}), role: 'row' }, cells.map((cell, i) => h('td', { class: cls(i), role: 'cell', 'data-label': headers[i] }, cell)))),
    ),
  );
}
