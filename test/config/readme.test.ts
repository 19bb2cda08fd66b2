/** The README's parameter table is the registry's, so the two can never disagree. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';
import { parameterTableMarkdown } from '../../src/config/parameter-table.js';
import { OPTION_SPECS } from '../../src/cli-options.js';

const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');

it('README parameter table equals the one generated from the registry', () => {
  const section = /<!-- parameter-table:start -->\n([\s\S]*?)\n<!-- parameter-table:end -->/.exec(readme);
  expect(section, 'README lacks the parameter-table markers').not.toBeNull();
  expect(section![1].trim()).toBe(parameterTableMarkdown().trim());
});

it('README documents every command-line option and its environment variable', () => {
  for (const option of OPTION_SPECS) {
    expect(readme).toContain(`--${option.flag}`);
    expect(readme).toContain(option.env);
  }
});
