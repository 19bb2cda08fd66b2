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
  const output = pretty
    ? pino.transport({ target: pretty, options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } })
    : pino.destination(1);
  return pino(
    { level },
    pino.multistream([
      { level, stream: output },
      { level, stream: recent },
    ]),
  );
}
