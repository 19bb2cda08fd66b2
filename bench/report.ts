/**
 * The benchmark's output: figures (one JSON object each) and the markdown table people read.
 *
 * A figure is one number. The table groups figures that belong together (p50/p99/max of one run)
 * into one line, so the whole suite fits a README screen; the JSON keeps every number separately.
 */
import { cpus, totalmem } from 'node:os';

export interface Reference {
  /** e.g. "bare Fastify", "bare node:http", "nominal". */
  name: string;
  value: number;
  /** figure / reference. */
  ratio: number;
}

export interface Figure {
  name: string;
  /** null when it could not be measured; `note` says why. */
  value: number | null;
  unit: string;
  /** The first reference (the one a target is stated against), repeated flat for easy consumption. */
  reference?: number;
  ratio?: number;
  references?: Reference[];
  /** The design target, in words ("<= 5 ms"), and whether this run met it. */
  target?: string;
  met?: boolean;
  note?: string;
}

/** One line of the markdown table. */
export interface TableRow {
  figure: string;
  value: string;
  reference: string;
  ratio: string;
  target: string;
  /** "yes", "NO", or "" when the row has no target. */
  met: string;
}

export interface Section {
  figures: Figure[];
  rows: TableRow[];
}

export interface BenchReport {
  date: string;
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string; platform: string };
  mode: 'full' | 'quick';
  durationS: number;
  rows: Figure[];
}

/** Fixed-point formatting that keeps small numbers readable; "n/a" for a missing value. */
export function fmt(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return 'n/a';
  if (Math.abs(value) >= 1000) return Math.round(value).toString();
  return value.toFixed(digits);
}

export function figureWithReferences(
  base: Omit<Figure, 'reference' | 'ratio' | 'references'>,
  references: { name: string; value: number | null }[],
): Figure {
  const usable = references.filter((r): r is { name: string; value: number } => r.value !== null && r.value > 0);
  const refs =
    base.value === null
      ? []
      : usable.map((r) => ({ name: r.name, value: r.value, ratio: (base.value as number) / r.value }));
  const figure: Figure = { ...base };
  if (refs.length) {
    figure.references = refs;
    figure.reference = refs[0].value;
    figure.ratio = refs[0].ratio;
  }
  return figure;
}

/** A row for something that could not be measured at all (endpoint missing, no packets, a crash). */
export function unavailable(name: string, unit: string, reason: string, target?: string): Section {
  return {
    figures: [{ name, value: null, unit, note: reason, ...(target ? { target } : {}) }],
    rows: [
      {
        figure: name,
        value: `n/a (${reason})`,
        reference: '',
        ratio: '',
        target: target ?? '',
        met: target ? 'NO' : '',
      },
    ],
  };
}

export function mergeSections(sections: Section[]): Section {
  return { figures: sections.flatMap((s) => s.figures), rows: sections.flatMap((s) => s.rows) };
}

export function metText(met: boolean | undefined): string {
  if (met === undefined) return '';
  return met ? 'yes' : 'NO';
}

const escapeCell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderMarkdown(rows: TableRow[]): string {
  const header = '| Figure | Value | Reference | Ratio | Target | Met |\n|---|---|---|---|---|---|';
  // Every row names the target it checks; a row that checks none says so (it is context for the others).
  const lines = rows.map(
    (r) =>
      `| ${[r.figure, r.value, r.reference, r.ratio, r.target || 'none (context)', r.met].map(escapeCell).join(' | ')} |`,
  );
  return [header, ...lines].join('\n');
}

export function machineFacts(): BenchReport['machine'] {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}
