/**
 * The Date header (src/routes/http/date-header.ts, src/model/util/utc-time.ts): the unit writes it itself, in Node's own format,
 * exactly once on every answer, whichever path made the answer.
 */
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/routes/app.js';
import { httpDate } from '../../src/model/index.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { rawConnect } from '../helpers/raw-http.js';

describe('httpDate', () => {
  it('writes what Date.prototype.toUTCString writes, for every second of the years 1000 to 9999', () => {
    const min = Date.UTC(1000, 0, 1);
    const max = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
    fc.assert(
      fc.property(fc.integer({ min, max }), (ms) => {
        expect(httpDate(ms)).toBe(new Date(ms).toUTCString());
      }),
      { numRuns: 20_000 },
    );
  });
});

describe('the Date header on the wire', () => {
  let unit: TestSensor;
  let app: FastifyInstance;
  let port: number;

  beforeAll(async () => {
    unit = await createTestSensor();
    app = await buildApp(unit.sensor);
    port = Number(new URL(await app.listen({ host: '127.0.0.1', port: 0 })).port);
  });
  afterAll(async () => {
    await app.close();
    await unit.close();
    removeDir(unit.dataDir);
  });

  const REQUESTS = [
    // Answered before routing (prepared-answers.ts), then by Fastify: a route, an error, a write, a miss.
    'GET /api/v1/sensor/config HTTP/1.1\r\nHost: sensor\r\n\r\n',
    'GET /api/v1/sensor/config?staging=true HTTP/1.1\r\nHost: sensor\r\n\r\n',
    'GET /api/v1/sensor/config?staging=maybe HTTP/1.1\r\nHost: sensor\r\n\r\n',
    'PUT /api/v1/user/data HTTP/1.1\r\nHost: sensor\r\nContent-Type: application/json\r\nContent-Length: 3\r\n\r\n"x"',
    'GET /api/v1/nothing-here HTTP/1.1\r\nHost: sensor\r\n\r\n',
  ];

  it('is on every answer exactly once, with the time of the answer', async () => {
    for (const request of REQUESTS) {
      const connection = await rawConnect(port);
      try {
        const before = Date.now();
        connection.write(request);
        const response = await connection.response();
        const after = Date.now();
        const dates = (response?.head ?? '').split('\r\n').filter((line) => /^date:/i.test(line));
        expect(dates, request.split('\r\n')[0]).toHaveLength(1);
        // Ours, not Node's (Node writes `Date:`, and only when no header of that name was set).
        expect(dates[0].startsWith('date: ')).toBe(true);
        const value = dates[0].slice('date: '.length);
        expect([httpDate(before), httpDate(after)]).toContain(value);
      } finally {
        connection.destroy();
      }
    }
  });
});
