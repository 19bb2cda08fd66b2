/**
 * Requests Node's parser refuses before Fastify sees them (an unknown method, a malformed request
 * line or header, headers too large or too slow) get the project's problem body, a status that
 * says why and `Connection: close` (the socket is closed after it), instead of Node's or Fastify's
 * own shapes. The answer is written on the socket directly: there is no request object.
 */
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError, type ProblemType } from '../../model/index.js';
import { problemBody } from './problem.js';

function classify(error: NodeJS.ErrnoException): [ProblemType, string] {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return ['headers-too-large', 'the request headers are larger than this unit accepts (16 KB)'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return ['request-timeout', 'the request headers did not arrive in time; the connection is closed'];
    case 'HPE_INVALID_METHOD':
      return ['bad-request', 'unknown request method'];
    case 'HPE_INVALID_URL':
      return ['bad-request', 'malformed request target'];
    default:
      return ['bad-request', `malformed HTTP request (${String(error.code ?? 'parse error')})`];
  }
}

/** The parser's bytes begin with `HEAD `: the answer has headers only (RFC 9110 §9.3.2). */
function isHeadRequest(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): boolean {
  return error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
}

export function clientErrorResponse(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): string {
  const [type, detail] = classify(error);
  const problem = new ApiError(type, detail);
  const body = JSON.stringify(problemBody(problem));
  return [
    `HTTP/1.1 ${problem.status} ${problem.title}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    isHeadRequest(error) ? '' : body,
  ].join('\r\n');
}

export function installClientErrorHandler(server: Server): void {
  // Replaces Fastify's handler (a `{"error":…}` body without Connection: close).
  server.removeAllListeners('clientError');
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    // Bytes after a complete request (e.g. a body sent without Content-Length) fail to parse while
    // that request's answer may still be on its way: answer in order, the earlier request first.
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    const answer = () => {
      if (socket.writable) socket.end(clientErrorResponse(error));
      else socket.destroy();
    };
    if (inFlight && !inFlight.writableFinished) {
      inFlight.once('finish', answer);
      inFlight.once('close', () => socket.destroy());
    } else {
      answer();
    }
  });
}
