/**
 * The page's tabs (Model · Calibrate · Ranges · Quantize · Compare): buttons with
 * `data-tab="<name>"` inside the tab list show the panel with `data-panel="<name>"`.
 * The shown tab is also on `document.body.dataset.tab` (for tests and styling).
 */
export const TAB_NAMES = ['model', 'calibrate', 'ranges', 'quantize', 'compare'] as const;
export type TabName = (typeof TAB_NAMES)[number];

export function isTabName(value: string | undefined): value is TabName {
  return (TAB_NAMES as readonly string[]).includes(value ?? '');
}

export class Tabs {
  private current: TabName = 'model';

  constructor(
    private readonly list: HTMLElement,
    private readonly onShow: (tab: TabName) => void = () => undefined,
  ) {
    list.addEventListener('click', (event) => {
      const button = event.target instanceof Element ? event.target.closest('[data-tab]') : null;
      const name = button?.getAttribute('data-tab') ?? undefined;
      if (isTabName(name)) this.show(name);
    });
    list.addEventListener('keydown', (event) => {
      if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
      const i = TAB_NAMES.indexOf(this.current);
      const next = TAB_NAMES[(i + (event.key === 'ArrowRight' ? 1 : TAB_NAMES.length - 1)) % TAB_NAMES.length];
      if (next) {
        this.show(next);
        list.querySelector<HTMLElement>(`[data-tab="${next}"]`)?.focus();
      }
    });
    this.show('model');
  }

  get shown(): TabName {
    return this.current;
  }

  show(tab: TabName): void {
    this.current = tab;
    for (const button of this.list.querySelectorAll('[data-tab]')) {
      const selected = button.getAttribute('data-tab') === tab;
      button.setAttribute('aria-selected', String(selected));
      button.setAttribute('tabindex', selected ? '0' : '-1');
    }
    for (const panel of document.querySelectorAll<HTMLElement>('[data-panel]')) {
      panel.hidden = panel.getAttribute('data-panel') !== tab;
    }
    document.body.dataset['tab'] = tab;
    this.onShow(tab);
  }
}
