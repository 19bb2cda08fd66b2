/**
 * Prints the README's generated tables: `npx tsx scripts/print-readme-tables.ts [parameters|options]`.
 * `--write` rewrites them in README.md between their markers.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parameterTableMarkdown } from '../src/config/parameter-table.js';
import { optionsTableMarkdown } from '../src/main/cli-options.js';

const TABLES: Record<string, () => string> = { parameters: parameterTableMarkdown, options: optionsTableMarkdown };
const MARKERS: Record<string, string> = { parameters: 'parameter-table', options: 'options-table' };

const args = process.argv.slice(2);
if (args.includes('--write')) {
  let readme = readFileSync('README.md', 'utf8');
  for (const [name, make] of Object.entries(TABLES)) {
    const marker = MARKERS[name];
    const pattern = new RegExp(`(<!-- ${marker}:start -->\\n)[\\s\\S]*?(<!-- ${marker}:end -->)`);
    if (!pattern.test(readme)) throw new Error(`README.md lacks the ${marker} markers`);
    readme = readme.replace(pattern, (_m, start: string, end: string) => `${start}${make()}\n${end}`);
  }
  writeFileSync('README.md', readme);
} else {
  for (const name of args.length ? args : Object.keys(TABLES)) process.stdout.write(`${TABLES[name]()}\n\n`);
}
