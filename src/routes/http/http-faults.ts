/**
 * The sensor API's fault hook: requests an HTTP rule selects get added latency, a 500 or 503
 * (problem+json, Retry-After), a closed connection, or a body cut short (the full Content-Length
 * announced, fewer bytes sent, connection closed). Installed only when the unit has a fault plane;
 * with no HTTP rule a request costs one array length check.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type HttpAction, unavailable } from '../../model/index.js';

/** The rule acting on a request: what to do, and `applied()` to call once it changed the answer (truncate). */
export interface HttpFault {
  action: HttpAction;
  applied(): void;
}

export interface HttpFaultSource {
  readonly httpRules: readonly unknown[];
  httpFault(method: string, path: string): HttpFault | undefined;
}

/** Requests that asked to have their body cut short, at how many bytes, and whom to tell once it was. */
const truncateAt = new WeakMap<FastifyRequest, { bytes: number; applied(): void }>();

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

function closeConnection(request: FastifyRequest, reply: FastifyReply): void {
  reply.hijack();
  request.raw.socket?.destroy();
}

export function installHttpFaults(app: FastifyInstance, faults: HttpFaultSource): void {
  app.preparedAnswers?.leaveToRoutesWhen(() => faults.httpRules.length > 0);
  app.addHook('onRequest', (request, reply, done) => {
    if (faults.httpRules.length === 0) return done();
    const fault = faults.httpFault(request.method, pathOf(request.url));
    if (!fault) return done();
    const action = fault.action;
    switch (action.type) {
      case 'latency':
        setTimeout(done, action.ms);
        return;
      case 'status':
        done(
          action.status === 503
            ? unavailable('the sensor is unavailable (injected fault)', action.retry_after_s)
            : new ApiError('internal', 'the sensor failed to handle this request (injected fault)'),
        );
        return;
      case 'close':
        closeConnection(request, reply);
        return;
      case 'truncate':
        truncateAt.set(request, { bytes: action.bytes, applied: fault.applied });
        done();
        return;
    }
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const truncate = truncateAt.get(request);
    // A streamed answer (a diagnostics dump) has no body to cut here: it goes out whole and the rule is not applied.
    if (truncate === undefined || (typeof payload !== 'string' && !Buffer.isBuffer(payload)))
      return done(null, payload);
    const body = Buffer.from(payload);
    const bytes = truncate.bytes;
    truncate.applied();
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(reply.statusCode, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-length': String(body.length),
    });
    raw.write(body.subarray(0, Math.min(bytes, body.length)), () => request.raw.socket?.destroy());
  });
}
