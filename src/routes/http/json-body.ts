/**
 * Request body parsing. Bodies are JSON, including a bare JSON scalar ("STANDBY", 100). An empty
 * body is `undefined`, so endpoints without a body (restart) accept a JSON Content-Type with no
 * content. Keys `__proto__` and `constructor.prototype` are refused, never merged.
 */
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { badRequest, unsupportedMediaType } from '../../model/index.js';

/** No body of this interface nests deeper than a few levels; parsing 100,000 levels costs the heap dearly. */
export const MAX_JSON_DEPTH = 64;

/** Deepest nesting of arrays and objects in JSON text (brackets inside strings do not count). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

export function parseJsonText(text: string): unknown {
  if (text.trim() === '') return undefined;
  // Checked before parsing, so the heap never holds the nested structure.
  if (text.length > MAX_JSON_DEPTH * 2 && jsonDepth(text) > MAX_JSON_DEPTH) {
    throw badRequest(`the body nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const message = (error as Error).message;
    if (/prototype|constructor/i.test(message))
      throw badRequest('the body holds a "__proto__" or "constructor.prototype" key, which is refused');
    throw badRequest(`the body is not valid JSON: ${message}`);
  }
}

/** The `charset` parameter of a Content-Type, lower-cased; undefined when there is none. */
function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType ?? '');
  return match ? match[1].toLowerCase() : undefined;
}

/**
 * JSON is UTF-8 (RFC 8259): another declared charset is 415, bytes that are not UTF-8 are 400
 * (decoding them would silently store U+FFFD in their place).
 */
export function decodeJsonBody(contentType: string | undefined, body: Buffer): string {
  const charset = charsetOf(contentType);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw unsupportedMediaType(
      `JSON bodies are UTF-8; charset ${JSON.stringify(charset.slice(0, 32))} is not accepted`,
    );
  }
  if (!isUtf8(body)) throw badRequest('the body is not valid UTF-8 (binary data is refused)');
  return body.toString('utf8');
}

/**
 * JSON for `application/json` and `+json` types; every other type is read as JSON too, because
 * clients such as `curl -d` send form types for JSON scalars (the spec leaves Content-Type open
 * except where a route's body schema is declared `jsonContentTypeOnly`, which the validator enforces with
 * `requireJsonContentType`).
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const parse = (request: FastifyRequest, body: Buffer, done: (err: Error | null, body?: unknown) => void) => {
    try {
      done(null, parseJsonText(decodeJsonBody(request.headers['content-type'], body)));
    } catch (error) {
      done(error as Error);
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parse);
  app.addContentTypeParser('*', { parseAs: 'buffer' }, parse);
}

/** A body declared `jsonContentTypeOnly` (configuration PUT, speed override): 415 under any other Content-Type. */
export function requireJsonContentType(request: FastifyRequest): void {
  const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') {
    throw unsupportedMediaType(
      `this endpoint requires Content-Type: application/json; got ${type ? JSON.stringify(type) : 'none'}`,
    );
  }
}
