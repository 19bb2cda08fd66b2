/**
 * Replaying the firmware 2.0 OS-2-32 recording, whose lidar packets are LEGACY (no header, no footer,
 * frame id in every column): sent byte for byte, looped with frame ids and timestamps continuing,
 * re-encoded into a current profile and back; a unit that is not replaying still refuses LEGACY.
 */
import { describe, expect, it } from 'vitest';
import { createTestSensor } from '../helpers/test-sensor.js';
import { decodeLidarPacket } from '../udp/decoder/lidar-decoder.js';
import { OS2_LEGACY, readReferencePcap } from './helpers/pcap-reference.js';
import { replayUnit } from './helpers/replay-unit.js';
import { waitFor } from '../helpers/poll.js';

const PIXELS = 32;
/** LEGACY column: 16-byte header, 12-byte blocks, u32 status (docs/udp-packets.md). */
const COLUMN_BYTES = 16 + 12 * PIXELS + 4;

/** The test's own reading of a LEGACY packet, from docs/udp-packets.md alone. */
function readLegacy(b: Buffer) {
  return Array.from({ length: 16 }, (_, c) => {
    const o = c * COLUMN_BYTES;
    return {
      timestamp: b.readBigUInt64LE(o),
      measurementId: b.readUInt16LE(o + 8),
      frameId: b.readUInt16LE(o + 10),
      valid: b.readUInt32LE(o + COLUMN_BYTES - 4) === 0xffffffff,
      ranges: Array.from({ length: PIXELS }, (_, p) => b.readUInt32LE(o + 16 + p * 12) & 0xfffff),
      reflectivity: Array.from({ length: PIXELS }, (_, p) => b[o + 16 + p * 12 + 4]),
    };
  });
}

const hex = (b: Buffer) => b.toString('hex');
const reference = readReferencePcap(`${OS2_LEGACY}.pcap`).filter((d) => d.dstPort === 7502);

