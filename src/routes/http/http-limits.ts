/**
 * Limits that keep one client from stalling the unit: every request finishes or is cut within a
 * stated time, and the number of open connections is capped with a clear refusal rather than
 * starvation. Numbers are `--headers-timeout` … `--max-connections` (docs/limits.md, one table).
 *
 * - Headers must arrive within `headersTimeoutMs` (Node's own check, answered by client-error.ts).
 * - The body of an ordinary request must arrive within `requestTimeoutMs` of its headers: 408, close.
 * - A firmware upload may take as long as it needs, but never sits idle (no bytes) longer than
 *   `uploadIdleTimeoutMs`: the connection is cut, the upload fails, its lock and partial slot go.
 * - A body (upload or not) must keep arriving at `bodyMinRate` / `uploadMinRate` bytes per second
 *   after a grace of `bodyGraceMs` (body-rate.ts): a stalled body is cut in seconds.
 * - Connection slots (connection-policy.ts): at most `maxConnectionsPerAddress` per peer address and
 *   `maxConnections` in all; idle keep-alive connections are closed, oldest first, to admit new ones;
 *   only when every slot in the way is busy does a connection get 503 + Retry-After on its first
 *   request, then close. Far above the cap (a flood) the kernel's backlog and Node's own cap refuse.
 * - An error answered before the body was read closes the connection (no half-read keep-alive).
 * - A client that takes none of the bytes waiting for it for `stallTimeoutMs` (a live view on a laptop gone to
 *   sleep, a download nobody reads) is cut (stalled-writes.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, unavailable, unsupportedMediaType } from '../../model/index.js';
import { sendProblem } from './problem.js';
import { BodyRateWatch } from './body-rate.js';
import { ConnectionPolicy } from './connection-policy.js';
import { StalledWriteWatch } from './stalled-writes.js';

export interface HttpLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  uploadIdleTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  /** Connections one peer address may hold (nginx `limit_conn` per address). */
  maxConnectionsPerAddress: number;
  /** Bytes per second a request body must average over each window after the grace. */
  bodyMinRate: number;
  /** The same for a firmware upload. */
  uploadMinRate: number;
  /** Grace after a request's headers before its body's rate is checked, and the length of each window. */
  bodyGraceMs: number;
  /** How long a client may take none of the bytes waiting for it before its connection is cut (stalled-writes.ts). */
  stallTimeoutMs: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  uploadIdleTimeoutMs: 20_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 256,
  maxConnectionsPerAddress: 32,
  bodyMinRate: 1024,
  uploadMinRate: 16 * 1024,
  bodyGraceMs: 2_000,
  stallTimeoutMs: 15_000,
};

/** What the HTTP layer hands back for the unit's life cycle (a reboot closes every connection). */
export interface HttpConnections {
  policy: ConnectionPolicy;
  bodyRate: BodyRateWatch;
  stalled: StalledWriteWatch;
}

/** Connections beyond the cap that still get a 503 answer; above that Node closes them unanswered. */
const ANSWERED_EXCESS_CONNECTIONS = 64;

/** Requests whose body is streamed for as long as it takes (idle timeout instead of a whole-request one). */
const UPLOAD_PATHS = new Set(['/api/v1/system/firmware']);

function pathOf(url: string | undefined): string {
  try {
    return new URL(url ?? '/', 'http://sensor').pathname;
  } catch {
    return '';
  }
}

export function isUploadRequest(request: FastifyRequest): boolean {
  return request.raw.method === 'POST' && UPLOAD_PATHS.has(pathOf(request.raw.url));
}

