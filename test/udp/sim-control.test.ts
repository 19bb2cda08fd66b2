/**
 * When the simulated unit sends and when it must not: operating mode, port 0 and empty udp_dest,
 * reinit without interleaving, the source address, and UDP_TRANSMISSION alerts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/registry.js';
import type { SensorConfig } from '../../src/model/index.js';
import { EmitterStreams } from '../../src/hal/emitter-streams.js';
import { RecordingAlerts } from './helpers/recording-alerts.js';
import { StreamClock } from './helpers/stream-clock.js';
import { UdpCapture, drain } from './helpers/udp-capture.js';
import { findProduct } from '../../src/model/products.js';
import { planStreams, type StreamPlan } from '../../src/udp/index.js';
import { waitFor } from '../helpers/poll.js';
import { lidarInitId } from './decoder/lidar-decoder.js';

const SERIAL = 122201000123n;
let initId = 0x20000;
const alerts = new RecordingAlerts();
const lidar = new EmitterStreams(alerts);
const clock = new StreamClock();
const captures: UdpCapture[] = [];

async function capture(address = '127.0.0.1', port = 0): Promise<UdpCapture> {
  const c = await UdpCapture.listen(address, port);
  captures.push(c);
  return c;
}

afterAll(async () => {
  await Promise.all([lidar.close(), clock.close()]);
  await Promise.all(captures.map((c) => c.close()));
});

/** The plan the device core would build for `config` (null: it sends nothing). */
function runOf(config: Partial<SensorConfig>, bindAddress?: string): StreamPlan | null {
  const full: SensorConfig = {
    ...defaultConfig(),
    udp_dest: '127.0.0.1',
    lidar_mode: '512x10',
    udp_port_lidar: 0,
    udp_port_imu: 0,
    ...config,
  };
  return planStreams(full, {
    initId: ++initId,
    product: findProduct('OS-1-32')!,
    serialNumber: SERIAL,
    bindAddress,
    timestampOffsetNs: -process.hrtime.bigint(),
  });
}

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const c = await UdpCapture.listen();
  const port = c.port;
  await c.close();
  return port;
}

describe('when data flows', () => {
  it('STANDBY stops both streams and NORMAL resumes them, with a new init_id', async () => {
    const [l, i] = [await capture(), await capture()];
    const normal = runOf({ udp_port_lidar: l.port, udp_port_imu: i.port });
    await lidar.apply(normal);
    await waitFor(() => l.count > 5 && i.count > 2, 10_000, 'lidar and IMU data');

    await lidar.apply(runOf({ udp_port_lidar: l.port, udp_port_imu: i.port, operating_mode: 'STANDBY' }));
    expect((await lidar.stats()).initId).toBeNull();
    // Read what was already queued when apply() resolved, then watch two frames' worth of time.
    const [lidarMarker, imuMarker] = [await drain(l), await drain(i)];
    expect(l.datagrams.slice(0, lidarMarker).every((d) => lidarInitId(d.data) === normal?.initId)).toBe(true);
    await clock.twoFrames();
    expect(l.count).toBe(lidarMarker + 1);
    expect(i.count).toBe(imuMarker + 1);
    const imuAfter = i.count;

    const resumed = runOf({ udp_port_lidar: l.port, udp_port_imu: i.port });
    await lidar.apply(resumed);
    await waitFor(
      () => l.datagrams.some((d) => lidarInitId(d.data) === resumed?.initId) && i.count > imuAfter,
      10_000,
      'data after NORMAL',
    );
  });

  it('port 0 turns that stream off and an empty udp_dest turns both off', async () => {
    const [l, i] = [await capture(), await capture()];
    await lidar.apply(runOf({ udp_port_lidar: 0, udp_port_imu: i.port }));
    await waitFor(() => i.count >= 5, 10_000, 'IMU data with the lidar port 0');
    const stats = await lidar.stats();
    expect(stats.lidar).toBeNull();
    expect(stats.imu?.sent).toBeGreaterThan(0);

    await lidar.apply(runOf({ udp_port_lidar: l.port, udp_port_imu: 0 }));
    await waitFor(() => l.count >= 5, 10_000, 'lidar data with the IMU port 0');
    expect((await lidar.stats()).imu).toBeNull();
    const imuMarker = await drain(i);
    await clock.twoFrames();
    expect(i.count, 'IMU datagrams after its port became 0').toBe(imuMarker + 1);

    await lidar.apply(runOf({ udp_dest: '', udp_port_lidar: l.port, udp_port_imu: i.port }));
    expect(await lidar.stats()).toEqual({ initId: null, lidar: null, imu: null });
    const [lidarMarker, imuMarker2] = [await drain(l), await drain(i)];
    await clock.twoFrames();
    expect(l.count, 'lidar datagrams after udp_dest became empty').toBe(lidarMarker + 1);
    expect(i.count, 'IMU datagrams after udp_dest became empty').toBe(imuMarker2 + 1);
  });

  it('a reinit never interleaves packets of two initializations, and the first new packet carries the new init_id', async () => {
    const l = await capture();
    const runs: StreamPlan[] = [];
    // Mode, profile and window changes in quick succession, as a client reconfiguring would cause.
    const changes: Partial<SensorConfig>[] = [
      { lidar_mode: '1024x10' },
      { lidar_mode: '512x20', udp_profile_lidar: 'RNG19_RFL8_SIG16_NIR16_DUAL' },
      { lidar_mode: '2048x10', udp_profile_lidar: 'RNG15_RFL8_NIR8' },
      { lidar_mode: '1024x20', azimuth_window: [90_000, 270_000] },
      { lidar_mode: '1024x10' },
    ];
    for (const change of changes) {
      const run = runOf({ ...change, udp_port_lidar: l.port })!;
      runs.push(run);
      await lidar.apply(run);
      await waitFor(
        () => l.datagrams.some((d) => lidarInitId(d.data) === run.initId),
        10_000,
        `packets of init ${run.initId}`,
      );
    }
    const order = l.datagrams.map((d) => runs.findIndex((r) => r.initId === lidarInitId(d.data)));
    expect(order.every((o) => o >= 0)).toBe(true);
    for (let k = 1; k < order.length; k++) expect(order[k], `datagram ${k}`).toBeGreaterThanOrEqual(order[k - 1]);
    expect(new Set(order).size).toBe(changes.length);
  });

  it('sends from the address the HTTP server listens on', async () => {
    const l = await capture();
    await lidar.apply(runOf({ udp_port_lidar: l.port }, '127.0.0.2'));
    await waitFor(() => l.count > 0, 10_000, 'lidar data');
    expect(l.datagrams.every((d) => d.from.address === '127.0.0.2')).toBe(true);
    await lidar.apply(null);
  });
});

