/**
 * The API description: served as JSON and YAML (the same document), a valid OpenAPI 3.1 document
 * by a real validator, and describing exactly the routes the server has.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import Fastify from 'fastify';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/routes/app.js';
import { sensorApi } from '../../src/routes/sensor-api.js';
import { PARAMETERS, defaultConfig } from '../../src/config/registry.js';
import { createTestSensor, type TestSensor } from '../helpers/test-sensor.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { isValidUdpDestination } from '../../src/config/config-formats.js';
import { fetchDocument, METHODS, type Json, type OpenApiDocument } from './openapi-fixture.js';

let unit: TestSensor;
let document: OpenApiDocument;

beforeAll(async () => {
  unit = await createTestSensor();
  document = await fetchDocument(unit.app);
});
afterAll(() => unit.close());

describe('GET /api/v1/openapi.json and .yaml', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0');
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('serves the same document as YAML', async () => {
    const response = await unit.app.inject({ url: '/api/v1/openapi.yaml' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/yaml');
    expect(parse(response.body)).toEqual(document);
  });

  it('reads the same in YAML 1.1 (PyYAML, Ruby, Go tools): OFF stays a string', async () => {
    const response = await unit.app.inject({ url: '/api/v1/openapi.yaml' });
    expect(response.body).not.toMatch(/^%YAML/);
    expect(parse(response.body, { version: '1.1' })).toEqual(document);
    expect(response.body).toMatch(/- "OFF"|- 'OFF'/);
  });

  it('names every operation once, with a summary and responses that describe errors as problems', () => {
    const ids: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        ids.push(operation.operationId);
        expect(operation.responses['503'], `${method} ${path}`).toBeDefined();
        for (const [status, response] of Object.entries(operation.responses)) {
          // HEAD answers carry no body.
          if (Number(status) >= 400 && method !== 'head')
            expect(Object.keys(response.content ?? {}).sort()).toEqual([
              'application/json',
              'application/problem+json',
            ]);
        }
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
  });

  it('describes the configuration object from the parameter registry', () => {
    const configuration = document.components.schemas as Record<
      string,
      { properties: Record<string, Record<string, unknown>>; examples: unknown[] }
    >;
    const { properties, examples } = configuration.Configuration;
    expect(Object.keys(properties)).toEqual(PARAMETERS.map((p) => p.name));
    expect(properties.lidar_mode.enum).toEqual(['512x10', '1024x10', '2048x10', '512x20', '1024x20']);
    expect(properties.udp_port_lidar).toMatchObject({ type: 'integer', minimum: 0, maximum: 65535, default: 7502 });
    expect(properties.columns_per_packet.readOnly).toBe(true);
    for (const p of PARAMETERS)
      expect(properties[p.name].description).toBe(
        p.sinceFirmware ? `${p.description} (firmware ${p.sinceFirmware} and later)` : p.description,
      );
    expect(examples).toEqual([defaultConfig()]);
  });
});

/** Every `{ schema, examples }` media type, schema with `examples` and parameter with `example`, with its location. */
function documentedExamples(node: unknown, at: string, found: { at: string; schema: Json; value: unknown }[] = []) {
  if (typeof node !== 'object' || node === null) return found;
  const record = node as Json;
  const schema = record.schema as Json | undefined;
  if (schema && record.examples)
    for (const [name, e] of Object.entries(record.examples as Json))
      found.push({ at: `${at}/${name}`, schema, value: (e as Json).value });
  if (schema && 'example' in record) found.push({ at, schema, value: record.example });
  if (Array.isArray(record.examples) && !schema)
    for (const value of record.examples) found.push({ at, schema: record, value });
  for (const [key, child] of Object.entries(record))
    if (key !== 'examples') documentedExamples(child, `${at}/${key}`, found);
  return found;
}

describe("the document's examples", () => {
  it('are valid against the schemas they illustrate', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addFormat('udp-destination', { type: 'string', validate: isValidUdpDestination });
    ajv.addSchema({ components: document.components }, 'openapi');
    const examples = documentedExamples(document.paths, '#/paths').concat(
      documentedExamples(document.components, '#/components'),
    );
    expect(examples.length).toBeGreaterThan(15);
    for (const { at, schema, value } of examples) {
      // Refs in the document point at #/components; resolve them in the registered copy.
      const validate = ajv.compile(
        JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')),
      );
      expect(validate(value) ? [] : validate.errors, at).toEqual([]);
    }
  });
});

describe('routes and document agree', () => {
  it('documents every registered route, and every documented operation is a route', async () => {
    // The same plugin on a bare server, with a route list of the test's own.
    const registered: string[] = [];
    const bare = Fastify();
    const hidden: string[] = [];
    bare.addHook('onRoute', (route) => {
      if (route.schema?.hide) hidden.push(route.url);
      else for (const method of [route.method].flat()) registered.push(`${method.toLowerCase()} ${route.url}`);
    });
    await bare.register(sensorApi, { sensor: unit.sensor });
    await bare.ready();
    await bare.close();
    // Only pages and assets may stay out of the document: the whole API is in it.
    expect(hidden.filter((url) => url.startsWith('/api/'))).toEqual([]);

    // Per-value operations (PUT /config/lidar_mode, …) are served by their templated route.
    const documented = [
      ...new Set(
        Object.entries(document.paths).flatMap(([path, item]) =>
          Object.entries(item).map(([method, operation]) => {
            const served = (operation as { 'x-path-value-of'?: string })['x-path-value-of'] ?? path;
            return `${method} ${served.replace(/\{([^}]+)\}/g, ':$1')}`;
          }),
        ),
      ),
    ];
    // Fastify adds a HEAD route for each GET, and the document lists it: HEAD works on every GET resource.
    for (const head of registered.filter((r) => r.startsWith('head ')))
      expect(registered).toContain(head.replace(/^head/, 'get'));
    // A unit below firmware 3.2 answers the zone routes 404 and leaves them out of its document.
    const offered = registered.filter((r) => unit.sensor.offer.zoneMonitor || !r.includes(' /api/v1/zone_monitor/'));
    expect(offered.length).toBeLessThan(registered.length);
    expect([...documented].sort()).toEqual([...offered].sort());
    expect(documented.length).toBeGreaterThanOrEqual(44);

    for (const entry of documented) {
      const [method, url] = entry.split(' ');
      expect(METHODS).toContain(method);
      expect(unit.app.hasRoute({ method: method.toUpperCase() as 'GET', url }), entry).toBe(true);
    }
  });

  it('buildApp keeps serving the plugin with the sensor as a decorator', async () => {
    const app = await buildApp(unit.sensor);
    expect(app.sensor).toBe(unit.sensor);
    expect((await app.inject({ url: '/api/v1/system/firmware' })).statusCode).toBe(200);
    await app.close();
  });
});
