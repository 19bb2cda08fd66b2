/** Bad input of every kind gets a clear 4xx problem+json and changes nothing; HTTP details of the contract. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { createTestSensor, type TestSensor } from '../helpers/test-sensor.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';

let unit: TestSensor;
beforeAll(async () => {
  unit = await createTestSensor();
});
afterAll(() => unit.close());

const json = { 'content-type': 'application/json' };

describe('bad requests', () => {
  it.each([
    ['malformed JSON', '{"lidar_mode": "512x10",}', 400],
    ['wrong JSON type', '"512x10"', 400],
    ['empty body', '', 400],
    ['__proto__ key', '{"__proto__": {"polluted": true}, "lidar_mode": "512x10"}', 400],
    ['constructor.prototype', '{"constructor": {"prototype": {"polluted": true}}}', 400],
    ['10 MB body', `{"udp_dest":"${'a'.repeat(10 * 1024 * 1024)}"}`, 413],
  ])('%s → %i, problem+json, nothing changed', async (_label, payload, status) => {
    const before = unit.sensor.configs.reported('active');
    const initBefore = unit.sensor.run.initializationId;
    const res = await unit.app.inject({ method: 'POST', url: '/api/v1/sensor/config', headers: json, payload });
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toBe('application/json');
    const body = res.json();
    expect(body).toMatchObject({
      status,
      title: expect.any(String),
      detail: expect.any(String),
      type: expect.stringContaining('problem'),
    });
    expect(body.detail).not.toMatch(/at .*\.js:\d+/);
    expect(unit.sensor.configs.reported('active')).toEqual(before);
    expect(unit.sensor.run.initializationId).toBe(initBefore);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('unknown path → 404; existing path with another method → 405 with Allow', async () => {
    const missing = await unit.app.inject({ url: '/api/v1/nothing/here' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toBe('application/json');
    const wrong = await unit.app.inject({ method: 'PATCH', url: '/api/v1/sensor/config' });
    expect(wrong.statusCode).toBe(405);
    expect(wrong.headers.allow).toBe('GET, HEAD, POST, DELETE');
    const param = await unit.app.inject({ method: 'DELETE', url: '/api/v1/sensor/config/lidar_mode' });
    expect(param.statusCode).toBe(405);
    expect(param.headers.allow).toBe('GET, HEAD, PUT');
    const userData = await unit.app.inject({ method: 'POST', url: '/api/v1/user/data', headers: json, payload: '"x"' });
    expect(userData.statusCode).toBe(405);
  });
});

describe('over a real socket (the CLI)', () => {
  let cli: CliProcess;
  beforeAll(async () => {
    cli = await startCli();
  });
  afterAll(async () => {
    await cli.stop();
  });

  it('answers with Connection: keep-alive and serves several requests on one connection', async () => {
    const agent = new (await import('node:http')).Agent({ keepAlive: true, maxSockets: 1 });
    const ports = new Set<number>();
    for (let i = 0; i < 3; i++) {
      const res = await new Promise<{ headers: Record<string, unknown>; localPort: number }>((resolve, reject) => {
        const req = httpRequest(`${cli.baseUrl}/api/v1/sensor/config`, { agent }, (r) => {
          r.resume();
          r.on('end', () => resolve({ headers: r.headers, localPort: req.socket!.localPort! }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(res.headers.connection).toBe('keep-alive');
      expect(res.headers['content-type']).toBe('application/json');
      ports.add(res.localPort);
    }
    expect(ports.size).toBe(1);
    agent.destroy();
  });

  it('accepts an absolute-form request target, as sent through a proxy', async () => {
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        { host: cli.host, port: cli.port, path: 'http://10.0.0.5/api/v1/sensor/config/lidar_mode', method: 'GET' },
        (r) => {
          let text = '';
          r.on('data', (d: Buffer) => (text += d.toString()));
          r.on('end', () => resolve(`${r.statusCode} ${text}`));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(body).toBe('200 "1024x10"');
  });

  it('survives a flood of garbage and keeps answering', async () => {
    const net = await import('node:net');
    for (const garbage of [
      'GARBAGE\r\n\r\n',
      'GET / HTTP/9.9\r\n\r\n',
      `POST /api/v1/sensor/config HTTP/1.1\r\nContent-Length: 5\r\nContent-Type: application/json\r\n\r\n{"a"`,
    ]) {
      await new Promise<void>((resolve) => {
        const socket = net.connect(cli.port, cli.host, () => socket.end(garbage));
        socket.on('close', () => resolve());
        socket.on('error', () => resolve());
        socket.resume();
      });
    }
    expect((await fetch(`${cli.baseUrl}/api/v1/sensor/config`)).status).toBe(200);
  });
});
