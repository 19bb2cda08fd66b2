/**
 * Sends a document that does not change between requests as its once-encoded JSON bytes. A Buffer,
 * not a string: Fastify then neither parses the content type nor appends a charset (which the
 * onSend hook would strip again), and Node writes the bytes without encoding them per request.
 */
import type { FastifyReply } from 'fastify';

// Keyed by identity: a document given here must never be mutated afterwards (make it frozen or Readonly), or the
// bytes sent would no longer be its JSON. Callers pass documents that are replaced, not changed, when they change.
const bytes = new WeakMap<object, Buffer>();

export function sendCachedJson(reply: FastifyReply, document: object): FastifyReply {
  return sendJsonBytes(reply, cachedJsonBytes(document));
}

/** The once-encoded JSON bytes of `document` (what sendCachedJson sends; prepared-answers.ts sends them too). */
export function cachedJsonBytes(document: object): Buffer {
  let body = bytes.get(document);
  if (body === undefined) {
    body = Buffer.from(JSON.stringify(document));
    bytes.set(document, body);
  }
  return body;
}

/** JSON text made per request, sent the same cheap way. */
export function sendJsonText(reply: FastifyReply, text: string): FastifyReply {
  return sendJsonBytes(reply, Buffer.from(text));
}

/** JSON already encoded. */
export function sendJsonBytes(reply: FastifyReply, body: Buffer): FastifyReply {
  return reply.type('application/json').send(body);
}
