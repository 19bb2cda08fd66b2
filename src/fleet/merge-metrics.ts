/**
 * One Prometheus exposition of many units: every sample gets a `unit` label, and the samples of a
 * metric family from all units are grouped under a single HELP/TYPE header (the text format allows
 * each family once). Pure text work on exposition format 0.0.4 as prom-client writes it.
 */

export interface UnitExposition {
  unit: string;
  text: string;
}

interface Family {
  header: string[];
  samples: string[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?(\s+.*)$/;

/** Label value escaping of the text format. */
function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** `name{a="b"} 1` → `name{unit="x",a="b"} 1`; null for a line that is not a sample. */
export function withUnitLabel(line: string, unit: string): string | null {
  const match = SAMPLE.exec(line);
  if (!match) return null;
  const [, name, labels, rest] = match;
  const unitLabel = `unit="${escapeLabelValue(unit)}"`;
  return `${name}{${labels ? `${unitLabel},${labels}` : unitLabel}}${rest}`;
}

export function mergeExpositions(expositions: readonly UnitExposition[]): string {
  const families = new Map<string, Family>();
  const familyOf = (name: string) => {
    let family = families.get(name);
    if (!family) families.set(name, (family = { header: [], samples: [] }));
    return family;
  };
  for (const { unit, text } of expositions) {
    let current: Family | null = null;
    let currentName = '';
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      const comment = /^#\s+(HELP|TYPE)\s+(\S+)/.exec(line);
      if (comment) {
        if (comment[2] !== currentName) {
          currentName = comment[2];
          current = familyOf(currentName);
        }
        // The first unit's header stands for all (every unit runs the same code).
        if (current && current.header.length < 2 && !current.header.some((h) => h.startsWith(`# ${comment[1]} `)))
          current.header.push(line);
        continue;
      }
      if (line.startsWith('#')) continue;
      const labelled = withUnitLabel(line, unit);
      if (!labelled) continue;
      const family = current ?? familyOf(SAMPLE.exec(line)?.[1] ?? line);
      family.samples.push(labelled);
    }
  }
  const out: string[] = [];
  for (const family of families.values()) out.push(...family.header, ...family.samples);
  return out.length ? `${out.join('\n')}\n` : '';
}
