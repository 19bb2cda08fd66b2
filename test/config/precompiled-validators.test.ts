/**
 * The value validators the build compiles ahead of time (dist/parameter-validators.cjs, written by
 * scripts/parameter-validators.mjs) must judge every value exactly as the validators Ajv compiles at run
 * time from the registry: the same verdict and the same errors, for every parameter and alias. A unit
 * uses one only for exactly the schema it was compiled from.
 */
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { CONFIG_AJV_OPTIONS, CONFIG_FORMATS } from '../../src/config/config-formats.js';
import { type PrecompiledTable, precompiledValidator } from '../../src/config/precompiled-validators.js';
import { DEPRECATED_ALIASES, PARAMETERS } from '../../src/config/registry.js';

const built = createRequire(import.meta.url)(
  resolve(import.meta.dirname, '../../dist/parameter-validators.cjs'),
) as PrecompiledTable;

const runtime = new Ajv(CONFIG_AJV_OPTIONS);
for (const [name, format] of Object.entries(CONFIG_FORMATS)) runtime.addFormat(name, format);

type Schema = { enum?: unknown[]; minimum?: number; maximum?: number; maxItems?: number; items?: Schema };

/** Values around what `schema` accepts: its edges, its enum (and the enum's wrong-case spellings), wrong types. */
function probes(schema: Schema, fallback: unknown): unknown[] {
  const values: unknown[] = [fallback, null, true, 0, -1, 1.5, 2 ** 32, '', 'x', [], {}, 'a'.repeat(300)];
  values.push('1.2.3', 'a..b', '::1', '10.0.0.1', 'host-name.example', '-bad.example', '@auto');
  for (const value of schema.enum ?? []) {
    values.push(value);
    if (typeof value === 'string') values.push(value.toLowerCase(), `${value} `);
  }
  for (const edge of [schema.minimum, schema.maximum]) if (edge !== undefined) values.push(edge - 1, edge, edge + 1);
  if (schema.maxItems !== undefined) {
    const item = schema.items?.minimum ?? 0;
    for (const length of [schema.maxItems - 1, schema.maxItems, schema.maxItems + 1])
      values.push(
        Array.from({ length }, () => item),
        Array.from({ length }, () => 'x'),
      );
  }
  return values;
}

const asJson = (errors: unknown) => JSON.parse(JSON.stringify(errors ?? null)) as unknown;

const ENTRIES = [
  ...PARAMETERS.map((p) => ({ name: p.name, schema: p.schema as object, fallback: p.default as unknown })),
  ...DEPRECATED_ALIASES.map((a) => ({ name: a.name, schema: a.schema as object, fallback: '' as unknown })),
];

describe('value validators compiled by the build', () => {
  it('exist for every parameter and alias, each for its current schema', () => {
    expect(Object.keys(built).sort()).toEqual(ENTRIES.map((e) => e.name).sort());
    for (const { name, schema } of ENTRIES) expect(precompiledValidator(built, name, schema)).toBeTypeOf('function');
  });

  it("judge every probe as Ajv's run-time validators do, errors included", () => {
    let compared = 0;
    for (const { name, schema, fallback } of ENTRIES) {
      const ahead = precompiledValidator(built, name, schema) as ValidateFunction;
      const compiled = runtime.compile(schema);
      for (const value of probes(schema as Schema, fallback)) {
        const verdict = compiled(value);
        expect(ahead(value), `${name} ${JSON.stringify(value)}`).toBe(verdict);
        // As JSON: the run-time errors' parentSchema is the registry's TypeBox object (a symbol key more).
        expect(asJson(ahead.errors)).toEqual(asJson(compiled.errors));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(500);
  });

  it('are not used for a schema other than the one they were compiled from', () => {
    const { name, schema } = ENTRIES[0];
    expect(precompiledValidator(built, name, { ...schema, maxLength: 1 })).toBeUndefined();
    expect(precompiledValidator(built, 'not_a_parameter', schema)).toBeUndefined();
    expect(precompiledValidator(null, name, schema)).toBeUndefined();
  });
});
