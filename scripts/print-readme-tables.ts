/**
 * Prints the generated tables: `npx tsx scripts/print-readme-tables.ts [parameters|options|fleet|channel-blocks]`.
 * `--write` rewrites them between their markers: the options in README.md, the parameters in docs/usage.md,
 * the fleet's options in docs/fleet.md, the lidar profiles' channel blocks in docs/udp-packets.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parameterTableMarkdown } from '../src/config/parameter-table.js';
import { optionsTableMarkdown } from '../src/main/cli-options.js';
import { fleetOptionsTableMarkdown } from '../src/fleet/fleet-options.js';
import { channelBlockTableMarkdown } from '../src/model/index.js';
import { replaceBetweenMarkers } from './doc-markers.js';

/** Each generated table: what renders it, the file it stands in, and the name of its markers there. */
const TABLES: Record<string, { make: () => string; file: string; marker: string }> = {
  parameters: { make: parameterTableMarkdown, file: 'docs/usage.md', marker: 'parameter-table' },
  options: { make: optionsTableMarkdown, file: 'README.md', marker: 'options-table' },
  fleet: { make: fleetOptionsTableMarkdown, file: 'docs/fleet.md', marker: 'fleet-options-table' },
  'channel-blocks': { make: channelBlockTableMarkdown, file: 'docs/udp-packets.md', marker: 'channel-blocks' },
};

const args = process.argv.slice(2);
if (args.includes('--write')) {
  for (const { make, file, marker } of Object.values(TABLES)) {
    writeFileSync(file, replaceBetweenMarkers(readFileSync(file, 'utf8'), marker, make(), file));
  }
} else {
  for (const name of args.length ? args : Object.keys(TABLES)) process.stdout.write(`${TABLES[name].make()}\n\n`);
}
