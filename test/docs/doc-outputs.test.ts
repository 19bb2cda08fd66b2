/**
 * The sample outputs the pages show are what the commands print: each ```text block that follows a shell block
 * (test/docs/doc-code-blocks.ts, sampleOutputs) is compared with what that block's last command prints, run the way
 * the page says: `npx lidar-sensor …` as the built command in the repository, a `curl` line against a fresh unit.
 * A sample may write `...` for a part that differs from run to run; its line breaks and indents are layout.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI_PATH, type CliProcess, freePort, startCli } from '../helpers/cli-process.js';
import { waitFor } from '../helpers/poll.js';
import { sampleOutputs, withoutComment } from './doc-code-blocks.js';
import { ROOT } from './repository-files.js';

const run = promisify(execFile);
const samples = sampleOutputs();

/** The sample as a pattern: `...` any text, whitespace at line breaks ignored (a JSON body shown over lines). */
function samplePattern(sample: string): RegExp {
  const parts = sample
    .trim()
    .split('...')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[\\s\\S]*?').replace(/\n\s*/g, '\\s*')}$`);
}

let unit: CliProcess;
beforeAll(async () => {
  unit = await startCli();
});
afterAll(async () => unit?.kill());

async function output(command: string): Promise<string> {
  const line = withoutComment(command)
    .replace(/^npx lidar-sensor/, `"${process.execPath}" "${CLI_PATH}"`)
    .replaceAll('$S', `${unit.baseUrl}/api/v1`);
  const done = await run('bash', ['-c', line], { cwd: ROOT }).catch((error: { stdout?: string }) => ({
    stdout: error.stdout ?? '',
  }));
  return done.stdout.trim();
}

describe('the sample outputs the pages show', () => {
  it('finds them', () => {
    expect(samples.map((s) => s.page)).toEqual(expect.arrayContaining(['docs/replay.md', 'docs/usage.md']));
  });

  it.each(samples.map((s) => [`${s.page}: ${s.command}`, s] as const))('%s prints its sample', async (_name, s) => {
    expect(await output(s.command)).toMatch(samplePattern(s.text));
  });

  it('a sample changed by hand no longer matches', async () => {
    const s = samples.find((x) => x.page === 'docs/replay.md');
    if (!s) throw new Error('docs/replay.md shows no sample output');
    expect(await output(s.command)).not.toMatch(samplePattern(s.text.replace('1 lidar', '2 lidar')));
  });
});

// The status a fault leads to is a sample output too: docs/faults.md's overheating example, run on a unit.
describe("docs/faults.md's overheating example", () => {
  const page = readFileSync(join(ROOT, 'docs/faults.md'), 'utf8');
  const example = /Does it show an overheating unit\? `(\{.*\})`:\n([\s\S]*?)\n\n/.exec(page);

  it('raises OVERTEMP_WARNING at the temperature the page names, and no shutdown', async () => {
    if (!example) throw new Error('docs/faults.md shows no overheating example');
    const rule = JSON.parse(example[1]) as { action: { ramp_ms?: number } };
    const named = Number(/about (\d+) °C/.exec(example[2])?.[1]);
    expect(example[2]).toContain('OVERTEMP_WARNING');
    const control = await freePort();
    const hot = await startCli({ args: ['--control', `127.0.0.1:${control}`] });
    try {
      // The ramp only delays it: the temperature it ends at is the page's claim.
      const added = await fetch(`http://127.0.0.1:${control}/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...rule, action: { ...rule.action, ramp_ms: 0 } }),
      });
      expect(added.status).toBe(201);
      const get = async (path: string) =>
        (await (await fetch(`${hot.baseUrl}/api/v1${path}`)).json()) as Record<string, unknown>;
      const active = await waitFor(
        async () => {
          const ids = ((await get('/sensor/alerts')).active as { id: string }[]).map((a) => a.id);
          return ids.length > 0 ? ids : undefined;
        },
        15_000,
        'an alert',
      );
      const { ALERT_IDS } = await import('../../src/model/index.js');
      expect(active).toContain(ALERT_IDS.OVERTEMP_WARNING);
      expect(active).not.toContain(ALERT_IDS.OVERTEMP_ERROR);
      const celsius = (await get('/sensor/telemetry')).internal_temperature_deg_c as number;
      expect(Math.abs(celsius - named), `${celsius} °C against the page's ${named} °C`).toBeLessThanOrEqual(2);
      expect((await get('/sensor/metadata/sensor_info')).status).toBe('RUNNING');
    } finally {
      await hot.kill();
    }
  });
});
