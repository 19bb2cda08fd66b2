/**
 * `Expect: 100-continue` decided by the route instead of by Node. Without a 'checkContinue'
 * listener Node answers 100 at once, so a client would send a whole firmware image only to be told
 * 415/413/409 afterwards. With this listener, requests for the chosen paths reach Fastify *without*
 * the 100: their hooks validate the headers first, and the handler calls `sendContinue` once it
 * will read the body. Every other request gets its 100 immediately, as before.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface ContinueGate {
  /** The handler accepts the body: send the interim 100 now (no-op if the client did not ask). */
  sendContinue(request: FastifyRequest, reply: FastifyReply): void;
  /** The client is waiting for a 100 it has not been sent, so it will not send the body. */
  awaitingContinue(request: FastifyRequest): boolean;
}

function pathOf(url: string | undefined): string {
  try {
    // Absolute-form targets (a client behind a proxy) carry their own origin; the base covers origin-form.
    return new URL(url ?? '/', 'http://sensor').pathname;
  } catch {
    return '';
  }
}

export function deferContinue(server: Server, deferred: (method: string, path: string) => boolean): ContinueGate {
  const waiting = new WeakSet<IncomingMessage>();
  server.on('checkContinue', (req, res) => {
    if (deferred(req.method ?? '', pathOf(req.url))) waiting.add(req);
    else res.writeContinue();
    server.emit('request', req, res);
  });
  return {
    sendContinue(request, reply) {
      if (!waiting.delete(request.raw)) return;
      reply.raw.writeContinue();
    },
    awaitingContinue: (request) => waiting.has(request.raw),
  };
}
