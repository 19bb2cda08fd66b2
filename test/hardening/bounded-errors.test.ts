/** Issue 11 items 1, 3, 8: an error answer stays small whatever the request; errors are application/json by default. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSensor, type TestSensor } from '../helpers/test-sensor.js';

let unit: TestSensor;
beforeAll(async () => {
  unit = await createTestSensor();
});
afterAll(() => unit.close());

const json = { 'content-type': 'application/json' };
const MAX_ANSWER_BYTES = 64 * 1024;

describe('error answers are bounded', () => {
  it('60,000 unknown keys with long values: a small answer listing 20, counting the rest, nothing changed', async () => {
    const before = unit.sensor.configs.reported('active');
    const body: Record<string, string> = {};
    for (let i = 0; i < 60_000; i++) body[`key_${i}`] = 'v';
    body.x_long_key = 'y'.repeat(20_000);
    const res = await unit.app.inject({
      method: 'POST',
      url: '/api/v1/sensor/config',
      headers: json,
      payload: JSON.stringify(body),
    });
    expect(res.statusCode).toBe(400);
    expect(res.rawPayload.length).toBeLessThan(MAX_ANSWER_BYTES);
    const problem = res.json();
    expect(problem.errors).toHaveLength(20);
    expect(problem.errors[0]).toEqual({ pointer: '/key_0', detail: expect.stringContaining('"key_0"') });
    expect(problem.detail).toMatch(/59981 more keys were not checked/);
    expect(unit.sensor.configs.reported('active')).toEqual(before);
  });

  it('an echoed value is cut to a short prefix', async () => {
    const res = await unit.app.inject({
      method: 'POST',
      url: '/api/v1/sensor/config',
      headers: json,
      payload: JSON.stringify({ ['k'.repeat(50_000)]: 1, lidar_mode: 'Z'.repeat(500_000) }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.rawPayload.length).toBeLessThan(4096);
    for (const e of res.json().errors) expect(e.pointer.length + e.detail.length).toBeLessThan(600);
  });

  it('a list of 130,000 items is a 400 naming its length, not a 500', async () => {
    const payload = JSON.stringify({ azimuth_window: Array.from({ length: 130_000 }, () => 'x') });
    const res = await unit.app.inject({ method: 'POST', url: '/api/v1/sensor/config', headers: json, payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { pointer: '/azimuth_window', detail: 'must be a list of exactly 2 items; got 130000' },
    ]);
  });

  it('a deprecated alias with a huge list is a 400 too', async () => {
    const payload = JSON.stringify({ auto_start_flag: Array.from({ length: 130_000 }, () => 'x') });
    const res = await unit.app.inject({ method: 'POST', url: '/api/v1/sensor/config', headers: json, payload });
    expect(res.statusCode).toBe(400);
    expect(res.rawPayload.length).toBeLessThan(4096);
  });

  it('the legacy set_config_param bounds its echo too', async () => {
    const url = `/api/v1/sensor/cmd/set_config_param?args=lidar_mode+${encodeURIComponent(JSON.stringify('q'.repeat(60_000)))}`;
    const res = await unit.app.inject({ url });
    expect(res.statusCode).toBe(400);
    expect(res.rawPayload.length).toBeLessThan(4096);
  });
});

describe('Content-Type of errors', () => {
  it('application/json by default, problem+json when Accept asks for it, the same body', async () => {
    const plain = await unit.app.inject({ url: '/api/v1/sensor/config/nope' });
    expect(plain.statusCode).toBe(404);
    expect(plain.headers['content-type']).toBe('application/json');
    const asked = await unit.app.inject({
      url: '/api/v1/sensor/config/nope',
      headers: { accept: 'application/problem+json, application/json;q=0.5' },
    });
    expect(asked.headers['content-type']).toBe('application/problem+json');
    expect(asked.body).toBe(plain.body);
    const refused = await unit.app.inject({
      url: '/api/v1/sensor/config/nope',
      headers: { accept: 'application/problem+json;q=0' },
    });
    expect(refused.headers['content-type']).toBe('application/json');
  });
});

describe('deeply nested bodies', () => {
  it('100,000 levels of nesting are refused before parsing, with a 400 naming the limit', async () => {
    const before = unit.sensor.configs.reported('active');
    const payload = `{"azimuth_window":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const res = await unit.app.inject({ method: 'POST', url: '/api/v1/sensor/config', headers: json, payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(/deeper than 64 levels/);
    expect(unit.sensor.configs.reported('active')).toEqual(before);
  });

  it('brackets inside strings do not count', async () => {
    const res = await unit.app.inject({
      method: 'PUT',
      url: '/api/v1/user/data',
      payload: JSON.stringify('['.repeat(5000)),
    });
    expect(res.statusCode).toBe(204);
  });
});
