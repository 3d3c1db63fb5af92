/**
 * The model summary panel: headline numbers, download of the rewritten model, inputs/outputs,
 * operator counts, signatures, metadata and a per-subgraph tensor table.
 */
import type { InputShapes, ModelSummary, SubgraphSummary, TensorSummary } from '../engine/types';
import { formatBytes, formatCount, formatDtype, formatInt, formatQuant, formatShape } from '../format';
import { chosenShape, dynamicInputs, withDim, type DynamicInput } from '../model/input-shapes';
import { signatureLabel } from '../model/signatures';
import { filterTensors, ioRows, modelStats, tensorKind, tensorRole } from '../view-model';
import { append, h, table, type Child } from './dom';
import { warningList } from './warnings';

export interface LoadedModel {
  name: string;
  size: number;
  summary: ModelSummary;
}

export interface SummaryActions {
  /** Ask for the rewritten model and offer it as a download; resolves with a line to show. */
  download: (externalBuffers: boolean) => Promise<string>;
  /** A row of the tensor table was clicked (subgraph 0). */
  selectTensor?: (index: number) => void;
  /** The chosen input shapes and how to change them: shows a dims control beside each input with
   * dynamic dims (absent: no control). */
  shapes?: { chosen: InputShapes; set: (shapes: InputShapes) => void } | undefined;
  /** The chosen signature and how to change it: shows a picker for a model with several
   * signatures (absent: no picker). */
  signature?: { chosen: string | undefined; set: (key: string) => void } | undefined;
}

/** Rows beyond this are rendered only on request (models can have thousands of tensors). */
const TENSOR_ROWS_SHOWN = 500;

export function renderSummary(root: HTMLElement, model: LoadedModel, actions: SummaryActions): void {
  const { summary } = model;
  root.replaceChildren();
  append(root, [
    h(
      'div',
      { class: 'summary-head' },
      h('h2', { 'data-testid': 'model-name' }, model.name),
      downloadControls(actions),
    ),
    h(
      'dl',
      { class: 'stats', 'data-testid': 'model-stats' },
      modelStats(summary, model.size).map((s) =>
        h(
          'div',
          {},
          h('dt', {}, s.label),
          h('dd', {}, s.value, s.detail ? h('span', { class: 'detail' }, s.detail) : null),
        ),
      ),
    ),
    warningsSection(summary),
    h('div', { class: 'grid' }, ioSection(summary, actions.shapes), opCountsSection(summary)),
    signaturesSection(summary, actions.signature),
    metadataSection(summary),
    summary.subgraphs.map((sg, i) => subgraphSection(sg, i, summary.subgraphs.length, i === 0 ? actions.selectTensor : undefined)),
  ]);
  root.hidden = false;
}

function downloadControls(actions: SummaryActions): HTMLElement[] {
  const button = h(
    'button',
    { type: 'button', class: 'primary', 'data-testid': 'download-button' },
    'Download rewritten .tflite',
  );
  const external = h('input', { type: 'checkbox', 'data-testid': 'external-buffers' });
  const info = h('span', { class: 'download-info', 'data-testid': 'download-info', 'aria-live': 'polite' });
  button.addEventListener('click', () => {
    button.disabled = true;
    info.textContent = 'rewriting…';
    actions.download(external.checked).then(
      (text) => {
        info.textContent = text;
        button.disabled = false;
      },
      () => {
        info.textContent = 'rewrite failed';
        button.disabled = false;
      },
    );
  });
  return [
    h(
      'div',
      { class: 'download' },
      button,
      h(
        'label',
        {
          class: 'check',
          title: 'Store tensor data after the flatbuffer (the layout LiteRT uses for models over 2 GB)',
        },
        external,
        ' external buffers',
      ),
    ),
    info,
  ];
}

function section(title: string, testId: string, ...content: (Child | Child[])[]): HTMLElement {
  return h('section', { class: 'card', 'data-testid': testId }, h('h3', {}, title), ...content);
}

