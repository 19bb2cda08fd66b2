/**
 * Contract test: every operation of the served OpenAPI document is called with its documented
 * examples (path and query parameter examples, each request body example), and every answer must
 * have a documented status and Content-Type and a body valid against the documented schema.
 */
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { createTestSensor, type TestSensor } from '../helpers/test-sensor.js';
import {
  type DocumentedCall,
  documentedCalls,
  exampleRequests,
  fetchDocument,
  type OpenApiDocument,
  RESTARTING,
  responseValidators,
} from './openapi-fixture.js';
import { waitFor } from '../helpers/poll.js';

// A T1 model, so the speed override answers with its success responses too.
const PRODUCT = 'OS-1-128-T1';

let unit: TestSensor;
let document: OpenApiDocument;
let validatorOf: ReturnType<typeof responseValidators>;

beforeAll(async () => {
  unit = await createTestSensor({ product: PRODUCT });
  document = await fetchDocument(unit.app);
  validatorOf = responseValidators(document);
});
afterAll(() => unit.close());

type Call = DocumentedCall;
const operations = () => documentedCalls(document);
const requests = (call: Call) => exampleRequests(call) as InjectOptions[];

async function whenReachable(): Promise<void> {
  await waitFor(
    async () =>
      (await unit.app.inject({ url: '/api/v1/system/firmware' })).statusCode === 200 &&
      unit.sensor.run.status === 'RUNNING',
    10_000,
    'the unit answering',
  );
}

/** Checks an answer against the operation's documented responses; returns its status. */
function expectDocumented(call: Call, response: Awaited<ReturnType<TestSensor['app']['inject']>>): number {
  const what = `${call.method.toUpperCase()} ${call.path} → ${response.statusCode} ${response.body.slice(0, 200)}`;
  const documented = call.operation.responses[String(response.statusCode)];
  expect(documented, `${what}: status not documented`).toBeDefined();
  if (!documented.content) {
    expect(response.body, what).toBe('');
    return response.statusCode;
  }
  const type = String(response.headers['content-type'] ?? '').split(';')[0];
  expect(Object.keys(documented.content), `${what}: Content-Type ${type}`).toContain(type);
  const validate = validatorOf(call.path, call.method, String(response.statusCode), type);
  if (type === 'application/octet-stream') {
    expect(response.rawPayload.subarray(0, 2), `${what}: a gzip stream`).toEqual(Buffer.from([0x1f, 0x8b]));
    return response.statusCode;
  }
  const body: unknown = type === 'application/yaml' ? response.body : JSON.parse(response.body);
  if (type === 'application/yaml') expect(parse(response.body)).toMatchObject({ openapi: '3.1.0' });
  expect(validate(body) ? [] : validate.errors, what).toEqual([]);
  return response.statusCode;
}

describe('every documented operation, replayed from its examples', () => {
  it('answers each example with a documented success whose body matches its schema', async () => {
    const seen: string[] = [];
    for (const call of operations()) {
      for (const request of requests(call)) {
        await whenReachable();
        // A restarting operation: wait for the unit's next bring-up, so the next call does not race the restart.
        const restarted = RESTARTING.has(call.operation.operationId)
          ? new Promise((resolve) => unit.sensor.events.once('reinit', resolve))
          : undefined;
        const status = expectDocumented(call, await unit.app.inject(request));
        expect(status, `${call.operation.operationId}: the documented example must succeed`).toBeLessThan(300);
        await restarted;
      }
      seen.push(call.operation.operationId);
    }
    const all = Object.values(document.paths).flatMap((item) => Object.values(item).map((o) => o.operationId));
    expect(seen.sort()).toEqual(all.sort());
  });

  it('answers an unknown query parameter with a documented 400 problem', async () => {
    await whenReachable();
    const withQuery = operations().filter(
      (c) =>
        c.method !== 'head' &&
        c.operation.parameters?.some((p) => p.in === 'query') &&
        !RESTARTING.has(c.operation.operationId),
    );
    expect(withQuery.length).toBeGreaterThan(5);
    for (const call of withQuery) {
      const [request] = requests(call);
      const response = await unit.app.inject({
        ...request,
        query: { ...(request.query as object), no_such_parameter: '1' },
      });
      expect(expectDocumented(call, response)).toBe(400);
      expect(response.json<{ errors: { pointer: string }[] }>().errors).toContainEqual(
        expect.objectContaining({ pointer: '/query/no_such_parameter' }),
      );
    }
  });

  it('answers an invalid configuration with the documented problem, naming every field', async () => {
    const call = operations().find((c) => c.operation.operationId === 'changeConfig')!;
    const response = await unit.app.inject({
      method: 'POST',
      url: call.path,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ lidar_mode: '999x10', udp_port_lidar: 70000 }),
    });
    expect(expectDocumented(call, response)).toBe(400);
    expect(
      response
        .json<{ errors: { pointer: string }[] }>()
        .errors.map((e) => e.pointer)
        .sort(),
    ).toEqual(['/lidar_mode', '/udp_port_lidar']);
  });
});
