/**
 * Every `npx lidar-sensor …`, `lidar-sensor …` and `/usr/bin/lidar-sensor …` the README and the docs show in a shell
 * code block runs as written: the command is the
 * package's `bin` (dist/cli.js, what `npx lidar-sensor` and the device's `/usr/bin/lidar-sensor` start), each
 * subcommand answers `--help`, every option a documented line uses is one that subcommand lists, every file of the
 * repository it names exists, the lines that start a unit from the sample recordings answer their first request, and
 * the validate lines run against a unit.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI_PATH, startCli } from '../helpers/cli-process.js';
import { docLines, withoutComment } from './doc-code-blocks.js';
import { UdpCapture } from '../udp/helpers/udp-capture.js';
import { waitFor } from '../helpers/poll.js';
import { ROOT } from './repository-files.js';

const run = promisify(execFile);
const SUBCOMMANDS = ['fleet', 'faults', 'validate', 'recording'];

interface DocCommand {
  page: string;
  line: string;
  subcommand: string;
  args: string[];
}

/** Splits a shell line into words (quotes kept together, a trailing `# comment` dropped). */
function words(line: string): string[] {
  const withoutComment = line.replace(/\s+#\s.*$/, '');
  return [...withoutComment.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** The command as a clone (`npx lidar-sensor`), a device (`/usr/bin/lidar-sensor`) or a PATH (`lidar-sensor`) runs it. */
const COMMAND = /(?:^|\s)(?:npx\s+|\/usr\/bin\/)?lidar-sensor(?=\s|$)/;

function documentedCommands(): DocCommand[] {
  return docLines().flatMap(({ page, line }) => {
    const found = COMMAND.exec(line);
    if (!found) return [];
    const rest = words(line.slice(found.index + found[0].length));
    const subcommand = SUBCOMMANDS.includes(rest[0]) ? rest[0] : '';
    return [{ page, line, subcommand, args: subcommand ? rest.slice(1) : rest }];
  });
}

const commands = documentedCommands();

describe('the commands the docs show', () => {
  it('finds them, and the command is the package bin', () => {
    expect(commands.length).toBeGreaterThan(10);
    expect(
      commands.some((c) => c.line.startsWith('lidar-sensor faults')),
      'the device form, without npx',
    ).toBe(true);
    const bin = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).bin as Record<string, string>;
    expect(bin['lidar-sensor']).toBe('dist/cli.js');
  });

  it.each(['', ...SUBCOMMANDS])(
    'lidar-sensor %s answers --help and lists every option the docs use with it',
    async (sub) => {
      const { stdout } = await run(process.execPath, [CLI_PATH, ...(sub ? [sub] : []), '--help']);
      expect(stdout).toMatch(/usage: lidar-sensor/i);
      const unknown = commands
        .filter((c) => c.subcommand === sub)
        .flatMap((c) => c.args.filter((a) => /^--[a-z]/.test(a)).map((a) => a.split('=')[0]))
        .filter((flag) => !stdout.includes(flag));
      expect(
        [...new Set(unknown)],
        `options the docs use with lidar-sensor ${sub} that its --help does not list`,
      ).toEqual([]);
    },
  );

  it('lidar-sensor --help lists every command the docs use', async () => {
    const { stdout } = await run(process.execPath, [CLI_PATH, '--help']);
    const listed = stdout.slice(stdout.indexOf('\nCommands:'));
    expect(SUBCOMMANDS.filter((sub) => !new RegExp(`^  lidar-sensor ${sub} `, 'm').test(listed))).toEqual([]);
  });

  it('names only files of the repository that exist', () => {
    const missing = commands.flatMap((c) =>
      c.args
        .filter((a) => /^(test|docs|deploy|scripts)\//.test(a) && !existsSync(join(ROOT, a)))
        .map((a) => `${c.page}: ${a}`),
    );
    expect(missing).toEqual([]);
  });

  it('starts a unit from each documented sample recording, answers its first request and streams data', async () => {
    const replays = commands.filter(
      (c) => c.subcommand === '' && c.args.includes('--replay') && c.args.some((a) => a.startsWith('test/')),
    );
    expect(replays.length).toBeGreaterThan(1);
    for (const command of replays) {
      const args = command.args.map((a) => (a.startsWith('test/') ? join(ROOT, a) : a));
      const unit = await startCli({ args });
      const capture = await UdpCapture.listen();
      try {
        const info = await fetch(`${unit.baseUrl}/api/v1/sensor/metadata/sensor_info`);
        expect(info.status, command.line).toBe(200);
        // A documented stream streams: every data port to one listener (the reinit starts the recording again).
        const port = capture.port;
        const active = (await (await fetch(`${unit.baseUrl}/api/v1/sensor/config`)).json()) as Record<string, unknown>;
        const firmware32 = active.udp_port_zm !== undefined;
        const config = await fetch(`${unit.baseUrl}/api/v1/sensor/config`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            udp_dest: '127.0.0.1',
            udp_port_lidar: port,
            udp_port_imu: port,
            ...(firmware32 ? { udp_dest_zm: '127.0.0.1', udp_port_zm: port } : {}),
          }),
        });
        expect(config.status, command.line).toBe(204);
        await waitFor(() => capture.count > 0, 15_000, `data from: ${command.line}`);
      } finally {
        await capture.close();
        await unit.kill();
      }
    }
  });

  it('describes each documented recording with recording info', async () => {
    const infos = commands.filter((c) => c.subcommand === 'recording');
    expect(infos.length).toBeGreaterThan(0);
    for (const command of infos) {
      const { stdout } = await run(process.execPath, [
        CLI_PATH,
        'recording',
        ...command.args.map((a) => (a.startsWith('test/') ? join(ROOT, a) : a)),
      ]);
      // With metadata, the replay's summary; without (a capture of several sensors), the list of its sensors.
      expect(stdout, command.line).toMatch(/^sensor\s+OS-|^sensors in the capture: [1-9]/m);
    }
  });

  it("runs each documented validate line against a unit, with the unit's address for the page's", async () => {
    const validations = commands.filter((c) => c.subcommand === 'validate');
    expect(validations.length).toBeGreaterThan(1);
    const unit = await startCli();
    const cwd = mkdtempSync(join(tmpdir(), 'doc-validate-'));
    try {
      for (const command of validations) {
        const line = withoutComment(command.line)
          .replace(/^npx lidar-sensor/, `"${process.execPath}" "${CLI_PATH}"`)
          .replaceAll('http://192.0.2.10', unit.baseUrl);
        const { code, stdout } = await run('bash', ['-c', line], {
          cwd,
          env: { ...process.env, UNIT: `${unit.host}:${unit.port}` },
        }).then(
          (done) => ({ code: 0, stdout: done.stdout }),
          (error: { code?: number; stdout?: string }) => ({ code: error.code, stdout: error.stdout ?? String(error) }),
        );
        // A read-only run checks only what the unit answers; with --allow-changes the data plane's checks count
        // packets on a loopback shared with the rest of the suite, so there the run is asked to complete (exit
        // status 0 or 1, not 2: unreachable or bad arguments), not to find nothing.
        if (command.args.includes('--allow-changes')) expect([0, 1], `${command.line}\n${stdout}`).toContain(code);
        else expect(code, `${command.line}\n${stdout}`).toBe(0);
        expect(stdout, command.line).toMatch(/\d+ passed, \d+ failed/);
      }
    } finally {
      await unit.kill();
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 120_000);
});