export function hasBody(request: FastifyRequest): boolean {
  const headers = request.raw.headers;
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

function ignoreError(): void {
  // The request is being cut on purpose; its late 'aborted' error is expected.
}

/** Stops Fastify's body reader (so it will not answer again) and answers 408 with Connection: close. */
function cutSlowBody(request: FastifyRequest, reply: FastifyReply): void {
  const raw = request.raw;
  for (const event of ['data', 'end', 'error'] as const) raw.removeAllListeners(event);
  raw.on('error', ignoreError);
  sendProblem(
    reply,
    new ApiError('request-timeout', 'the request body did not arrive in time; the connection is closed'),
  );
}

export function installHttpLimits(app: FastifyInstance, limits: HttpLimits): HttpConnections {
  const server = app.server;
  setServerTimeouts(server, limits);
  const bodyRate = new BodyRateWatch(Math.max(50, Math.min(250, Math.floor(limits.bodyGraceMs / 4))));
  const policy = new ConnectionPolicy(
    server,
    {
      maxConnections: limits.maxConnections,
      maxPerAddress: Math.min(limits.maxConnectionsPerAddress, limits.maxConnections),
    },
    (socket) => bodyRate.reclaim(socket),
  );
  const stalled = new StalledWriteWatch(() => policy.sockets, limits.stallTimeoutMs);
  app.addHook('onClose', (_app, done) => {
    bodyRate.close();
    stalled.close();
    done();
  });
  // The hook below answers a socket refused a slot, and looks at every request that announces a body (even an
  // empty one) or a client waiting to send one.
  app.preparedAnswers?.leaveToRoutesWhen(({ socket, headers }) => {
    if (policy.isExcess(socket)) return true;
    return (
      headers['content-length'] !== undefined ||
      headers['transfer-encoding'] !== undefined ||
      headers.expect !== undefined
    );
  });

  app.addHook('onRequest', (request, reply, done) => {
    if (policy.isExcess(request.raw.socket)) {
      reply.header('connection', 'close');
      done(
        unavailable(
          `the unit is serving ${limits.maxConnections} connections, its limit (${limits.maxConnectionsPerAddress} per address), all busy; try again shortly`,
        ),
      );
      return;
    }
    if (!hasBody(request)) return done();
    const refusal = encodingRefusal(request);
    if (refusal) return done(refusal);
    watchBodyArrival(request, reply, limits, bodyRate);
    done();
  });

  // An answer sent before the whole body was read (an early 4xx) ends the connection: what is
  // left of the body would otherwise be read as the next request, or never read at all.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (hasBody(request) && !request.raw.complete) reply.header('connection', 'close');
    done(null, payload);
  });
  return { policy, bodyRate, stalled };
}

/** Node's own timeouts and connection cap (the body deadline and the slots are the hooks' work). */
function setServerTimeouts(server: FastifyInstance['server'], limits: HttpLimits): void {
  server.headersTimeout = limits.headersTimeoutMs;
  // Fastify leaves Node's whole-request timeout off; the body deadline below replaces it per route.
  server.requestTimeout = 0;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  // How often Node looks for expired headers (read when listening starts).
  (server as typeof server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.max(
    50,
    Math.min(1000, Math.floor(limits.headersTimeoutMs / 4)),
  );
  server.maxConnections = limits.maxConnections + ANSWERED_EXCESS_CONNECTIONS;
}

/** A body in a Content-Encoding the unit does not decode is refused before it is read. */
function encodingRefusal(request: FastifyRequest): ApiError | undefined {
  const encoding = request.headers['content-encoding'];
  if (encoding === undefined || encoding.trim().toLowerCase() === 'identity') return undefined;
  return unsupportedMediaType(
    `Content-Encoding ${JSON.stringify(encoding.slice(0, 64))} is not decoded here; send the body unencoded`,
  );
}

/**
 * A firmware upload may take as long as it needs but never sits idle, and keeps a minimum rate; any other body
 * keeps a minimum rate and arrives whole within the request timeout, or is answered 408 and the connection closed.
 */
function watchBodyArrival(request: FastifyRequest, reply: FastifyReply, limits: HttpLimits, bodyRate: BodyRateWatch) {
  const socket = request.raw.socket;
  if (isUploadRequest(request)) {
    // Idle, not total: a large image on a slow link is fine as long as bytes keep coming.
    // (An injected request, in tests, has no real socket to time.)
    if (typeof socket?.setTimeout === 'function') {
      socket.setTimeout(limits.uploadIdleTimeoutMs, () => socket.destroy());
      request.raw.once('end', () => socket.setTimeout(0));
    }
    // Too slow: the connection is cut, so the upload fails and releases its lock and partial slot.
    bodyRate.watch(
      request.raw,
      reply.raw,
      { minBytesPerSecond: limits.uploadMinRate, windowMs: limits.bodyGraceMs },
      () => socket.destroy(),
    );
    return;
  }
  const cut = () => {
    if (reply.sent) return;
    reply.header('connection', 'close');
    cutSlowBody(request, reply);
  };
  // The whole-body deadline rides on the rate watch's one timer (no timer per request).
  bodyRate.watch(
    request.raw,
    reply.raw,
    { minBytesPerSecond: limits.bodyMinRate, windowMs: limits.bodyGraceMs },
    cut,
    limits.requestTimeoutMs,
  );
}
