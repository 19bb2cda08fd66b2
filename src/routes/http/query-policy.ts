/**
 * One query-parameter policy on every route of the API: a parameter the route does not document is
 * refused with a 400 naming it (pointer `/query/<name>`), before the handler runs, so a typo such as
 * `?persit=true` never silently drops from a request that changes something, and reads answer the same
 * way. Routes that declare no query string get an empty one, which the document then shows.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';

const NO_QUERY = Type.Object({}, { additionalProperties: false });

/** Must be installed before the route plugins (and before the OpenAPI route collector) register. */
export function refuseUnknownQueryParameters(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/') || route.schema?.hide) return;
    if (route.schema?.querystring) return;
    route.schema = { ...route.schema, querystring: NO_QUERY };
  });
}
