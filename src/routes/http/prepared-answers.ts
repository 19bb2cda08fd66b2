/**
 * Prepared answers: the documents pollers ask for most (`GET /api/v1/sensor/config`, the metadata,
 * the alert log, `GET /api/v1/time`) answered on the server's 'request' event, before Fastify routes
 * the request, from the bytes the route itself sends (the same identity caches: a frozen configuration,
 * a metadata document per initialization, an alert-log snapshot, the time document's frame). A plain
 * request for one of them costs the bytes' write and a metric, not a Fastify request, reply, hook
 * chain and schema check, which were about half of such a request's CPU (docs/benchmarks.md, http).
 *
 * The answer is byte for byte what the route answers: status 200, `content-type: application/json`,
 * `date` (the unit's own, date-header.ts), `content-length`, and what Node adds to both (keep-alive).
 * Only the plainest request takes this path; anything that a hook of src/routes/http could act on goes
 * to Fastify:
 *
 * - a method other than GET, a target other than the exact path (a query string, absolute form,
 *   a trailing slash), a body (`content-length` or `transfer-encoding`) or an `Expect` header;
 * - a connection refused a slot (connection-policy.ts: its first request is answered 503);
 * - any HTTP fault rule (http-faults.ts), a unit restarting (`assertReachable`: 503);
 * - a logger that logs every request (request-log.ts at debug or trace);
 * - the app closing (Fastify answers 503 with `Connection: close`), or not ready yet;
 * - a document that cannot be had at once (metadata while the unit is not running: 409 from the
 *   route; the time document while a PTP or tracking reading is under way).
 *
 * Every request answered here is counted in `/metrics` as the route counts it (method, route
 * pattern, status, time to answer). `inject()` (the tests' in-process requests) calls Fastify's
 * handler directly and never comes here; the end-to-end tests and the bench do.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { httpDate } from '../../model/index.js';
import type { RequestObserver } from '../metrics/request-stats.js';

/** The answer's body, or undefined to leave the request to the route (it then answers or explains). */
export type PreparedBody = () => Buffer | undefined;

/** Why a request may not be answered here, asked per request (cheap checks only). */
export interface PreparedGates {
  /** The socket was refused a slot (its first request must be the 503 of http-limits.ts). */
  isExcess(socket: IncomingMessage['socket']): boolean;
  /** Fault injection's HTTP rules (absent without a fault plane). */
  faultRules?: { readonly httpRules: readonly unknown[] };
  /** Throws while the unit restarts (the sensor's own check, as the sensor API's onRequest hook runs it). */
  assertReachable(): void;
  /** True when the request log writes a line per request. */
  logsEveryRequest(): boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The early answers of src/routes/http/prepared-answers.ts; absent on an app not built by buildApp. */
    preparedAnswers?: PreparedAnswers;
  }
}

export class PreparedAnswers {
  private readonly bodies = new Map<string, PreparedBody>();
  private observe: RequestObserver | undefined;
  private closing = false;
  /** Requests answered here since start (tests and diagnostics; /metrics counts them by route). */
  answered = 0;

  constructor(private readonly gates: PreparedGates) {}

  /** Serves GET `path` (exact, no query) with `body()`'s bytes whenever the gates allow. */
  add(path: string, body: PreparedBody): void {
    this.bodies.set(path, body);
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
    const headers = req.headers;
    if (
      headers['content-length'] !== undefined ||
      headers['transfer-encoding'] !== undefined ||
      headers.expect !== undefined
    )
      return false;
    const gates = this.gates;
    if (gates.isExcess(req.socket) || (gates.faultRules !== undefined && gates.faultRules.httpRules.length > 0))
      return false;
    if (gates.logsEveryRequest()) return false;
    const start = performance.now();
    let bytes: Buffer | undefined;
    try {
      gates.assertReachable();
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

/**
 * Puts the prepared answers in front of Fastify's request handler on `app`'s server. Call right after
 * creating the app (before anything else listens to 'request'), so the listeners keep their order.
 */
export function installPreparedAnswers(app: FastifyInstance, gates: PreparedGates): PreparedAnswers {
  const prepared = new PreparedAnswers(gates);
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
