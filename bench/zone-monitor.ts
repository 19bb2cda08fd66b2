/**
 * (8) Zone Monitor (docs/zone-monitor.md): what 16 live zones cost a streaming unit, and what rendering costs.
 * One OS-1-128 at 1024x10 on firmware 3.2, its lidar, IMU and zone packets received here: the unit's CPU
 * seconds per second with no zone set, then with 16 live zones (boxes around the unit, each crossed by
 * thousands of beams; target within 10 % of the first), and the render time of a 1,000-triangle zone (a
 * sphere) for the same beams, in this process.
 */
import dgram from 'node:dgram';
import { createHash } from 'node:crypto';
import { strToU8, zipSync } from 'fflate';
import { boxTriangles, encodeBinaryStl, findProduct, renderZone } from '../src/model/index.js';
import { startCli } from '../test/helpers/cli-process.js';
import { sphereTriangles } from '../test/zones/zone-set-zips.js';
import type { BenchContext } from './context.js';
import { sleep, track } from './processes.js';
import { CpuMeter } from './proc-stats.js';
import { fmt, metText, type Figure, type Section } from './report.js';

const STREAM_NOTE = 'OS-1-128 at 1024x10, RNG19_RFL8_SIG16_NIR16, lidar + IMU + zone packets to loopback';

/** 16 boxes, 1.5 m on a side, on a ring 5 m around the unit at the height of its beams. */
function sixteenZones(): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  const zones: Record<string, unknown> = {};
  for (let i = 0; i < 16; i++) {
    const a = (2 * Math.PI * i) / 16;
    const c = [5 * Math.cos(a), 5 * Math.sin(a), -0.5];
    const stl = encodeBinaryStl(
      boxTriangles([c[0] - 0.75, c[1] - 0.75, c[2] - 0.75], [c[0] + 0.75, c[1] + 0.75, c[2] + 0.75]),
    );
    files[`${i}.stl`] = stl;
    zones[i] = {
      point_count: 10,
      frame_count: 2,
      mode: i % 2 ? 'VACANCY' : 'OCCUPANCY',
      stl: { file_name: `${i}.stl`, coordinate_frame: 'SENSOR', hash: createHash('sha256').update(stl).digest('hex') },
    };
  }
  const metadata = { version: { metadata: 1, file_naming: 1 }, power_on_live_ids: [...Array(16).keys()], zones };
  return zipSync({ 'metadata.json': strToU8(JSON.stringify(metadata)), ...files });
}

async function sink(): Promise<{ port: number; count: () => number; close: () => void }> {
  const socket = dgram.createSocket('udp4');
  let n = 0;
  socket.on('message', () => n++);
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  socket.setRecvBufferSize(8 * 1024 * 1024);
  return { port: socket.address().port, count: () => n, close: () => socket.close() };
}

export async function benchZoneMonitor(ctx: BenchContext): Promise<Section> {
  const measureS = ctx.quick ? 8 : 30;
  const unit = await startCli({ args: ['--product', 'OS-1-128', '--firmware-version', '3.2'] });
  track(unit.child);
  const data = await sink();
  const zones = await sink();
  try {
    const post = (path: string, body: string | Uint8Array, type: string) =>
      fetch(`${unit.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': type }, body });
    const config = {
      udp_dest: '127.0.0.1',
      udp_port_lidar: data.port,
      udp_port_imu: data.port,
      udp_dest_zm: '127.0.0.1',
      udp_port_zm: zones.port,
      lidar_mode: '1024x10',
    };
    if ((await post('/api/v1/sensor/config', JSON.stringify(config), 'application/json')).status !== 204)
      throw new Error('the unit refused the stream configuration');
    const pid = unit.child.pid as number;
    await sleep(3000);
    const idle = new CpuMeter(pid).start();
    await sleep(measureS * 1000);
    const withoutZones = idle.perSecond();

    const zip = sixteenZones();
    if ((await post('/api/v1/zone_monitor/staged/zip', zip, 'application/octet-stream')).status !== 204)
      throw new Error('the unit refused the 16-zone set');
    if ((await post('/api/v1/zone_monitor/apply', '', 'application/json')).status !== 204)
      throw new Error('the unit did not apply the 16-zone set');
    await sleep(3000);
    const zonePacketsBefore = zones.count();
    const busy = new CpuMeter(pid).start();
    await sleep(measureS * 1000);
    const withZones = busy.perSecond();
    const zonePacketRate = (zones.count() - zonePacketsBefore) / measureS;

    const product = findProduct('OS-1-128');
    if (!product) throw new Error('no OS-1-128');
    const mesh = sphereTriangles([4, 0, 0], 1);
    const beams = {
      columnsPerFrame: 1024,
      beamAltitudeDeg: product.beamAltitudeDeg,
      beamAzimuthDeg: product.beamAzimuthDeg,
      lidarOriginToBeamOriginMm: product.lidarOriginToBeamOriginMm,
      lidarToSensor: product.lidarToSensorTransform,
    };
    renderZone(mesh, beams);
    const runs = 5;
    const t0 = performance.now();
    let crossing = 0;
    for (let i = 0; i < runs; i++) crossing = renderZone(mesh, beams).crossingBeams;
    const renderMs = (performance.now() - t0) / runs;

    const ratio = withZones / withoutZones;
    const figures: Figure[] = [
      { name: 'zone monitor: unit CPU, no zones', value: withoutZones, unit: 'CPU s/s', note: STREAM_NOTE },
      {
        name: 'zone monitor: unit CPU, 16 live zones',
        value: withZones,
        unit: 'CPU s/s',
        reference: withoutZones,
        ratio,
        target: '<= 1.10 x no zones',
        met: ratio <= 1.1,
        note: `${fmt(zonePacketRate, 1)} zone packets/s`,
      },
      {
        name: 'zone monitor: render of a 1000-triangle zone (1024 x 128 beams)',
        value: renderMs,
        unit: 'ms',
        note: `${mesh.length / 9} triangles, ${crossing} beams cross it`,
      },
    ];
    return {
      figures,
      rows: figures.map((f) => ({
        figure: f.name,
        value: `${fmt(f.value, 3)} ${f.unit}`,
        reference: f.reference === undefined ? '' : `${fmt(f.reference, 3)} ${f.unit}`,
        ratio: f.ratio === undefined ? '' : fmt(f.ratio, 3),
        target: f.target ?? '',
        met: f.target ? metText(f.met) : '',
      })),
    };
  } finally {
    data.close();
    zones.close();
    await unit.kill();
  }
}
