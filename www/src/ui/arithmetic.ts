/**
 * The arithmetic control of the Compare panel: two radios choosing the integer arithmetic the
 * quantized model runs with (compare/arithmetic.ts), bound to the page store's `arithmetic`, and
 * the one line saying how the two differ.
 */
import { ARITHMETICS, ARITHMETIC_DIFFERENCE, ARITHMETIC_LABELS } from '../compare/arithmetic';
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
  store.subscribe('arithmetic', (chosen) => {
    for (const r of radios) r.input.checked = r.a === chosen;
  });
  return h(
    'div',
    { class: 'arithmetic', 'data-testid': 'compare-arithmetic' },
    h('div', { class: 'fields', role: 'radiogroup', 'aria-label': 'Quantized model arithmetic' }, h('strong', {}, 'Quantized model:'), ...radios.map((r) => r.label)),
    h('p', { class: 'muted small', 'data-testid': 'compare-arithmetic-why' }, ARITHMETIC_DIFFERENCE),
  );
}
