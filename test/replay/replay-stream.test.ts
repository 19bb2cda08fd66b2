/**
 * The worker's replay source driven by a fake clock: the send times it computes follow the recorded
 * capture times divided by the rate, in recorded order, pass after pass (no wall clock involved).
 */
import { describe, expect, it } from 'vitest';
import { loadRecording } from '../../src/udp/replay/recording.js';
import { ReplayStream } from '../../src/udp/worker/replay-stream.js';
import type { UdpTarget } from '../../src/udp/worker/udp-target.js';
import { OS0_CRC, OS1_FUSA, readReferencePcap } from './helpers/pcap-reference.js';

function fakeTarget(log: { at: number; kind: string; bytes: Buffer }[], kind: string, clock: { now: number }) {
  return { send: (bytes: Buffer) => log.push({ at: clock.now, kind, bytes }) } as unknown as UdpTarget;
}

describe.each([
  [OS0_CRC, 'RNG15_RFL8_NIR8', [0, 511]],
  [OS1_FUSA, 'FUSA_RNG15_RFL8_NIR8_DUAL', [0, 1023]],
] as const)('replay source of %s', (base, profile, window) => {
  const reference = readReferencePcap(`${base}.pcap`);
  const recording = loadRecording(`${base}.pcap`);

  it.each([0.5, 1, 4])('sends each packet when the clock reaches its recorded time / %s, in order', (rate) => {
    const clock = { now: 1000 };
    const sent: { at: number; kind: string; bytes: Buffer }[] = [];
    const stream = new ReplayStream(
      {
        file: `${base}.pcap`,
        metadataFile: `${base}.json`,
        rate,
        loop: true,
        startOffsetNs: 0,
        profile,
        columnWindow: [window[0], window[1]],
      },
      { lidar: fakeTarget(sent, 'lidar', clock), imu: fakeTarget(sent, 'imu', clock) },
    );
    stream.begin(clock.now);
    const n = reference.length;
    while (sent.length < 2 * n) {
      clock.now = stream.nextDueMs();
      stream.sendDue(clock.now);
    }
    // Pass 0: the recorded bytes, each due at (capture time - first capture time) / rate after the start.
    for (let k = 0; k < n; k++) {
      expect(sent[k].bytes.equals(reference[k].payload), `datagram ${k}`).toBe(true);
      expect(sent[k].at - 1000).toBeCloseTo((reference[k].timeUs - reference[0].timeUs) / 1000 / rate, 6);
    }
    // Pass 1: the same timetable one pass of frames later (both recordings are 10 Hz: 100 ms a frame); timestamps as
    // far on (IMU: all three; lidar: every column), frame ids one pass of frames on.
    const passNs = recording.framesPerPass * 100e6;
    const shift = BigInt(passNs);
    for (let k = 0; k < n; k++) {
      const [a, b] = [sent[k], sent[n + k]];
      expect(b.kind).toBe(a.kind);
      expect(b.at - a.at).toBeCloseTo(passNs / 1e6 / rate, 6);
      if (a.kind === 'imu') {
        for (const o of [0, 8, 16]) expect(b.bytes.readBigUInt64LE(o) - a.bytes.readBigUInt64LE(o)).toBe(shift);
        expect(b.bytes.subarray(24).equals(a.bytes.subarray(24))).toBe(true);
      } else {
        const fusa = profile.startsWith('FUSA');
        const frameId = (x: Buffer) => (fusa ? x.readUInt32LE(4) : x.readUInt16LE(2));
        expect(frameId(b.bytes) - frameId(a.bytes)).toBe(recording.framesPerPass);
        expect(b.bytes.readBigUInt64LE(32) - a.bytes.readBigUInt64LE(32)).toBe(shift);
      }
    }
  });

  it('sends nothing before a packet is due and stops after the last one without --replay-loop', () => {
    const clock = { now: 0 };
    const sent: { at: number; kind: string; bytes: Buffer }[] = [];
    const stream = new ReplayStream(
      {
        file: `${base}.pcap`,
        metadataFile: `${base}.json`,
        rate: 1,
        loop: false,
        startOffsetNs: 0,
        profile,
        columnWindow: [window[0], window[1]],
      },
      { lidar: fakeTarget(sent, 'lidar', clock), imu: fakeTarget(sent, 'imu', clock) },
    );
    stream.begin(0);
    stream.sendDue(-0.001);
    expect(sent).toHaveLength(0);
    stream.sendDue(1e9);
    expect(sent).toHaveLength(reference.length);
    expect(stream.nextDueMs()).toBe(Infinity);
  });
});
