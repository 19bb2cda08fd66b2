/**
 * `--allow-changes`, the data plane: the unit's lidar and IMU streams pointed at the validator
 * (`udp_dest` `@auto`), decoded with the current lidar_data_format, and checked packet by packet.
 */
import { lookup } from 'node:dns/promises';
import { type CheckRun, expectThat, SkipCheck } from './check-run.js';
import { imuChecks } from './imu-checks.js';
import { imuNmeaChecks } from './imu-nmea-checks.js';
import { zonePacketChecks } from './zone-checks.js';
import { lidarChecks } from './lidar-checks.js';
import type { Replay } from './replay-signal.js';
import type { UdpCapture } from './udp-capture.js';
import type { UnitClient } from './unit-client.js';
import { waitUntilRunning } from './unit-state.js';

export async function dataPlaneChecks(
  run: CheckRun,
  client: UnitClient,
  capture: UdpCapture,
  seconds: number,
  replay?: Replay,
): Promise<void> {
  const pointed = await run.check(
    'udp.point',
    'POST udp_dest "@auto" with the validator\'s ports answers 204 and the unit runs',
    async () => {
      // A 3.2 unit's zone packets come to the validator too (a unit below 3.2 has no such parameters).
      const zoned = 'udp_port_zm' in (await client.fresh('/api/v1/sensor/config'));
      const body = {
        udp_dest: '@auto',
        udp_port_lidar: capture.lidarPort,
        udp_port_imu: capture.imuPort,
        operating_mode: 'NORMAL',
        ...(zoned ? { udp_dest_zm: '@auto', udp_port_zm: capture.zonePort } : {}),
      };
      const answer = await client.request('POST', '/api/v1/sensor/config', { body });
      expectThat(answer.status === 204, `answered ${answer.status}: ${answer.text.slice(0, 120)}`);
      await waitUntilRunning(client);
      return `lidar → :${capture.lidarPort}, IMU → :${capture.imuPort}`;
    },
  );
  if (!pointed) {
    run.skip('udp', 'data plane checks', 'the streams could not be pointed at the validator');
    return;
  }
  const info = await client.fresh('/api/v1/sensor/metadata/sensor_info');
  const format = await client.fresh('/api/v1/sensor/metadata/lidar_data_format');
  const config = await client.fresh('/api/v1/sensor/config');
  const alertsBefore = await client.fresh<{ next_cursor: number }>('/api/v1/sensor/alerts');
  capture.start();
  const startedMs = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  capture.stop();
  const elapsedS = (performance.now() - startedMs) / 1000;
  const sensorTime = await client.fresh('/api/v1/time/sensor');
  const alertsAfter = await client.fresh<{ next_cursor: number }>('/api/v1/sensor/alerts');
  await lidarChecks(run, capture, {
    info,
    format,
    config,
    elapsedS,
    sensorTime,
    cursors: [alertsBefore.next_cursor, alertsAfter.next_cursor],
    replay,
  });
  if (config.udp_profile_imu === 'ACCEL32_GYRO32_NMEA') {
    const imuFormat = await client.fresh('/api/v1/sensor/metadata/imu_data_format');
    await imuNmeaChecks(run, capture, { config, format, imuFormat, info, elapsedS, replay });
  } else await imuChecks(run, capture, config, elapsedS, replay);
  await zonePacketChecks(run, capture, config, format.header_type === 'FUSA', replay);
  await sourceAddressCheck(run, client, capture);
}

/**
 * The vendor SDK (and every client built on it, ouster-ros included) drops each datagram whose source address is
 * not the one it resolved for the unit's host name: behind a published port or another NAT, the unit answers
 * HTTP on one address while its UDP leaves from another, and such a client receives nothing.
 */
async function sourceAddressCheck(run: CheckRun, client: UnitClient, capture: UdpCapture): Promise<void> {
  await run.check(
    'udp.source-address',
    'lidar and IMU datagrams come from the address the validator talks HTTP to (vendor clients drop others)',
    async () => {
      const received = [...capture.lidar, ...capture.imu];
      if (received.length === 0) throw new SkipCheck('no datagram arrived');
      const { address: httpAddress } = await lookup(new URL(client.baseUrl).hostname);
      const sources = [...new Set(received.map((r) => r.from))];
      const others = sources.filter((s) => s !== httpAddress);
      expectThat(
        others.length === 0,
        `HTTP to ${httpAddress}, UDP from ${others.join(', ')}: a client that keeps only datagrams from ${httpAddress} receives nothing; reach the unit at ${others[0]} instead (not through a published port or NAT)`,
      );
      return `${received.length} datagrams from ${httpAddress}`;
    },
  );
}
