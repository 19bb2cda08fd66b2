/**
 * A unit started with --replay for the replay tests, with two UDP captures to point its streams at and
 * helpers to configure it; every unit and capture is closed after each test.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, expect } from 'vitest';
import { parseCliOptions } from '../../../src/main/cli-options.js';
import { startServer, type RunningServer } from '../../../src/main/server.js';
import { UdpCapture } from '../../udp/helpers/udp-capture.js';

// Documents of the interface, read field by field: the test asserts their shape itself.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

const running: { server: RunningServer; captures: UdpCapture[] }[] = [];

afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.server.close();
    for (const c of r.captures) await c.close();
  }
});

/** @param logs collects the unit's log lines (parsed JSON) when given */
export async function replayUnit(base: string, extra: string[] = [], logs?: Json[]) {
  const dataDir = mkdtempSync(join(tmpdir(), 'replay-unit-'));
  const options = parseCliOptions(
    ['--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--replay', `${base}.pcap`, ...extra],
    {},
  );
  if (options === 'help') throw new Error('unexpected help');
  const logger = logs
    ? pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) })
    : pino({ level: 'silent' });
  const server = await startServer(options, logger);
  const lidar = await UdpCapture.listen();
  const imu = await UdpCapture.listen();
  running.push({ server, captures: [lidar, imu] });
  const post = async (body: Record<string, unknown>) =>
    fetch(`${server.url}/api/v1/sensor/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const getJson = async (path: string): Promise<Json> => (await fetch(`${server.url}${path}`)).json();
  /**
   * Points the streams at the captures (a reinit: the recording starts). A fresh unit has no udp_dest,
   * so everything captured comes from this run.
   */
  const listen = async (more: Record<string, unknown> = {}) => {
    const res = await post({ udp_dest: '127.0.0.1', udp_port_lidar: lidar.port, udp_port_imu: imu.port, ...more });
    expect(res.status).toBe(204);
  };
  /** Another capture, closed with the unit. */
  const capture = async () => {
    const c = await UdpCapture.listen();
    running.at(-1)?.captures.push(c);
    return c;
  };
  return { server, dataDir, lidar, imu, post, getJson, listen, capture };
}
