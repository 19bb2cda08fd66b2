/**
 * Prints the generated tables: `npx tsx scripts/print-readme-tables.ts [parameters|options|fleet]`.
 * `--write` rewrites them between their markers: the options in README.md, the parameters in docs/usage.md,
 * the fleet's options in docs/fleet.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parameterTableMarkdown } from '../src/config/parameter-table.js';
import { optionsTableMarkdown } from '../src/main/cli-options.js';
import { fleetOptionsTableMarkdown } from '../src/main/fleet/fleet-options.js';

const TABLES: Record<string, () => string> = {
  parameters: parameterTableMarkdown,
  options: optionsTableMarkdown,
  fleet: fleetOptionsTableMarkdown,
};
const MARKERS: Record<string, string> = {
  parameters: 'parameter-table',
  options: 'options-table',
  fleet: 'fleet-options-table',
};
const FILES: Record<string, string> = { parameters: 'docs/usage.md', options: 'README.md', fleet: 'docs/fleet.md' };

const args = process.argv.slice(2);
if (args.includes('--write')) {
  for (const [name, make] of Object.entries(TABLES)) {
    const [marker, file] = [MARKERS[name], FILES[name]];
    const pattern = new RegExp(`(<!-- ${marker}:start -->\\n)[\\s\\S]*?(<!-- ${marker}:end -->)`);
    const text = readFileSync(file, 'utf8');
    if (!pattern.test(text)) throw new Error(`${file} lacks the ${marker} markers`);
    writeFileSync(
      file,
      text.replace(pattern, (_m, start: string, end: string) => `${start}${make()}\n${end}`),
    );
  }
} else {
  for (const name of args.length ? args : Object.keys(TABLES)) process.stdout.write(`${TABLES[name]()}\n\n`);
}
