#!/usr/bin/env node
/**
 * The example client of deploy/compose.yaml and deploy/kubernetes: points each sensor's data at
 * itself (`udp_dest: "@auto"`, the address the sensor sees the request come from) and prints, every
 * few seconds, the lidar and IMU packets per second it receives from each sensor's address.
 *
 *   node dist/fleet/example-client.js http://sensor-1 http://sensor-2     (or SENSORS="http://a http://b")
 */
import dgram from 'node:dgram';
import { setTimeout as sleep } from 'node:timers/promises';

const LIDAR_PORT = Number(process.env.UDP_PORT_LIDAR ?? 7502);
const IMU_PORT = Number(process.env.UDP_PORT_IMU ?? 7503);
const REPORT_EVERY_MS = Number(process.env.REPORT_EVERY_MS ?? 5000);

function counter(port: number): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const socket = dgram.createSocket({ type: 'udp4', reuseAddr: true });
  socket.on('message', (_data, rinfo) => counts.set(rinfo.address, (counts.get(rinfo.address) ?? 0) + 1));
  return new Promise((resolve) => socket.bind(port, () => resolve(counts)));
}

/** Retries until the sensor takes the configuration: it may still be starting. */
async function pointAtMe(sensor: string): Promise<void> {
  for (;;) {
    try {
      const response = await fetch(`${sensor}/api/v1/sensor/config?reinit=true&persist=false`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ udp_dest: '@auto', udp_port_lidar: LIDAR_PORT, udp_port_imu: IMU_PORT }),
        signal: AbortSignal.timeout(5000),
      });
      if (response.status === 204) return;
      process.stdout.write(`${sensor}: ${response.status} ${await response.text()}\n`);
    } catch (error) {
      process.stdout.write(`${sensor}: ${(error as Error).message}; retrying\n`);
    }
    await sleep(2000);
  }
}

async function main(): Promise<void> {
  const sensors = process.argv.slice(2).length
    ? process.argv.slice(2)
    : (process.env.SENSORS ?? '').split(/[\s,]+/).filter(Boolean);
  if (!sensors.length)
    throw new Error('name the sensors: example-client http://sensor-1 http://sensor-2 (or SENSORS=...)');
  const [lidar, imu] = await Promise.all([counter(LIDAR_PORT), counter(IMU_PORT)]);
  await Promise.all(sensors.map(pointAtMe));
  process.stdout.write(`receiving from ${sensors.join(', ')} on UDP ${LIDAR_PORT}/${IMU_PORT}\n`);
  for (;;) {
    const before = { lidar: new Map(lidar), imu: new Map(imu) };
    await sleep(REPORT_EVERY_MS);
    const rate = (now: Map<string, number>, then: Map<string, number>, source: string) =>
      ((now.get(source) ?? 0) - (then.get(source) ?? 0)) / (REPORT_EVERY_MS / 1000);
    const sources = [...new Set([...lidar.keys(), ...imu.keys()])].sort();
    const line = sources.map(
      (s) => `${s} lidar ${rate(lidar, before.lidar, s).toFixed(0)}/s imu ${rate(imu, before.imu, s).toFixed(0)}/s`,
    );
    process.stdout.write(`${line.join(' | ') || 'no packets yet'}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`example-client: ${(error as Error).message}\n`);
  process.exitCode = 1;
});
