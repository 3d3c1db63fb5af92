/**
 * The quantizer's warnings grouped for the page: warnings that differ only in operator/tensor
 * numbers and quoted names are one kind ("operator # (CONV_2D) stays float: …"), shown once with
 * a count and expandable; a single long warning (a list of 192 folded DEQUANTIZE names) is cut
 * to its head, its list expandable. Pure, unit-tested in Node.
 */

/** A warning longer than this shows its head only, the rest on demand. */
export const LONG_WARNING = 160;

export interface WarningGroup {
  /** The warning with numbers as "#" and quoted names as '…': what the group's members share. */
  kind: string;
  /** The warnings of this kind, in their order. */
  items: string[];
}

/** What a warning says with its operator/tensor numbers and quoted names taken out. */
export function warningKind(warning: string): string {
  return warning
    .replace(/'[^']*'/g, '\u2018\u2026\u2019')
    .replace(/(?<![\w^.'])\d+(?:, \d+)*(?![\w^.])/g, '#');
}

/** The warnings by kind, kinds in the order they first appear. */
export function groupWarnings(warnings: readonly string[]): WarningGroup[] {
  const groups = new Map<string, WarningGroup>();
  for (const w of warnings) {
    const kind = warningKind(w);
    const group = groups.get(kind);
    if (group) group.items.push(w);
    else groups.set(kind, { kind, items: [w] });
  }
  return [...groups.values()];
}

/**
 * A long warning split at its first ": " (the head says what happened, the rest lists where),
 * or at LONG_WARNING characters when it has none; short warnings are not split.
 */
export function splitLong(warning: string): { head: string; rest: string | undefined } {
  if (warning.length <= LONG_WARNING) return { head: warning, rest: undefined };
  const colon = warning.indexOf(': ');
  if (colon > 0 && colon <= LONG_WARNING) return { head: warning.slice(0, colon), rest: warning.slice(colon + 2) };
  return { head: `${warning.slice(0, LONG_WARNING)}\u2026`, rest: warning };
}
