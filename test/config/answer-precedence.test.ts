/**
 * Which mistake a configuration write is answered with when it has several, and the wording that depends on
 * what arrived: the wire answers any change to where the configuration's values are checked must keep. The
 * query string is checked before the body's values; an unknown parameter of PUT before its body; a missing
 * body and a JSON `null` are told apart.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestSensor, type TestSensor } from '../helpers/test-sensor.js';

let unit: TestSensor;
beforeAll(async () => {
  unit = await createTestSensor();
});
afterAll(() => unit.close());

const json = { 'content-type': 'application/json' };

it('POST with a bad query flag and bad values: the query is named, the values not', async () => {
  const res = await unit.app.inject({
    method: 'POST',
    url: '/api/v1/sensor/config?reinit=maybe',
    headers: json,
    payload: { lidar_mode: 'fast' },
  });
  expect(res.statusCode).toBe(400);
  expect(res.json().type).toBe('urn:lidar-sensor:problem:bad-request');
  expect(res.json().errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/query/reinit']);
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
  const res = await unit.app.inject({
    method: 'PUT',
    url: '/api/v1/sensor/config/nope',
    headers: json,
    payload: '{"a":1}',
  });
  expect(res.statusCode).toBe(404);
  expect(res.json().detail).toBe('unknown configuration parameter "nope" (names are case-sensitive)');
});
