/** The version of this server: package.json's, which the build and the Docker image both carry. */
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}
