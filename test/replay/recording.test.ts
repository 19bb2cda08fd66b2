/**
 * Reading recordings: both shared recordings, a fragmented and a pcapng copy derived from them, and the
 * files a replay must refuse. Compared with the test's own pcap reader (helpers/pcap-reference.ts).
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRecording } from '../../src/udp/replay/recording.js';
import { RecordingError } from '../../src/udp/replay/recording-error.js';
import { ReplaySchedule } from '../../src/udp/worker/replay-schedule.js';
import { windowWithin } from '../../src/udp/replay/column-window.js';
import { createRecordingBinding } from '../../src/main/recording-binding.js';
import { defaultConfig } from '../../src/config/registry.js';
import { fragmentPcap, OS0_CRC, OS1_FUSA, readReferencePcap } from './helpers/pcap-reference.js';

const tmp = mkdtempSync(join(tmpdir(), 'replay-recording-'));

/** The same records as pcapng: section header, one Ethernet interface in microseconds, enhanced packet blocks. */
function toPcapng(pcap: Buffer): Buffer {
  const block = (type: number, body: Buffer) => {
    const padded = Buffer.concat([body, Buffer.alloc((4 - (body.length % 4)) % 4)]);
    const head = Buffer.alloc(8);
    head.writeUInt32LE(type, 0);
    head.writeUInt32LE(padded.length + 12, 4);
    const tail = Buffer.alloc(4);
    tail.writeUInt32LE(padded.length + 12, 0);
    return Buffer.concat([head, padded, tail]);
  };
  const shb = Buffer.alloc(16);
  shb.writeUInt32LE(0x1a2b3c4d, 0);
  shb.writeUInt16LE(1, 4);
  shb.writeBigInt64LE(-1n, 8);
  const idb = Buffer.alloc(8);
  idb.writeUInt16LE(1, 0);
  idb.writeUInt32LE(65535, 4);
  const parts = [block(0x0a0d0d0a, shb), block(1, idb)];
  for (let o = 24; o + 16 <= pcap.length; ) {
    const len = pcap.readUInt32LE(o + 8);
    const us = BigInt(pcap.readUInt32LE(o)) * 1_000_000n + BigInt(pcap.readUInt32LE(o + 4));
    const epb = Buffer.alloc(20);
    epb.writeUInt32LE(0, 0);
    epb.writeUInt32LE(Number(us >> 32n), 4);
    epb.writeUInt32LE(Number(us & 0xffffffffn), 8);
    epb.writeUInt32LE(len, 12);
    epb.writeUInt32LE(len, 16);
    parts.push(block(6, Buffer.concat([epb, pcap.subarray(o + 16, o + 16 + len)])));
    o += 16 + len;
  }
  return Buffer.concat(parts);
}

/** Writes `bytes` as NAME.pcap(ng) in the temporary folder with a copy of `metadataOf`'s JSON beside it. */
function derived(name: string, bytes: Buffer, metadataOf: string, ext = 'pcap'): string {
  const file = join(tmp, `${name}.${ext}`);
  writeFileSync(file, bytes);
  copyFileSync(`${metadataOf}.json`, join(tmp, `${name}.json`));
  return file;
}

describe.each([
  ['OS-0-128 RNG15 with CRC', OS0_CRC],
  ['OS-1-128 FUSA dual', OS1_FUSA],
])('%s', (_name, base) => {
  const reference = readReferencePcap(`${base}.pcap`);

  it('yields every lidar and IMU datagram of the file, in order, byte for byte', () => {
    const r = loadRecording(`${base}.pcap`);
    expect(r.packets.map((p) => [p.kind, p.bytes.toString('hex')])).toEqual(
      reference.map((d) => [d.dstPort === 7502 ? 'lidar' : 'imu', d.payload.toString('hex')]),
    );
    expect(r.stats.lidarPackets).toBe(reference.filter((d) => d.dstPort === 7502).length);
    expect(r.stats.badCrcPackets).toBe(0);
    expect(r.stats.malformedPackets).toBe(0);
    // Capture times relative to the first packet, as recorded.
    expect(r.packets.map((p) => p.timeNs / 1000)).toEqual(reference.map((d) => d.timeUs - reference[0].timeUs));
  });

  it('reassembles IPv4 fragments (a copy split at a 1500-byte MTU) into the same datagrams', () => {
    const file = derived(`fragmented-${base.split('/').pop()}`, fragmentPcap(`${base}.pcap`), base);
    const r = loadRecording(file);
    expect(r.stats.fragments).toBeGreaterThan(r.stats.lidarPackets);
    expect(r.stats.incompleteDatagrams).toBe(0);
    expect(r.packets.map((p) => p.bytes.toString('hex'))).toEqual(reference.map((d) => d.payload.toString('hex')));
  });

  it('reads the same recording as pcapng', () => {
    const file = derived(`ng-${base.split('/').pop()}`, toPcapng(readFileSync(`${base}.pcap`)), base, 'pcapng');
    const r = loadRecording(file);
    expect(r.stats.format).toBe('pcapng');
    expect(r.packets.map((p) => p.bytes.toString('hex'))).toEqual(reference.map((d) => d.payload.toString('hex')));
  });
});

