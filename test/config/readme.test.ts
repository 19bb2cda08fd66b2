/** The generated tables are the registry's and the option tables': docs and code can never disagree. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';
import { parameterTableMarkdown } from '../../src/config/parameter-table.js';
import { CLI_OPTIONS, optionsTableMarkdown } from '../../src/main/cli-options.js';
import { FLEET_OPTIONS, fleetOptionsTableMarkdown } from '../../src/fleet/fleet-options.js';
import { LIDAR_PROFILES, channelBlockTableMarkdown } from '../../src/model/index.js';

const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');
const usage = readFileSync(resolve(import.meta.dirname, '../../docs/usage.md'), 'utf8');

it('the parameter table of docs/usage.md equals the one generated from the registry', () => {
  const section = /<!-- parameter-table:start -->\n([\s\S]*?)\n<!-- parameter-table:end -->/.exec(usage);
  expect(section, 'docs/usage.md lacks the parameter-table markers').not.toBeNull();
  expect(section![1].trim()).toBe(parameterTableMarkdown().trim());
});

it('README option table equals the one generated from the option specs', () => {
  const section = /<!-- options-table:start -->\n([\s\S]*?)\n<!-- options-table:end -->/.exec(readme);
  expect(section, 'README lacks the options-table markers').not.toBeNull();
  expect(section![1].trim()).toBe(optionsTableMarkdown().trim());
  for (const option of Object.values(CLI_OPTIONS)) expect(section![1]).toContain(option.env);
});

it("docs/fleet.md's option table equals the one generated from the fleet's option table", () => {
  const fleet = readFileSync(resolve(import.meta.dirname, '../../docs/fleet.md'), 'utf8');
  const section = /<!-- fleet-options-table:start -->\n([\s\S]*?)\n<!-- fleet-options-table:end -->/.exec(fleet);
  expect(section, 'docs/fleet.md lacks the fleet-options-table markers').not.toBeNull();
  expect(section![1].trim()).toBe(fleetOptionsTableMarkdown().trim());
  for (const option of Object.values(FLEET_OPTIONS)) expect(section![1]).toContain(`--${option.flag}`);
});

it("docs/udp-packets.md's channel block table equals the one generated from the profiles' field tables", () => {
  const packets = readFileSync(resolve(import.meta.dirname, '../../docs/udp-packets.md'), 'utf8');
  const section = /<!-- channel-blocks:start -->\n([\s\S]*?)\n<!-- channel-blocks:end -->/.exec(packets);
  expect(section, 'docs/udp-packets.md lacks the channel-blocks markers').not.toBeNull();
  expect(section![1].trim()).toBe(channelBlockTableMarkdown().trim());
  for (const profile of LIDAR_PROFILES) expect(section![1]).toContain(`\`${profile}\``);
});
