/** Issue 11 items 9, 11, 12, 14, 15: a clean start, clear start-up errors, one process per data directory. */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCliOptions } from '../../src/main/cli-options.js';
import { describeStartupFailure } from '../../src/main/startup-failure.js';
import { freePort, runCli, startCli, unitArgs } from '../helpers/cli-process.js';
import { removeDir } from '../helpers/test-sensor.js';
import { waitFor } from '../helpers/poll.js';

const REPO = resolve(import.meta.dirname, '../..');
const oneClearLine = (stderr: string) => {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^lidar-sensor: /);
  expect(stderr).not.toMatch(/\n\s+at /);
};

describe('start-up errors are one clear line, exit 2', () => {
  it('port in use', async () => {
    const port = await freePort();
    const blocker = createServer().listen(port, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    const dataDir = mkdtempSync(join(tmpdir(), 'sensor-h11-'));
    try {
      const result = await runCli(unitArgs('127.0.0.1', port, dataDir, 'silent'));
      expect(result.code).toBe(2);
      oneClearLine(result.stderr);
      expect(result.stderr).toMatch(new RegExp(`port ${port} .*already in use.*--port`));
    } finally {
      blocker.close();
      removeDir(dataDir);
    }
  });

  it('data directory under a file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sensor-h11-'));
    writeFileSync(join(dir, 'file'), 'x');
    const result = await runCli(['--port', '0', '--data-dir', join(dir, 'file', 'sub'), '--log-level', 'silent']);
    expect(result.code).toBe(2);
    oneClearLine(result.stderr);
    expect(result.stderr).toMatch(/is a file, not a directory.*--data-dir/);
    removeDir(dir);
  });

  it.each([
    [{ code: 'EACCES', syscall: 'listen' }, /no permission to listen on 127.0.0.1:80.*cap_net_bind_service/],
    [{ code: 'EACCES', syscall: 'mkdir', path: '/srv/x' }, /no permission to use the data directory \/srv\/x/],
    [
      Object.assign(new Error('unable to open database file'), { code: 'SQLITE_CANTOPEN' }),
      /cannot open the database in the data directory \/d .*writable/,
    ],
  ])('%o is explained (these cannot be provoked as root)', (error, expected) => {
    expect(describeStartupFailure(error, { host: '127.0.0.1', port: 80, dataDir: '/d' })).toMatch(expected);
  });

  it('a busy --control port names --control, not --port', () => {
    const busy = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', syscall: 'listen', port: 8081 });
    const options = { host: '127.0.0.1', port: 28090, dataDir: '/d', control: { host: '127.0.0.1', port: 8081 } };
    const message = describeStartupFailure(busy, options);
    expect(message).toMatch(/port 8081 on 127\.0\.0\.1 \(--control\) is already in use.*--control/);
    expect(message).not.toContain('--port');
    expect(describeStartupFailure({ ...busy, port: 28090 }, options)).toMatch(/port 28090 .*choose another --port/);
  });

  it('an unexpected fault is not disguised', () => {
    expect(
      describeStartupFailure(new TypeError('x is undefined'), { host: 'h', port: 1, dataDir: 'd' }),
    ).toBeUndefined();
  });
});

describe('one process per data directory', () => {
  it('a second process exits 2 naming the holder; after a SIGKILL the directory is free again', async () => {
    const first = await startCli();
    try {
      const second = await runCli([
        '--host',
        '127.0.0.1',
        '--port',
        '0',
        '--data-dir',
        first.dataDir,
        '--log-level',
        'silent',
      ]);
      expect(second.code).toBe(2);
      oneClearLine(second.stderr);
      expect(second.stderr).toContain(`in use by process ${first.child.pid}`);
      await first.kill();
      const again = await startCli({ dataDir: first.dataDir });
      expect(await (await fetch(`${again.baseUrl}/api/v1/sensor/config`)).status).toBe(200);
      await again.stop();
    } finally {
      await first.kill();
      removeDir(first.dataDir);
    }
  });
});

describe('options', () => {
  it('the sim HAL listens on loopback by default, linux on every interface; --host / SENSOR_HOST win', () => {
    const host = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
      const options = parseCliOptions(argv, env);
      if (options === 'help') throw new Error('help');
      return options.host;
    };
    expect(host([])).toBe('127.0.0.1');
    expect(host(['--hal', 'linux'])).toBe('0.0.0.0');
    expect(host(['--host', '0.0.0.0'])).toBe('0.0.0.0');
    expect(host(['--hal', 'linux'], { SENSOR_HOST: '10.0.0.5' })).toBe('10.0.0.5');
  });

  it('--version prints the package version', async () => {
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version);
  });
});

describe('a production install on a terminal', () => {
  it('starts without pino-pretty (a devDependency) and logs JSON', async () => {
    // A copy of the built server whose node_modules lacks pino-pretty, as after `npm ci --omit=dev`.
    const root = mkdtempSync(join(tmpdir(), 'sensor-prod-'));
    // What a production install holds: package.json and its "files" (dist/, web/).
    cpSync(join(REPO, 'dist'), join(root, 'dist'), { recursive: true });
    cpSync(join(REPO, 'web'), join(root, 'web'), { recursive: true });
    cpSync(join(REPO, 'package.json'), join(root, 'package.json'));
    mkdirSync(join(root, 'node_modules'));
    for (const name of readdirSync(join(REPO, 'node_modules'))) {
      if (name !== 'pino-pretty' && name !== '.bin')
        symlinkSync(join(REPO, 'node_modules', name), join(root, 'node_modules', name));
    }
    const port = await freePort();
    const command = `${process.execPath} ${join(root, 'dist', 'cli.js')} --port ${port} --data-dir ${join(root, 'data')}`;
    // `script` gives the process a pseudo-terminal, as `docker run -it` does.
    const child = spawn('script', ['-qfec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    try {
      await waitFor(
        async () => {
          if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${output}`);
          return (await fetch(`http://127.0.0.1:${port}/api/v1/sensor/config`)).status === 200;
        },
        15_000,
        'the production copy to answer',
      );
      await waitFor(() => output.includes('"sensor ready"'), 5_000, 'the JSON ready line');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      removeDir(root);
    }
  });
});
