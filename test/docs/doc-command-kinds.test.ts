/**
 * Every command line of the docs' shell code blocks is of a kind some test checks, and this file says which (KINDS):
 * a line of no listed kind fails here, so a new kind of command cannot slip into the docs untested. What this file
 * checks itself: `npm` lines name scripts that exist, with options their script knows; `bash` lines name
 * executable files of the repository; `openssl` lines run (when openssl is installed). Bare fences (layouts) hide
 * no command.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { bareBlockLines, docLines, withoutComment } from './doc-code-blocks.js';
import { ROOT } from './repository-files.js';

const run = promisify(execFile);

/** Each kind of command line, how it is recognised, and the test that runs or checks it. */
const KINDS: { kind: string; match: RegExp; checkedBy: string }[] = [
  { kind: 'variable', match: /^[A-Z_]+=\S+$/, checkedBy: 'test/docs/doc-curl.test.ts sets it for the lines after it' },
  { kind: 'curl', match: /^curl\s/, checkedBy: 'test/docs/doc-curl.test.ts runs it through bash against a unit' },
  {
    kind: 'lidar-sensor',
    match: /^(?:sudo\s+)?(?:npx\s+|\/usr\/bin\/)?lidar-sensor(?:\s|$)/,
    checkedBy: 'test/docs/doc-commands.test.ts: --help lists its options; sample replays and recording info run',
  },
  {
    kind: 'docker',
    match: /^(?:[A-Z_]+=\S+\s+)*docker(?:-compose)?\s/,
    checkedBy: 'test/deployments/doc-docker.test.ts (the deploy stage) runs or maps each',
  },
  {
    kind: 'npm',
    match: /^npm\s/,
    checkedBy:
      'here: each script exists with the options it uses; firmware-image is also run by doc-curl.test.ts, udp-monitor by test/udp/e2e-cli.test.ts, npm ci && npm test is CI itself',
  },
  { kind: 'script', match: /^bash\s/, checkedBy: 'here: the file exists and is executable; .ci/run is CI itself' },
  { kind: 'openssl', match: /^openssl\s/, checkedBy: 'here (run); also test/firmware/firmware-trust-cli.test.ts' },
  {
    kind: 'device system step',
    match: /^(?:sudo\s|printf\s.*\|\s*sudo\s+tee\s)/,
    checkedBy:
      'test/deployments/device.test.ts: apt-get install of the .deb and the factory drop-in in a booted Debian 12 (apt-get install of the test tools: CONTRIBUTING, .ci/run)',
  },
  {
    kind: 'OpenAPI tool',
    match: /^(?:npx\s+--yes\s+openapi-typescript|openapi-python-client|npx\s+--yes\s+@redocly\/cli)\s/,
    checkedBy:
      'not run (third-party, fetched at run time); the document they read is validated by test/openapi and scripts/openapi-third-party.sh',
  },
  {
    kind: 'discovery tool',
    match: /^(?:avahi-browse|avahi-resolve|dig)\s/,
    checkedBy:
      'test/discovery/mdns-netns.test.ts: a DNS-SD browser and a legacy unicast query in another namespace (root)',
  },
];

const lines = docLines();

function kindOf(line: string): string | undefined {
  return KINDS.find((k) => k.match.test(line))?.kind;
}

/** `a && b`: each part is a command of its own. */
function parts(line: string): string[] {
  return withoutComment(line)
    .split(/\s&&\s/)
    .map((p) => p.trim());
}

describe('every command line of the docs is of a kind a test checks', () => {
  it('each line has a kind', () => {
    const unknown = lines.flatMap((l) =>
      parts(l.line)
        .filter((p) => !kindOf(p))
        .map((p) => `${l.page}: ${p}`),
    );
    expect(unknown, 'lines of no kind in KINDS: add the kind and its test, or mark output as ```text').toEqual([]);
  });

  it('bare fences hold no command (output goes in ```text)', () => {
    const hidden = bareBlockLines().filter((l) => kindOf(l.line.trim()));
    expect(hidden.map((l) => `${l.page}: ${l.line}`)).toEqual([]);
  });

  it('npm lines name scripts that exist, with options their script knows', () => {
    const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
    const npm = lines.flatMap((l) =>
      parts(l.line)
        .filter((p) => /^npm\s/.test(p))
        .map((p) => ({ page: l.page, p })),
    );
    expect(npm.length).toBeGreaterThan(3);
    const wrong: string[] = [];
    for (const { page, p } of npm) {
      const [, verb, name] = /^npm\s+(\S+)\s*(\S*)/.exec(p) ?? [];
      const script = verb === 'run' ? name : verb;
      if (verb === 'ci') continue;
      if (!scripts[script]) {
        wrong.push(`${page}: ${p} (no script ${script})`);
        continue;
      }
      const file = /(scripts\/\S+\.(?:ts|mjs|sh))/.exec(scripts[script])?.[1];
      const flags = (p.split(' -- ')[1] ?? '').match(/(?<=^|\s)--[a-z][\w-]*/g) ?? [];
      const source = file ? readFileSync(join(ROOT, file), 'utf8') : '';
      for (const flag of flags) if (!source.includes(flag)) wrong.push(`${page}: ${p} (${file} knows no ${flag})`);
    }
    expect(wrong).toEqual([]);
  });

  it('bash lines name executable files of the repository', () => {
    const files = lines.flatMap((l) =>
      parts(l.line)
        .filter((p) => /^bash\s/.test(p))
        .map((p) => p.split(/\s+/)[1]),
    );
    expect(files.length).toBeGreaterThan(1);
    for (const file of files) {
      expect(existsSync(join(ROOT, file)), file).toBe(true);
      expect(() => accessSync(join(ROOT, file), constants.X_OK), `${file} is executable`).not.toThrow();
    }
  });

  it('the openssl lines make a key pair as written', async (context) => {
    const openssl = lines.filter((l) => /^openssl\s/.test(l.line));
    expect(openssl.length).toBeGreaterThan(0);
    if (!(await run('openssl', ['version']).catch(() => undefined))) {
      context.skip('openssl is not installed here');
      return;
    }
    const cwd = mkdtempSync(join(tmpdir(), 'doc-openssl-'));
    try {
      for (const { line } of openssl) await run('bash', ['-c', withoutComment(line)], { cwd });
      const { stdout } = await run('openssl', ['pkey', '-pubin', '-in', 'release-2026.pem', '-noout', '-text'], {
        cwd,
      });
      expect(stdout).toMatch(/ED25519/i);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
