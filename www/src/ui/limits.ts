/**
 * The "Limits" settings panel: the largest model file, tensor and activation arena (MB, as the
 * CLI's `--max-model-mb`, `--max-tensor-mb`, `--max-arena-mb`) and the most calibration samples
 * held decoded in memory. Defaults are shown next to each field; a valid change is applied at
 * once (`onChange`), an invalid one is named and not applied.
 */
import { DEFAULT_LIMITS, LIMIT_LABELS, limitProblem, type PageLimits } from '../limits';
import { h } from './dom';

const FIELDS: readonly { key: keyof PageLimits; testId: string; step: string }[] = [
  { key: 'maxModelMb', testId: 'limit-model-mb', step: 'any' },
  { key: 'maxTensorMb', testId: 'limit-tensor-mb', step: 'any' },
  { key: 'maxArenaMb', testId: 'limit-arena-mb', step: 'any' },
  { key: 'maxCalibrationSamples', testId: 'limit-calibration-samples', step: '1' },
];

export interface LimitsPanelOptions {
  initial: PageLimits;
  onChange: (limits: PageLimits) => void;
}

export class LimitsPanel {
  private limits: PageLimits;
  private readonly inputs = new Map<keyof PageLimits, HTMLInputElement>();
  private readonly error: HTMLElement;

  constructor(root: HTMLElement, private readonly options: LimitsPanelOptions) {
    this.limits = { ...options.initial };
    this.error = h('p', { class: 'limits-error', 'data-testid': 'limits-error', role: 'alert', hidden: true });
    const rows = FIELDS.map(({ key, testId, step }) => {
      const input = h('input', {
        type: 'number',
        min: '0',
        step,
        id: testId,
        value: String(this.limits[key]),
        'data-testid': testId,
      });
      input.addEventListener('change', () => {
        this.apply(key, input);
      });
      this.inputs.set(key, input);
      return h(
        'div',
        { class: 'limits-row' },
        h('label', { for: testId }, LIMIT_LABELS[key]),
        input,
        h('span', { class: 'muted' }, `default ${DEFAULT_LIMITS[key].toLocaleString('en-US')}`),
      );
    });
    const reset = h('button', { type: 'button', 'data-testid': 'limits-reset' }, 'Restore defaults');
    reset.addEventListener('click', () => {
      this.set({ ...DEFAULT_LIMITS });
    });
    root.append(
      h('summary', {}, 'Limits'),
      h(
        'p',
        { class: 'muted' },
        'Checked before a model is read and whenever the engine prepares one; a model or tensor over a limit is refused by name. Saved in this browser. MB = 2',
        h('sup', {}, '20'),
        ' bytes; the CLI takes the same values as --max-model-mb, --max-tensor-mb and --max-arena-mb.',
      ),
      h('div', { class: 'limits-fields' }, rows),
      this.error,
      reset,
    );
  }

  /** The limits in effect. */
  get current(): PageLimits {
    return { ...this.limits };
  }

  private apply(key: keyof PageLimits, input: HTMLInputElement): void {
    const value = input.value.trim() === '' ? Number.NaN : Number(input.value);
    const problem = limitProblem(key, value);
    if (problem) {
      this.error.textContent = `${problem}; still using ${this.limits[key].toLocaleString('en-US')}.`;
      this.error.hidden = false;
      input.setAttribute('aria-invalid', 'true');
      return;
    }
    input.removeAttribute('aria-invalid');
    this.error.hidden = true;
    this.limits = { ...this.limits, [key]: value };
    this.options.onChange(this.current);
  }

  private set(limits: PageLimits): void {
    this.limits = limits;
    for (const [key, input] of this.inputs) {
      input.value = String(limits[key]);
      input.removeAttribute('aria-invalid');
    }
    this.error.hidden = true;
    this.options.onChange(this.current);
  }
}
