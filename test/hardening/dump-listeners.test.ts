/** Issue 11 item 7: the diagnostics dump waits for backpressure without leaving listeners behind. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createDumpArchive } from '../../src/core/diagnostics/dump-archive.js';
import { readTarGz } from '../diagnostics/archive-reader.js';

describe('dump archive backpressure', () => {
  it('a large section read slowly raises no MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const noise = randomBytes(3 * 1024 * 1024).toString('base64');
      const stream = createDumpArchive({ sections: [{ file: 'big.json', collect: () => ({ noise }) }] });
      const chunks: Buffer[] = [];
      for await (const chunk of stream) {
        chunks.push(chunk as Buffer);
        // A slow reader: the packer fills up and waits for 'drain' again and again.
        await new Promise((r) => setImmediate(r));
      }
      const files = await readTarGz(Buffer.concat(chunks));
      expect(JSON.parse(files.get('big.json')!).noise).toBe(noise);
      // Warnings are emitted on the next tick.
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.includes('MaxListeners'))).toEqual([]);
  });
});
