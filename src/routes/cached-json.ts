/**
 * Replies with JSON text made ahead: a document that does not change between requests, sent as its
 * once-serialized text, or a body composed from cached parts. Fastify sends a string as it is.
 */
import type { FastifyReply } from 'fastify';
import { jsonTextOf } from '../util/json-text.js';

export function sendJsonText(reply: FastifyReply, text: string): FastifyReply {
  return reply.type('application/json').send(text);
}

export function sendCachedJson(reply: FastifyReply, document: object): FastifyReply {
  return sendJsonText(reply, jsonTextOf(document));
}
