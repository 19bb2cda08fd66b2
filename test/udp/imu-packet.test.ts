import { describe, expect, it } from 'vitest';
import { encodeImuPacket, quantize } from '../../src/udp/packets/imu-packet.js';
import { decodeImuPacket } from './decoder/imu-decoder.js';

const sample = (accelG: [number, number, number], gyroDps: [number, number, number]) => ({
  sysTs: 1_700_000_000_123_456_789n,
  accelTs: 1_700_000_000_123_000_000n,
  gyroTs: 1_700_000_000_123_000_001n,
  accelG,
  gyroDps,
});

describe('IMU packets (LEGACY)', () => {
  it('are 48 bytes with the three timestamps and six values in place', () => {
    const p = decodeImuPacket(
      encodeImuPacket(Buffer.alloc(48), sample([0.01, -0.02, 1], [0.5, -0.25, 0.125]), 'NORMAL', 'NORMAL'),
    );
    expect(p.sysTs).toBe(1_700_000_000_123_456_789n);
    expect(p.accelTs).toBe(1_700_000_000_123_000_000n);
    expect(p.gyroTs).toBe(1_700_000_000_123_000_001n);
    p.accel.forEach((v, i) => expect(v).toBeCloseTo([0.01, -0.02, 1][i], 4));
    p.gyro.forEach((v, i) => expect(v).toBeCloseTo([0.5, -0.25, 0.125][i], 2));
  });

  it('clip to the configured full-scale range: ±2 g / ±16 g, ±250 / ±2000 deg/s', () => {
    const s = sample([5, -30, 1], [400, -3000, 0]);
    const normal = decodeImuPacket(encodeImuPacket(Buffer.alloc(48), s, 'NORMAL', 'NORMAL'));
    expect(normal.accel[0]).toBeCloseTo(2, 3);
    expect(normal.accel[1]).toBeCloseTo(-2, 3);
    expect(normal.gyro[0]).toBeCloseTo(250, 1);
    expect(normal.gyro[1]).toBeCloseTo(-250, 1);
    const extended = decodeImuPacket(encodeImuPacket(Buffer.alloc(48), s, 'EXTENDED', 'EXTENDED'));
    expect(extended.accel[0]).toBeCloseTo(5, 2);
    expect(extended.accel[1]).toBeCloseTo(-16, 2);
    expect(extended.gyro[0]).toBeCloseTo(400, 0);
    expect(extended.gyro[1]).toBeCloseTo(-2000, 0);
  });

  it('resolve values in steps of one 16-bit count of the range (coarser when EXTENDED)', () => {
    expect(quantize(0.00001, 2)).toBe(0);
    expect(quantize(2 / 32768, 2)).toBeCloseTo(2 / 32768, 12);
    expect(quantize(0.0004, 16)).toBe(16 / 32768);
  });
});
