/**
 * A capture of two sensors (OS-0-128 FUSA and OS-1-64 RNG19 dual, lidar and IMU of both on port 7502):
 * `--replay --metadata A.json` is sensor A alone, the other ignored and named in the log;
 * `lidar-sensor fleet --replay` starts one unit per metadata file, each with its own identity, address
 * and packets; `recording info` lists both senders.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runCli } from '../helpers/cli-process.js';
import { startFleet, type FleetProcess } from '../helpers/fleet-process.js';
import { decodeLidarPacket } from '../udp/decoder/lidar-decoder.js';
import { UdpCapture } from '../udp/helpers/udp-capture.js';
import { OS1_FUSA, TWO_SENSORS, readReferencePcap } from './helpers/pcap-reference.js';
import { replayUnit, type Json } from './helpers/replay-unit.js';
import { waitFor } from '../helpers/poll.js';

const hex = (b: Buffer) => b.toString('hex');
const reference = readReferencePcap(`${TWO_SENSORS}.pcap`);
/** The recorded datagrams of one sender: lidar (not 48 bytes) and IMU (48 bytes). */
const sent = (address: string) => {
  const own = reference.filter((d) => d.srcAddress === address);
  return {
    lidar: own.filter((d) => d.payload.length !== 48).map((d) => hex(d.payload)),
    imu: own.filter((d) => d.payload.length === 48).map((d) => hex(d.payload)),
  };
};
const SENSORS = [
  { metadata: `${TWO_SENSORS}.1.json`, address: '169.254.92.158', serial: '122247000785', initId: 390078 },
  { metadata: `${TWO_SENSORS}.2.json`, address: '169.254.238.111', serial: '122239000672', initId: 9342165 },
];

