/**
 * The request validators the build compiles ahead of time (dist/request-validators.cjs, written by
 * scripts/request-validators.mjs) cover every schema the routes validate with, and each judges every
 * input as the validator @fastify/ajv-compiler compiles at run time does: the same verdict, the same
 * errors (the problem bodies are made from them).
 */
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { AjvCompiler } from '@fastify/ajv-compiler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onRequestSchema, ROUTE_AJV_OPTIONS } from '../../src/routes/http/validator-compiler.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';

type Validate = ((data: unknown) => boolean) & { errors?: unknown };
type Schema = { properties?: Record<string, { enum?: unknown[] }>; required?: string[] };

const built = createRequire(import.meta.url)(
  resolve(import.meta.dirname, '../../dist/request-validators.cjs'),
) as Record<string, Validate | undefined>;

/** What a query string or path can hold for `schema`: each property's values and wrong ones, unknown keys. */
function probes(schema: Schema): unknown[] {
  const values: unknown[] = [{}, { unknown: '1' }, { unknown: '1', other: '' }, null, 'x', []];
  const wrong = ['', 'maybe', '1', '0', '-1', '1.5', 'abc', 'True', ['a', 'b'], 'x'.repeat(300)];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    for (const value of [...(property.enum ?? []), ...wrong]) {
      values.push({ [name]: value });
      values.push({ [name]: value, unknown: 'y' });
    }
  }
  // Every required key present with a plausible value, then each one missing.
  const required = schema.required ?? [];
  const complete = Object.fromEntries(required.map((name) => [name, 'active']));
  values.push(complete);
  for (const name of required) values.push({ ...complete, [name]: undefined });
  return values;
}

describe('request validators compiled by the build', () => {
  const schemas = new Map<string, unknown>();
  let unit: TestSensor;

  beforeAll(async () => {
    onRequestSchema((schema) => schemas.set(JSON.stringify(schema), schema));
    unit = await createTestSensor();
    await unit.app.ready();
  });
  afterAll(async () => {
    await unit.close();
    removeDir(unit.dataDir);
  });

  it("exist for every schema the routes validate with, keyed by the schema's JSON", () => {
    expect(schemas.size).toBeGreaterThan(5);
    for (const key of schemas.keys()) expect(built[key], key.slice(0, 120)).toBeTypeOf('function');
  });

  it("judge every probe as @fastify/ajv-compiler's run-time validators do, errors included", () => {
    const compiler = AjvCompiler()({}, { customOptions: { ...ROUTE_AJV_OPTIONS } }) as unknown as (route: {
      schema: unknown;
    }) => Validate;
    let compared = 0;
    for (const [key, schema] of schemas) {
      const ahead = built[key] as Validate;
      const compiled = compiler({ schema });
      for (const value of probes(schema as Schema)) {
        expect(ahead(value), `${key.slice(0, 80)} ${JSON.stringify(value)}`).toBe(compiled(value));
        expect(ahead.errors ?? null).toEqual(compiled.errors ?? null);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(200);
  });
});
