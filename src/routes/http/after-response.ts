import type { FastifyReply } from 'fastify';

/**
 * Runs `action` once the response has been written, so the client gets its answer before the unit
 * restarts or resets its network (the spec's "after a sub-second delay").
 */
export function afterResponse(reply: FastifyReply, action: () => Promise<unknown> | void): void {
  reply.raw.once('finish', () => {
    setImmediate(() => {
      Promise.resolve()
        .then(action)
        .catch((error: unknown) => reply.log.error({ err: error, reqId: reply.request.id }, 'deferred action failed'));
    });
  });
}
