/**
 * Prepared answers: the documents pollers ask for most (`GET /api/v1/sensor/config`, the metadata,
 * the alert log, `GET /api/v1/time`) answered on the server's 'request' event, before Fastify routes
 * the request. A plain request for one of them costs the bytes' write and a metric, not a Fastify request,
 * reply, hook chain and schema check (docs/benchmarks.md, http).
 *
 * One registration, one set of conditions:
 * - **The route that owns the document declares it**, in its options: `config: { preparedAnswer }`, a
 *   function giving the plain request's bytes when they are at hand (undefined: not now; an ApiError: the
 *   answer is an error). The same function answers the plain request when it does reach the route (the
 *   route's handler is wrapped), so the two paths cannot send different bytes.
 * - **Every hook that could act on a plain GET declares when it would**, where it is installed:
 *   `leaveToRoutesWhen(condition)` (a connection refused a slot, a body or `Expect`, an HTTP fault rule, a
 *   unit restarting, a request log that logs every request). Such a request goes to Fastify.
 *
 * What stays here is what "plain" means: a GET of the exact path (no query string, absolute form or
 * trailing slash), while the app is ready and not closing. The answer is byte for byte what Fastify sends:
 * status 200, `content-type: application/json`, `date` (the unit's own, date-header.ts), `content-length`,
 * and what Node adds to both (keep-alive). Every request answered here is counted in `/metrics` as the route
 * counts it (method, route pattern, status, time to answer). `inject()` (the tests' in-process requests)
 * calls Fastify's handler directly and never comes here; the end-to-end tests and the bench do.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sendJsonBytes } from './cached-json.js';
import { httpDate } from '../../model/index.js';
import type { RequestObserver } from '../metrics/request-stats.js';

/** The answer's body, or undefined to leave the request to the route (it then answers or explains). */
export type PreparedBody = () => Buffer | undefined;

/** When a hook would act on a request (cheap checks only, asked per request): true leaves it to Fastify. */
export type RouteCondition = (req: IncomingMessage) => boolean;

declare module 'fastify' {
  interface FastifyInstance {
    /** The early answers of src/routes/http/prepared-answers.ts; absent on an app not built by buildApp. */
    preparedAnswers?: PreparedAnswers;
  }
  interface FastifyContextConfig {
    /** A GET route's plain answer (no query string), served before routing as well (prepared-answers.ts). */
    preparedAnswer?: PreparedBody;
  }
}

export class PreparedAnswers {
  private readonly bodies = new Map<string, PreparedBody>();
  private readonly conditions: RouteCondition[] = [];
  private observe: RequestObserver | undefined;
  private closing = false;
  /** Requests answered here since start (tests and diagnostics; /metrics counts them by route). */
  answered = 0;

  /** Serves GET `path` (exact, no query) with `body()`'s bytes whenever no hook would act. */
  add(path: string, body: PreparedBody): void {
    this.bodies.set(path, body);
  }

  /** The paths answered here: one per route that declares a `preparedAnswer`. */
  paths(): string[] {
    return [...this.bodies.keys()];
  }

  /** A hook that would act on a request when `condition` holds: such requests go to Fastify. */
  leaveToRoutesWhen(condition: RouteCondition): void {
    this.conditions.push(condition);
  }

  /** Starts answering, counting each answer with `observe`, once the app is ready. */
  start(observe: RequestObserver): void {
    this.observe = observe;
  }

  /** The app is closing: Fastify answers from now on (503 with `Connection: close`). */
  stop(): void {
    this.closing = true;
  }

  /** Answers `req` if it is a plain request for a prepared document; false leaves it to Fastify. */
  answer(req: IncomingMessage, res: ServerResponse): boolean {
    const observe = this.observe;
    if (observe === undefined || this.closing || req.method !== 'GET') return false;
    const path = req.url as string;
    const body = this.bodies.get(path);
    if (body === undefined) return false;
    for (const condition of this.conditions) if (condition(req)) return false;
    const start = performance.now();
    let bytes: Buffer | undefined;
    try {
      bytes = body();
    } catch {
      return false;
    }
    if (bytes === undefined) return false;
    // The header names, their order and case as Fastify writes a Buffer sent with reply.type(), our Date
    // header included (date-header.ts).
    res.writeHead(200, [
      'content-type',
      'application/json',
      'date',
      httpDate(),
      'content-length',
      String(bytes.length),
    ]);
    res.end(bytes);
    this.answered++;
    observe('GET', path, 200, (performance.now() - start) / 1000);
    return true;
  }
}

/** Whether a request has no query parameter (the plain request a prepared answer stands for). */
function hasNoQuery(request: FastifyRequest): boolean {
  for (const _ in request.query as object) return false;
  return true;
}

/**
 * Puts the prepared answers in front of Fastify's request handler on `app`'s server, and takes each
 * route's `preparedAnswer` as it is declared. Call right after creating the app (before anything else
 * listens to 'request' and before any route), so the listeners keep their order.
 */
export function installPreparedAnswers(app: FastifyInstance): PreparedAnswers {
  const prepared = new PreparedAnswers();
  app.addHook('onRoute', (route) => {
    const body = route.config?.preparedAnswer;
    if (body === undefined) return;
    if (route.method === 'GET') prepared.add(route.url, body);
    const own = route.handler;
    route.handler = function plainOrOwn(request, reply) {
      if (hasNoQuery(request)) {
        const bytes = body();
        if (bytes !== undefined) {
          sendJsonBytes(reply, bytes);
          return;
        }
      }
      return own.call(this, request, reply);
    };
  });
  const server = app.server;
  const [routing, ...others] = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  if (routing === undefined || others.length > 0)
    throw new Error('installPreparedAnswers: expected Fastify to be the only request listener');
  server.removeListener('request', routing);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!prepared.answer(req, res)) routing(req, res);
  });
  app.decorate('preparedAnswers', prepared);
  // Registered first, so it runs before any other preClose hook and right after Fastify marks itself closing.
  app.addHook('preClose', (done) => {
    prepared.stop();
    done();
  });
  return prepared;
}
