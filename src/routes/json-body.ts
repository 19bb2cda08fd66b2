/**
 * Request body parsing. Bodies are JSON, including a bare JSON scalar ("STANDBY", 100). An empty
 * body is `undefined`, so endpoints without a body (restart) accept a JSON Content-Type with no
 * content. Keys `__proto__` and `constructor.prototype` are refused, never merged.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { badRequest, unsupportedMediaType } from '../errors.js';

export function parseJsonText(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const message = (error as Error).message;
    if (/prototype|constructor/i.test(message)) throw badRequest('the body holds a "__proto__" or "constructor.prototype" key, which is refused');
    throw badRequest(`the body is not valid JSON: ${message}`);
  }
}

/**
 * JSON for `application/json` and `+json` types; every other type is read as JSON too, because
 * clients such as `curl -d` send form types for JSON scalars (the spec leaves Content-Type open
 * except where a route requires it with `requireJsonContentType`).
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  const parse = (_request: FastifyRequest, body: string, done: (err: Error | null, body?: unknown) => void) => {
    try {
      done(null, parseJsonText(body));
    } catch (error) {
      done(error as Error);
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parse);
  app.addContentTypeParser('*', { parseAs: 'string' }, parse);
}

/** Routes whose spec requires `Content-Type: application/json` (configuration PUT). */
export function requireJsonContentType(request: FastifyRequest): void {
  const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') {
    throw unsupportedMediaType(`this endpoint requires Content-Type: application/json; got ${type ? JSON.stringify(type) : 'none'}`);
  }
}
