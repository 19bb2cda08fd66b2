/**
 * The firmware hook's root path (src/hal/linux/firmware-hook-spool.ts) without systemd: the requester's side
 * writes its request, the runner (what lidar-sensor-firmware.service runs as root) takes it and runs a recording
 * hook, and the requester sees the hook's output and exit status. What root refuses never reaches the hook.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { argumentProblem, requestHook, runSpooledRequests } from '../../src/hal/linux/firmware-hook-spool.js';
import { waitFor } from '../helpers/poll.js';

const REV = 'ousteros-image-prod-bootes-v3.2.0+20260101120000';
const INVOCATION = '0123456789abcdef0123456789abcdef';
let dir = '';
let spool = '';
let results = '';
let images = '';
let hook = '';
const calls = () => (existsSync(join(dir, 'calls')) ? readFileSync(join(dir, 'calls'), 'utf8').trim().split('\n') : []);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fw-spool-'));
  spool = join(dir, 'server-state', 'firmware-hook');
  results = join(dir, 'root-state', 'results');
  images = join(dir, 'server-state', 'firmware');
  mkdirSync(images, { recursive: true });
  hook = join(dir, 'hook');
  // Records each call with the INVOCATION_ID it saw; `install` copies the payload as a real hook would.
  writeFileSync(
    hook,
    `#!/bin/sh
echo "$* id=$INVOCATION_ID" >> '${dir}/calls'
case "$1" in
  booted) echo b ;;
  install) tail -c +$(($4 + 1)) "$3" | head -c "$5" > '${dir}/slot-'"$2" ;;
  activate) echo "cannot write the boot environment" >&2; exit 5 ;;
esac
`,
  );
  chmodSync(hook, 0o755);
  process.env.INVOCATION_ID = INVOCATION;
});
afterEach(() => {
  delete process.env.INVOCATION_ID;
  rmSync(dir, { recursive: true, force: true });
});

/** One step through the spool: the request is left, the runner runs once it is there, the result comes back. */
async function roundTrip(args: string[]) {
  const answer = requestHook(spool, results, args);
  await waitFor(() => existsSync(join(spool, 'requests')) && readdirSync(join(spool, 'requests')).length > 0);
  await runSpooledRequests(spool, results, images, hook);
  return answer;
}

describe('the firmware hook through the root path', () => {
  it("answers with the hook's output, and the hook sees the server's INVOCATION_ID", async () => {
    expect(await roundTrip(['booted'])).toEqual({ exit: 0, stdout: 'b\n', stderr: '' });
    expect(calls()).toEqual([`booted id=${INVOCATION}`]);
    expect(readdirSync(join(spool, 'requests'))).toEqual([]);
  });

  it("passes the hook's exit status and error output on", async () => {
    const result = await roundTrip(['activate', 'b']);
    expect(result.exit).toBe(5);
    expect(result.stderr).toBe('cannot write the boot environment\n');
  });

  it('installs an image from the slot folder: the hook reads the opened file as /dev/fd/3', async () => {
    const image = join(images, 'slot-b.img');
    writeFileSync(image, Buffer.concat([Buffer.from('HEADER'), Buffer.from('payload bytes')]));
    const result = await roundTrip(['install', 'b', image, '6', '13', REV]);
    expect(result.exit).toBe(0);
    expect(calls()).toEqual([`install b /dev/fd/3 6 13 ${REV} id=${INVOCATION}`]);
    expect(readFileSync(join(dir, 'slot-b'), 'utf8')).toBe('payload bytes');
  });

  it('refuses an image outside the slot folder, also behind a symbolic link, without calling the hook', async () => {
    const secret = join(dir, 'root-only');
    writeFileSync(secret, 'not an image of the server');
    symlinkSync(secret, join(images, 'slot-a.img'));
    const linked = await roundTrip(['install', 'a', join(images, 'slot-a.img'), '0', '4', REV]);
    expect(linked.exit).toBe(2);
    expect(linked.stderr).toMatch(/refused by the root path: the image cannot be opened/);
    const outside = await roundTrip(['install', 'a', secret, '0', '4', REV]);
    expect(outside.stderr).toMatch(/the image is not in /);
    expect(calls()).toEqual([]);
  });

  it('refuses a payload that reaches past the end of the image', async () => {
    const image = join(images, 'slot-a.img');
    writeFileSync(image, 'short');
    const result = await roundTrip(['install', 'a', image, '2', '4', REV]);
    expect(result.stderr).toMatch(/past the end/);
    expect(calls()).toEqual([]);
  });

  it('leaves files it did not ask for in place and never runs them', async () => {
    mkdirSync(join(spool, 'requests'), { recursive: true });
    writeFileSync(join(spool, 'requests', 'passwd'), '{"args":["booted"]}');
    await runSpooledRequests(spool, results, images, hook);
    expect(readdirSync(join(spool, 'requests'))).toEqual(['passwd']);
    expect(calls()).toEqual([]);
  });
});

describe('what the root path accepts as hook arguments', () => {
  it.each([
    [['booted'], undefined],
    [['reboot'], undefined],
    [['mark-good', 'a'], undefined],
    [['install', 'b', '/var/lib/lidar-sensor/firmware/slot-b.img', '64', '1000', REV], undefined],
    [['format-disk'], /unknown step "format-disk"/],
    [[], /unknown step ""/],
    [['activate', 'c'], /argument 1 of activate \("c"\) is invalid/],
    [['booted', '--now'], /booted takes 0 arguments, got 1/],
    [['install', 'b', 'relative.img', '0', '1', REV], /argument 2 of install/],
    [['install', 'b', '/x.img', '-1', '1', REV], /argument 3 of install/],
    [['install', 'b', '/x.img', '0', '1', 'rev with spaces'], /argument 5 of install/],
  ])('%j', (args, problem) => {
    const answer = argumentProblem(args as string[]);
    if (problem === undefined) expect(answer).toBeUndefined();
    else expect(answer).toMatch(problem);
  });
});
