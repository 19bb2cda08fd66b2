/** Opens a .tar.gz the way support would: gunzip, then read every tar entry. */
import { gunzipSync } from 'node:zlib';
import tar from 'tar-stream';

export async function readTarGz(bytes: Buffer): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const extract = tar.extract();
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk) => chunks.push(chunk as Buffer));
      stream.on('end', () => {
        files.set(header.name, Buffer.concat(chunks).toString('utf8'));
        next();
      });
      stream.resume();
    });
    extract.on('finish', () => resolve());
    extract.on('error', reject);
  });
  extract.end(gunzipSync(bytes));
  await done;
  return files;
}
