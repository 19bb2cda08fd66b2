/** The archive builder, the log ring and redaction, without a sensor. */
import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { createDumpArchive, LOG_FILE } from '../../src/core/diagnostics/dump-archive.js';
import { LogRing } from '../../src/core/diagnostics/log-ring.js';
import { REDACTED, redactLogLine, redactSecrets } from '../../src/core/diagnostics/redact.js';
import { dumpFileName } from '../../src/core/diagnostics/sensor-dump.js';
import { readTarGz } from './archive-reader.js';

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe('createDumpArchive', () => {
  it('writes a failing section as a file holding the error and carries on', async () => {
    const stream = createDumpArchive({
      sections: [
        { file: 'a.json', collect: () => ({ ok: 1, big: 2n ** 70n }) },
        {
          file: 'b.json',
          collect: () => {
            throw new Error('the time daemon did not answer');
          },
        },
        { file: 'c.json', collect: async () => ({ ok: 3 }) },
      ],
      logLines: () => ['{"msg":"x"}', 'not json'],
      manifest: { product: 'OS-1-64' },
      now: () => new Date('2024-04-26T04:17:47Z'),
    });
    const files = await readTarGz(await collect(stream));
    expect([...files.keys()]).toEqual(['manifest.json', 'a.json', 'b.json', 'c.json', LOG_FILE]);
    expect(JSON.parse(files.get('manifest.json')!)).toEqual({
      product: 'OS-1-64',
      generated_at: '2024-04-26T04:17:47.000Z',
      files: ['manifest.json', 'a.json', 'b.json', 'c.json', LOG_FILE],
    });
    expect(JSON.parse(files.get('a.json')!)).toEqual({ ok: 1, big: '1180591620717411303424' });
    expect(JSON.parse(files.get('b.json')!)).toEqual({ error: 'the time daemon did not answer' });
    expect(files.get(LOG_FILE)).toBe('{"msg":"x"}\nnot json\n');
  });

  it('produces no further than the reader consumes', async () => {
    let collected = 0;
    const sections = Array.from({ length: 10 }, (_, i) => ({
      file: `part-${i}.json`,
      collect: () => {
        collected++;
        // 1 MiB that gzip cannot shrink.
        return { noise: randomBytes(768 * 1024).toString('base64') };
      },
    }));
    const stream = createDumpArchive({ sections });
    stream.pause();
    const deadline = Date.now() + 10_000;
    while (collected === 0 && Date.now() < deadline) await turns(1);
    await turns(200);
    expect(collected).toBeLessThan(10);
    const files = await readTarGz(await collect(stream));
    expect(collected).toBe(10);
    expect(files.size).toBe(11);
  });
});

describe('LogRing', () => {
  it('keeps the newest lines within its line and byte budgets', () => {
    const ring = new LogRing({ maxLines: 3, maxBytes: 1000 });
    for (let i = 0; i < 5; i++) ring.write(`{"n":${i}}\n`);
    expect(ring.lines()).toEqual(['{"n":2}', '{"n":3}', '{"n":4}']);
    const small = new LogRing({ maxLines: 100, maxBytes: 100 });
    for (let i = 0; i < 10; i++) small.write(`${'x'.repeat(20)}${i}\n`);
    expect(small.lines().join('').length).toBeLessThanOrEqual(100);
    expect(small.lines().at(-1)).toBe(`${'x'.repeat(20)}9`);
    small.write(`${'y'.repeat(500)}\n`);
    expect(small.lines().at(-1)!.length).toBeLessThanOrEqual(26);
  });
});

describe('redaction', () => {
  it('replaces values under secret-looking keys at any depth and keeps the rest', () => {
    expect(
      redactSecrets({
        password: 'a',
        psk: 'b',
        list: [{ token: 'c', name: 'ok' }],
        headers: { Authorization: 'd', cookie: 'e' },
        passive: true,
        compass: 1,
        bypass: 2,
      }),
    ).toEqual({
      password: REDACTED,
      psk: REDACTED,
      list: [{ token: REDACTED, name: 'ok' }],
      headers: { Authorization: REDACTED, cookie: REDACTED },
      passive: true,
      compass: 1,
      bypass: 2,
    });
    expect(redactLogLine('{"msg":"m","client_secret":"s"}')).toBe('{"msg":"m","client_secret":"[redacted]"}');
  });
});

describe('dumpFileName', () => {
  it('names the serial number and the UTC time', () => {
    expect(dumpFileName('122201000123', new Date('2024-04-26T04:17:47.123Z'))).toBe(
      'diagnostics-122201000123-20240426T041747Z.tar.gz',
    );
  });
});
