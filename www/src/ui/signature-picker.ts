/**
 * The signature picker of the Compare panel (run and stream): for a model with several
 * signatures, a select naming each by its key, inputs and outputs (model/signatures.ts
 * `signatureLabel`), bound to the page store's `signature` (the summary's picker sets the same
 * field). Hidden for a model with at most one signature.
 */
import { signatureLabel } from '../model/signatures';
import type { PageStore } from '../page-state';
import { h } from './dom';

/** The control; it follows the store's `model` and `signature`. */
export function signatureControl(store: PageStore, testId: string, what: string): HTMLElement {
  const select = h('select', { 'data-testid': testId, 'aria-label': `signature ${what}` });
  const root = h('div', { class: 'fields signature-control', hidden: true }, h('label', { class: 'field' }, h('span', {}, 'Signature'), select), h('span', { class: 'muted small' }, what));
  const sync = (): void => {
    const { model, signature } = store.get();
    const signatures = model?.summary.signatures ?? [];
    root.hidden = signatures.length < 2;
    select.replaceChildren(...signatures.map((s) => h('option', { value: s.key, selected: s.key === signature }, signatureLabel(s))));
    if (signature !== undefined) select.value = signature;
  };
  select.addEventListener('change', () => {
    store.set({ signature: select.value });
  });
  store.subscribe('model', sync);
  store.subscribe('signature', sync);
  sync();
  return root;
}
