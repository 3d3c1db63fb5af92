/**
 * The arithmetic control of the Compare panel: two radios choosing the integer arithmetic the
 * quantized model runs with (compare/arithmetic.ts), bound to the page store's `arithmetic`, the
 * one line saying how the two differ, and (with XNNPACK chosen) what that choice does not cover.
 */
import { ARITHMETICS, ARITHMETIC_DIFFERENCE, ARITHMETIC_LABELS, XNNPACK_COVERAGE } from '../compare/arithmetic';
import type { PageStore } from '../page-state';
import { h } from './dom';

/** The control; it follows the store (a `set` elsewhere checks the matching radio). */
export function arithmeticControl(store: PageStore): HTMLElement {
  const radios = ARITHMETICS.map((a) => {
    const input = h('input', { type: 'radio', name: 'compare-arithmetic', value: a, 'data-testid': `compare-arithmetic-${a}`, checked: store.get().arithmetic === a });
    input.addEventListener('change', () => {
      if (input.checked) store.set({ arithmetic: a });
    });
    return { a, input, label: h('label', { class: 'check' }, input, ` ${ARITHMETIC_LABELS[a]}`) };
  });
  const coverage = h('p', { class: 'muted small', 'data-testid': 'compare-arithmetic-coverage', hidden: store.get().arithmetic !== 'xnnpack' }, XNNPACK_COVERAGE);
  store.subscribe('arithmetic', (chosen) => {
    for (const r of radios) r.input.checked = r.a === chosen;
    coverage.hidden = chosen !== 'xnnpack';
  });
  return h(
    'div',
    { class: 'arithmetic', 'data-testid': 'compare-arithmetic' },
    h('div', { class: 'fields', role: 'radiogroup', 'aria-label': 'Quantized model arithmetic' }, h('strong', {}, 'Quantized model:'), ...radios.map((r) => r.label)),
    h('p', { class: 'muted small', 'data-testid': 'compare-arithmetic-why' }, ARITHMETIC_DIFFERENCE),
    coverage,
  );
}
