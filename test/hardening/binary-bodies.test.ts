/**
 * Issue 57: a binary body is bytes. The request log and the hooks log a zone set zip or a firmware image by
 * its length, never by its keys (Object.keys on a 31 MB Buffer makes 31 million strings), and a unit that
 * took the largest zone set and a firmware image keeps its memory within a bound (the figures: `npm run bench`,
 * the memory group's upload row).
 */
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { buildImage, generatedPayload } from '../../src/model/image-format.js';
import { uploadFirmware } from '../firmware/http-upload.js';
import { type CliProcess, startCli } from '../helpers/cli-process.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { largestZrbZoneSetZip, MAX_ZONE_SET_ZIP_BYTES } from '../zones/zone-set-zips.js';

const SERIAL = '122201000123';
const REV = 'ousteros-image-prod-bootes-v3.2.1+20250102030405';
/**
 * The most the unit may have held through these uploads: its start-up size and the copies a staged zone set
 * costs (the upload, its inflated files, its base64 text in the store), far below one string per byte.
 */
const RSS_BOUND_BYTES = 640 * 1024 * 1024;

let unit: TestSensor | undefined;
let cli: CliProcess | undefined;

afterEach(async () => {
  if (unit) {
    await unit.close();
    removeDir(unit.dataDir);
  }
  await cli?.stop();
  unit = undefined;
  cli = undefined;
});

const zip = () => Buffer.from(largestZrbZoneSetZip(SERIAL, 128, 1024));

describe('binary request bodies', () => {
  it('the log names a zone set zip and a firmware image by their length, not by keys', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
        done();
      },
    });
    const started = await createTestSensor({
      serial: SERIAL,
      unit: { firmwareVersion: '3.2', logger: pino({ level: 'info' }, sink) },
    });
    unit = started;
    const body = zip();
    expect(body.length).toBeGreaterThan(MAX_ZONE_SET_ZIP_BYTES - 1024 * 1024);
    const postBytes = (url: string, payload: Buffer | Uint8Array) =>
      started.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/octet-stream' }, payload });
    const staged = await postBytes('/api/v1/zone_monitor/staged/zip', body);
    expect(staged.statusCode, staged.body).toBe(204);
    const image = buildImage(REV, generatedPayload(REV, 1_000_000));
    const uploaded = await postBytes('/api/v1/system/firmware', image);
    expect(uploaded.statusCode, uploaded.body).toBeLessThan(300);

    const changes = lines.filter((l) => l.msg === 'change requested by a client');
    const zoneLine = changes.find((l) => l.url === '/api/v1/zone_monitor/staged/zip');
    const firmwareLine = changes.find((l) => l.url === '/api/v1/system/firmware');
    expect(zoneLine).toMatchObject({ bytes: body.length });
    expect(zoneLine).not.toHaveProperty('parameters');
    expect(firmwareLine).toMatchObject({ bytes: image.length });
    expect(firmwareLine).not.toHaveProperty('parameters');
  });

  it('a unit that took the largest zone set twice and a firmware image stays within its memory bound', async () => {
    cli = await startCli({ args: ['--firmware-version', '3.2', '--serial', SERIAL, '--log-level', 'info'] });
    const body = zip();
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${cli.baseUrl}/api/v1/zone_monitor/staged/zip`, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body,
      });
      expect(res.status, await res.text()).toBe(204);
    }
    const image = buildImage(REV, generatedPayload(REV, 64 * 1024 * 1024));
    expect((await uploadFirmware(cli.baseUrl, image)).status).toBeLessThan(300);
    // The peak, not the moment: a gigabyte of strings collected later still counts.
    const status = readFileSync(`/proc/${cli.child.pid}/status`, 'utf8');
    const peakKb = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]);
    expect(peakKb * 1024).toBeLessThan(RSS_BOUND_BYTES);
  });
});
