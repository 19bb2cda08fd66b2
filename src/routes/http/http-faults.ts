/**
 * The sensor API's fault hook: requests an HTTP rule selects get added latency, a 500 or 503
 * (problem+json, Retry-After), a closed connection, or a body cut short (the full Content-Length
 * announced, fewer bytes sent, connection closed). Installed only when the unit has a fault plane;
 * with no HTTP rule a request costs one array length check.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type HttpAction, unavailable } from '../../model/index.js';

export interface HttpFaultSource {
  readonly httpRules: readonly unknown[];
  httpFault(method: string, path: string): HttpAction | undefined;
}

/** Requests that asked to have their body cut short, and at how many bytes. */
const truncateAt = new WeakMap<FastifyRequest, number>();

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

function closeConnection(request: FastifyRequest, reply: FastifyReply): void {
  reply.hijack();
  request.raw.socket?.destroy();
}

export function installHttpFaults(app: FastifyInstance, faults: HttpFaultSource): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (faults.httpRules.length === 0) return done();
    const action = faults.httpFault(request.method, pathOf(request.url));
    if (!action) return done();
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
        truncateAt.set(request, action.bytes);
        done();
        return;
    }
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const bytes = truncateAt.get(request);
    if (bytes === undefined || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return done(null, payload);
    const body = Buffer.from(payload);
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(reply.statusCode, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-length': String(body.length),
    });
    raw.write(body.subarray(0, Math.min(bytes, body.length)), () => request.raw.socket?.destroy());
  });
}