function ioSection(summary: ModelSummary, shapes: SummaryActions['shapes']): HTMLElement {
  const rows = ioRows(summary);
  const dynamic = dynamicInputs(summary);
  return section(
    'Inputs and outputs',
    'io-section',
    rows.length === 0
      ? h('p', { class: 'muted' }, 'none')
      : table(
          'io-table',
          ['', 'name', 'shape', 'dtype', 'quantization'],
          rows.map((r) => [
            h('span', { class: `tag tag-${r.role}` }, r.role),
            h('code', { class: 'name' }, r.name),
            dimsControl(r.shape, r.role === 'input' ? dynamic.find((d) => d.name === r.name) : undefined, shapes),
            r.dtype,
            r.quant,
          ]),
        ),
    summary.subgraphs.length > 1 ? h('p', { class: 'muted' }, 'Of subgraph 0.') : null,
  );
}

/**
 * The shape cell of an input row: the shape as text, and for an input with dynamic dims one
 * number field per dynamic dim (the value it runs with; default the stored one, 1 in TF's
 * exports). A value that is not a whole number ≥ 1 is refused and the field shows the last good
 * one.
 */
function dimsControl(text: string, input: DynamicInput | undefined, shapes: SummaryActions['shapes']): Child {
  if (!input || !shapes) return text;
  let chosen = shapes.chosen;
  const fields = input.axes.map((axis) => {
    const field = h('input', {
      type: 'number',
      min: '1',
      step: '1',
      class: 'dim-input',
      'data-testid': 'input-dim',
      'data-input': input.name,
      'data-axis': String(axis),
      title: `dim ${String(axis)} of '${input.name}' (dynamic: shape_signature -1)`,
      value: String(chosenShape(chosen, input)[axis]),
    });
    field.addEventListener('change', () => {
      try {
        chosen = withDim(chosen, input, axis, Number(field.value));
        field.removeAttribute('aria-invalid');
        shapes.set(chosen);
      } catch {
        field.setAttribute('aria-invalid', 'true');
        field.value = String(chosenShape(chosen, input)[axis]);
      }
    });
    return h('label', { class: 'dim' }, `dim ${String(axis)} `, field);
  });
  return h('span', { class: 'dims' }, text, ' ', ...fields);
}

function opCountsSection(summary: ModelSummary): HTMLElement {
  return section(
    'Operators',
    'op-section',
    summary.operator_counts.length === 0
      ? h('p', { class: 'muted' }, 'no operators')
      : table(
          'op-counts',
          ['operator', 'count'],
          summary.operator_counts.map((c) => [h('code', {}, c.op), formatCount(c.count)]),
          [1],
        ),
  );
}

function signaturesSection(summary: ModelSummary, pick: SummaryActions['signature']): HTMLElement | null {
  if (summary.signatures.length === 0) return null;
  const names = (items: { name: string }[]): string => items.map((i) => i.name).join(', ') || '—';
  const picker =
    pick && summary.signatures.length > 1
      ? h(
          'label',
          { class: 'signature-pick' },
          'Run signature ',
          signatureSelect(summary, pick),
          h('span', { class: 'detail' }, ' (run, stream and compare use it; the graph shows its subgraph)'),
        )
      : null;
  return section(
    'Signatures',
    'signatures',
    picker,
    table(
      'signature-table',
      ['key', 'subgraph', 'inputs', 'outputs'],
      summary.signatures.map((s) => [
        h('code', {}, s.key, pick?.chosen === s.key ? ' ✓' : ''),
        s.subgraph,
        names(s.inputs),
        names(s.outputs),
      ]),
    ),
  );
}

