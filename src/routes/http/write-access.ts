/**
 * `--allow-writes-from`: every request that can change the unit, from a peer outside the allowed
 * networks, is answered 403 before its body is read or any handler runs; reads stay open, as on a
 * real unit. A request can change the unit when its method is not a safe one (RFC 9110 §9.2.1) or
 * its route says so (`config: { changesUnit: true }`: the legacy GET setters under cmd/).
 * The peer is the TCP peer: a forwarded-for header is the client's claim, not an address.
 */
import type { FastifyInstance } from 'fastify';
import { forbidden } from '../../model/index.js';
import type { AddressList } from '../../model/index.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A GET (or other safe method) that changes the unit anyway: the legacy cmd/ setters. */
    changesUnit?: boolean;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function changesUnit(method: string, config: { changesUnit?: boolean } | undefined): boolean {
  return !SAFE_METHODS.has(method) || config?.changesUnit === true;
}

export function installWriteAccess(app: FastifyInstance, allowed: AddressList): void {
  // Callback style: it runs on every request, and an async hook costs a promise each time.
  app.addHook('onRequest', (request, _reply, done) => {
    const peer = request.socket.remoteAddress;
    if (!changesUnit(request.method, request.routeOptions.config) || allowed.includes(peer)) return done();
    done(
      forbidden(
        `${peer ?? 'this client'} may not change this unit: changes are accepted only from ${allowed.text} (--allow-writes-from); reading stays open`,
      ),
    );
  });
}
