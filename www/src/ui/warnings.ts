/**
 * Two result blocks the Quantize and Compare views share: the quantizer's warnings grouped by
 * kind with a count (quantize/warnings.ts), each group expandable, so a model with hundreds of
 * warnings keeps a short page; and the SQNR verdict (compare/verdict.ts), flagged by level.
 */
import type { Verdict } from '../compare/verdict';
import { groupWarnings, splitLong } from '../quantize/warnings';
import { formatCount } from '../format';
import { h } from './dom';

/** One warning: its text, or its head with the rest behind a disclosure when it is long. */
function warningItem(text: string): HTMLElement {
  const { head, rest } = splitLong(text);
  if (rest === undefined) return h('span', { class: 'warning-one' }, text);
  return h('details', { class: 'warning-long' }, h('summary', {}, head), h('p', { class: 'warning-rest' }, rest));
}

/**
 * The warnings as a list of kinds: a kind seen once is shown as itself, a kind seen N times as
 * "N × kind", closed, its members inside; a title "N warnings of K kinds" unless the caller has
 * its own. `data-count` / `data-kinds` on the list for tests.
 */
export function warningList(warnings: readonly string[], testId: string, withTitle = true): HTMLElement {
  if (warnings.length === 0) return h('p', { class: 'muted', 'data-testid': testId, 'data-count': 0, 'data-kinds': 0 }, 'No warnings.');
  const groups = groupWarnings(warnings);
  const items = groups.map((g) => {
    const only = g.items[0];
    if (g.items.length === 1 && only !== undefined) return h('li', { 'data-testid': `${testId}-kind`, 'data-count': 1 }, warningItem(only));
    return h(
      'li',
      { 'data-testid': `${testId}-kind`, 'data-count': g.items.length },
      h(
        'details',
        { class: 'warning-group' },
        h('summary', {}, h('strong', {}, `${formatCount(g.items.length)} \u00d7 `), g.kind),
        h('ul', {}, g.items.map((w) => h('li', {}, warningItem(w)))),
      ),
    );
  });
  const title = `${formatCount(warnings.length)} warning${warnings.length === 1 ? '' : 's'}${groups.length < warnings.length ? ` of ${formatCount(groups.length)} kind${groups.length === 1 ? '' : 's'}` : ''}`;
  return h('div', { class: 'warnings', 'data-testid': testId, 'data-count': warnings.length, 'data-kinds': groups.length }, withTitle ? h('strong', {}, title) : null, h('ul', {}, items));
}

/** The verdict on the SQNR, flagged by its level (`data-level`: ruined, poor, ok). */
export function verdictBox(verdict: Verdict, testId: string): HTMLElement {
  return h(
    'p',
    {
      class: `verdict verdict-${verdict.level}`,
      role: verdict.level === 'ok' ? null : 'alert',
      'data-testid': testId,
      'data-level': verdict.level,
      'data-worst-output': verdict.worstOutput.label,
      'data-first-below': verdict.firstBelow?.label,
      'data-worst': verdict.worst.map((l) => l.label).join('|'),
      'data-random': String(verdict.randomHint),
    },
    verdict.text,
  );
}
