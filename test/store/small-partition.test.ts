/**
 * Issue 45 on a real file system: the built unit (dist/cli.js) on a 4 MB tmpfs data partition. It
 * starts and stores writes; filled to the last byte by another process, its writes answer 507 with a
 * problem body, reads are served, deleting the user data still works, and once space is back writes are
 * stored again without a restart; acknowledged writes survive; a firmware image that cannot fit is
 * refused with 507 and leaves no partial slot file. (A read-only remount cannot be made here: the kernel
 * refuses to remount a file system read-only while the unit holds files open for writing; SQLite's and
 * Node's read-only errors map to the same 507, see storage-faults.test.ts.)
 * Mounting needs root: otherwise the suite skips, saying why.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImage, generatedPayload } from '../../src/model/image-format.js';
import { type CliProcess, runCli, startCli } from '../helpers/cli-process.js';
import { uploadFirmware } from '../firmware/http-upload.js';

const isRoot = process.getuid?.() === 0;
if (!isRoot) console.log('small-partition tests skipped: mounting a tmpfs needs root');

let mountPoint: string;
let dataDir: string;
let unit: CliProcess | undefined;

const json = { 'content-type': 'application/json' };
async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(unit!.baseUrl + path, {
    method,
    headers: body === undefined ? {} : json,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Fills the partition with another process's file until the kernel says it is full. */
function fill(path: string): void {
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
  } finally {
    closeSync(fd);
  }
}

describe.skipIf(!isRoot)('a unit on a 4 MB data partition', () => {
  beforeAll(async () => {
    mountPoint = mkdtempSync(join(tmpdir(), 'small-partition-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mountPoint]);
    dataDir = join(mountPoint, 'data');
    unit = await startCli({ dataDir });
  });

  afterAll(async () => {
    await unit?.stop();
    execFileSync('umount', [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it('starts and stores writes', async () => {
    expect((await call('POST', '/api/v1/sensor/config', { udp_port_lidar: 7401 })).status).toBe(204);
    expect((await call('PUT', '/api/v1/user/data', 'u'.repeat(100_000))).status).toBe(204);
    expect((await call('GET', '/api/v1/sensor/config')).body.udp_port_lidar).toBe(7401);
  });

  it('full: 507 with its problem body, reads served, user data deletable, writes again once space is back', async () => {
    const filler = join(mountPoint, 'filler');
    fill(filler);
    // The WAL's pre-sized room still takes a few writes; then the disk is full for the unit too.
    let acknowledged = 'u'.repeat(100_000);
    let refused: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 60 && !refused; i++) {
      const value = String.fromCharCode(97 + (i % 26)).repeat(120_000);
      const answer = await call('PUT', '/api/v1/user/data', value);
      if (answer.status === 204) acknowledged = value;
      else refused = answer;
    }
    expect(refused?.status).toBe(507);
    expect(refused?.body).toMatchObject({ type: 'urn:lidar-sensor:problem:insufficient-storage', status: 507 });
    expect(refused?.body.detail).toMatch(/storage is full/);
    expect((await call('GET', '/api/v1/user/data')).body).toBe(acknowledged);
    expect((await call('GET', '/api/v1/sensor/config')).status).toBe(200);

    const rev = 'ousteros-image-prod-bootes-v4.0.0+20250102030405';
    const before = (await call('GET', '/api/v1/system/firmware')).body;
    const upload = await uploadFirmware(unit!.baseUrl, buildImage(rev, generatedPayload(rev, 1_000_000)));
    expect(upload.status).toBe(507);
    expect(JSON.parse(upload.body).type).toBe('urn:lidar-sensor:problem:insufficient-storage');
    expect(readdirSync(join(dataDir, 'firmware')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect((await call('GET', '/api/v1/system/firmware')).body).toEqual(before);

    expect((await call('DELETE', '/api/v1/user/data')).status).toBe(204);
    expect((await call('GET', '/api/v1/user/data')).body).toBe('');
    // The pages the user data held are free inside the database: a write of that size fits again.
    expect((await call('POST', '/api/v1/sensor/config', { udp_port_lidar: 7402 })).status).toBe(204);

    rmSync(filler);
    expect((await call('PUT', '/api/v1/user/data', 'w'.repeat(120_000))).status).toBe(204);
    const metrics = await (await fetch(`${unit!.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/lidar_sensor_storage_refusing_writes\{cause="full"\} 0/);
    expect(metrics).toMatch(/lidar_sensor_storage_refused_writes_total\{cause="full"\} [1-9]/);
  });

  it('keeps every acknowledged write across a restart', async () => {
    await unit!.stop();
    unit = await startCli({ dataDir });
    expect((await call('GET', '/api/v1/sensor/config')).body.udp_port_lidar).toBe(7402);
    expect((await call('GET', '/api/v1/user/data')).body).toBe('w'.repeat(120_000));
  });

  it('full while stopped: one clear line, the database not taken for damaged; starts whole once space is back', async () => {
    await unit!.stop();
    unit = undefined;
    const filler = join(mountPoint, 'filler');
    fill(filler);
    const refused = await runCli(['--port', '0', '--data-dir', dataDir, '--log-level', 'warn']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^lidar-sensor: no space left for the data directory .+; free some space/m);
    expect(readdirSync(dataDir).filter((f) => f.includes('damaged') || f.includes('rebuil'))).toEqual([]);
    rmSync(filler);
    unit = await startCli({ dataDir });
    expect((await call('GET', '/api/v1/user/data')).body).toBe('w'.repeat(120_000));
    expect((await call('GET', '/api/v1/sensor/alerts')).body.active).toEqual([]);
  });
});
