import { describe, expect, it } from 'vitest';
import { classifyOpenError, classifySendError } from '../../src/udp/worker/stream-alerts.js';

describe('socket errors → alerts', () => {
  it('maps send errors: refusal (ICMP port unreachable), path down, anything else closes the socket', () => {
    expect(classifySendError('ECONNREFUSED')).toBe('refused');
    for (const code of ['ENETUNREACH', 'EHOSTUNREACH', 'ENETDOWN', 'ENOBUFS'])
      expect(classifySendError(code)).toBe('sendFailed');
    for (const code of ['EMSGSIZE', 'EBADF', undefined]) expect(classifySendError(code)).toBe('socketClosed');
  });

  it('maps open errors: name resolution, no route from the bound address, and the socket itself', () => {
    expect(classifyOpenError('ENOTFOUND', 'getaddrinfo')).toBe('unresolved');
    expect(classifyOpenError('EAI_AGAIN', 'getaddrinfo')).toBe('unresolved');
    expect(classifyOpenError('EINVAL', 'connect')).toBe('unreachable');
    expect(classifyOpenError('ENETUNREACH', 'connect')).toBe('unreachable');
    expect(classifyOpenError('EADDRNOTAVAIL', 'bind')).toBe('openFailed');
    expect(classifyOpenError('EMFILE', 'socket')).toBe('openFailed');
  });
});