describe('UDP_TRANSMISSION alerts', () => {
  it('are raised when nothing listens on the destination ports, naming host:port, and clear once a listener appears', async () => {
    const [lidarPort, imuPort] = [await closedPort(), await closedPort()];
    await lidar.apply(runOf({ udp_port_lidar: lidarPort, udp_port_imu: imuPort }));
    await waitFor(
      () => alerts.active.has('0x01000015') && alerts.active.has('0x01000018'),
      10_000,
      'both UDP_TRANSMISSION alerts',
    );
    expect(alerts.active.get('0x01000015')).toMatchObject({ host: '127.0.0.1', port: lidarPort });
    expect(alerts.active.get('0x01000018')).toMatchObject({ host: '127.0.0.1', port: imuPort });

    // The client starts: the refusals stop and, after a quiet spell, the alerts clear.
    const l = await capture('127.0.0.1', lidarPort);
    const i = await capture('127.0.0.1', imuPort);
    await waitFor(() => !alerts.active.has('0x01000015') && !alerts.active.has('0x01000018'), 20_000, 'alerts cleared');
    expect(l.count).toBeGreaterThan(0);
    expect(i.count).toBeGreaterThan(0);
    const clears = alerts.events.filter((e) => e.action === 'clear').map((e) => e.id);
    expect(clears).toEqual(expect.arrayContaining(['0x01000015', '0x01000018']));
  }, 30_000);

  it('are raised again by the next run when the destination still refuses, and a stale run cannot raise them', async () => {
    const port = await closedPort();
    await lidar.apply(runOf({ udp_port_lidar: port }));
    await waitFor(() => alerts.active.has('0x01000015'), 10_000, 'lidar alert');
    // The device core clears run alerts at reinit (AlertLog.clearForReinit); here the sink stands in.
    alerts.clear('0x01000015', 'reinitialized');
    const raisesBefore = alerts.events.filter((e) => e.action === 'raise' && e.id === '0x01000015').length;
    await lidar.apply(runOf({ udp_port_lidar: port, lidar_mode: '1024x10' }));
    await waitFor(() => alerts.active.has('0x01000015'), 10_000, 'alert of the new run');
    expect(alerts.events.filter((e) => e.action === 'raise' && e.id === '0x01000015').length).toBe(raisesBefore + 1);
    await lidar.apply(null);
  });

  it('UDP_CONNECT: a destination that cannot be reached from the bound address raises the lidar and IMU network alerts', async () => {
    // From 127.0.0.2 nothing routes to a documentation address: connect() fails.
    await lidar.apply(runOf({ udp_dest: '192.0.2.123', udp_port_lidar: 7502, udp_port_imu: 7503 }, '127.0.0.2'));
    await waitFor(
      () => alerts.active.has('0x01000035') && alerts.active.has('0x01000039'),
      10_000,
      'UDP_CONNECT alerts',
    );
    expect(alerts.active.get('0x01000035')).toMatchObject({ host: '192.0.2.123', port: 7502 });
    await lidar.apply(null);
  });

  it('UDP_CONNECT: a bind address the host does not have raises "could not open the lidar socket"', async () => {
    await lidar.apply(runOf({ udp_port_lidar: 7502 }, '198.51.100.77'));
    await waitFor(() => alerts.active.has('0x01000032'), 10_000, 'socket-open alert');
    expect(alerts.active.get('0x01000032')).toMatchObject({ host: '127.0.0.1', port: 7502, error: 'EADDRNOTAVAIL' });
    await lidar.apply(null);
  });
});