describe('files a replay refuses, with one line naming the problem', () => {
  const refusal = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(RecordingError);
      expect((error as Error).message).not.toContain('\n');
      return (error as Error).message;
    }
    throw new Error('no refusal');
  };

  it('random bytes', () => {
    const file = derived(
      'random',
      Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) & 0xff)),
      OS0_CRC,
    );
    expect(refusal(() => loadRecording(file))).toMatch(/not a pcap or pcapng file/);
  });

  it('a pcap cut off inside a record', () => {
    const whole = readFileSync(`${OS0_CRC}.pcap`);
    const file = derived('truncated', whole.subarray(0, Math.floor(whole.length / 2)), OS0_CRC);
    expect(refusal(() => loadRecording(file))).toMatch(/truncated pcap file/);
  });

  it('a pcap cut off inside its file header', () => {
    const file = derived('header-only', readFileSync(`${OS0_CRC}.pcap`).subarray(0, 10), OS0_CRC);
    expect(refusal(() => loadRecording(file))).toMatch(/truncated pcap/);
  });

  it('metadata of another recording (packet size and profile do not match)', () => {
    const message = refusal(() => loadRecording(`${OS0_CRC}.pcap`, `${OS1_FUSA}.json`));
    expect(message).toMatch(/8448 bytes do not match the metadata \(FUSA_RNG15_RFL8_NIR8_DUAL/);
  });

  it('metadata of another unit (serial number differs)', () => {
    const meta = JSON.parse(readFileSync(`${OS0_CRC}.json`, 'utf8'));
    meta.sensor_info.prod_sn = '122247000786';
    const file = derived('other-serial', readFileSync(`${OS0_CRC}.pcap`), OS0_CRC);
    writeFileSync(file.replace(/\.pcap$/, '.json'), JSON.stringify(meta));
    expect(refusal(() => loadRecording(file))).toMatch(
      /serial number 122247000785 but the metadata is of 122247000786/,
    );
  });

  it('missing metadata', () => {
    const file = join(tmp, 'lonely.pcap');
    writeFileSync(file, readFileSync(`${OS0_CRC}.pcap`));
    expect(refusal(() => loadRecording(file))).toMatch(/cannot read metadata .*lonely\.json: no such file/);
  });

  it('flat legacy metadata is read', () => {
    const meta = JSON.parse(readFileSync(`${OS0_CRC}.json`, 'utf8'));
    const flat = {
      ...meta.sensor_info,
      ...meta.beam_intrinsics,
      ...meta.imu_intrinsics,
      ...meta.lidar_intrinsics,
      lidar_mode: meta.config_params.lidar_mode,
      udp_port_lidar: 7502,
      udp_port_imu: 7503,
      data_format: meta.lidar_data_format,
    };
    const file = derived('flat', readFileSync(`${OS0_CRC}.pcap`), OS0_CRC);
    writeFileSync(file.replace(/\.pcap$/, '.json'), JSON.stringify(flat));
    const r = loadRecording(file);
    expect(r.metadata.sensorInfo.prod_sn).toBe('122247000785');
    expect(r.metadata.beamIntrinsics.beam_altitude_angles).toEqual(meta.beam_intrinsics.beam_altitude_angles);
    expect(r.profile).toBe('RNG15_RFL8_NIR8');
  });
});

describe('column windows while replaying', () => {
  it('a window may only narrow the recorded one', () => {
    expect(windowWithin([10, 20], [0, 511], 512)).toBe(true);
    expect(windowWithin([500, 5], [0, 511], 512)).toBe(true);
    expect(windowWithin([500, 5], [100, 400], 512)).toBe(false);
    expect(windowWithin([150, 300], [100, 400], 512)).toBe(true);
    expect(windowWithin([50, 300], [100, 400], 512)).toBe(false);
  });

  it('a window wider than the recorded one is refused with the columns it lacks; a narrower one is accepted', () => {
    const active = {
      ...defaultConfig(),
      lidar_mode: '512x10' as const,
      azimuth_window: [90000, 270000] as [number, number],
    };
    const binding = createRecordingBinding(1234, {}, 'narrow.pcap', [128, 383]);
    expect(binding.refusal({ ...active, azimuth_window: [0, 360000] }, active)).toMatch(
      /^azimuth_window \[0,360000\] cannot be served while replaying narrow\.pcap: .*the recording holds only 128\.\.383/,
    );
    expect(binding.refusal({ ...active, azimuth_window: [120000, 200000] }, active)).toBeUndefined();
    expect(binding.refusal({ ...active, lidar_mode: '1024x10' }, active)).toMatch(/^lidar_mode cannot change/);
  });
});

describe('replay timetable', () => {
  const r = loadRecording(`${OS0_CRC}.pcap`);
  const times = r.packets.map((p) => p.timeNs);

  it.each([0.5, 1, 4])('send k is due at its recorded offset divided by the rate (rate %s)', (rate) => {
    const s = new ReplaySchedule(times, r.passNs, rate, 0, false);
    expect(s.length).toBe(times.length);
    expect(Array.from({ length: times.length }, (_, k) => s.dueNs(k))).toEqual(times.map((t) => t / rate));
  });

  it('a loop continues one pass duration later, in the same order, strictly increasing', () => {
    const s = new ReplaySchedule(times, r.passNs, 2, 0, true);
    const n = times.length;
    const due = Array.from({ length: 3 * n }, (_, k) => s.dueNs(k));
    for (let k = 1; k < due.length; k++) expect(due[k]).toBeGreaterThanOrEqual(due[k - 1]);
    expect(due[n]).toBeGreaterThan(due[n - 1]);
    for (let k = 0; k < n; k++) {
      expect(s.packetOf(k + n)).toBe(k);
      expect(due[k + 2 * n] - due[k]).toBe((2 * r.passNs) / 2);
    }
  });

  it('a start offset skips the packets before it and starts the timetable at the first one after it', () => {
    const offset = times[10] - 1;
    const s = new ReplaySchedule(times, r.passNs, 1, offset, false);
    expect(s.length).toBe(times.length - 10);
    expect(s.packetOf(0)).toBe(10);
    expect(s.dueNs(0)).toBe(0);
    expect(s.dueNs(5)).toBe(times[15] - times[10]);
  });
});