describe('a capture of two sensors', () => {
  it('holds two senders, each with one lidar and one IMU packet to port 7502', () => {
    expect(new Set(reference.map((d) => d.srcAddress))).toEqual(new Set(SENSORS.map((s) => s.address)));
    for (const s of SENSORS) expect([sent(s.address).lidar.length, sent(s.address).imu.length]).toEqual([1, 1]);
  });

  it.each(SENSORS)('--replay --metadata $metadata replays that sensor alone and logs the other', async (sensor) => {
    const logs: Json[] = [];
    // Looping: the second pass shows that nothing of the other sensor is sent in between.
    const u = await replayUnit(TWO_SENSORS, ['--metadata', sensor.metadata, '--replay-loop'], logs);
    await u.listen();
    const own = sent(sensor.address);
    await waitFor(() => u.lidar.count >= 2 && u.imu.count >= 2, 10_000, "two passes of the sensor's packets");
    expect(hex(u.lidar.datagrams[0].data)).toEqual(own.lidar[0]);
    expect(hex(u.imu.datagrams[0].data)).toEqual(own.imu[0]);
    for (const d of u.lidar.datagrams) {
      // Both headers hold the serial number in bytes 7-11 (STANDARD) or 11-15 (FUSA).
      const serial = sensor.initId === 390078 ? d.data.readUIntLE(11, 5) : d.data.readUIntLE(7, 5);
      expect(String(serial)).toBe(sensor.serial);
    }
    expect(u.imu.datagrams.every((d) => d.data.length === 48)).toBe(true);
    const info = (await u.getJson('/api/v1/sensor/metadata')).sensor_info;
    expect([info.prod_sn, info.initialization_id]).toEqual([sensor.serial, sensor.initId]);
    const other = SENSORS.find((s) => s !== sensor)!;
    expect(
      logs.some((l) => /other sensor/.test(l.msg) && l.msg.includes(other.address)),
      JSON.stringify(logs.map((l) => l.msg)),
    ).toBe(true);
  });

  it('recording info lists both senders with serial, init_id, profile and packets', async () => {
    const r = await runCli(['recording', 'info', `${TWO_SENSORS}.pcap`, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const info = JSON.parse(r.stdout);
    expect(
      info.sensors.map((s: Json) => [s.address, s.serial, s.initId, s.profiles.map((p: Json) => p.profile)]),
    ).toEqual(
      expect.arrayContaining([
        ['169.254.92.158', '122247000785', 390078, ['FUSA_RNG15_RFL8_NIR8_DUAL']],
        // Packets of 64 × 16 bytes: firmware 3.2's profiles of the same size (ZONE16, RNG15_RFL8_NIR8_DUAL) are
        // candidates too.
        [
          '169.254.238.111',
          '122239000672',
          9342165,
          [
            'RNG19_RFL8_SIG16_NIR16_DUAL',
            'RNG15_RFL8_NIR8_ZONE16',
            'RNG19_RFL8_SIG16_ZONE16_DUAL',
            'RNG15_RFL8_NIR8_DUAL',
          ],
        ],
      ]),
    );
    expect(info.sensors.map((s: Json) => [s.lidarPackets, s.imuPackets])).toEqual([
      [1, 1],
      [1, 1],
    ]);
    const text = await runCli(['recording', 'info', `${TWO_SENSORS}.pcap`]);
    expect(text.stdout).toMatch(/sensors in the capture: 2/);
    expect(text.stdout).toMatch(/169\.254\.92\.158: serial 122247000785, init_id 390078; FUSA_RNG15_RFL8_NIR8_DUAL/);
  });

  it('a ZONE16 profile (firmware 3.2) of the metadata is replayable', async () => {
    // No fw 3.2 capture is at hand: the same packets, their metadata naming the ZONE16 profile of their size.
    const metadata = JSON.parse(readFileSync(SENSORS[1].metadata, 'utf8'));
    metadata.lidar_data_format.udp_profile_lidar = 'RNG19_RFL8_SIG16_ZONE16_DUAL';
    metadata.config_params.udp_profile_lidar = 'RNG19_RFL8_SIG16_ZONE16_DUAL';
    const file = join(mkdtempSync(join(tmpdir(), 'multi-sensor-')), 'zone16.json');
    writeFileSync(file, JSON.stringify(metadata));
    const r = await runCli(['recording', 'info', `${TWO_SENSORS}.pcap`, '--metadata', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^profile +RNG19_RFL8_SIG16_ZONE16_DUAL /m);
  });
});

describe('refused with one line', () => {
  const oneLine = (r: { code: number | null; stderr: string }, pattern: RegExp) => {
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(pattern);
  };

  it('metadata of a sensor the capture does not hold, at start and in a fleet', async () => {
    const pattern = /none of the 2 senders in the capture sends packets of the metadata's unit .*169\.254\.92\.158/;
    oneLine(await runCli(['recording', 'info', `${TWO_SENSORS}.pcap`, '--metadata', `${OS1_FUSA}.json`]), pattern);
    const fleet = (...metadata: string[]) =>
      runCli(['fleet', '--replay', `${TWO_SENSORS}.pcap`, ...metadata.flatMap((m) => ['--metadata', m])]);
    oneLine(await fleet(SENSORS[0].metadata, `${OS1_FUSA}.json`), pattern);
    oneLine(await fleet(SENSORS[0].metadata, SENSORS[0].metadata), /describe the same sensor \(serial 122247000785\)/);
  });
});

describe('lidar-sensor fleet --replay with one --metadata per sensor', () => {
  const base = [127, 0, 24, 1];
  const address = (i: number) => `${base.slice(0, 3).join('.')}.${base[3] + i}`;
  let fleet: FleetProcess | undefined;
  let dataRoot: string;
  let units: { name: string; url: string; address: string; product: string; serial: string }[];

  beforeAll(async () => {
    dataRoot = mkdtempSync(join(tmpdir(), 'fleet-replay-'));
    const port = await freePort(address(0));
    fleet = await startFleet([
      '--replay',
      `${TWO_SENSORS}.pcap`,
      ...SENSORS.flatMap((s) => ['--metadata', s.metadata]),
      ...['--replay-loop', '--replay-rate', '0.1'],
      ...['--base-address', address(0), '--port', String(port), '--data-root', dataRoot],
    ]);
    units = (await (await fetch(`${fleet.endpoint}/units`)).json()) as typeof units;
  }, 60_000);

  afterAll(async () => {
    await fleet?.stop();
    if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
  });

  it('runs two units, each its recorded sensor at its own address, sending its own packets', async () => {
    expect(units.map((u) => [u.address, u.product, u.serial])).toEqual([
      [address(0), 'OS-0-128', '122247000785'],
      [address(1), 'OS-1-64-AH', '122239000672'],
    ]);
    const captures = await Promise.all(SENSORS.map(() => UdpCapture.listen()));
    try {
      for (const [i, unit] of units.entries()) {
        const info = (await (await fetch(`${unit.url}/api/v1/sensor/metadata/sensor_info`)).json()) as Json;
        expect([info.prod_sn, info.initialization_id]).toEqual([SENSORS[i].serial, SENSORS[i].initId]);
        // Lidar and IMU to one port, as recorded.
        const res = await fetch(`${unit.url}/api/v1/sensor/config`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            udp_dest: '127.0.0.1',
            udp_port_lidar: captures[i].port,
            udp_port_imu: captures[i].port,
          }),
        });
        expect(res.status).toBe(204);
      }
      await waitFor(() => captures.every((c) => c.count >= 8), 20_000, 'a few passes of both units');
      for (const [i, capture] of captures.entries()) {
        const own = sent(SENSORS[i].address);
        expect(new Set(capture.datagrams.map((d) => d.from.address))).toEqual(new Set([address(i)]));
        const lidar = capture.datagrams.filter((d) => d.data.length !== 48);
        const imu = capture.datagrams.filter((d) => d.data.length === 48);
        expect(lidar.length + imu.length).toBe(capture.count);
        const profile = i === 0 ? 'FUSA_RNG15_RFL8_NIR8_DUAL' : 'RNG19_RFL8_SIG16_NIR16_DUAL';
        const pixels = i === 0 ? 128 : 64;
        const recorded = decodeLidarPacket(Buffer.from(own.lidar[0], 'hex'), profile, pixels);
        for (const d of lidar) {
          const p = decodeLidarPacket(d.data, profile, pixels);
          expect([p.serial, p.initId]).toEqual([BigInt(SENSORS[i].serial), SENSORS[i].initId]);
          expect(p.columns[0].pixels.map((px) => px.range)).toEqual(recorded.columns[0].pixels.map((px) => px.range));
        }
      }
    } finally {
      for (const c of captures) await c.close();
    }
  });
});
