/**
 * The IMU profile ACCEL32_GYRO32_NMEA (firmware 3.2) against a real 3.2.0 unit's stream
 * (test/fixtures/recordings/imu_zm_no_lidar.pcap: 2048x10, 8 packets per frame, accel_fsr and gyro_fsr
 * EXTENDED, nothing on the NMEA input): the simulated unit's packets decode field for field like the real ones,
 * with the independent decoder on real loopback sockets.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { EmitterStreams } from '../../src/hal/emitter-streams.js';
import { parseGnssPosition, type SensorConfig } from '../../src/model/index.js';
import { rmcSentence } from '../../src/udp/scene/gnss.js';
import { waitFor } from '../helpers/poll.js';
import { OS0_ZONES_NO_LIDAR, readReferencePcap } from '../replay/helpers/pcap-reference.js';
import { type DecodedImuNmeaPacket, decodeImuNmeaPacket, nmeaChecksumValid } from './decoder/imu-nmea-decoder.js';
import { planOf } from './helpers/plan-of.js';
import { RecordingAlerts } from './helpers/recording-alerts.js';
import { UdpCapture } from './helpers/udp-capture.js';

const G = 9.80665;
/** One count of the accelerometer (g per count) and the gyroscope (rad/s per count) in each range. */
const ACCEL_LSB = { NORMAL: (2 * G) / 32768, EXTENDED: (16 * G) / 32768 };
const GYRO_LSB = { NORMAL: Math.PI / 180 / 131, EXTENDED: Math.PI / 180 / 16.4 };
const streams = new EmitterStreams(new RecordingAlerts());
afterAll(() => streams.close());

const real = readReferencePcap(`${OS0_ZONES_NO_LIDAR}.pcap`)
  .filter((d) => d.dstPort === 7513)
  .map((d) => decodeImuNmeaPacket(d.payload));

let initId = 0x40000;
/** Whole frames of IMU packets (grouped by frame id, only frames with `perFrame` packets), OS-1-32. */
async function imuFrames(
  changes: Partial<SensorConfig>,
  perFrame: number,
  gnss?: Parameters<typeof planOf>[1]['gnss'],
  minimum = 3 * perFrame + 1,
) {
  const rx = await UdpCapture.listen();
  try {
    const plan = planOf(
      { udp_port_lidar: 0, udp_port_imu: rx.port, udp_profile_imu: 'ACCEL32_GYRO32_NMEA', ...changes },
      { initId: ++initId, gnss },
    );
    await streams.apply(plan);
    await waitFor(() => rx.count >= minimum, 20_000, `${minimum} IMU packets`);
    await streams.apply(null);
    const byFrame = new Map<number, { size: number; p: DecodedImuNmeaPacket }[]>();
    for (const d of rx.datagrams) {
      const p = decodeImuNmeaPacket(d.data);
      byFrame.set(p.frameId, [...(byFrame.get(p.frameId) ?? []), { size: d.data.length, p }]);
    }
    const all = [...byFrame.values()];
    return { initId, all: all.flat().map((f) => f.p), frames: all.filter((f) => f.length === perFrame) };
  } finally {
    await rx.close();
  }
}

/** Whether `value` is a whole number of `lsb` (f32 rounding aside). */
const onGrid = (value: number, lsb: number) => Math.abs(value / lsb - Math.round(value / lsb)) < 1e-3;

