/**
 * What an operator needs in the log: every request at debug, and at info every change a client
 * made (method, path, status, the parameters it set, who: the remote address). A binary body (a zone
 * set zip, a firmware image) is logged as its length: its keys would be one string per byte.
 */
import { Readable } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Parameter names listed per logged change (a POST may carry many). */
const MAX_LOGGED_KEYS = 32;

/** What the log says of a change's body: the parameters of a JSON object, the length of bytes. */
function bodyFields(request: FastifyRequest): { parameters?: string[]; bytes?: number } {
  const body = request.body;
  if (ArrayBuffer.isView(body)) return { bytes: body.byteLength };
  if (body instanceof Readable) {
    // A streamed body (a firmware image) was counted by its route's reader only: the header says its length.
    const length = Number(request.headers['content-length']);
    return Number.isSafeInteger(length) ? { bytes: length } : {};
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { parameters: undefined };
  const parameters: string[] = [];
  for (const key in body) {
    if (parameters.length === MAX_LOGGED_KEYS) break;
    if (Object.hasOwn(body, key)) parameters.push(key.slice(0, 64));
  }
  return { parameters };
}

/** True when `log` writes the per-request line (debug or trace). */
export function logsEveryRequest(log: FastifyBaseLogger): boolean {
  const level = log.level;
  return level === 'debug' || level === 'trace';
}

/** True when `log` writes info lines, the changes clients made (info, debug or trace). */
function logsChanges(log: FastifyBaseLogger): boolean {
  return log.level === 'info' || logsEveryRequest(log);
}

export function installRequestLog(app: FastifyInstance): void {
  app.preparedAnswers?.leaveToRoutesWhen(() => logsEveryRequest(app.log));
  app.addHook('onResponse', (request, reply, done) => {
    const log = request.log;
    const change = !READ_METHODS.has(request.method) && reply.statusCode < 400 && logsChanges(log);
    // A logger that would drop the line (warn and above for a change, info and above for the rest)
    // skips building the fields: a durable write's answer pays for them otherwise.
    if (change || logsEveryRequest(log)) {
      const fields = {
        reqId: request.id,
        method: request.method,
        url: request.url.slice(0, 256),
        status: reply.statusCode,
        remote: request.ip,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        ...(change ? bodyFields(request) : {}),
      };
      if (change) log.info(fields, 'change requested by a client');
      else log.debug(fields, 'request');
    }
    done();
  });
}
