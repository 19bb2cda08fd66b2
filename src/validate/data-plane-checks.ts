/**
 * --allow-changes, data plane: receives the lidar and IMU streams the unit sends here and checks them with a decoder
 * written from the packet documentation alone (./decoder), not the server's encoders.
 */
import { createSocket, type Socket } from 'node:dgram';
import { IMU_PACKET_SIZE, PROFILES, packetSize, type Profile } from './decoder/formats.js';
import { windowColumns } from './decoder/frames.js';
import { decodeImuPacket } from './decoder/imu-decoder.js';
import { decodeLidarPacket, type DecodedLidarPacket } from './decoder/lidar-decoder.js';
import type { CheckLog } from './report.js';

type Obj = Record<string, unknown>;

export interface Capture {
  lidar: { at: number; bytes: Buffer }[];
  imu: { at: number; bytes: Buffer }[];
  seconds: number;
}

export async function openReceivers(): Promise<{ lidar: Socket; imu: Socket }> {
  const bind = (s: Socket) => new Promise<Socket>((ok, fail) => s.once('error', fail).bind(0, () => ok(s)));
  // A large receive buffer so a busy host does not drop what the unit sent (that would read as packet loss).
  const open = () => createSocket({ type: 'udp4', recvBufferSize: 16 * 1024 * 1024 });
  return { lidar: await bind(open()), imu: await bind(open()) };
}