describe('ACCEL32_GYRO32_NMEA', () => {
  it('the real 3.2.0 stream decodes as docs/udp-packets.md says (the ground truth the rest is held to)', () => {
    expect(real).toHaveLength(8);
    expect(new Set(real.map((p) => p.frameId)).size).toBe(1);
    const ids = real.flatMap((p) => p.measurements.map((m) => m.measurementId));
    expect(ids).toEqual(Array.from({ length: 64 }, (_, n) => 32 * n + 31));
    for (const p of real) {
      expect([p.packetType, p.reservedZero, p.footerOk, p.nmea, p.nmeaTimestamp]).toEqual([2, true, true, '', 0n]);
      for (const m of p.measurements) {
        expect(m.status).toBe(1);
        for (const a of m.accel) expect(onGrid(a, ACCEL_LSB.EXTENDED)).toBe(true);
        for (const g of m.gyro) expect(onGrid(g, GYRO_LSB.EXTENDED)).toBe(true);
      }
    }
  });

  it('2048x10, 8 packets per frame, EXTENDED: field for field as the real unit sends them', async () => {
    const { initId: id, frames } = await imuFrames(
      { lidar_mode: '2048x10', imu_packets_per_frame: 8, accel_fsr: 'EXTENDED', gyro_fsr: 'EXTENDED' },
      8,
    );
    expect(frames.length).toBeGreaterThanOrEqual(2);
    const realZ = real.flatMap((p) => p.measurements.map((m) => m.accel[2]));
    for (const frame of frames) {
      expect(frame.map((f) => f.size)).toEqual(Array(8).fill(452));
      const packets = frame.map((f) => f.p);
      expect(packets.flatMap((p) => p.measurements.map((m) => m.measurementId))).toEqual(
        real.flatMap((p) => p.measurements.map((m) => m.measurementId)),
      );
      const t0 = packets[0].measurements[0].timestamp;
      for (const p of packets) {
        expect([p.packetType, p.initId, p.serial, p.reservedZero, p.footerOk]).toEqual([2, id, 1n, true, true]);
        expect([p.nmea, p.nmeaTimestamp, p.nmeaPaddingZero]).toEqual(['', 0n, true]);
        for (const m of p.measurements) {
          expect(m.status).toBe(1);
          // Each sample at its column's time: frame start + floor(m × 100 ms / 2048).
          const offset = (id: number) => BigInt(Math.floor((id * 1e8) / 2048));
          expect(m.timestamp - t0).toBe(offset(m.measurementId) - offset(31));
          for (const a of m.accel) expect(onGrid(a, ACCEL_LSB.EXTENDED)).toBe(true);
          for (const g of m.gyro) expect(onGrid(g, GYRO_LSB.EXTENDED)).toBe(true);
          // At rest: gravity on z within the real unit's spread, little rotation.
          expect(m.accel[2]).toBeGreaterThan(Math.min(...realZ) - 0.2);
          expect(m.accel[2]).toBeLessThan(Math.max(...realZ) + 0.2);
          for (const g of m.gyro) expect(Math.abs(g)).toBeLessThan(0.05);
        }
      }
    }
    const ids = frames.map((f) => f[0].p.frameId);
    for (let k = 1; k < ids.length; k++) expect(ids[k]).toBeGreaterThan(ids[k - 1]);
  });

  it('1024x20, 16 packets per frame, NORMAL: 8 samples a packet every 8 columns, on the NORMAL ranges grid', async () => {
    const { frames } = await imuFrames({ lidar_mode: '1024x20', imu_packets_per_frame: 16 }, 16);
    expect(frames.length).toBeGreaterThanOrEqual(2);
    for (const frame of frames) {
      const ids = frame.flatMap((f) => f.p.measurements.map((m) => m.measurementId));
      expect(ids).toEqual(Array.from({ length: 128 }, (_, n) => 8 * n + 7));
      for (const m of frame.flatMap((f) => f.p.measurements)) {
        for (const a of m.accel) expect(onGrid(a, ACCEL_LSB.NORMAL)).toBe(true);
        for (const g of m.gyro) expect(onGrid(g, GYRO_LSB.NORMAL)).toBe(true);
      }
    }
  });

  it('with a GNSS receiver on the NMEA input: an RMC sentence with a valid checksum at its position, once a second', async () => {
    // 1024x10 with 4 packets per frame: 40 packets a second; 50 packets span more than one second.
    const { all: packets } = await imuFrames(
      { lidar_mode: '1024x10', imu_packets_per_frame: 4, multipurpose_io_mode: 'INPUT_NMEA_UART' },
      4,
      { latitudeDeg: 48.1173, longitudeDeg: 11.5167, speedMps: 0, courseDeg: 0 },
      50,
    );
    const withSentence = packets.filter((p) => p.nmea !== '');
    expect(withSentence.length).toBeGreaterThanOrEqual(2);
    expect(withSentence[1].nmeaTimestamp - withSentence[0].nmeaTimestamp).toBe(1_000_000_000n);
    for (const p of withSentence) {
      expect(p.nmea).toMatch(/^\$GPRMC,\d{6}\.\d{2},A,4807\.03800,N,01131\.00200,E,0\.00,0\.0,\d{6},,,A\*[0-9A-F]{2}$/);
      expect(nmeaChecksumValid(p.nmea)).toBe(true);
      expect(p.nmeaPaddingZero).toBe(true);
      expect(p.nmeaTimestamp).toBeGreaterThan(0n);
      expect(p.nmeaTimestamp).toBeLessThanOrEqual(p.measurements.at(-1)!.timestamp);
    }
    const without = packets.filter((p) => p.nmea === '');
    for (const p of without) expect(p.nmeaTimestamp).toBe(0n);
  });
});

describe('the simulated GNSS receiver (--gnss)', () => {
  it('parses LAT,LON[,SPEED,COURSE] and refuses what is not a position', () => {
    expect(parseGnssPosition('48.1173,11.5167')).toEqual({
      latitudeDeg: 48.1173,
      longitudeDeg: 11.5167,
      speedMps: 0,
      courseDeg: 0,
    });
    expect(parseGnssPosition('-33.9,151.2,1.5,90')).toMatchObject({ speedMps: 1.5, courseDeg: 90 });
    for (const bad of ['48', '91,0', '0,181', '0,0,-1,0', '0,0,1,360', 'a,b', '1,2,3'])
      expect(() => parseGnssPosition(bad), bad).toThrow(RangeError);
  });

  it('a moving receiver reports where it has driven: 1 m/s north for 1852 s is one minute of latitude', () => {
    const plan = { latitudeDeg: 10, longitudeDeg: 20, speedMps: 1, courseDeg: 0 };
    const sentence = rmcSentence(plan, Date.UTC(2026, 0, 2, 3, 4, 5), 1852);
    expect(sentence).toMatch(
      /^\$GPRMC,030405\.00,A,1000\.99\d{3},N,02000\.00000,E,1\.94,0\.0,020126,,,A\*[0-9A-F]{2}$/,
    );
    expect(nmeaChecksumValid(sentence)).toBe(true);
  });
});
