/**
 * Keeps the main thread's young generation at V8's initial size (1 MB per semi-space) instead of
 * letting it double up to 16 MB: start-up's long-lived objects make V8 grow it to 8 MB, and only V8's
 * memory reducer, which first looks 8 s after the last major collection, shrinks it again: several MB of
 * every unit's memory that a server answering small requests does not need (its requests die young in
 * 1 MB just as well, at the same CPU per request: docs/benchmarks.md). V8 reads the growth
 * factor each time it would grow the space, so setting it at run time works, unlike the size limits.
 * Must run before the server's modules load: the first thing the entry (cli.ts) does.
 */
import { setFlagsFromString } from 'node:v8';

export function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
