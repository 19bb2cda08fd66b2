/** Sends a document that does not change between requests as its once-serialized JSON text. */
import type { FastifyReply } from 'fastify';
import { jsonTextOf } from '../util/json-text.js';

export function sendCachedJson(reply: FastifyReply, document: object): FastifyReply {
  return reply.type('application/json').send(jsonTextOf(document));
}
