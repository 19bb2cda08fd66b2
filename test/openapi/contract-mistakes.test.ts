/**
 * Contract test of every answer, by a third-party OpenAPI validator (openapi-backend, from npm; not the
 * server's own schema code): for every operation of the served document, valid requests and each class
 * of mistake (unknown field, wrong type, out of range, unknown query parameter, malformed JSON, wrong
 * Content-Type, charset, Content-Encoding, oversized body, trailing slash, wrong method) and each unit
 * state (STANDBY, INITIALIZING, ERROR, UPDATING) are sent, and every answer of an operation must have a
 * documented status and Content-Type and a body the validator accepts. The other way round, a request
 * the unit refuses with 400 must be one the document calls invalid too, unless the refusal is of a kind
 * no schema can state (the listed cross-field and state rules). Violations are collected and must be 0.
 */
import { gzipSync } from 'node:zlib';
import { ALERT_IDS } from '../../src/model/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import { isValidUdpDestination } from '../../src/config/config-formats.js';
import type { Hal } from '../../src/hal/types.js';
import { createTestSensor, type TestSensor } from '../helpers/test-sensor.js';
import { buildImage, generatedPayload } from '../../src/model/image-format.js';
import { fetchDocument, type Operation, type OpenApiDocument } from './openapi-fixture.js';
import { waitFor } from '../helpers/poll.js';

const PRODUCT = 'OS-1-128-T1';
/** Operations after which the unit restarts; sent last, or not at all in the mistake rounds. */
const RESTARTING = new Set(['resetConfig', 'restart', 'legacyReboot', 'uploadFirmware']);
const FIRMWARE = () =>
  buildImage('ousteros-image-prod-bootes-v3.2.0+20250101120000', generatedPayload('contract', 4096));

