/**
 * The CLI's logger: JSON lines for machines; readable lines when a person watches the terminal and
 * pino-pretty is installed (it is a development dependency: a production install, e.g. the Docker
 * image, logs JSON on a terminal too). Every line is also kept in `recent` for the diagnostics dump.
 */
import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger } from 'pino';

/** pino-pretty's entry point when it is installed, else undefined. */
export function prettyTransportTarget(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('pino-pretty');
  } catch {
    return undefined;
  }
}

export function createCliLogger(
  level: string,
  recent: DestinationStream,
  isTty = process.stdout.isTTY === true,
): Logger {
  const pretty = isTty ? prettyTransportTarget() : undefined;
  // A transport runs in a worker thread that pino starts from its own package's files: that takes the
  // installed package, not the copy bundled into dist/ (scripts/bundle.mjs), which has no such files.
  const output = pretty
    ? (createRequire(import.meta.url)('pino') as typeof pino).transport({
        target: pretty,
        options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' },
      })
    : pino.destination(1);
  return pino(
    { level },
    pino.multistream([
      { level, stream: output },
      { level, stream: recent },
    ]),
  );
}