/** Collects what arrives for `seconds`, counted from the first lidar packet (or the deadline if none comes). */
export async function capture(sockets: { lidar: Socket; imu: Socket }, seconds: number): Promise<Capture> {
  const c: Capture = { lidar: [], imu: [], seconds };
  sockets.lidar.on('message', (bytes) => c.lidar.push({ at: performance.now(), bytes }));
  sockets.imu.on('message', (bytes) => c.imu.push({ at: performance.now(), bytes }));
  const deadline = performance.now() + seconds * 1000 * 2;
  while (performance.now() < deadline) {
    const first = c.lidar[0]?.at;
    if (first !== undefined && performance.now() - first >= seconds * 1000) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  sockets.lidar.removeAllListeners('message');
  sockets.imu.removeAllListeners('message');
  return c;
}

const u16next = (a: number) => (a + 1) & 0xffff;

export function dataPlaneChecks(log: CheckLog, c: Capture, config: Obj, format: Obj, info: Obj) {
  const profile = String(format.udp_profile_lidar) as Profile;
  const pixels = Number(format.pixels_per_column);
  const columnsPerFrame = Number(format.columns_per_frame);
  const window = format.column_window as [number, number];
  if (
    !log.expect(
      'lidar.arrives',
      'lidar packets arrive on udp_port_lidar',
      c.lidar.length ? '' : `none within ${c.seconds * 2} s`,
      `${c.lidar.length} packets`,
    )
  )
    return;
  if (!PROFILES.includes(profile)) {
    log.skip('lidar.decode', `packets decode as ${profile}`, 'profile unknown to this validator');
    return;
  }
  if (Number(format.columns_per_packet) !== 16) {
    log.skip(
      'lidar.decode',
      `packets decode as ${profile}`,
      `columns_per_packet ${format.columns_per_packet}: decoder knows 16`,
    );
    return;
  }
  const size = packetSize(profile, pixels);
  const wrongSize = c.lidar.filter((p) => p.bytes.length !== size).length;
  log.expect(
    'lidar.size',
    `every lidar packet is ${size} bytes (${profile}, ${pixels} pixels)`,
    wrongSize ? `${wrongSize} of ${c.lidar.length} packets of another size` : '',
  );
  const packets: DecodedLidarPacket[] = [];
  let undecodable = 0;
  for (const p of c.lidar) {
    try {
      if (p.bytes.length === size) packets.push(decodeLidarPacket(p.bytes, profile, pixels));
    } catch {
      undecodable++;
    }
  }
  log.expect('lidar.decode', `packets decode as ${profile}`, undecodable ? `${undecodable} packets do not decode` : '');
  const initIds = new Set(packets.map((p) => p.initId));
  log.expect(
    'lidar.init-id',
    'header init_id equals sensor_info.initialization_id',
    initIds.size === 1 && initIds.has(Number(info.initialization_id))
      ? ''
      : `init_id ${[...initIds].join(',')} vs ${info.initialization_id}`,
  );
  const serials = new Set(packets.map((p) => p.serial.toString()));
  log.expect(
    'lidar.serial',
    'header serial equals sensor_info.prod_sn',
    serials.size === 1 && serials.has(String(info.prod_sn))
      ? ''
      : `serial ${[...serials].join(',')} vs ${info.prod_sn}`,
  );
  const badFooter = packets.filter((p) => !p.footerOk).length;
  log.expect(
    'lidar.crc',
    profile.startsWith('FUSA') ? 'FUSA packets carry a zero footer' : 'packet footer CRC-64 matches the packet',
    badFooter ? `${badFooter} of ${packets.length} packets with a bad CRC/footer` : '',
  );
  log.expect(
    'lidar.reserved',
    'reserved header bytes are zero',
    packets.some((p) => !p.reservedZero) ? 'a packet has non-zero reserved bytes' : '',
  );

  // Order: within a frame the measurement ids of the window follow one another packet by packet; frame ids step by 1.
  const wanted = windowColumns(window, columnsPerFrame);
  const position = new Map(wanted.map((m, i) => [m, i]));
  const order: string[] = [];
  const dup: string[] = [];
  const gaps: string[] = [];
  const frameIds: number[] = [];
  const statusProblems: string[] = [];
  let previous: DecodedLidarPacket | undefined;
  for (const p of packets) {
    const firstInWindow = p.columns.find((col) => position.has(col.measurementId));
    if (previous && previous.frameId === p.frameId) {
      const last = [...previous.columns].reverse().find((col) => position.has(col.measurementId));
      const a = position.get(last?.measurementId ?? -1) ?? -1;
      const b = position.get(firstInWindow?.measurementId ?? -1) ?? -1;
      if (b === a - 15 || b === a) dup.push(`frame ${p.frameId} m_id ${firstInWindow?.measurementId}`);
      else if (b < a)
        order.push(`frame ${p.frameId}: m_id ${firstInWindow?.measurementId} after ${last?.measurementId}`);
      else if (b > a + 1)
        gaps.push(`frame ${p.frameId}: m_id ${last?.measurementId} → ${firstInWindow?.measurementId}`);
    } else if (previous) {
      if (p.frameId !== u16next(previous.frameId)) {
        if (p.frameId === previous.frameId) dup.push(`frame ${p.frameId}`);
        else if (((p.frameId - previous.frameId) & 0xffff) > 0x8000)
          order.push(`frame ${p.frameId} after ${previous.frameId}`);
        else gaps.push(`frame ${previous.frameId} → ${p.frameId}`);
      }
      frameIds.push(p.frameId);
    }
    for (const col of p.columns) {
      const inside = position.has(col.measurementId);
      if (inside !== Boolean(col.status & 1)) statusProblems.push(`m_id ${col.measurementId} status ${col.status}`);
    }
    previous = p;
  }
  const list = (xs: string[]) => `${xs.length}: ${xs.slice(0, 3).join('; ')}`;
  log.expect('lidar.no-duplicates', 'no lidar packet arrives twice', dup.length ? `duplicated ${list(dup)}` : '');
  log.expect(
    'lidar.in-order',
    'frame_id and measurement_id come in order',
    order.length ? `out of order ${list(order)}` : '',
  );
  log.expect(
    'lidar.no-gaps',
    'no lidar packet is missing (measurement ids and frame ids without gaps)',
    gaps.length ? `missing after ${list(gaps)}` : '',
  );
  log.expect(
    'lidar.column-status',
    'column status valid inside column_window (azimuth_window), 0 outside',
    statusProblems.length ? list(statusProblems) : '',
  );

  const [, rate] = String(config.lidar_mode).split('x').map(Number);
  const spanS = ((c.lidar.at(-1)?.at ?? 0) - (c.lidar[0]?.at ?? 0)) / 1000;
  const frameRate = frameIds.length / spanS;
  if (!rate || spanS < 0.5)
    log.skip('lidar.frame-rate', 'frame rate matches lidar_mode', `capture too short (${spanS.toFixed(2)} s)`);
  else
    log.expect(
      'lidar.frame-rate',
      `frame rate matches lidar_mode (${rate} Hz ±15%)`,
      Math.abs(frameRate - rate) / rate > 0.15 ? `measured ${frameRate.toFixed(2)} Hz` : '',
      `${frameRate.toFixed(2)} Hz`,
    );

  imuChecks(log, c);
}

function imuChecks(log: CheckLog, c: Capture) {
  if (
    !log.expect(
      'imu.arrives',
      'IMU packets arrive on udp_port_imu',
      c.imu.length ? '' : 'none',
      `${c.imu.length} packets`,
    )
  )
    return;
  const wrong = c.imu.filter((p) => p.bytes.length !== IMU_PACKET_SIZE).length;
  log.expect(
    'imu.size',
    `every IMU packet is ${IMU_PACKET_SIZE} bytes`,
    wrong ? `${wrong} of ${c.imu.length} of another size` : '',
  );
  const decoded = c.imu.filter((p) => p.bytes.length === IMU_PACKET_SIZE).map((p) => decodeImuPacket(p.bytes));
  const finite = decoded.every((d) => [...d.accel, ...d.gyro].every(Number.isFinite));
  log.expect(
    'imu.fields',
    'IMU acceleration and angular velocity are finite numbers',
    finite ? '' : 'NaN or infinite values',
  );
  const g = decoded.map((d) => Math.hypot(...d.accel));
  const meanG = g.reduce((a, b) => a + b, 0) / Math.max(1, g.length);
  log.expect(
    'imu.gravity',
    'a unit at rest measures about 1 g',
    meanG > 0.8 && meanG < 1.2 ? '' : `mean |a| ${meanG.toFixed(3)} g`,
    `${meanG.toFixed(3)} g`,
  );
  const ts = decoded.map((d) => d.sysTs);
  log.expect(
    'imu.timestamps',
    'IMU sys_ts increases packet by packet',
    ts.every((t, i) => i === 0 || t > (ts[i - 1] ?? 0n)) ? '' : 'sys_ts goes back',
  );
  const spanS = ((c.imu.at(-1)?.at ?? 0) - (c.imu[0]?.at ?? 0)) / 1000;
  const rate = (c.imu.length - 1) / spanS;
  if (spanS < 0.5) log.skip('imu.rate', 'IMU rate is 100 Hz', 'capture too short');
  else
    log.expect(
      'imu.rate',
      'IMU rate is 100 Hz (±15%)',
      Math.abs(rate - 100) > 15 ? `measured ${rate.toFixed(1)} Hz` : '',
      `${rate.toFixed(1)} Hz`,
    );
}