describe('replaying a LEGACY recording (firmware 2.0, OS-2-32)', () => {
  it('sends every recorded lidar packet byte for byte, in order, and is the recorded unit', async () => {
    expect(reference.length).toBe(64);
    expect(new Set(reference.map((d) => d.payload.length))).toEqual(new Set([16 * COLUMN_BYTES]));
    const u = await replayUnit(OS2_LEGACY);
    await u.listen();
    await waitFor(() => u.lidar.count >= reference.length, 10_000, 'the whole recording');
    expect(u.lidar.datagrams.map((d) => hex(d.data))).toEqual(reference.map((d) => hex(d.payload)));

    const config = await u.getJson('/api/v1/sensor/config');
    expect(config.udp_profile_lidar).toBe('LEGACY');
    expect(config.lidar_mode).toBe('1024x20');
    const metadata = await u.getJson('/api/v1/sensor/metadata');
    expect(metadata.sensor_info.prod_sn).toBe('992029000352');
    expect(metadata.sensor_info.prod_line).toBe('OS-2-32-U0');
    expect(metadata.lidar_data_format.udp_profile_lidar).toBe('LEGACY');
    expect(metadata.lidar_data_format.pixels_per_column).toBe(PIXELS);
  });

  it('loops with frame ids and timestamps continuing in every column; the first pass is exact', async () => {
    const u = await replayUnit(OS2_LEGACY, ['--replay-loop', '--replay-rate', '2']);
    await u.listen();
    await waitFor(() => u.lidar.count >= reference.length * 3, 15_000, 'three passes');
    const got = u.lidar.datagrams.slice(0, reference.length * 3).map((d) => d.data);
    expect(got.slice(0, reference.length).map(hex)).toEqual(reference.map((d) => hex(d.payload)));
    const columns = got.flatMap(readLegacy);
    for (let i = 1; i < columns.length; i++) {
      expect(columns[i].timestamp, `column ${i}`).toBeGreaterThan(columns[i - 1].timestamp);
      expect(columns[i].frameId).toBeGreaterThanOrEqual(columns[i - 1].frameId);
    }
    const perPass = reference.length * 16;
    const firstFrame = columns[0].frameId;
    const lastFrameOfPass = columns[perPass - 1].frameId;
    expect(columns[perPass].frameId).toBe(lastFrameOfPass + 1 + (lastFrameOfPass - firstFrame));
    // Channel data is the recording's in every pass.
    expect(columns[perPass + 5].ranges).toEqual(columns[5].ranges);
  });

  it('--replay-start skips the recording before it: the first packet sent is the first one recorded after it', async () => {
    const startUs = reference[0].timeUs + 20_000;
    const skipped = reference.filter((d) => d.timeUs < startUs).length;
    expect(skipped).toBeGreaterThan(0);
    const u = await replayUnit(OS2_LEGACY, ['--replay-start', '0.02']);
    await u.listen();
    await waitFor(() => u.lidar.count >= reference.length - skipped, 10_000, 'the rest of the recording');
    expect(u.lidar.datagrams.map((d) => hex(d.data))).toEqual(reference.slice(skipped).map((d) => hex(d.payload)));
  });

  it('re-encodes into RNG19 (header with the recorded serial) and sends the original bytes when set back to LEGACY', async () => {
    const u = await replayUnit(OS2_LEGACY);
    await u.listen({ udp_profile_lidar: 'RNG19_RFL8_SIG16_NIR16' });
    await waitFor(() => u.lidar.count >= reference.length, 10_000, 'the re-encoded recording');
    const recorded = reference.flatMap((d) => readLegacy(d.payload));
    const packets = u.lidar.datagrams
      .slice(0, reference.length)
      .map((d) => decodeLidarPacket(d.data, 'RNG19_RFL8_SIG16_NIR16', PIXELS));
    for (const p of packets) {
      expect(p.serial).toBe(992029000352n);
      expect(p.footerOk).toBe(true);
    }
    const columns = packets.flatMap((p) => p.columns);
    expect(columns).toHaveLength(recorded.length);
    for (const [i, column] of columns.entries()) {
      expect(column.measurementId).toBe(recorded[i].measurementId);
      expect(column.timestamp).toBe(recorded[i].timestamp);
      expect(column.status & 1).toBe(recorded[i].valid ? 1 : 0);
      expect(column.pixels.map((px) => px.range)).toEqual(recorded[i].ranges.map((r) => (r >= 1 << 19 ? 0 : r)));
      expect(column.pixels.map((px) => px.reflectivity)).toEqual(recorded[i].reflectivity);
    }
    expect(packets[0].frameId).toBe(recorded[0].frameId);

    const back = await u.capture();
    expect((await u.post({ udp_port_lidar: back.port, udp_profile_lidar: 'LEGACY' })).status).toBe(204);
    await waitFor(() => back.count >= reference.length, 10_000, 'the recording after the profile went back');
    expect(back.datagrams.map((d) => hex(d.data))).toEqual(reference.map((d) => hex(d.payload)));
  });

  it('the data directory of a LEGACY replay, started without the replay, streams a current profile', async () => {
    const u = await replayUnit(OS2_LEGACY);
    await u.listen();
    expect(u.server.sensor.configs.reported('persisted').udp_profile_lidar).toBe('LEGACY');
    await u.server.close();
    const unit = await createTestSensor({ dataDir: u.dataDir });
    try {
      expect(unit.sensor.run.status).toBe('RUNNING');
      const config = (await unit.app.inject({ method: 'GET', url: '/api/v1/sensor/config' })).json();
      expect([config.udp_profile_lidar, config.udp_dest]).toEqual(['RNG19_RFL8_SIG16_NIR16', '127.0.0.1']);
    } finally {
      await unit.close();
    }
  });

  it('a unit that is not replaying refuses LEGACY, as firmware 3.1 does', async () => {
    const unit = await createTestSensor();
    try {
      const res = await unit.app.inject({
        method: 'POST',
        url: '/api/v1/sensor/config',
        payload: { udp_profile_lidar: 'LEGACY' },
      });
      expect(res.statusCode).toBe(400);
      expect(res.body).toMatch(/udp_profile_lidar/);
      const config = (await unit.app.inject({ method: 'GET', url: '/api/v1/sensor/config' })).json();
      expect(config.udp_profile_lidar).toBe('RNG19_RFL8_SIG16_NIR16');
    } finally {
      await unit.close();
    }
  });
});
