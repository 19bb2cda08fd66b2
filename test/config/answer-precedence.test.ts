/**
 * Which mistake a configuration write is answered with when it has several, and the wording that depends on
 * what arrived. The parts of a request are checked in the order every route has (Fastify's: path, body,
 * query string), the configuration's values among them: an unknown parameter of PUT before its body, the
 * body's values before the query string; a missing body and a JSON `null` are told apart.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestSensor, type TestSensor } from '../helpers/test-sensor.js';

let unit: TestSensor;
beforeAll(async () => {
  unit = await createTestSensor();
});
afterAll(() => unit.close());

const json = { 'content-type': 'application/json' };
const write = (method: 'POST' | 'PUT', url: string, payload: string | object, headers = json) =>
  unit.app.inject({ method, url, headers, payload });
const pointers = (res: { json(): { errors: { pointer: string }[] } }) => res.json().errors.map((e) => e.pointer);

it('POST with a bad query flag and bad values: the values are named, the query not', async () => {
  const res = await write('POST', '/api/v1/sensor/config?reinit=maybe', { lidar_mode: 'fast' });
  expect(res.statusCode).toBe(400);
  expect(res.json().type).toBe('urn:lidar-sensor:problem:invalid-configuration');
  expect(pointers(res)).toEqual(['/lidar_mode']);
});

it('POST without a body and POST of JSON null get different details', async () => {
  const post = (payload?: string) =>
    unit.app.inject({ method: 'POST', url: '/api/v1/sensor/config', headers: json, payload });
  const missing = await post();
  expect(missing.statusCode).toBe(400);
  expect(missing.json().detail).toBe('the request needs a JSON object of configuration parameters as its body');
  const nothing = await post('null');
  expect(nothing.statusCode).toBe(400);
  expect(nothing.json().detail).toBe('the body must be a JSON object of configuration parameters; got null');
});

it('PUT of an unknown parameter with a body no parameter takes: 404 for the name', async () => {
  const res = await write('PUT', '/api/v1/sensor/config/nope', '{"a":1}');
  expect(res.statusCode).toBe(404);
  expect(res.json().detail).toBe('unknown configuration parameter "nope" (names are case-sensitive)');
});

it('POST with a bad query flag and good values: the query is named and nothing changes', async () => {
  const before = (await unit.app.inject({ url: '/api/v1/sensor/config?staging=true' })).json();
  const res = await write('POST', '/api/v1/sensor/config?reinit=maybe', { lidar_mode: '2048x10' });
  expect(res.statusCode).toBe(400);
  expect(pointers(res)).toEqual(['/query/reinit']);
  expect((await unit.app.inject({ url: '/api/v1/sensor/config?staging=true' })).json()).toEqual(before);
});

it('PUT of a deprecated name with a bad value: the value rules name it under the name sent', async () => {
  const res = await write('PUT', '/api/v1/sensor/config/auto_start_flag', '"sometimes"');
  expect(res.statusCode).toBe(400);
  expect(pointers(res)).toEqual(['/auto_start_flag']);
});

it('PUT without Content-Type: application/json is 415 before its value is looked at', async () => {
  const res = await write('PUT', '/api/v1/sensor/config/lidar_mode', '"fast"', { 'content-type': 'text/plain' });
  expect(res.statusCode).toBe(415);
});
