/** Issue 11 item 10: alert lines carry one `level`; the operator sees every change and who made it. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createPersistentAlertLog } from '../../src/alerts/persistent-alert-log.js';
import { ALERT_IDS } from '../../src/model/alert-catalogue.js';
import { openDatabase } from '../../src/store/database.js';
import { startCli } from '../helpers/cli-process.js';
import { removeDir } from '../helpers/test-sensor.js';
import { waitFor } from '../helpers/poll.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

describe('log lines', () => {
  it('an alert line has exactly one "level" key (pino\'s) and the alert\'s level as alert_level', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sensor-h11-'));
    const db = openDatabase(dataDir);
    const { lines, logger } = capture();
    const alerts = createPersistentAlertLog(db, logger);
    alerts.raise(ALERT_IDS.FIRMWARE_ROLLBACK);
    await waitFor(() => lines.length > 0, 2000, 'the alert line');
    const line = lines.find((l) => l.includes('alert raised'))!;
    expect(line.match(/"level":/g)).toHaveLength(1);
    expect(JSON.parse(line)).toMatchObject({
      level: 40,
      alert_level: expect.any(String),
      alert: ALERT_IDS.FIRMWARE_ROLLBACK,
    });
    db.close();
    removeDir(dataDir);
  });

  it("a configuration change is logged at info with its parameters and the client's address, then the reinit", async () => {
    const cli = await startCli({ args: ['--log-level', 'info'] });
    try {
      const res = await fetch(`${cli.baseUrl}/api/v1/sensor/config`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"lidar_mode":"512x10"}',
      });
      expect(res.status).toBe(204);
      const change = await waitFor(
        () =>
          cli
            .output()
            .split('\n')
            .find((l) => l.includes('change requested by a client')),
        5000,
        'the change line',
      );
      expect(JSON.parse(change)).toMatchObject({
        level: 30,
        method: 'POST',
        url: '/api/v1/sensor/config',
        status: 204,
        remote: '127.0.0.1',
        parameters: ['lidar_mode'],
      });
      expect(cli.output()).toMatch(/"lidar_mode":"512x10".*"msg":"reinitialized"/);
    } finally {
      await cli.stop();
      removeDir(cli.dataDir);
    }
  });
});
