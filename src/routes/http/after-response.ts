import type { FastifyReply } from 'fastify';

/**
 * Runs `action` once the response has been written, so the client gets its answer before the unit
 * restarts or resets its network (the spec's "after a sub-second delay"). Also when the client went away
 * before its answer was written: what was acknowledged happens all the same (a restart announced and never
 * run would leave the unit refusing changes for good).
 */
export function afterResponse(reply: FastifyReply, action: () => Promise<unknown> | void): void {
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    setImmediate(() => {
      Promise.resolve()
        .then(action)
        .catch((error: unknown) => reply.log.error({ err: error, reqId: reply.request.id }, 'deferred action failed'));
    });
  };
  if (reply.raw.closed || reply.raw.writableFinished) {
    run();
    return;
  }
  reply.raw.once('finish', run);
  reply.raw.once('close', run);
}
