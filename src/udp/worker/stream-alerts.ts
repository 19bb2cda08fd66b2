/**
 * Which socket errors raise which alert of a stream (the ids, StreamAlertIds, come with the plan:
 * ../contract/alert-ids.ts).
 */
/** Errors that mean "this datagram could not leave": the path is down, the socket is still fine. */
const PATH_ERRORS = new Set([
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'EADDRNOTAVAIL',
  'ENOBUFS',
  'EPERM',
  'EACCES',
]);

export type SendProblem = 'refused' | 'sendFailed' | 'socketClosed';

export function classifySendError(code: string | undefined): SendProblem {
  if (code === 'ECONNREFUSED') return 'refused';
  if (code && PATH_ERRORS.has(code)) return 'sendFailed';
  return 'socketClosed';
}

/** Errors of connect() that mean the destination cannot be routed to from the bound address. */
const UNREACHABLE_ON_CONNECT = new Set(['ENETUNREACH', 'EHOSTUNREACH', 'EINVAL', 'EADDRNOTAVAIL', 'ENETDOWN']);

/** @param syscall the failing call: a bind() failure is the socket's own, whatever its code. */
export function classifyOpenError(
  code: string | undefined,
  syscall?: string,
): 'unresolved' | 'unreachable' | 'openFailed' {
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NODATA') return 'unresolved';
  if (syscall !== 'bind' && code && UNREACHABLE_ON_CONNECT.has(code)) return 'unreachable';
  return 'openFailed';
}
