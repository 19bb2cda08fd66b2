/**
 * Reads a zone set zip (docs/zone-monitor.md) with fflate's streaming unzip, counting what each entry
 * inflates to while it inflates: a zip bomb is stopped by the limits below before it has filled memory,
 * not after. The compressed bytes are fed in small chunks, so an entry overshoots a limit by at most
 * what one chunk can inflate to (1 MB at deflate's largest ratio, 1032:1).
 */
import type { UnzipFile } from 'fflate';
import type { ZoneProblem } from '../../model/index.js';
import { installedPackage } from '../../first-use/index.js';

/**
 * fflate, required on the first zip read: its module builds its inflate tables in loops when it is
 * evaluated, hot enough for V8 to optimize them with its top tier at every start, which kept that
 * compiler's code resident in a unit that never reads a zip (src/first-use/installed-package.ts).
 */
const fflate = installedPackage<typeof import('fflate')>('fflate');

export interface ZipLimits {
  /** Files in the archive: metadata.json and an STL or ZRB per zone, with room for both per zone. */
  maxEntries: number;
  /** The largest file a zone set holds: a ZRB of 128 rows × 2048 columns (579 + 1 048 576 bytes). */
  maxEntryBytes: number;
  /** Everything inflated together. */
  maxTotalBytes: number;
  /** Inflated bytes per zip byte, checked once the archive has inflated past `ratioFromBytes`. */
  maxRatio: number;
  ratioFromBytes: number;
}

export const ZONE_ZIP_LIMITS: ZipLimits = {
  maxEntries: 2 * 128 + 1 + 15,
  maxEntryBytes: 1_100_000,
  maxTotalBytes: 160 * 1024 * 1024,
  maxRatio: 1024,
  ratioFromBytes: 4 * 1024 * 1024,
};

const CHUNK_BYTES = 1024;

/**
 * The files of `zip` by name, or the problem that stopped reading it. `wanted`: inflate only the files it
 * takes (the others are skipped unread: reading metadata.json at start costs nothing of the zones).
 */
export function readZoneZip(
  zip: Uint8Array,
  limits = ZONE_ZIP_LIMITS,
  wanted: (name: string) => boolean = () => true,
): Map<string, Uint8Array> | ZoneProblem {
  const files = new Map<string, Uint8Array>();
  let total = 0;
  /** Files begun but not yet whole: a truncated archive leaves one. */
  let pending = 0;
  let stop: ZoneProblem | undefined;
  const bomb = (detail: string) => (stop ??= { rule: 'zip-bomb', detail });
  const { Unzip, UnzipInflate } = fflate();
  const unzip = new Unzip((file: UnzipFile) => {
    if (stop) return;
    if (files.size + 1 > limits.maxEntries) {
      bomb(`the zip holds more than ${limits.maxEntries} files`);
      return;
    }
    if (files.has(file.name)) {
      stop = { rule: 'corrupt-zip', detail: `the zip holds ${JSON.stringify(file.name)} twice` };
      return;
    }
    if (!wanted(file.name)) return;
    const chunks: Uint8Array[] = [];
    let size = 0;
    pending++;
    file.ondata = (error, data, final) => {
      if (stop) return;
      if (error) {
        stop = { rule: 'corrupt-zip', detail: `${file.name} cannot be inflated: ${error.message}` };
        return;
      }
      size += data.length;
      total += data.length;
      if (size > limits.maxEntryBytes) {
        file.terminate();
        bomb(`${file.name} inflates to more than ${limits.maxEntryBytes} bytes, more than any file of a zone set`);
        return;
      }
      if (total > limits.maxTotalBytes) {
        file.terminate();
        bomb(`the zip inflates to more than ${limits.maxTotalBytes} bytes`);
        return;
      }
      if (total > limits.ratioFromBytes && total / zip.length > limits.maxRatio) {
        file.terminate();
        bomb(`the zip inflates to more than ${limits.maxRatio} times its size`);
        return;
      }
      chunks.push(data);
      if (final) {
        pending--;
        files.set(file.name, concat(chunks, size));
      }
    };
    try {
      file.start();
    } catch (error) {
      stop = { rule: 'corrupt-zip', detail: `${file.name}: ${(error as Error).message}` };
    }
  });
  unzip.register(UnzipInflate);
  try {
    for (let at = 0; at < zip.length && !stop; at += CHUNK_BYTES)
      unzip.push(zip.subarray(at, at + CHUNK_BYTES), at + CHUNK_BYTES >= zip.length);
  } catch (error) {
    stop ??= { rule: 'corrupt-zip', detail: `the body is not a readable zip archive: ${(error as Error).message}` };
  }
  if (stop) return stop;
  if (pending > 0) return { rule: 'corrupt-zip', detail: 'the zip archive is truncated: a file ends before its data' };
  if (files.size === 0) return { rule: 'corrupt-zip', detail: 'the body is not a zip archive holding any file' };
  return files;
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