function signatureSelect(summary: ModelSummary, pick: NonNullable<SummaryActions['signature']>): HTMLSelectElement {
  const select = h(
    'select',
    { 'data-testid': 'signature-picker', 'aria-label': 'signature to run' },
    summary.signatures.map((s) =>
      h('option', { value: s.key, selected: s.key === pick.chosen }, `${signatureLabel(s)}, subgraph ${String(s.subgraph)}`),
    ),
  );
  select.addEventListener('change', () => {
    pick.set(select.value);
  });
  return select;
}

/** What the model carries that reads but is odd (the engine's `graph::lint`), grouped by kind. */
function warningsSection(summary: ModelSummary): HTMLElement | null {
  if (summary.warnings.length === 0) return null;
  return section(
    `Warnings (${String(summary.warnings.length)})`,
    'model-warnings',
    warningList(summary.warnings, 'model-warnings-list', false),
  );
}

function metadataSection(summary: ModelSummary): HTMLElement | null {
  if (summary.metadata.length === 0) return null;
  return section(
    'Metadata',
    'metadata',
    table(
      'metadata-table',
      ['name', 'size'],
      summary.metadata.map((m) => [h('code', {}, m.name), formatBytes(m.bytes)]),
      [1],
    ),
  );
}

function subgraphSection(subgraph: SubgraphSummary, index: number, count: number, select?: (tensor: number) => void): HTMLElement {
  const title = `Tensors${count > 1 ? ` of subgraph ${String(index)}` : ''}${subgraph.name ? ` “${subgraph.name}”` : ''}`;
  const filter = h('input', {
    type: 'search',
    class: 'filter',
    placeholder: 'filter by name, dtype or index',
    'aria-label': 'Filter tensors',
    'data-testid': `tensor-filter-${String(index)}`,
  });
  const holder = h('div', { class: 'table-scroll' });
  if (select) {
    holder.addEventListener('click', (event) => {
      const row = event.target instanceof Element ? event.target.closest('tr[data-tensor]') : null;
      const tensor = row?.getAttribute('data-tensor');
      if (tensor !== null && tensor !== undefined) select(Number(tensor));
    });
  }
  let showAll = false;
  const render = (): void => {
    const matching = filterTensors(subgraph.tensors, filter.value);
    const shown = showAll ? matching : matching.slice(0, TENSOR_ROWS_SHOWN);
    const more =
      shown.length < matching.length
        ? h(
            'button',
            { type: 'button', class: 'link' },
            `show all ${formatCount(matching.length)} tensors (${formatCount(matching.length - shown.length)} more)`,
          )
        : null;
    more?.addEventListener('click', () => {
      showAll = true;
      render();
    });
    holder.replaceChildren(tensorTable(subgraph, shown, index), more ?? '');
  };
  filter.addEventListener('input', render);
  render();
  const details = h(
    'details',
    { class: 'card', open: index === 0, 'data-testid': `subgraph-${String(index)}` },
    h(
      'summary',
      {},
      h('h3', {}, title),
      h(
        'span',
        { class: 'muted' },
        ` ${formatCount(subgraph.tensors.length)} tensors, ${formatCount(subgraph.operators.length)} operators`,
      ),
    ),
    filter,
    holder,
  );
  return details;
}

function tensorTable(subgraph: SubgraphSummary, tensors: TensorSummary[], index: number): HTMLTableElement {
  return table(
    index === 0 ? 'tensor-table' : `tensor-table-${String(index)}`,
    ['#', 'name', 'dtype', 'shape', 'kind', 'buffer', 'quantization'],
    tensors.map((t) => {
      const role = tensorRole(subgraph, t.index);
      return [
        formatInt(t.index),
        h('code', { class: 'name', title: t.name }, t.name, role ? h('span', { class: `tag tag-${role}` }, role) : null),
        formatDtype(t.dtype),
        formatShape(t.shape, t.shape_signature),
        tensorKind(t),
        t.data_bytes > 0 ? formatBytes(t.data_bytes) : '',
        formatQuant(t.quantization),
      ];
    }),
    [0, 5],
    (row) => ({ 'data-tensor': tensors[row]?.index, class: 'clickable' }),
  );
}
