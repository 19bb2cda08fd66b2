/**
 * The data plane through the HTTP interface: configuration changes via app.inject() on the real
 * device core and sim HAL; packets received on 127.0.0.1 and decoded with the independent decoder,
 * checked against what GET /api/v1/sensor/metadata says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { pointOf } from './decoder/geometry.js';
import { lidarInitId } from './decoder/lidar-decoder.js';
import { checkLidarStream, expectationsFrom, packetsInWindow, type StreamMetadata } from './helpers/stream-checks.js';
import { columnTowards, expectedAlong, WALL_BACK_X } from './helpers/known-rays.js';
import { StreamClock } from './helpers/stream-clock.js';
import { UdpCapture, drain } from './helpers/udp-capture.js';
import { waitFor } from '../helpers/poll.js';

interface Metadata extends StreamMetadata {
  sensor_info: StreamMetadata['sensor_info'] & { status: string };
  beam_intrinsics: {
    beam_altitude_angles: number[];
    beam_azimuth_angles: number[];
    lidar_origin_to_beam_origin_mm: number;
  };
}
interface AlertEntry {
  id: string;
  active: boolean;
  msg_verbose: string;
  category: string;
  cursor: number;
}

let unit: TestSensor;
const clock = new StreamClock();
const captures: UdpCapture[] = [];
async function capture(port = 0) {
  const c = await UdpCapture.listen('127.0.0.1', port);
  captures.push(c);
  return c;
}

beforeAll(async () => {
  unit = await createTestSensor({ product: 'OS-1-64', serial: '992233000777' });
});
afterAll(async () => {
  await Promise.all([unit.close(), clock.close()]);
  await Promise.all(captures.map((c) => c.close()));
  removeDir(unit.dataDir);
});

const json = { 'content-type': 'application/json' };
async function post(body: object) {
  const res = await unit.app.inject({ method: 'POST', url: '/api/v1/sensor/config', headers: json, payload: body });
  expect(res.statusCode, res.body).toBe(204);
}
async function put(name: string, value: unknown) {
  const res = await unit.app.inject({
    method: 'PUT',
    url: `/api/v1/sensor/config/${name}`,
    headers: json,
    payload: JSON.stringify(value),
  });
  expect(res.statusCode, res.body).toBe(204);
}
async function get<T>(url: string): Promise<T> {
  const res = await unit.app.inject({ method: 'GET', url });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as T;
}
const sensorSeconds = async () => (await get<{ timestamp: { time: number } }>('/api/v1/time/sensor')).timestamp.time;

describe('data plane through the HTTP interface', () => {
  it('sends what the metadata describes, from the moment udp_dest is set, timestamped by the sensor clock', async () => {
    const [l, i] = [await capture(), await capture()];
    const before = await sensorSeconds();
    await post({
      udp_dest: '127.0.0.1',
      udp_port_lidar: l.port,
      udp_port_imu: i.port,
      udp_profile_lidar: 'RNG19_RFL8_SIG16_NIR16_DUAL',
    });
    const md = await get<Metadata>('/api/v1/sensor/metadata');
    expect(md.sensor_info.status).toBe('RUNNING');
    const e = expectationsFrom(md);
    await waitFor(() => l.count >= 3 * packetsInWindow(e) + 1 && i.count >= 5, 20_000, 'three frames and IMU data');
    const after = await sensorSeconds();
    const { complete } = checkLidarStream(
      l.datagrams.map((d) => d.data),
      {
        ...e,
        sensorTimeFrom: BigInt(Math.floor((before - 0.001) * 1e9)),
        sensorTimeTo: BigInt(Math.ceil((after + 0.001) * 1e9)),
      },
    );
    expect(complete.length).toBeGreaterThanOrEqual(2);

    // The back wall and the floor where the metadata's beam intrinsics say they are.
    const beams = {
      beamAltitudeDeg: md.beam_intrinsics.beam_altitude_angles,
      beamAzimuthDeg: md.beam_intrinsics.beam_azimuth_angles,
      lidarOriginToBeamOriginMm: md.beam_intrinsics.lidar_origin_to_beam_origin_mm,
    };
    let rays = 0;
    for (let p = 0; p < e.pixels; p++) {
      const m = columnTowards(180, p, e.columnsPerFrame, beams);
      const expected = expectedAlong(m, p, e.columnsPerFrame, beams, WALL_BACK_X);
      if (!expected) continue;
      const px = complete[0].columns.get(m)!.pixels[p];
      expect(Math.abs(px.range - expected.range), `m ${m} p ${p}`).toBeLessThanOrEqual(12);
      if (expected.surface === 'wall')
        expect(Math.abs(pointOf(px.range, m, p, e.columnsPerFrame, beams)[0] - WALL_BACK_X)).toBeLessThanOrEqual(12);
      rays++;
    }
    expect(rays).toBeGreaterThan(32);
  });

  it('PUT lidar_mode: the old stream stops, the new one carries the new initialization_id from its first packet', async () => {
    const l = await capture();
    await post({
      udp_dest: '127.0.0.1',
      udp_port_lidar: l.port,
      udp_port_imu: 0,
      udp_profile_lidar: 'RNG19_RFL8_SIG16_NIR16',
      lidar_mode: '1024x10',
    });
    const old = await get<Metadata>('/api/v1/sensor/metadata');
    await waitFor(() => l.count > 10, 10_000, 'packets before the change');
    await put('lidar_mode', '2048x10');
    const md = await get<Metadata>('/api/v1/sensor/metadata');
    expect(md.sensor_info.initialization_id).not.toBe(old.sensor_info.initialization_id);
    const e = expectationsFrom(md);
    expect(e.columnsPerFrame).toBe(2048);
    const firstNew = () => l.datagrams.findIndex((d) => lidarInitId(d.data, 'RNG19_RFL8_SIG16_NIR16') === e.initId);
    await waitFor(
      () => firstNew() >= 0 && l.count - firstNew() >= 3 * packetsInWindow(e) + 1,
      20_000,
      'three frames of the new mode',
    );
    const k = firstNew();
    expect(
      l.datagrams
        .slice(0, k)
        .every((d) => lidarInitId(d.data, 'RNG19_RFL8_SIG16_NIR16') === old.sensor_info.initialization_id),
    ).toBe(true);
    const { complete } = checkLidarStream(
      l.datagrams.slice(k).map((d) => d.data),
      e,
    );
    expect(complete.length).toBeGreaterThanOrEqual(2);
  });

  it('operating_mode STANDBY stops the data and NORMAL resumes it', async () => {
    const [l, i] = [await capture(), await capture()];
    await post({ udp_dest: '127.0.0.1', udp_port_lidar: l.port, udp_port_imu: i.port, lidar_mode: '512x10' });
    const running = await get<Metadata>('/api/v1/sensor/metadata');
    await waitFor(() => l.count > 5 && i.count > 2, 10_000, 'lidar and IMU data in NORMAL');
    await put('operating_mode', 'STANDBY');
    expect((await get<Metadata['sensor_info']>('/api/v1/sensor/metadata/sensor_info')).status).toBe('STANDBY');
    const [lidarMarker, imuMarker] = [await drain(l), await drain(i)];
    expect(
      l.datagrams
        .slice(0, lidarMarker)
        .every((d) => lidarInitId(d.data, 'RNG19_RFL8_SIG16_NIR16') === running.sensor_info.initialization_id),
    ).toBe(true);
    await clock.twoFrames();
    expect(l.count, 'lidar datagrams in STANDBY').toBe(lidarMarker + 1);
    expect(i.count, 'IMU datagrams in STANDBY').toBe(imuMarker + 1);

    await put('operating_mode', 'NORMAL');
    const md = await get<Metadata>('/api/v1/sensor/metadata');
    expect(md.sensor_info.status).toBe('RUNNING');
    await waitFor(() => l.count > lidarMarker + 5 && i.count > imuMarker + 2, 10_000, 'data after NORMAL');
    expect(
      l.datagrams
        .slice(lidarMarker + 1)
        .every((d) => lidarInitId(d.data, 'RNG19_RFL8_SIG16_NIR16') === md.sensor_info.initialization_id),
    ).toBe(true);
  });

  it('raises UDP_TRANSMISSION when nothing listens, sets alert_flags bit 7 in packets, and clears when a client listens', async () => {
    const probe = await UdpCapture.listen();
    const port = probe.port;
    await probe.close();
    await post({ udp_dest: '127.0.0.1', udp_port_lidar: port, udp_port_imu: 0, lidar_mode: '512x10' });
    const activeAlert = async () =>
      (await get<{ active: AlertEntry[] }>('/api/v1/sensor/alerts')).active.find((a) => a.id === '0x01000015');
    const alert = await waitFor(activeAlert, 10_000, 'the UDP_TRANSMISSION alert');
    expect(alert.category).toBe('UDP_TRANSMISSION');
    expect(alert.msg_verbose).toContain(`127.0.0.1:${port}`);

    // A client starts listening: it sees the alert in the header flags, then the alert clears.
    const l = await capture(port);
    await waitFor(() => l.count > 0, 10_000, 'packets to the new listener');
    const flags = l.datagrams[l.datagrams.length - 1].data[12];
    expect(flags & 0x80).toBe(0x80);
    const { next_cursor } = await get<{ next_cursor: number }>('/api/v1/sensor/alerts');
    await waitFor(async () => !(await activeAlert()), 20_000, 'the alert to clear');
    const log = (await get<{ log: AlertEntry[] }>('/api/v1/sensor/alerts')).log;
    expect(log.some((a) => a.id === '0x01000015' && !a.active && a.cursor >= next_cursor - 1)).toBe(true);
    // Packets sent after the clear carry the new cursor and no active bit.
    const { next_cursor: cursorNow, active } = await get<{ next_cursor: number; active: AlertEntry[] }>(
      '/api/v1/sensor/alerts',
    );
    const seen = l.count;
    await waitFor(() => l.count > seen + 2, 10_000, 'packets after the clear');
    const last = l.datagrams[l.datagrams.length - 1].data[12];
    expect(last & 0x3f).toBe(cursorNow & 0x3f);
    expect(last & 0x80).toBe(active.length > 0 ? 0x80 : 0);
  }, 40_000);
});
