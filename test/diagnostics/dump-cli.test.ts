/** The real CLI: its own log lines are teed into the diagnostics dump. */
import { afterEach, describe, expect, it } from 'vitest';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { removeDir } from '../helpers/test-sensor.js';
import { readTarGz } from './archive-reader.js';

const processes: CliProcess[] = [];
afterEach(async () => {
  for (const p of processes.splice(0)) {
    await p.stop();
    removeDir(p.dataDir);
  }
});

describe('lidar-sensor diagnostics', () => {
  it('the dump of a running CLI holds its recent log lines', async () => {
    const cli = await startCli({ args: ['--log-level', 'info'] });
    processes.push(cli);
    const response = await fetch(`${cli.baseUrl}/api/v1/diagnostics/dump`);
    expect(response.status).toBe(200);
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    const files = await readTarGz(Buffer.from(await response.arrayBuffer()));
    const lines = files
      .get('log/recent.jsonl')!
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string });
    expect(lines.map((l) => l.msg)).toContain('sensor ready');
  });
});
