/**
 * `--allow-changes`, the data plane: the unit's lidar and IMU streams pointed at the validator
 * (`udp_dest` `@auto`), decoded with the current lidar_data_format, and checked packet by packet.
 */
import { lookup } from 'node:dns/promises';
import { type CheckRun, expectThat, show, SkipCheck } from './check-run.js';
import {
  decodeImuPacket,
  decodeLidarPacket,
  IMU_PACKET_BYTES,
  type LidarPacket,
  lidarPacketBytes,
  PROFILE_LAYOUTS,
} from './packet-decoder.js';
import { lidarModeShape } from './spec-rules.js';
import type { UdpCapture } from './udp-capture.js';
import type { UnitClient } from './unit-client.js';
import { waitUntilRunning } from './unit-state.js';

type Json = Record<string, unknown>;

export async function dataPlaneChecks(
  run: CheckRun,
  client: UnitClient,
  capture: UdpCapture,
  seconds: number,
): Promise<void> {
  const pointed = await run.check(
    'udp.point',
    'POST udp_dest "@auto" with the validator\'s ports answers 204 and the unit runs',
    async () => {
      const body = {
        udp_dest: '@auto',
        udp_port_lidar: capture.lidarPort,
        udp_port_imu: capture.imuPort,
        operating_mode: 'NORMAL',
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
  });
  await imuChecks(run, capture, config, elapsedS);
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

interface Context {
  info: Json;
  format: Json;
  config: Json;
  elapsedS: number;
  sensorTime: Json;
  cursors: [number, number];
}

async function lidarChecks(run: CheckRun, capture: UdpCapture, c: Context): Promise<void> {
  const profile = String(c.format.udp_profile_lidar);
  const layout = PROFILE_LAYOUTS[profile];
  const pixels = c.format.pixels_per_column as number;
  const perPacket = c.format.columns_per_packet as number;
  const width = c.format.columns_per_frame as number;
  const [windowFirst, windowLast] = c.format.column_window as number[];
  const shape = lidarModeShape(String(c.config.lidar_mode));
  const title = (text: string) => `lidar (${profile}): ${text}`;
  if (!layout) {
    run.skip('udp.lidar', title('packet checks'), `profile ${profile} has no published layout`);
    return;
  }
  const expectedSize = lidarPacketBytes(layout, pixels, perPacket);
  const received = capture.lidar;
  const ok = await run.check('udp.lidar.received', title('packets arrive at udp_dest:udp_port_lidar'), () => {
    expectThat(received.length > 0, `no lidar packet in ${c.elapsedS.toFixed(1)} s`);
    return `${received.length} packets in ${c.elapsedS.toFixed(1)} s`;
  });
  if (!ok) return;
  await run.check(
    'udp.lidar.size',
    title(`every packet is ${expectedSize} bytes (${pixels} channels × ${perPacket} columns)`),
    () => {
      const wrong = received.filter((p) => p.data.length !== expectedSize);
      expectThat(
        wrong.length === 0,
        `${wrong.length} of ${received.length} packets have another size (first: ${wrong[0]?.data.length} bytes)`,
      );
    },
  );
  const packets: LidarPacket[] = received
    .filter((p) => p.data.length === expectedSize)
    .map((p) => decodeLidarPacket(p.data, layout, pixels, perPacket));
  const header = (id: string, text: string, body: () => unknown) =>
    run.check(`udp.lidar.${id}`, title(text), () => {
      if (layout.header === 'legacy') throw new SkipCheck('LEGACY packets have no header');
      return body();
    });
  await header('packet-type', 'header packet_type is 1 (lidar)', () => {
    const wrong = packets.filter((p) => p.packetType !== 1);
    expectThat(wrong.length === 0, `${wrong.length} packets with packet_type ${show(wrong[0]?.packetType)}`);
  });
  await header('init-id', `header init_id equals sensor_info.initialization_id (${c.info.initialization_id})`, () => {
    const wrong = packets.filter((p) => p.initId !== c.info.initialization_id);
    expectThat(wrong.length === 0, `${wrong.length} packets with init_id ${wrong[0]?.initId}`);
  });
  await header('serial', `header prod_sn equals sensor_info.prod_sn (${c.info.prod_sn})`, () => {
    const wrong = packets.filter((p) => p.serial !== BigInt(String(c.info.prod_sn)));
    expectThat(wrong.length === 0, `${wrong.length} packets with prod_sn ${wrong[0]?.serial}`);
  });
  await header('reserved', 'reserved header and footer bytes are zero', () => {
    const wrong = packets.filter((p) => p.nonZeroReserved.length > 0);
    expectThat(wrong.length === 0, `${wrong.length} packets, first at byte ${wrong[0]?.nonZeroReserved[0]}`);
  });
  await header('alert-flags', 'header alert_flags bits 0-5 are the low 6 bits of the alert log next_cursor', () => {
    const allowed = new Set<number>();
    for (let cursor = c.cursors[0]; cursor <= c.cursors[1]; cursor++) allowed.add(cursor & 0x3f);
    const wrong = packets.filter((p) => !allowed.has((p.alertFlags ?? 0) & 0x3f));
    expectThat(
      wrong.length === 0,
      `${wrong.length} packets with alert_flags 0x${wrong[0]?.alertFlags?.toString(16)} for next_cursor ${c.cursors.join('..')}`,
    );
  });
  await run.check('udp.lidar.crc', title('footer CRC-64/XZ matches every packet'), () => {
    if (!layout.crc) throw new SkipCheck(`profile ${profile} carries no CRC`);
    const bad = packets.filter((p) => p.crcOk === false);
    expectThat(
      bad.length === 0,
      `${bad.length} of ${packets.length} packets fail the CRC (first: frame ${bad[0]?.frameId}, measurement_id ${bad[0]?.columns[0].measurementId})`,
    );
  });
  await run.check('udp.lidar.footer', title('FUSA footer is all zero'), () => {
    if (layout.header !== 'fusa') throw new SkipCheck(`profile ${profile} is not FUSA`);
    expectThat(
      packets.every((p) => p.footerZero),
      'a footer holds non-zero bytes',
    );
  });
  await run.check(
    'udp.lidar.columns',
    title(`each packet holds ${perPacket} consecutive measurement ids, the first a multiple of ${perPacket}`),
    () => {
      for (const p of packets) {
        const first = p.columns[0].measurementId;
        expectThat(first % perPacket === 0 && first < width, `packet starting at measurement_id ${first}`);
        for (const [i, col] of p.columns.entries())
          expectThat(
            col.measurementId === first + i,
            `measurement_id ${col.measurementId} at column ${i} of a packet starting at ${first}`,
          );
        if (layout.header === 'legacy')
          expectThat(
            p.columns.every((col) => col.frameId === p.frameId),
            'columns of one packet with different frame ids',
          );
      }
    },
  );
  await run.check(
    'udp.lidar.encoder',
    title('LEGACY encoder_count = measurement_id × 90112 / columns_per_frame'),
    () => {
      if (layout.header !== 'legacy') throw new SkipCheck(`profile ${profile} has no encoder count`);
      const wrong = packets
        .flatMap((p) => p.columns)
        .filter((col) => col.encoderCount !== Math.floor((col.measurementId * 90112) / width));
      expectThat(
        wrong.length === 0,
        `${wrong.length} columns, first measurement_id ${wrong[0]?.measurementId} → ${wrong[0]?.encoderCount}`,
      );
    },
  );
  await run.check(
    'udp.lidar.column-status',
    title(`columns inside column_window [${windowFirst}, ${windowLast}] are valid, those outside status 0 and zeroed`),
    () => {
      for (const p of packets)
        for (const col of p.columns) {
          const inside = col.measurementId >= windowFirst && col.measurementId <= windowLast;
          expectThat(
            inside ? col.valid : col.blank,
            `measurement_id ${col.measurementId} (frame ${p.frameId}) ${inside ? 'invalid inside' : 'not blank outside'} the window`,
          );
        }
    },
  );
  const sequence = walkSequence(packets, width, perPacket, layout.header === 'fusa');
  await run.check(
    'udp.lidar.no-gaps',
    title('no packet missing: frame and measurement ids continue without gaps'),
    () => expectThat(sequence.missing === 0, `${sequence.missing} packets missing (first gap: ${sequence.firstGap})`),
  );
  await run.check('udp.lidar.no-duplicates', title('no packet arrives twice'), () =>
    expectThat(
      sequence.duplicates === 0,
      `${sequence.duplicates} duplicated packets (first: ${sequence.firstDuplicate})`,
    ),
  );
  await run.check('udp.lidar.in-order', title('packets arrive in order (frame_id, then measurement_id)'), () =>
    expectThat(
      sequence.reordered === 0,
      `${sequence.reordered} packets out of order (first: ${sequence.firstReorder})`,
    ),
  );
  await run.check(
    'udp.lidar.frame-id',
    title(
      layout.header === 'fusa'
        ? 'frame_id (u32) strictly increases from frame to frame'
        : 'frame_id increases by one per frame (u16, wrapping)',
    ),
    () =>
      expectThat(
        sequence.frameJumps === 0,
        `${sequence.frameJumps} frame id jumps (first: ${sequence.firstFrameJump})`,
      ),
  );
  await run.check('udp.lidar.timestamps', title('column timestamps increase within each packet'), () => {
    for (const p of packets)
      for (let i = 1; i < p.columns.length; i++)
        expectThat(
          p.columns[i].timestampNs >= p.columns[i - 1].timestampNs || !p.columns[i].valid,
          `frame ${p.frameId} measurement_id ${p.columns[i].measurementId} earlier than the column before`,
        );
  });
  await run.check(
    'udp.lidar.frame-rate',
    title(`frame rate from column timestamps matches lidar_mode ${c.config.lidar_mode}`),
    () => {
      if (!shape) throw new SkipCheck(`lidar_mode ${show(c.config.lidar_mode)} not understood`);
      const starts = frameStarts(packets, windowFirst);
      if (starts.length < 3)
        throw new SkipCheck(`only ${starts.length} frame starts seen in ${c.elapsedS.toFixed(1)} s`);
      const periods = starts.slice(1).map((s, i) => Number(s.ts - starts[i].ts) / 1e9 / (s.frame - starts[i].frame));
      const median = periods.sort((a, b) => a - b)[Math.floor(periods.length / 2)];
      const hz = 1 / median;
      expectThat(
        Math.abs(hz - shape.rateHz) / shape.rateHz < 0.05,
        `${hz.toFixed(2)} Hz, lidar_mode says ${shape.rateHz} Hz`,
      );
      return `${hz.toFixed(2)} Hz`;
    },
  );
  await run.check(
    'udp.lidar.packet-rate',
    title('packets arrive at about the rate lidar_mode and column_window give (±50 %)'),
    () => {
      if (!shape) throw new SkipCheck('lidar_mode not understood');
      const packetsPerFrame = Math.ceil((windowLast + 1) / perPacket) - Math.floor(windowFirst / perPacket);
      const expected = packetsPerFrame * shape.rateHz;
      const rate = received.length / c.elapsedS;
      if (received.length >= 8000) return `capture full at ${rate.toFixed(0)}/s`;
      expectThat(
        rate > expected * 0.5 && rate < expected * 1.5,
        `${rate.toFixed(0)} packets/s, expected about ${expected}/s`,
      );
      return `${rate.toFixed(0)}/s (expected ${expected}/s; full frames ${width / perPacket} packets)`;
    },
  );
  await run.check(
    'udp.lidar.clock',
    title('column timestamps agree with GET /api/v1/time/sensor timestamp.time (±2 s)'),
    () => {
      const last = packets
        .flatMap((p) => p.columns)
        .filter((col) => col.valid)
        .at(-1);
      if (!last) throw new SkipCheck('no valid column');
      const unitS = ((c.sensorTime.timestamp as Json)?.time as number) ?? Number.NaN;
      const packetS = Number(last.timestampNs) / 1e9;
      expectThat(Math.abs(unitS - packetS) < 2 + c.elapsedS, `packet ${packetS.toFixed(3)} s, time/sensor ${unitS} s`);
    },
  );
}

interface Sequence {
  missing: number;
  duplicates: number;
  reordered: number;
  frameJumps: number;
  firstGap?: string;
  firstDuplicate?: string;
  firstReorder?: string;
  firstFrameJump?: string;
}

/**
 * Walks the packets in arrival order on one line of positions (frame × packets per frame + index):
 * a step back is a reordering, a position seen before a duplicate, a step over missing positions a
 * loss. Frames whose packets never arrive at all are whole-frame gaps and frame id jumps.
 */
function walkSequence(packets: LidarPacket[], width: number, perPacket: number, u32Frames: boolean): Sequence {
  const result: Sequence = { missing: 0, duplicates: 0, reordered: 0, frameJumps: 0 };
  const slots = width / perPacket;
  // Packets outside the window may not be sent at all: each frame's first and last slot are learnt from the capture.
  const indexes = packets.map((p) => p.columns[0].measurementId / perPacket);
  const firstSlot = Math.min(...indexes);
  const lastSlot = Math.max(...indexes);
  const seen = new Set<number>();
  let frameBase = 0;
  let previousFrame: number | undefined;
  let highest = -1;
  const wrap = u32Frames ? 2 ** 32 : 2 ** 16;
  const where = (p: LidarPacket) => `frame ${p.frameId} measurement_id ${p.columns[0].measurementId}`;
  for (const p of packets) {
    if (previousFrame !== undefined) {
      const step = (p.frameId - previousFrame + wrap) % wrap;
      // A step over half the id space is a frame from the past (reordered across a frame boundary).
      frameBase += step < wrap / 2 ? step : step - wrap;
    }
    previousFrame = p.frameId;
    const position = frameBase * slots + p.columns[0].measurementId / perPacket;
    if (seen.has(position)) {
      result.duplicates++;
      result.firstDuplicate ??= where(p);
      continue;
    }
    seen.add(position);
    if (highest >= 0 && position < highest) {
      result.reordered++;
      result.firstReorder ??= where(p);
      result.missing--; // it was counted missing when the sequence stepped over it
      continue;
    }
    if (highest >= 0) {
      const frameOf = (pos: number) => Math.floor(pos / slots);
      const expectedNext = highest % slots === lastSlot ? (frameOf(highest) + 1) * slots + firstSlot : highest + 1;
      if (position > expectedNext) {
        const frames = frameOf(position) - frameOf(highest);
        const skipped =
          frames === 0
            ? position - expectedNext
            : lastSlot - (highest % slots) + (frames - 1) * (lastSlot - firstSlot + 1) + (position % slots) - firstSlot;
        result.missing += skipped;
        result.firstGap ??= `${skipped} before ${where(p)}`;
      }
      if (frameOf(position) > frameOf(highest) + 1) {
        result.frameJumps++;
        result.firstFrameJump ??= `to ${p.frameId}`;
      }
    }
    highest = position;
  }
  return result;
}

/** Timestamp of the first window column of each frame whose first packet arrived. */
function frameStarts(packets: LidarPacket[], windowFirst: number): { frame: number; ts: bigint }[] {
  const starts: { frame: number; ts: bigint }[] = [];
  let base = 0;
  let previous: number | undefined;
  for (const p of packets) {
    if (previous !== undefined) base += (p.frameId - previous + 2 ** 16) % 2 ** 16;
    previous = p.frameId;
    const column = p.columns.find((col) => col.measurementId === windowFirst);
    if (column?.valid && !starts.some((s) => s.frame === base)) starts.push({ frame: base, ts: column.timestampNs });
  }
  return starts;
}

async function imuChecks(run: CheckRun, capture: UdpCapture, config: Json, elapsedS: number): Promise<void> {
  const received = capture.imu;
  const ok = await run.check('udp.imu.received', 'IMU packets arrive at udp_dest:udp_port_imu', () => {
    expectThat(received.length > 0, `no IMU packet in ${elapsedS.toFixed(1)} s`);
    return `${received.length} packets`;
  });
  if (!ok) return;
  await run.check('udp.imu.size', `every IMU packet is ${IMU_PACKET_BYTES} bytes (LEGACY)`, () => {
    const wrong = received.filter((p) => p.data.length !== IMU_PACKET_BYTES);
    expectThat(wrong.length === 0, `${wrong.length} packets of another size (first ${wrong[0]?.data.length})`);
  });
  const packets = received.filter((p) => p.data.length === IMU_PACKET_BYTES).map((p) => decodeImuPacket(p.data));
  await run.check('udp.imu.rate', 'IMU packets arrive at about 100 per second (±30 %)', () => {
    const rate = received.length / elapsedS;
    expectThat(rate > 70 && rate < 130, `${rate.toFixed(1)} packets/s`);
    return `${rate.toFixed(1)}/s`;
  });
  await run.check('udp.imu.timestamps', 'IMU sys_ts strictly increases (no duplicate, no reordering)', () => {
    const bad = packets.findIndex((p, i) => i > 0 && p.sysTs <= packets[i - 1].sysTs);
    expectThat(bad < 0, `packet ${bad}: sys_ts ${packets[bad]?.sysTs} after ${packets[bad - 1]?.sysTs}`);
  });
  await run.check('udp.imu.sensor-timestamps', 'IMU accel_ts and gyro_ts are set and never decrease', () => {
    const bad = packets.findIndex(
      (p, i) =>
        p.accelTs === 0n ||
        p.gyroTs === 0n ||
        (i > 0 && (p.accelTs < packets[i - 1].accelTs || p.gyroTs < packets[i - 1].gyroTs)),
    );
    expectThat(bad < 0, `packet ${bad}`);
  });
  const accelLimit = config.accel_fsr === 'EXTENDED' ? 16 : 2;
  const gyroLimit = config.gyro_fsr === 'EXTENDED' ? 2000 : 250;
  await run.check(
    'udp.imu.accel-range',
    `linear acceleration within the accel_fsr ${config.accel_fsr} range (±${accelLimit} g)`,
    () => {
      const bad = packets.find((p) => p.accel.some((a) => !Number.isFinite(a) || Math.abs(a) > accelLimit));
      expectThat(bad === undefined, `acceleration ${show(bad?.accel)}`);
    },
  );
  await run.check(
    'udp.imu.gyro-range',
    `angular velocity within the gyro_fsr ${config.gyro_fsr} range (±${gyroLimit} °/s)`,
    () => {
      const bad = packets.find((p) => p.gyro.some((g) => !Number.isFinite(g) || Math.abs(g) > gyroLimit));
      expectThat(bad === undefined, `angular velocity ${show(bad?.gyro)}`);
    },
  );
  await run.check('udp.imu.gravity', 'a unit at rest reads about 1 g (0.8..1.2 g) in every packet', () => {
    const bad = packets.find((p) => Math.abs(Math.hypot(...p.accel) - 1) > 0.2);
    expectThat(bad === undefined, `|a| = ${bad ? Math.hypot(...bad.accel).toFixed(3) : ''} g (${show(bad?.accel)})`);
  });
}
