/** The user data field: value, policy, limits, binary refusal, and its fate on configuration reset. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { waitFor } from '../helpers/poll.js';

let unit: TestSensor;
beforeEach(async () => {
  unit = await createTestSensor();
});
afterEach(async () => {
  await unit.close();
  removeDir(unit.dataDir);
});

const put = (payload: string, query = '', headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  unit.app.inject({ method: 'PUT', url: `/api/v1/user/data${query}`, headers, payload });
const read = async (query = '') => (await unit.app.inject({ url: `/api/v1/user/data${query}` })).json();

describe('GET/PUT/DELETE /api/v1/user/data', () => {
  it('starts as "" and answers 200 with a JSON string (clients poll it during metadata collection)', async () => {
    const res = await unit.app.inject({ url: '/api/v1/user/data' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('""');
    expect(res.headers['content-type']).toBe('application/json');
  });

  it('stores text of any script, reads it back with and without metadata', async () => {
    const value = 'rack 4 — ステーション 🚗\ttab\nline';
    expect((await put(JSON.stringify(value))).statusCode).toBe(204);
    expect(await read()).toBe(value);
    for (const q of ['?include_metadata=true', '?include_metadata=1'])
      expect(await read(q)).toEqual({ value, policy: 'clear_on_config_delete' });
    for (const q of ['?include_metadata=false', '?include_metadata=0']) expect(await read(q)).toBe(value);
    expect((await unit.app.inject({ url: '/api/v1/user/data?include_metadata=yes' })).statusCode).toBe(400);
  });

  it('accepts a PUT without Content-Type (curl -d sends a form type)', async () => {
    expect((await put('"x"', '', { 'content-type': 'application/x-www-form-urlencoded' })).statusCode).toBe(204);
    expect(await read()).toBe('x');
  });

  it('takes the policy from the query and keeps it with the value', async () => {
    expect((await put('"kept"', '?policy=keep_on_config_delete')).statusCode).toBe(204);
    expect(await read('?include_metadata=true')).toEqual({ value: 'kept', policy: 'keep_on_config_delete' });
    expect((await put('"cleared"', '?policy=clear_on_config_delete')).statusCode).toBe(204);
    expect(await read('?include_metadata=1')).toEqual({ value: 'cleared', policy: 'clear_on_config_delete' });
  });

  it('refuses a wrong policy, a non-string, binary content, and leaves the value alone', async () => {
    await put('"safe"');
    const cases: [string, string, number][] = [
      ['"x"', '?policy=KEEP_ON_CONFIG_DELETE', 400],
      ['"x"', '?policy=forever', 400],
      ['42', '', 400],
      ['{"value":"x"}', '', 400],
      ['null', '', 400],
      ['', '', 400],
      ['"not json', '', 400],
      [JSON.stringify('nul\u0000byte'), '', 400],
      [JSON.stringify('bell\u0007'), '', 400],
      [JSON.stringify('del\u007f'), '', 400],
      ['"lone \\ud800 surrogate"', '', 400],
    ];
    for (const [payload, query, status] of cases) {
      const res = await put(payload, query);
      expect(res.statusCode, `${payload} ${query}`).toBe(status);
      expect(res.headers['content-type']).toBe('application/json');
    }
    expect(await read('?include_metadata=true')).toEqual({ value: 'safe', policy: 'clear_on_config_delete' });
  });

  it('limits the value to 131072 bytes of UTF-8: exactly the limit passes, one more byte is 413', async () => {
    const atLimit = 'a'.repeat(131_072);
    expect((await put(JSON.stringify(atLimit))).statusCode).toBe(204);
    const over = `${'é'.repeat(65_536)}a`; // 131073 bytes, 65537 characters
    const res = await put(JSON.stringify(over));
    expect(res.statusCode).toBe(413);
    expect(res.json().detail).toContain('131073');
    expect(await read()).toBe(atLimit);
  });

  it('DELETE makes it "" and resets the policy', async () => {
    await put('"bye"', '?policy=keep_on_config_delete');
    const res = await unit.app.inject({ method: 'DELETE', url: '/api/v1/user/data' });
    expect(res.statusCode).toBe(204);
    expect(await read('?include_metadata=true')).toEqual({ value: '', policy: 'clear_on_config_delete' });
  });

  it('concurrent writers: each is answered once stored, in order, refused ones alone, and a read after an answer sees it or a later write', async () => {
    const values = Array.from({ length: 20 }, (_, i) => `writer ${i}`);
    const seen: [number, string][] = [];
    const answers = await Promise.all(
      values.map(async (value, i) => {
        // Every fifth write is refused (binary content); the writes around it must not be.
        const res = await put(JSON.stringify(i % 5 === 2 ? `${value}\u0007` : value));
        if (res.statusCode === 204) seen.push([i, await read()]);
        return res.statusCode;
      }),
    );
    expect(answers).toEqual(values.map((_, i) => (i % 5 === 2 ? 400 : 204)));
    // A reader after writer i's answer sees writer i's value or a later writer's, never an earlier one.
    expect(seen).toHaveLength(16);
    for (const [writer, value] of seen)
      expect(values.indexOf(value), `after writer ${writer}`).toBeGreaterThanOrEqual(writer);
    expect(await read()).toBe('writer 19');
    unit = await unit.reopen();
    expect(await read()).toBe('writer 19');
  });

  it('survives a power cycle', async () => {
    await put('"persisted"', '?policy=keep_on_config_delete');
    unit = await unit.reopen();
    expect(await read('?include_metadata=true')).toEqual({ value: 'persisted', policy: 'keep_on_config_delete' });
  });
});

describe('DELETE /api/v1/sensor/config', () => {
  const json = { 'content-type': 'application/json' };

  async function resetAndWaitForRestart() {
    const initBefore = unit.sensor.run.initializationId;
    const res = await unit.app.inject({ method: 'DELETE', url: '/api/v1/sensor/config' });
    expect(res.statusCode).toBe(204);
    await waitFor(
      () => unit.sensor.run.initializationId !== initBefore && unit.sensor.run.status === 'RUNNING',
      10_000,
      'the restart',
    );
  }

  it('resets every parameter to its default, persisted, and restarts with a new initialization_id', async () => {
    await unit.app.inject({
      method: 'POST',
      url: '/api/v1/sensor/config',
      headers: json,
      payload: JSON.stringify({ lidar_mode: '2048x10', udp_dest: '127.0.0.1' }),
    });
    const defaults = (await createTestSensor()).sensor.configs.reported('active');
    await resetAndWaitForRestart();
    expect((await unit.app.inject({ url: '/api/v1/sensor/config' })).json()).toEqual(defaults);
    unit = await unit.reopen();
    expect((await unit.app.inject({ url: '/api/v1/sensor/config' })).json()).toEqual(defaults);
  });

  it('clears user data under clear_on_config_delete', async () => {
    await put('"temporary"');
    await resetAndWaitForRestart();
    expect(await read()).toBe('');
  });

  it('keeps user data under keep_on_config_delete, also after a power cycle', async () => {
    await put('"precious"', '?policy=keep_on_config_delete');
    await resetAndWaitForRestart();
    expect(await read('?include_metadata=true')).toEqual({ value: 'precious', policy: 'keep_on_config_delete' });
    unit = await unit.reopen();
    expect(await read()).toBe('precious');
  });

  it('answers 503 with Retry-After while the unit restarts', async () => {
    unit = await unit.reopen();
    await unit.close();
    unit = await createTestSensor({ dataDir: unit.dataDir, simulatedRebootMs: 2000 });
    const initBefore = unit.sensor.run.initializationId;
    await unit.app.inject({ method: 'DELETE', url: '/api/v1/sensor/config' });
    const during = await waitFor(
      async () => {
        const res = await unit.app.inject({ url: '/api/v1/sensor/config' });
        return res.statusCode === 503 ? res : undefined;
      },
      5000,
      'a 503 during the restart',
    );
    expect(Number(during.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await waitFor(
      async () => (await unit.app.inject({ url: '/api/v1/sensor/config' })).statusCode === 200,
      10_000,
      'the unit back',
    );
    expect(unit.sensor.run.initializationId).not.toBe(initBefore);
  });
});
