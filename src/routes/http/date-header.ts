/**
 * The `Date` header of the unit's answers, the unit's own (model/util/utc-time.ts `httpDate`: Node's
 * text, made without the local time-zone lookup with which Node's would load ICU's time-zone data).
 * Answers written around Fastify (a hijacked reply) keep Node's own.
 */
import type { FastifyInstance } from 'fastify';
import { httpDate } from '../../model/index.js';

/** Every answer Fastify sends carries our Date header instead of Node's. */
export function installDateHeader(app: FastifyInstance): void {
  // Callback style: it runs for every answer (an async hook costs a promise each time).
  app.addHook('onSend', (_request, reply, payload, done) => {
    // Node writes no Date header of its own when the answer has one (and so never formats one).
    reply.header('date', httpDate());
    done(null, payload);
  });
}
