/**
 * The diagnostics dump: a gzip-compressed tar archive of JSON snapshots plus the recent log lines,
 * produced as a stream. Each file is collected just before it is written and fed to the tar packer
 * in bounded chunks that respect backpressure, so the archive is never held in memory whole and a
 * slow download does not make the server buffer ahead.
 *
 * A section whose snapshot fails becomes a file holding the error instead of ending the dump:
 * support still gets everything else. Secrets are redacted from every file (redact.ts).
 */
import type { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import { utcIsoString } from '../../model/index.js';
import { redactLogLine, redactSecrets } from './redact.js';

export interface DumpSection {
  /** Path inside the archive, e.g. "config/active.json". */
  file: string;
  /** A JSON document (secrets redacted), or a Buffer: a file's bytes as they are. */
  collect: () => unknown;
}

export interface DumpArchiveOptions {
  sections: readonly DumpSection[];
  /** Recent log lines (JSON lines), written as `log/recent.jsonl`. */
  logLines?: () => readonly string[];
  /** Written first as `manifest.json`, with the list of files and the generation time added. */
  manifest?: Record<string, unknown>;
  now?: () => Date;
  /** Called when producing the archive fails after it started (the stream is destroyed with the error). */
  onError?: (error: unknown) => void;
}

export const LOG_FILE = 'log/recent.jsonl';
const CHUNK_BYTES = 16 * 1024;

/** Starts producing the archive and returns its byte stream (.tar.gz). */
export function createDumpArchive(options: DumpArchiveOptions): Readable {
  const pack = tar.pack();
  const gzip = createGzip();
  pack.pipe(gzip);
  // A client that goes away destroys the response stream: stop producing at once. The packer then
  // reports a premature close, which is expected and not worth more than that.
  gzip.once('close', () => pack.destroy());
  pack.on('error', (error) => {
    if (!gzip.destroyed) gzip.destroy(error);
  });
  void writeEntries(pack, options).catch((error: unknown) => {
    if (gzip.destroyed) return;
    options.onError?.(error);
    gzip.destroy(error instanceof Error ? error : new Error(String(error)));
  });
  return gzip;
}

async function writeEntries(pack: tar.Pack, options: DumpArchiveOptions): Promise<void> {
  const now = options.now ?? (() => new Date());
  const mtime = now();
  const files = ['manifest.json', ...options.sections.map((s) => s.file), ...(options.logLines ? [LOG_FILE] : [])];
  await writeFile(pack, 'manifest.json', mtime, [
    json({ ...options.manifest, generated_at: utcIsoString(mtime.getTime()), files }),
  ]);

  for (const section of options.sections) {
    if (pack.destroyed) return;
    let content: string | Buffer;
    try {
      const collected = await section.collect();
      content = Buffer.isBuffer(collected) ? collected : json(redactSecrets(collected));
    } catch (error) {
      content = json({ error: error instanceof Error ? error.message : String(error) });
    }
    await writeFile(pack, section.file, now(), [content]);
  }

  if (options.logLines && !pack.destroyed) {
    const lines = options.logLines().map((line) => `${redactLogLine(line)}\n`);
    await writeFile(pack, LOG_FILE, now(), lines);
  }
  if (!pack.destroyed) pack.finalize();
}

/** One tar entry from text pieces; the size goes in the header first, then the bytes in chunks. */
async function writeFile(
  pack: tar.Pack,
  name: string,
  mtime: Date,
  pieces: readonly (string | Buffer)[],
): Promise<void> {
  const buffers = pieces.map((piece) => (typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece));
  const size = buffers.reduce((sum, b) => sum + b.length, 0);
  let settle!: (error?: Error | null) => void;
  const finished = new Promise<void>((resolve, reject) => {
    settle = (error) => (error ? reject(error) : resolve());
  });
  // Awaited at the end; an abort can end the function before that, so it must not reject unobserved.
  finished.catch(() => undefined);
  const entry = pack.entry({ name, size, mtime, mode: 0o644, type: 'file' }, (error) => settle(error));
  entry.on('error', (error: Error) => settle(error));
  for (const buffer of buffers) {
    for (let offset = 0; offset < buffer.length; offset += CHUNK_BYTES) {
      if (entry.write(buffer.subarray(offset, offset + CHUNK_BYTES))) continue;
      await drainedOrClosed(entry);
      if (pack.destroyed) throw new Error('the diagnostics download was aborted');
    }
  }
  entry.end(null);
  await finished;
}

/** Waits for 'drain' or 'close', whichever comes first, and leaves no listener behind. */
function drainedOrClosed(stream: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

/** Pretty JSON for humans at support; bigint values (ns clocks) as decimal strings. */
function json(value: unknown): string {
  return `${JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner), 2)}\n`;
}