/** Holds the lidar's bring-up while closed: the unit stays INITIALIZING (or UPDATING on a new image's first boot). */
class BringUpGate {
  private release: (() => void) | undefined;
  private closed: Promise<void> | undefined;
  close() {
    this.closed = new Promise((resolve) => {
      this.release = resolve;
    });
  }
  open() {
    this.release?.();
    this.closed = undefined;
  }
  wrap(hal: Hal): Hal {
    const wait = () => this.closed ?? Promise.resolve();
    const lidar = new Proxy(hal.streams, {
      get(target, key) {
        const value = Reflect.get(target, key, target);
        if (key === 'apply')
          return async (...args: Parameters<Hal['streams']['apply']>) => {
            await wait();
            return target.apply(...args);
          };
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return new Proxy(hal, {
      get(target, key) {
        if (key === 'streams') return lidar;
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
}

interface Call {
  path: string;
  method: string;
  operation: Operation;
}

interface Sent {
  call: Call;
  request: InjectOptions;
  /** What the request is, for the report. */
  kind: string;
}

const gate = new BringUpGate();
let unit: TestSensor;
let document: OpenApiDocument;
let api: OpenAPIBackend;
const violations: string[] = [];
let corpus = 0;

beforeAll(async () => {
  unit = await createTestSensor({ product: PRODUCT, hal: (hal) => gate.wrap(hal) });
  document = await fetchDocument(unit.app);
  api = new OpenAPIBackend({
    definition: structuredClone(document) as unknown as Document,
    // Quick: its definition check is OpenAPI 3.0's (test/openapi/openapi-document.test.ts checks 3.1);
    // requests and answers are still validated by its Ajv.
    strict: true,
    quick: true,
    validate: true,
    customizeAjv: (ajv) => {
      ajv.addFormat('udp-destination', { type: 'string', validate: isValidUdpDestination });
      return ajv;
    },
  });
  await api.init();
});
afterAll(async () => {
  gate.open();
  await unit.close();
});

function calls(): Call[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
  );
}

/** The documented example request of a call (path and query examples, its first body example). */
function exampleRequest(call: Call): InjectOptions {
  let url = call.path;
  const query: Record<string, string> = {};
  for (const parameter of call.operation.parameters ?? []) {
    if (parameter.example === undefined) continue;
    if (parameter.in === 'path')
      url = url.replace(`{${parameter.name}}`, encodeURIComponent(String(parameter.example)));
    else query[parameter.name] = String(parameter.example);
  }
  const request: InjectOptions = { method: call.method.toUpperCase() as 'GET', url, query };
  const content = call.operation.requestBody?.content;
  if (!content) return request;
  if (content['application/octet-stream'])
    return { ...request, headers: { 'content-type': 'application/octet-stream' }, payload: FIRMWARE() };
  const media = content['application/json'];
  const example = Object.values(media?.examples ?? {})[0]?.value;
  return { ...request, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(example) };
}

function bodyText(request: InjectOptions): string | undefined {
  return typeof request.payload === 'string' ? request.payload : undefined;
}

/** The validator's view of a request: does the document call it valid? */
function documentAccepts(sent: Sent): boolean {
  const text = bodyText(sent.request);
  let body: unknown = text;
  try {
    if (text !== undefined) body = JSON.parse(text);
  } catch {
    return false;
  }
  const result = api.validateRequest(
    {
      method: sent.call.method,
      path: String(sent.request.url),
      query: (sent.request.query ?? {}) as Record<string, string>,
      headers: { 'content-type': 'application/json', ...(sent.request.headers as Record<string, string>) },
      body,
    },
    sent.call.operation.operationId,
  );
  return result.valid;
}

/** Refusals no schema can state: the unit is right to refuse what the document's schemas let through. */
const BEYOND_SCHEMA = new Set([
  'charset', // JSON must be UTF-8: a media-type parameter, not a schema
  'content-encoding', // a header
  'oversized', // 413: the byte limit of the transport
  'wrong-content-type', // 415 on JSON-only routes is stated by the media types listed
]);

/** Checks one answer against the document with openapi-backend; records every violation. */
function check(sent: Sent, response: LightMyRequestResponse): void {
  corpus++;
  const { call } = sent;
  const what = `${sent.kind}: ${call.method.toUpperCase()} ${sent.request.url} → ${response.statusCode}`;
  const status = String(response.statusCode);
  const documented = api.router.getOperation(call.operation.operationId)?.responses?.[status] as
    | { content?: Record<string, unknown> }
    | undefined;
  if (!documented) {
    violations.push(`${what}: status not documented (${response.body.slice(0, 160)})`);
    return;
  }
  const type = String(response.headers['content-type'] ?? '').split(';')[0];
  if (call.method === 'head' || !documented.content) {
    if (response.body !== '') violations.push(`${what}: a body where the document has none`);
  } else if (!(type in documented.content)) {
    violations.push(`${what}: Content-Type ${type} not documented (${Object.keys(documented.content)})`);
  } else if (type.endsWith('json')) {
    const result = api.validateResponse(JSON.parse(response.body), call.operation.operationId, response.statusCode);
    if (!result.valid) violations.push(`${what}: body ${JSON.stringify(result.errors)}`);
  }
  const retryAfter = response.headers['retry-after'];
  if ((status === '503' || status === '429') && !/^\d+$/.test(String(retryAfter)))
    violations.push(`${what}: no Retry-After`);
  if (status === '400' && !BEYOND_SCHEMA.has(sent.kind) && documentAccepts(sent))
    violations.push(`${what}: the unit refuses a request the document calls valid (${response.body.slice(0, 160)})`);
}

async function send(sent: Sent): Promise<LightMyRequestResponse> {
  if (process.env.CONTRACT_TRACE) console.info(sent.kind, sent.call.method, sent.request.url);
  const response = await unit.app.inject(sent.request);
  check(sent, response);
  return response;
}

async function whenRunning(): Promise<void> {
  await waitFor(async () => unit.sensor.run.status === 'RUNNING', 10_000, 'the unit RUNNING');
}

const JSON_BODY_METHODS = new Set(['post', 'put', 'patch']);

/** Each class of mistake for one operation (none that would restart the unit if accepted). */
function mistakes(call: Call): Sent[] {
  const base = exampleRequest(call);
  const out: Sent[] = [];
  const add = (kind: string, request: InjectOptions) => out.push({ call, kind, request });
  add('unknown-query', { ...base, query: { ...(base.query as object), persit: 'true' } });
  const content = call.operation.requestBody?.content;
  if (!JSON_BODY_METHODS.has(call.method) || !content?.['application/json']) return out;
  const headers = { 'content-type': 'application/json' };
  add('malformed-json', { ...base, headers, payload: '{"lidar_mode": ' });
  add('unknown-field', { ...base, headers, payload: JSON.stringify({ no_such_field: 1 }) });
  add('wrong-type', { ...base, headers, payload: JSON.stringify([true, { deep: null }]) });
  add('out-of-range', { ...base, headers, payload: JSON.stringify(-70000) });
  add('charset', { ...base, headers: { 'content-type': 'application/json; charset=latin1' } });
  add('content-encoding', {
    ...base,
    headers: { ...headers, 'content-encoding': 'gzip' },
    payload: gzipSync(Buffer.from(String(base.payload ?? '{}'))),
  });
  add('oversized', { ...base, headers, payload: JSON.stringify({ x: 'a'.repeat(1024 * 1024 + 16) }) });
  add('text-plain', { ...base, headers: { 'content-type': 'text/plain' } });
  add('wrong-content-type', { ...base, headers: { 'content-type': 'application/xml' } });
  return out;
}

describe('every answer against the document, checked by openapi-backend', () => {
  it('the validator refuses what the document does not allow (a control)', async () => {
    expect(api.validateResponse({ lidar_mode: '4096x10' }, 'getConfig', 200).valid).toBe(false);
    expect(api.validateResponse({ status: 'x' }, 'getConfig', 400).valid).toBe(false);
    const put = (name: string, body: unknown) =>
      api.validateRequest(
        { method: 'put', path: `/api/v1/sensor/config/${name}`, headers: { 'content-type': 'application/json' }, body },
        `setConfigParameter_${name}`,
      ).valid;
    expect(put('lidar_mode', '4096x10')).toBe(false);
    expect(put('udp_port_lidar', 70000)).toBe(false);
    expect(put('udp_port_lidar', 7502)).toBe(true);
    const alerts = (cursor: string) =>
      api.validateRequest({ method: 'get', path: '/api/v1/sensor/alerts', query: { cursor }, headers: {} }, 'getAlerts')
        .valid;
    expect(alerts('bogus')).toBe(false);
  });

  it('valid requests, each class of mistake and each unit state: 0 violations', async () => {
    await whenRunning();
    const all = calls();
    const safe = all.filter((c) => !RESTARTING.has(c.operation.operationId));

    for (const call of safe) await send({ call, kind: 'valid', request: exampleRequest(call) });
    for (const call of safe) {
      for (const mistake of mistakes(call)) {
        await whenRunning();
        await send(mistake);
      }
    }

    // A trailing slash names no resource: 404 naming the one that exists, never 405.
    const paths = [...new Set(safe.filter((c) => !c.path.includes('{')).map((c) => c.path))];
    for (const path of paths) {
      const response = await unit.app.inject({ url: `${path}/` });
      corpus++;
      if (response.statusCode !== 404) violations.push(`GET ${path}/ → ${response.statusCode}, not 404`);
      else if (!response.json<{ detail: string }>().detail.includes(`the resource is ${path}`))
        violations.push(`GET ${path}/: the 404 does not name ${path}`);
    }
    // A method the path does not have: 405 with Allow listing what the document lists.
    for (const path of paths) {
      // A per-value path (config/lidar_mode) is served by its templated route: it has that path's methods.
      const first = Object.values(document.paths[path])[0] as { 'x-path-value-of'?: string };
      const served = document.paths[first['x-path-value-of'] ?? path];
      const listed = Object.keys(served).map((m) => m.toUpperCase());
      const method = (['PATCH', 'PUT', 'DELETE', 'POST'] as const).find((m) => !listed.includes(m));
      if (!method) continue;
      const response = await unit.app.inject({ method, url: path });
      corpus++;
      const allow = String(response.headers.allow ?? '')
        .split(', ')
        .sort();
      if (response.statusCode !== 405) violations.push(`${method} ${path} → ${response.statusCode}, not 405`);
      else if (JSON.stringify(allow) !== JSON.stringify([...listed].sort()))
        violations.push(`${method} ${path}: Allow ${allow} but the document lists ${listed}`);
    }

    // STANDBY: every read answers as documented (metadata: 409).
    const setMode = (mode: string) =>
      unit.app.inject({
        method: 'POST',
        url: '/api/v1/sensor/config',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ operating_mode: mode }),
      });
    expect((await setMode('STANDBY')).statusCode).toBe(204);
    expect(unit.sensor.run.status).toBe('STANDBY');
    // Reads only: a write (the legacy GET commands that set or reinitialize too) waits behind the held bring-up.
    const reads = safe.filter(
      (c) => (c.method === 'get' || c.method === 'head') && !/set_|reinit|save_|reboot/i.test(c.path),
    );
    const metadata = await unit.app.inject({ url: '/api/v1/sensor/metadata' });
    expect(metadata.statusCode).toBe(409);
    for (const call of reads) await send({ call, kind: 'standby', request: exampleRequest(call) });

    // INITIALIZING: the bring-up held open.
    gate.close();
    const reinit = setMode('NORMAL');
    await waitFor(async () => unit.sensor.run.status === 'INITIALIZING', 10_000, 'INITIALIZING');
    for (const call of reads) await send({ call, kind: 'initializing', request: exampleRequest(call) });
    gate.open();
    expect((await reinit).statusCode).toBe(204);
    await whenRunning();

    // ERROR: at a shutdown level (here the over-temperature alert held) config reads answer, metadata is a 409.
    unit.sensor.alerts.hold(ALERT_IDS.OVERTEMP_ERROR, { temperature_c: 97, threshold_c: 95 });
    await waitFor(async () => unit.sensor.run.status === 'ERROR', 10_000, 'ERROR');
    expect((await unit.app.inject({ url: '/api/v1/sensor/metadata' })).statusCode).toBe(409);
    for (const call of reads) await send({ call, kind: 'error', request: exampleRequest(call) });
    unit.sensor.alerts.release(ALERT_IDS.OVERTEMP_ERROR, 'test: back within limits');
    await whenRunning();

    // The restarting operations, and UPDATING: a new image's first boot held open.
    for (const call of all.filter((c) => RESTARTING.has(c.operation.operationId))) {
      await whenRunning();
      if (call.operation.operationId === 'uploadFirmware') gate.close();
      await send({ call, kind: 'valid', request: exampleRequest(call) });
      if (call.operation.operationId === 'uploadFirmware') {
        await waitFor(async () => unit.sensor.run.status === 'UPDATING', 10_000, 'UPDATING');
        for (const read of reads) await send({ call: read, kind: 'updating', request: exampleRequest(read) });
        gate.open();
      }
    }
    await whenRunning();

    console.info(`contract: ${corpus} answers checked by openapi-backend; ${violations.length} violations`);
    expect(violations).toEqual([]);
    expect(corpus).toBeGreaterThan(300);
  }, 180_000);
});
