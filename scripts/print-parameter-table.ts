/** Prints the README's configuration parameter table from the registry: `npx tsx scripts/print-parameter-table.ts`. */
import { parameterTableMarkdown } from '../src/config/parameter-table.js';

process.stdout.write(`${parameterTableMarkdown()}\n`);
