/**
 * One way through the validation step (src/routes/http/validator-compiler.ts): a request part with rules of
 * its own (`checkedBy`) is checked by them and then by its schema, so the schema the document shows is
 * enforced; a body declared JSON-only (`jsonContentTypeOnly`) is refused 415 under another Content-Type by
 * that declaration alone, and the document shows it; the legacy commands' `args` are checked there too.
 */
import { Type } from '@sinclair/typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { badRequest } from '../../src/model/index.js';
import { checkedBy, jsonContentTypeOnly } from '../../src/routes/api-schemas.js';
import { installErrorHandler } from '../../src/routes/http/error-handler.js';
import { installJsonBodyParser } from '../../src/routes/http/json-body.js';
import { requestValidatorCompiler } from '../../src/routes/http/validator-compiler.js';
import { createTestSensor, type TestSensor } from '../helpers/test-sensor.js';

/** A bare app with the sensor's validation step, error rendering and body parsing, and one route per case. */
async function plumbing(): Promise<FastifyInstance> {
  const app = Fastify();
  app.setValidatorCompiler(requestValidatorCompiler());
  installErrorHandler(app);
  installJsonBodyParser(app);
  const short = checkedBy(Type.String({ maxLength: 3 }), (value) => {
    if (typeof value !== 'string') throw badRequest('the body must be a JSON string');
    return value;
  });
  app.put('/short', { schema: { body: short } }, async (_request, reply) => reply.code(204).send());
  app.put('/json-only', { schema: { body: jsonContentTypeOnly(Type.Number()) } }, async (_request, reply) =>
    reply.code(204).send(),
  );
  await app.ready();
  return app;
}

const put = (app: FastifyInstance, url: string, payload: string, type = 'application/json') =>
  app.inject({ method: 'PUT', url, payload, headers: { 'content-type': type } });

describe('the validation step', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await plumbing();
  });
  afterAll(() => app.close());

  it('checks a part with rules of its own against its schema too: what the rules let through, the schema refuses', async () => {
    expect((await put(app, '/short', '"abc"')).statusCode).toBe(204);
    const long = await put(app, '/short', '"abcd"');
    expect(long.statusCode).toBe(400);
    expect(long.json().detail).toMatch(/body.*must NOT have more than 3 characters/);
  });

  it('answers with the rules first: their message, not the schema', async () => {
    const number = await put(app, '/short', '5');
    expect(number.statusCode).toBe(400);
    expect(number.json().detail).toBe('the body must be a JSON string');
  });

  it('refuses another Content-Type of a JSON-only body with 415 from the declaration alone', async () => {
    expect((await put(app, '/json-only', '5')).statusCode).toBe(204);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const refused = await put(app, '/json-only', '5', type);
      expect(refused.statusCode, type).toBe(415);
      expect(refused.json().detail).toContain('Content-Type: application/json');
    }
  });
});

describe('on a unit', () => {
  let t: TestSensor;
  beforeAll(async () => {
    t = await createTestSensor({ product: 'OS-1-128-T1' });
  });
  afterAll(() => t.close());

  /** Every operation whose document takes its body only as application/json, with the document's example. */
  async function jsonOnlyOperations() {
    const document = (await t.app.inject({ url: '/api/v1/openapi.json' })).json();
    const found: { method: string; path: string; example: unknown; description: string }[] = [];
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, any>>))
      for (const [method, operation] of Object.entries(item)) {
        const content = operation.requestBody?.content;
        // The per-parameter paths stand for `/api/v1/sensor/config/{name}`, each with its own example.
        if (!content || Object.keys(content).join() !== 'application/json' || path.includes('{')) continue;
        const media = content['application/json'];
        const example = media.examples
          ? Object.values<{ value: unknown }>(media.examples)[0].value
          : media.schema.examples?.[0];
        found.push({ method: method.toUpperCase(), path, example, description: operation.requestBody.description });
      }
    return found;
  }

  it('documents the JSON-only bodies as such, and refuses each under text/plain with 415', async () => {
    const operations = await jsonOnlyOperations();
    expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining(['PUT /api/v1/sensor/config/lidar_mode', 'PUT /api/v1/system/network/speed_override']),
    );
    for (const { method, path, example, description } of operations) {
      expect(description, path).toContain('Content-Type must be application/json (415 otherwise)');
      expect(method, path).toBe('PUT');
      const refused = await put(t.app, path, JSON.stringify(example), 'text/plain');
      expect(refused.statusCode, `${method} ${path}`).toBe(415);
      expect(refused.json().detail, path).toContain('application/json');
    }
    expect(t.sensor.configs.reported('active').lidar_mode).toBe('1024x10');
    expect(t.sensor.network.speedOverride()).toBeNull();
  });

  it('takes the IPv4 override with a netmask, as the document now says', async () => {
    const document = (await t.app.inject({ url: '/api/v1/openapi.json' })).json();
    const schema =
      document.paths['/api/v1/system/network/ipv4/override'].put.requestBody.content['application/json'].schema;
    const pattern = new RegExp(schema.pattern, 'u');
    for (const value of ['10.20.30.40', '10.20.30.40/16', '10.20.30.40/255.255.0.0']) expect(value).toMatch(pattern);
    const answer = await put(t.app, '/api/v1/system/network/ipv4/override', '"10.20.30.40/255.255.0.0"');
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toBe('10.20.30.40/16');
    await t.app.inject({ method: 'DELETE', url: '/api/v1/system/network/ipv4/override' });
  });

  it("refuses a legacy command's bad args in the validation step, naming args, and changes nothing", async () => {
    const before = t.sensor.configs.reported('staged');
    const cmd = (query: string) => t.app.inject({ url: `/api/v1/sensor/cmd/${query}` });
    for (const query of [
      'get_config_param?args=bogus',
      'get_config_param',
      'get_config_param?args=active&args=staged',
      'set_config_param?args=lidar_mode',
      'set_config_param?args=nope+1',
      'set_config_param?args=lidar_mode+%22bogus%22',
      'set_config_param?args=.+%5B1%5D',
      'set_config_param?args=lidar_mode+512x20&args=lidar_mode+512x10',
      'set_udp_dest_auto?x=1',
    ]) {
      const refused = await cmd(query);
      expect(refused.statusCode, query).toBe(400);
      expect(refused.json().detail, query).toMatch(/args|lidar_mode|nope|querystring|JSON object|\/query\/x/);
    }
    expect(t.sensor.configs.reported('staged')).toEqual(before);
    expect((await cmd('set_config_param?args=lidar_mode+512x20')).body).toBe('"set_config_param"');
    expect((await cmd('get_config_param?args=staged')).json().lidar_mode).toBe('512x20');
  });
});
