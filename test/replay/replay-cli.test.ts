/**
 * The built command with recordings: `recording info`, and start-up refusals of files a replay cannot
 * use (one line on stderr, exit 2, no stack trace).
 */
import { mkdtempSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-process.js';
import { OS0_CRC, OS1_FUSA, OS2_LEGACY, SIM_FUSA_ZONE16 } from './helpers/pcap-reference.js';

const tmp = mkdtempSync(join(tmpdir(), 'replay-cli-'));

function expectOneLineRefusal(result: { code: number | null; stderr: string }, pattern: RegExp) {
  expect(result.code).toBe(2);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('lidar-sensor recording info', () => {
  it('summarises the OS-1-128 FUSA recording', async () => {
    const r = await runCli(['recording', 'info', `${OS1_FUSA}.pcap`]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/sensor\s+OS-1-128 840-104682-C serial 122246000293/);
    expect(r.stdout).toMatch(/firmware\s+ousteros-image-dev-bootes-v3\.1\.0-alpha\.1/);
    expect(r.stdout).toMatch(/profile\s+FUSA_RNG15_RFL8_NIR8_DUAL/);
    expect(r.stdout).toMatch(/mode\s+1024x10/);
    expect(r.stdout).toMatch(/packets\s+8 lidar \(port 7502\), 2 IMU \(port 7503\), 0 other/);
    expect(r.stdout).toMatch(/frames\s+1 \(0 complete, 1 partial\)/);
    expect(r.stdout).toMatch(/duration\s+0\.011 s/);
    expect(r.stdout).toMatch(/gaps\s+0 missing frame ids/);
    expect(r.stdout).toMatch(/fragments\s+0 IP fragments/);
  });

  it('names the header of a FUSA recording of a 3.2 profile and counts its frames by their u32 ids', async () => {
    const r = await runCli(['recording', 'info', `${SIM_FUSA_ZONE16}.pcap`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/profile\s+RNG15_RFL8_NIR8_ZONE16 \(FUSA header; IMU ACCEL32_GYRO32_NMEA\)/);
    expect(r.stdout).toMatch(/packets\s+96 lidar \(port \d+\), 24 IMU \(port \d+\), 3 zone \(port \d+\), 0 other/);
    expect(r.stdout).toMatch(/frames\s+3 \(3 complete, 0 partial\)/);
    expect(r.stdout).toMatch(/gaps\s+0 missing frame ids; 0 malformed and 0 bad-CRC lidar packets/);
  });

  it('--json gives the figures as one JSON object', async () => {
    const r = await runCli(['recording', 'info', `${OS0_CRC}.pcap`, '--json']);
    expect(r.code).toBe(0);
    const info = JSON.parse(r.stdout);
    expect(info.profile).toBe('RNG15_RFL8_NIR8');
    expect(info.stats).toMatchObject({ lidarPackets: 34, imuPackets: 10, frames: 2, completeFrames: 1 });
  });

  it('refuses random bytes with one line', async () => {
    const file = join(tmp, 'noise.pcap');
    writeFileSync(file, Buffer.alloc(2000, 0x5a));
    copyFileSync(`${OS0_CRC}.json`, join(tmp, 'noise.json'));
    expectOneLineRefusal(
      await runCli(['recording', 'info', file]),
      /^lidar-sensor: .*noise\.pcap: not a pcap or pcapng file/,
    );
  });
});

describe('lidar-sensor --replay refuses bad files at start', () => {
  const start = (args: string[]) =>
    runCli(['--host', '127.0.0.1', '--port', '0', '--data-dir', mkdtempSync(join(tmp, 'd-')), ...args]);

  it('a truncated pcap', async () => {
    const file = join(tmp, 'cut.pcap');
    const whole = readFileSync(`${OS1_FUSA}.pcap`);
    writeFileSync(file, whole.subarray(0, whole.length - 100));
    copyFileSync(`${OS1_FUSA}.json`, join(tmp, 'cut.json'));
    expectOneLineRefusal(
      await start(['--replay', file]),
      /^lidar-sensor: cannot replay: .*cut\.pcap: truncated pcap file/,
    );
  });

  it('metadata that does not match the packets', async () => {
    expectOneLineRefusal(
      await start(['--replay', `${OS1_FUSA}.pcap`, '--metadata', `${OS0_CRC}.json`]),
      /^lidar-sensor: cannot replay: .*16640 bytes do not match the metadata \(RNG15_RFL8_NIR8, 128 pixels per column: 8448 bytes\)/,
    );
  });

  it('a missing file', async () => {
    expectOneLineRefusal(
      await start(['--replay', join(tmp, 'absent.pcap'), '--metadata', `${OS0_CRC}.json`]),
      /cannot read recording .*absent\.pcap: no such file/,
    );
  });

  it('a bad --replay-rate is a usage error', async () => {
    const r = await start(['--replay', `${OS0_CRC}.pcap`, '--replay-rate', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--replay-rate must be a number 0\.01\.\.100/);
  });

  // A start past the last packet would leave the unit serving HTTP and streaming nothing, with no word.
  it('a --replay-start past the end of the recording', async () => {
    expectOneLineRefusal(
      await start(['--replay', `${OS2_LEGACY}.pcap`, '--replay-start', '0.05']),
      /^lidar-sensor: cannot replay: --replay-start 0\.05 s is past the end of the recording \(its last packet is at 0\.04\d s\)/,
    );
  });
});
