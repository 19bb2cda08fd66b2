/** The README's configuration parameter table, generated from the registry (a test keeps them equal). */
import type { TSchema } from '@sinclair/typebox';
import { DEPRECATED_ALIASES, PARAMETERS } from './registry.js';

function describeSchema(schema: TSchema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v: unknown) => `\`${String(v)}\``).join(', ');
  if (schema.type === 'integer' || schema.type === 'number') {
    const min = schema.minimum as number | undefined;
    const max = schema.maximum as number | undefined;
    if (min !== undefined && max !== undefined) return min === max ? `${min}` : `${schema.type} ${min}..${max}`;
    return schema.type;
  }
  if (schema.type === 'array')
    return `[${describeSchema(schema.items as TSchema)}, ${describeSchema(schema.items as TSchema)}]`;
  return String(schema.type);
}

export function parameterTableMarkdown(): string {
  const rows = PARAMETERS.map(
    (p) =>
      `| \`${p.name}\` | ${JSON.stringify(p.default)} | ${describeSchema(p.schema)}${p.readOnly ? ' (read-only)' : ''} | ${p.description} |`,
  );
  const aliases = DEPRECATED_ALIASES.map((a) => `\`${a.name}\` → \`${a.replacement}\``).join(', ');
  return [
    '| Parameter | Default | Valid values | Meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
    `Deprecated names accepted on input (deprecated since v2.4, never returned): ${aliases} (0 = STANDBY, 1 = NORMAL).`,
  ].join('\n');
}
